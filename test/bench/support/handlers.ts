// The Lambda handlers as `cdk deploy` uploads them (scripts/bundle-size.ts appBuildOptions), each
// run in a fresh process of its own, the way a cold Lambda container runs one: module init, then
// invocations in turn. The process reports init time, each invocation's wall time and its peak RSS.
//
// Parent side: `bundleHandlers()`, `runHandler(...)`; child side: handler-child.mjs.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { DEFAULT_ENTRIES, FUNCTION_KINDS, PROJECT_ROOT, type FunctionKind } from '../../../infra/functions.js';
import { appBuildOptions } from '../../../scripts/bundle-size.js';

const CHILD_FLAG = 'HANDLER_PROCESS';
/** Inside the repository, so the bundles resolve @aws-sdk/* from node_modules as the runtime provides it. */
const OUT = join(PROJECT_ROOT, '.tmp', 'bench-handlers');

export type Bundles = Readonly<Record<FunctionKind, string>>;

/** Bundles the three handlers once per bench run; returns the bundle of each. */
export async function bundleHandlers(): Promise<Bundles> {
  mkdirSync(OUT, { recursive: true });
  const entries = await Promise.all(
    FUNCTION_KINDS.map(async (kind) => {
      const outfile = join(OUT, kind, 'index.mjs');
      await build(appBuildOptions(DEFAULT_ENTRIES[kind], outfile));
      return [kind, outfile] as const;
    }),
  );
  return Object.fromEntries(entries) as Record<FunctionKind, string>;
}

export interface Invocation {
  readonly event: unknown;
  /** The function's name in the context (and its ARN). */
  readonly name: string;
}

export interface InvocationResult {
  /** Date.now() when the handler was called and when its promise settled. */
  readonly startedAt: number;
  readonly endedAt: number;
  readonly wallMs: number;
  /** CPU time (user + system) of the process during the invocation. */
  readonly cpuMs?: number;
  readonly result?: unknown;
  readonly error?: string;
}

export interface HandlerRun {
  /** Time to import the bundle (module init: a cold start's INIT phase without the runtime's own). */
  readonly initMs: number;
  readonly invocations: readonly InvocationResult[];
  /** Peak resident set size of the process (VmHWM: its own image), MiB. */
  readonly maxRssMiB: number;
}

/** Runs `invocations` in turn through one fresh process that imports `bundle` with `env` set. */
export async function runHandler(
  bundle: string,
  env: Readonly<Record<string, string>>,
  invocations: readonly Invocation[],
  nodeArgs: readonly string[] = [],
): Promise<HandlerRun> {
  // Plain JavaScript, no loader hooks: module init is timed as Lambda's runtime would see it.
  const child = spawn(process.execPath, [...nodeArgs, fileURLToPath(new URL('./handler-child.mjs', import.meta.url))], {
    env: { ...process.env, ...env, [CHILD_FLAG]: JSON.stringify({ bundle, invocations }) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (out += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  // Powertools may log to stdout; the run's figures are the last line.
  const last = out.trim().split('\n').at(-1) ?? '';
  if (code !== 0 || !last.startsWith('{"initMs"'))
    throw new Error(`handler process for ${bundle} exited with ${String(code)}: ${out.slice(-2000)}`);
  return JSON.parse(last) as HandlerRun;
}
