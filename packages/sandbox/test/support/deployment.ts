// The project's real stack, synthesized in a child process (bundling skipped) and read as the sandbox would
// deploy it. Several test files need it, so the template is kept on disk under a hash of the
// sources (src/deployment/synth.ts's) and of this helper: only the first file synthesizes.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { sourceHash } from '../../src/deployment/synth.js';
import { readDeployment, type Deployment, type DeploymentEnv } from '../../src/deployment/template.js';

export const ENV: DeploymentEnv = { stackName: 'Test', region: 'us-east-1', accountId: '123456789012' };

const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));
const CACHE = join(tmpdir(), 'ec2-node-reconciler-test-synth');

/**
 * The root's synth helper (test/infra/support/synth.ts), run by path: the sandbox reaches the
 * product's stack by its files, as src/deployment/synth.ts runs infra/app.ts, never by an import.
 */
async function synthesizeInChild(): Promise<unknown> {
  const helper = pathToFileURL(join(ROOT, 'test/infra/support/synth.ts')).href;
  const program = `const { synthesize } = await import(${JSON.stringify(helper)});
process.stdout.write(JSON.stringify(synthesize().template.toJSON()));`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '--eval', program],
    { cwd: ROOT, maxBuffer: 256 * 1024 * 1024 },
  );
  return JSON.parse(stdout) as unknown;
}

async function defaultTemplate(): Promise<unknown> {
  const helpers = await Promise.all(
    ['test/infra/support/synth.ts', 'packages/sandbox/test/support/deployment.ts'].map((file) =>
      readFile(join(ROOT, file), 'utf8'),
    ),
  );
  const file = join(CACHE, `${await sourceHash(ROOT, { helpers })}.json`);
  if (existsSync(file)) return JSON.parse(await readFile(file, 'utf8')) as unknown;
  const template = await synthesizeInChild();
  await mkdir(CACHE, { recursive: true });
  const staging = `${file}.${process.pid}.tmp`;
  await writeFile(staging, JSON.stringify(template));
  await rename(staging, file);
  return template;
}

let cached: Promise<{ template: unknown; deployment: Deployment }> | undefined;

/** The default reconciler's template (cluster `demo`) and its deployment in ENV. */
export function deployedStack(): Promise<{ template: unknown; deployment: Deployment }> {
  cached ??= defaultTemplate().then((template) => ({ template, deployment: readDeployment(template, ENV) }));
  return cached;
}

/** The one resource of a list whose logical id starts with `prefix`. */
export function byLogicalId<T extends { readonly logicalId: string }>(items: readonly T[], prefix: string): T {
  const found = items.filter((item) => item.logicalId.startsWith(prefix));
  const [first] = found;
  if (found.length !== 1 || !first)
    throw new Error(`expected one resource ${prefix}…, found ${found.map((f) => f.logicalId).join(', ') || 'none'}`);
  return first;
}
