#!/usr/bin/env node
// Runs the TypeScript CLI directly (tsx), so the repository needs no build step to be used.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../lib/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
