// `simulate FILE --serve` and the files it leaves for the operator: a credentials file both AWS CLI
// versions read (v1 reads only AWS_DEFAULT_REGION), hints that run from the project's directory
// (`npx ec2-node-reconciler`), and no credentials or token left behind when it is stopped, by
// Ctrl-C or by SIGTERM.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serveScenario } from '../support/served.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const SMALL = join(ROOT, 'test/scenarios/in-sync-nothing-to-do.yaml');

describe('simulate --serve, its files', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`should write files the operator's clients read, and remove them on ${signal}`, async () => {
      const served = await serveScenario(SMALL);
      const envFile = /^ {2}\. (\S+\.aws\.env) /m.exec(served.stdout)?.[1] ?? '';
      let stopped = false;
      try {
        expect(readFileSync(envFile, 'utf8')).toMatch(/ AWS_REGION=(\S+) AWS_DEFAULT_REGION=\1\n$/);
        expect(existsSync(served.kubeconfig)).toBe(true);
        expect(served.stdout).toContain('  npx ec2-node-reconciler sweep --kubeconfig');
        expect(served.stdout).toContain('  npx ec2-node-reconciler invoke --function');

        await served.stop(signal);
        stopped = true;

        expect(existsSync(envFile)).toBe(false);
        expect(existsSync(served.kubeconfig)).toBe(false);
      } finally {
        if (!stopped) await served.stop();
      }
    }, 150_000);
  }
});
