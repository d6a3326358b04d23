// Vitest global setup: the tests that run bin/ec2-node-reconciler.mjs (test/cli/*) run the built CLI,
// built here from the sources as they are (the binary would run a stale build's sources through tsx).
import { buildCli } from '../../scripts/build-cli.js';

export default async function setup(): Promise<void> {
  await buildCli();
}
