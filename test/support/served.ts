// `ec2-node-reconciler simulate FILE --serve` as a separate process, the way an operator starts it,
// read back from what it prints: the kubeconfig, the AWS endpoint and credentials, the cluster and
// the drain workflow, for the real clients a test points at it.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = new URL('../..', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/ec2-node-reconciler.mjs');

export interface Served {
  readonly kubeconfig: string;
  readonly endpoint: string;
  /** The environment with the sandbox's AWS credentials and region. */
  readonly env: NodeJS.ProcessEnv;
  readonly cluster: string;
  /** The deployed drain workflow (the stack output DrainStateMachineArn). */
  readonly stateMachineArn: string;
  /** Everything the simulation printed up to serving (its report, then how to reach it). */
  readonly stdout: string;
  /** Stops the sandbox (Ctrl-C, or `signal`) and waits for the process to end. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `simulate FILE --serve` and resolves once it serves. */
export function serveScenario(file: string, options: { readonly timeoutMs?: number } = {}): Promise<Served> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  return new Promise((resolve, reject) => {
    const proc: ChildProcess = spawn(process.execPath, [BIN, 'simulate', file, '--serve'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const stop = async (signal: NodeJS.Signals = 'SIGINT'): Promise<void> => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((done) => proc.once('exit', () => done()));
      proc.kill(signal);
      await exited;
    };
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`the sandbox did not start serving within ${timeoutMs / 1000} s:\n${stdout}\n${stderr}`));
    }, timeoutMs);
    proc.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    proc.on('exit', (code) =>
      reject(new Error(`simulate --serve exited (${String(code)}) before serving:\n${stdout}\n${stderr}`)),
    );
    proc.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const envFile = /^ {2}\. (\S+\.aws\.env) /m.exec(stdout)?.[1];
      const exports =
        envFile === undefined
          ? null
          : /export AWS_ACCESS_KEY_ID=(\S+) AWS_SECRET_ACCESS_KEY=(\S+) AWS_REGION=(\S+)/.exec(
              readFileSync(envFile, 'utf8'),
            );
      const sweep =
        /ec2-node-reconciler sweep --kubeconfig (\S+) --cluster (\S+) --endpoint-url (\S+) --drain-state-machine (\S+)/.exec(
          stdout,
        );
      if (exports === null || sweep === null) return;
      clearTimeout(timer);
      resolve({
        kubeconfig: sweep[1] ?? '',
        cluster: sweep[2] ?? '',
        endpoint: sweep[3] ?? '',
        stateMachineArn: sweep[4] ?? '',
        env: {
          ...process.env,
          AWS_ACCESS_KEY_ID: exports[1],
          AWS_SECRET_ACCESS_KEY: exports[2],
          AWS_REGION: exports[3],
          AWS_DEFAULT_REGION: exports[3],
        },
        stdout,
        stop,
      });
    });
  });
}
