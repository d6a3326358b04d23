// External oracles the AWS emulator is held to: the AWS CLI (a real client) and moto (an
// emulator written by others). Under CI=true a missing oracle fails the suite; elsewhere the
// suite is skipped with a loud message.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'vitest';
import { DEFAULT_CREDENTIALS } from '../../../src/aws/index.js';

const inCi = process.env.CI === 'true';

/**
 * Declares a suite that needs an oracle. When the oracle is missing, CI gets one failing test
 * naming what to install; a developer machine gets a skipped suite and a warning on stderr.
 */
export function describeWithOracle(name: string, missing: string | undefined, body: () => void): void {
  if (missing === undefined) {
    describe(name, body);
    return;
  }
  if (inCi) {
    describe(name, () => {
      it('should have its oracle installed (CI=true)', () => {
        throw new Error(`${missing} — .ci/tools.sh installs it`);
      });
    });
    return;
  }
  process.stderr.write(`\n!!! SKIPPING "${name}": ${missing}. Under CI=true this fails. !!!\n\n`);
  describe.skip(name, body);
}

export interface AwsCli {
  readonly path: string;
  /** `aws-cli/2.9.19 Python/3.11.2 …` */
  readonly version: string;
  readonly major: 1 | 2;
}

function probeCli(path: string): AwsCli | undefined {
  const probe = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 20_000 });
  if (probe.status !== 0) return undefined;
  const version = `${probe.stdout}${probe.stderr}`.trim();
  const major = /aws-cli\/(\d+)\./.exec(version)?.[1];
  return major === '1' || major === '2' ? { path, version, major: major === '2' ? 2 : 1 } : undefined;
}

/** The AWS CLI to test with: v2 from the Debian package at /usr/bin/aws, else whatever `aws` is on PATH (v1 here). */
export function findAwsCli(): AwsCli | undefined {
  const v2 = probeCli('/usr/bin/aws');
  return v2?.major === 2 ? v2 : (probeCli('aws') ?? v2);
}

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** Parsed stdout when it is JSON. */
  readonly json: unknown;
}

/** Runs one CLI command against an endpoint with the emulator's default credentials and no local config. */
export function runCli(
  cli: AwsCli,
  endpoint: string,
  args: readonly string[],
  region = 'us-east-1',
  /** More of the CLI's environment (AWS_MAX_ATTEMPTS, AWS_RETRY_MODE…). */
  extraEnv: Readonly<Record<string, string>> = {},
): Promise<CliResult> {
  const env: Record<string, string> = {
    ...extraEnv,
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    AWS_ACCESS_KEY_ID: DEFAULT_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: DEFAULT_CREDENTIALS.secretAccessKey,
    AWS_CONFIG_FILE: '/nonexistent/aws-config',
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/aws-credentials',
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_PAGER: '',
  };
  // pyenv shims (where AWS CLI v1 lives on these machines) need to find their root.
  if (process.env.PYENV_ROOT) env.PYENV_ROOT = process.env.PYENV_ROOT;
  const full = ['--endpoint-url', endpoint, '--region', region, '--output', 'json', ...args];
  return new Promise((resolve) => {
    execFile(cli.path, full, { env, encoding: 'utf8', timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      let json: unknown;
      try {
        json = stdout.trim() === '' ? undefined : (JSON.parse(stdout) as unknown);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}

/** Whether moto's server can be started by this Python. */
export function motoMissing(): string | undefined {
  const probe = spawnSync('python3', ['-c', 'import moto, moto.server; print(moto.__version__)'], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return probe.status === 0 ? undefined : 'moto is not importable by python3 (pip install "moto[server]")';
}

export function motoVersion(): string {
  return spawnSync('python3', ['-c', 'import moto; print(moto.__version__)'], { encoding: 'utf8' }).stdout.trim();
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface Moto {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/** Starts `python3 -m moto.server` on a free port and waits until it answers. */
export async function startMoto(): Promise<Moto> {
  const port = await freePort();
  const child: ChildProcess = spawn('python3', ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`moto exited (${child.exitCode}): ${stderr}`);
    try {
      const response = await fetch(`${endpoint}/moto-api/`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill();
      throw new Error(`moto did not answer on ${endpoint} within 30 s: ${stderr}`);
    }
    await sleep(100);
  }
  return {
    endpoint,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(5_000)]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
