// The runtime threads execution environments run in, shared by every world of this process: a
// thread keeps the runtime's modules (the AWS SDK, ~1 s to load) between environments, so a new
// environment costs only its bundle's evaluation. Threads are unreferenced: they never keep the
// process alive.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { pruneCompileCache } from './compile-cache.js';
import type { WorkerData, WorkerMessage } from './protocol.js';

const SOURCES = ['worker.ts', 'virtual-time.ts', 'protocol.ts'].map((file) =>
  fileURLToPath(new URL(`./${file}`, import.meta.url)),
);
const CACHE_DIR = join(tmpdir(), 'ec2-node-reconciler-lambda-runtime');
const COMPILE_CACHE_DIR = join(CACHE_DIR, 'compile-cache');
/** How often, at most, a process prunes the compile cache (as it starts threads): it grows ~1.5 MB an environment. */
const PRUNE_EVERY_MS = 60_000;
let prunedAt: number | undefined;
/** A thread is replaced after this many environments: each leaves its bundle's module instance behind. */
const ENVIRONMENTS_PER_THREAD = 25;

let built: Promise<string> | undefined;

/**
 * The worker entry as plain JavaScript (built with esbuild, cached by its sources' digest): a
 * TypeScript loader in the thread would also run over every module the SDK loads, 3× slower.
 */
function runtimeEntry(): Promise<string> {
  built ??= (async () => {
    const hash = createHash('sha256');
    for (const file of SOURCES) hash.update(await readFile(file));
    const out = join(CACHE_DIR, `worker-${hash.digest('hex').slice(0, 16)}.mjs`);
    if (existsSync(out)) return out;
    const { build } = await import('esbuild');
    const result = await build({
      entryPoints: [SOURCES[0] ?? ''],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      write: false,
      logLevel: 'silent',
    });
    const code = result.outputFiles[0]?.text;
    if (code === undefined) throw new Error('building the Lambda runtime worker: esbuild wrote nothing');
    await mkdir(CACHE_DIR, { recursive: true });
    const staging = `${out}.${process.pid}.tmp`;
    await writeFile(staging, code);
    await rename(staging, out);
    return out;
  })();
  return built;
}

/** Where a thread's messages, output and death go: to the environment it runs now. */
export interface ThreadListener {
  message(message: WorkerMessage): void;
  output(text: string): void;
  death(error: Error | undefined, exitCode: number | undefined): void;
}

export interface RuntimeThread {
  readonly worker: Worker;
  /** Environments started in it so far. */
  environments: number;
  listener?: ThreadListener;
}

/** Threads free for a new environment. */
const free: RuntimeThread[] = [];
/**
 * A free thread is stopped after this much real time unused. A worker's output streams hold the
 * process open despite `unref()`, so a finished simulation exits once its threads are reaped.
 */
const IDLE_THREAD_MS = 3_000;
const reapers = new Map<RuntimeThread, NodeJS.Timeout>();

/** A runtime thread for a new execution environment: a free one, or a new one. */
export async function acquireRuntimeThread(): Promise<RuntimeThread> {
  const reused = free.pop();
  if (reused) {
    clearTimeout(reapers.get(reused));
    reapers.delete(reused);
    return reused;
  }
  const entry = await runtimeEntry();
  if (prunedAt === undefined || performance.now() - prunedAt > PRUNE_EVERY_MS) {
    prunedAt = performance.now();
    await pruneCompileCache(COMPILE_CACHE_DIR);
  }
  const data: WorkerData = {
    runtimeModulesFrom: new URL('../../package.json', import.meta.url).href,
    compileCacheDir: COMPILE_CACHE_DIR,
  };
  const worker = new Worker(pathToFileURL(entry), { workerData: data, stdout: true, stderr: true, env: {} });
  worker.unref();
  const thread: RuntimeThread = { worker, environments: 0 };
  worker.on('message', (message: WorkerMessage) => thread.listener?.message(message));
  for (const stream of [worker.stdout, worker.stderr])
    stream.on('data', (chunk: Buffer) => thread.listener?.output(chunk.toString('utf8')));
  worker.on('error', (error: Error) => thread.listener?.death(error, undefined));
  worker.on('exit', (code) => thread.listener?.death(undefined, code));
  return thread;
}

/** Gives a thread back when its environment ends cleanly; a thread that served enough environments is stopped. */
export function releaseRuntimeThread(thread: RuntimeThread): void {
  thread.listener = undefined;
  if (thread.environments >= ENVIRONMENTS_PER_THREAD) {
    void thread.worker.terminate();
    return;
  }
  free.push(thread);
  const reaper = setTimeout(() => {
    reapers.delete(thread);
    const at = free.indexOf(thread);
    if (at >= 0) free.splice(at, 1);
    void thread.worker.terminate();
  }, IDLE_THREAD_MS);
  reaper.unref();
  reapers.set(thread, reaper);
}

/** Stops a thread whose environment must not be reused (a timeout, a crash). */
export async function discardRuntimeThread(thread: RuntimeThread): Promise<void> {
  thread.listener = undefined;
  await thread.worker.terminate();
}
