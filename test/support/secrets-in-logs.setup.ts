// No secret in any log of the test run (vitest setupFiles: every test file of `npm test`). Captured,
// from the moment the file starts:
// - everything the test process writes to stdout and stderr (the in-process handlers' Powertools
//   logs, the CLI run in-process, the emulators) and every console call;
// - the log lines of every function invocation in the sandbox (its worker threads' output stays in
//   the function host: the sandbox publishes it, packages/sandbox/src/taps.ts);
// - the stdout and stderr of every subprocess a test starts through node:child_process (kubectl,
//   the AWS CLI, moto, the CLI binary, `simulate --serve`), as the test process receives it.
// Each chunk is scanned as it comes (test/support/secrets.ts) against the secrets' shapes and the
// exact values the sandbox issued; after the file's tests, any finding fails the file, naming it and
// each kind of secret and where it was seen — never the secret.
import { channel } from 'node:diagnostics_channel';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import type { Readable } from 'node:stream';
import { format, promisify } from 'node:util';
import { afterAll, expect } from 'vitest';
import { DEFAULT_CREDENTIALS } from '@ec2-node-reconciler/sandbox/aws/sigv4.js';
import {
  CREDENTIAL_ISSUED_CHANNEL,
  FUNCTION_LOGS_CHANNEL,
  type CredentialIssuedMessage,
  type FunctionLogsMessage,
} from '@ec2-node-reconciler/sandbox/taps.js';
import { SecretScanner, type KnownCredential, type SecretKind } from './secrets.js';

const known = new Map<string, KnownCredential>([[DEFAULT_CREDENTIALS.accessKeyId, DEFAULT_CREDENTIALS]]);
const findings = new Map<string, number>();
const scanners = new Map<string, SecretScanner>();
/** Set by a test that proves the check fires (test/support/secrets.test.ts): its findings are its own. */
export const secretsCheck = {
  /** Findings so far, by `kind (where)`. */
  findings: (): ReadonlyMap<string, number> => findings,
  /** Forgets the findings so far (after a test has looked at the ones it caused on purpose). */
  forget: (): void => findings.clear(),
};

function scan(where: string, chunk: unknown): void {
  if (chunk === undefined || chunk === null) return;
  const text =
    typeof chunk === 'string'
      ? chunk
      : chunk instanceof Uint8Array
        ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8')
        : format(chunk);
  if (text === '') return;
  let scanner = scanners.get(where);
  if (!scanner) {
    const record = (kind: SecretKind) => {
      const key = `${kind} (${where})`;
      findings.set(key, (findings.get(key) ?? 0) + 1);
    };
    scanners.set(where, (scanner = new SecretScanner(() => known.values(), record)));
  }
  scanner.write(text);
}

// The process's own streams.
for (const [name, stream] of [
  ['stdout', process.stdout],
  ['stderr', process.stderr],
] as const) {
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    scan(name, chunk);
    return write(chunk, ...rest);
  };
}

// Console calls (vitest routes them to its reporter, not through process.stdout).
for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
  const original = console[method].bind(console);
  console[method] = (...args: unknown[]) => {
    scan('console', format(...args));
    original(...args);
  };
}

// The sandbox's functions and the credentials it issues.
channel(FUNCTION_LOGS_CHANNEL).subscribe((message) => {
  const { functionName, lines } = message as FunctionLogsMessage;
  scan(`function ${functionName}`, lines.join('\n'));
});
channel(CREDENTIAL_ISSUED_CHANNEL).subscribe((message) => {
  const credential = message as CredentialIssuedMessage;
  known.set(credential.accessKeyId, credential);
});

// Subprocesses: their output as it arrives (a wrapped push sees every chunk without changing how the
// test reads the stream), or as the synchronous call returns it.
const childProcess = createRequire(import.meta.url)('node:child_process') as Record<string, unknown>;
/**
 * Commands whose answer on stdout is a credential by design, read by the test that runs them and
 * never logged: `aws eks get-token` (an EKS token is its whole output). Their stderr is still scanned.
 */
const answersWithCredential = (args: readonly unknown[]): boolean => {
  const [file, argv] = args;
  if (typeof file !== 'string' || (file.split('/').pop() ?? file) !== 'aws' || !Array.isArray(argv)) return false;
  const at = argv.indexOf('eks');
  return at >= 0 && argv[at + 1] === 'get-token';
};
const commandOf = (args: readonly unknown[]): string => {
  const [file] = args;
  return typeof file === 'string' ? ((file.split('/').pop() ?? file).split(' ')[0] ?? file) : 'subprocess';
};
function tap(stream: Readable | null | undefined, where: string): void {
  if (!stream) return;
  const push = stream.push.bind(stream);
  stream.push = (chunk: unknown, encoding?: BufferEncoding) => {
    scan(where, chunk);
    return push(chunk, encoding);
  };
}
type Child = { stdout?: Readable | null; stderr?: Readable | null };
type Spawner = (...args: unknown[]) => Child;
for (const name of ['spawn', 'execFile', 'exec', 'fork'] as const) {
  const original = childProcess[name] as Spawner;
  const tapped: Spawner = function (this: unknown, ...args: unknown[]) {
    const child = original.apply(this, args);
    const command = commandOf(args);
    if (!answersWithCredential(args)) tap(child.stdout, `${command} stdout`);
    tap(child.stderr, `${command} stderr`);
    return child;
  };
  // exec and execFile promisify to { stdout, stderr } (and an error carrying both) through their own
  // util.promisify.custom, which calls the untapped function: give the tapped one the same, over itself.
  if (name === 'exec' || name === 'execFile')
    Object.defineProperty(tapped, promisify.custom, {
      value: (...args: unknown[]) => {
        let child: Child | undefined;
        const promise = new Promise((resolve, reject) => {
          child = tapped(
            ...args,
            (error: (Error & { stdout?: unknown; stderr?: unknown }) | null, stdout: unknown, stderr: unknown) => {
              if (error) reject(Object.assign(error, { stdout, stderr }));
              else resolve({ stdout, stderr });
            },
          );
        });
        return Object.assign(promise, { child });
      },
    });
  childProcess[name] = tapped;
}
for (const name of ['spawnSync', 'execFileSync', 'execSync'] as const) {
  const original = childProcess[name] as (...args: unknown[]) => unknown;
  childProcess[name] = function (this: unknown, ...args: unknown[]) {
    const result = original.apply(this, args);
    const command = commandOf(args);
    if (name === 'spawnSync' && typeof result === 'object' && result !== null) {
      const { stdout, stderr } = result as { stdout?: unknown; stderr?: unknown };
      if (!answersWithCredential(args)) scan(`${command} stdout`, stdout);
      scan(`${command} stderr`, stderr);
    } else if (!answersWithCredential(args)) scan(`${command} stdout`, result);
    return result;
  };
}
syncBuiltinESMExports();

afterAll(() => {
  if (findings.size === 0) return;
  const file = expect.getState().testPath ?? 'this test file';
  const what = [...findings].map(([key, count]) => `${key} ×${count}`).join(', ');
  throw new Error(`secrets reached the log in ${file}: ${what} (the values are not shown)`);
});
