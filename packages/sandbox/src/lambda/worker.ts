// A runtime thread: it runs one bundled function (the asset `cdk synth` produced) at a time, one
// invocation at a time, as a Lambda execution environment does. Its time is the world's virtual
// clock (virtual-time.ts); it tells the host when it waits for nothing but time, so the world can
// move the clock. The thread outlives a world: the next environment it runs is a fresh instance of
// a bundle with its own environment variables, while the runtime's modules (the AWS SDK, as Lambda
// provides it) stay loaded. Built to plain JavaScript by runtime-build.ts.
import diagnostics from 'node:diagnostics_channel';
import http, { type ClientRequest } from 'node:http';
import https from 'node:https';
import { enableCompileCache, registerHooks } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import zlib from 'node:zlib';
import type {
  FunctionErrorPayload,
  HostMessage,
  InvocationContextData,
  LoadRequest,
  WorkerData,
  WorkerMessage,
} from './protocol.js';
import { installVirtualTime } from './virtual-time.js';

const data = workerData as WorkerData;
const port = parentPort;
if (!port) throw new Error('the Lambda runtime runs as a worker thread');
if (data.compileCacheDir) enableCompileCache(data.compileCacheDir);
let clock = new Float64Array(new SharedArrayBuffer(8));
const now = (): number => clock[0] ?? 0;
const realSetTimeout = globalThis.setTimeout;
const post = (message: WorkerMessage): void => port.postMessage(message);

// The Lambda runtime provides the AWS SDK the bundle leaves external; here it is the project's.
registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier.startsWith('@aws-sdk/') || specifier.startsWith('@smithy/'))
      return nextResolve(specifier, { ...context, parentURL: data.runtimeModulesFrom });
    return nextResolve(specifier, context);
  },
});

const timers = installVirtualTime(now);

/**
 * Request latency on the virtual clock. Every HTTP request goes out through an Agent's addRequest
 * (the SDK's NodeHttpHandler and node:http(s).request alike); for an endpoint with a latency, the
 * request waits that long on a virtual timer before it is handed to the agent, so a chain of k
 * requests takes k latencies of virtual time and concurrent ones overlap. While it waits the
 * thread has only the timer left (no socket yet): the world moves the clock to it.
 */
let latency = new Map<string, number>();
{
  type AddRequest = (this: http.Agent, request: http.ClientRequest, options: Record<string, unknown>) => void;
  const agent = http.Agent.prototype as unknown as { addRequest: AddRequest };
  const addRequest = agent.addRequest;
  agent.addRequest = function (request, options) {
    const host = typeof options['host'] === 'string' ? options['host'] : 'localhost';
    const given = options['port'];
    const port =
      typeof given === 'string' || typeof given === 'number'
        ? String(given)
        : this instanceof https.Agent
          ? '443'
          : '80';
    const ms = latency.get(`${host}:${port}`) ?? 0;
    if (ms <= 0) {
      addRequest.call(this, request, options);
      return;
    }
    timers.add(
      () => {
        // Given up on while it waited (a timeout): it never leaves.
        if (!request.destroyed) addRequest.call(this, request, options);
      },
      ms,
      [],
      false,
    );
  };
}

/**
 * Chunks the thread's zlib streams are working on. zlib runs in libuv's thread pool, which
 * process.getActiveResourcesInfo() does not show: without this count, a function decompressing an
 * answer (the Kubernetes client's gzip) would look as if it waited for nothing but time, and the
 * world would move the clock past its deadline.
 */
const zlibWork = (() => {
  type Transform = (
    this: NodeJS.EventEmitter,
    chunk: unknown,
    encoding: unknown,
    callback: (...args: unknown[]) => void,
  ) => void;
  let inFlight = 0;
  const pending = new WeakMap<object, number>();
  const settle = (stream: object, all: boolean): void => {
    const count = pending.get(stream) ?? 0;
    const done = all ? count : Math.min(count, 1);
    pending.set(stream, count - done);
    inFlight -= done;
  };
  const patched = new Set<object>();
  const classes = [
    zlib.Gunzip,
    zlib.Gzip,
    zlib.Inflate,
    zlib.Deflate,
    zlib.InflateRaw,
    zlib.DeflateRaw,
    zlib.Unzip,
    zlib.BrotliCompress,
    zlib.BrotliDecompress,
  ];
  for (const cls of classes) {
    // The prototype that defines _transform (shared by the zlib classes), patched once.
    let proto: object | null = cls.prototype;
    while (proto !== null && !Object.hasOwn(proto, '_transform')) proto = Object.getPrototypeOf(proto) as object | null;
    if (proto === null || patched.has(proto)) continue;
    patched.add(proto);
    const owner = proto as { _transform: Transform };
    const transform = owner._transform;
    owner._transform = function (this: NodeJS.EventEmitter, chunk, encoding, callback) {
      if (!pending.has(this)) this.once('close', () => settle(this, true));
      pending.set(this, (pending.get(this) ?? 0) + 1);
      inFlight += 1;
      transform.call(this, chunk, encoding, (...args: unknown[]) => {
        settle(this, false);
        callback(...args);
      });
    };
  }
  return { busy: (): boolean => inFlight > 0 };
})();

// What the function writes goes to its log stream (the host keeps it), not to the sandbox's terminal.
let logs: string[] = [];
let partial = '';
function capture(chunk: unknown): boolean {
  const text =
    partial + (typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk));
  const lines = text.split('\n');
  partial = lines.pop() ?? '';
  logs.push(...lines.filter((line) => line !== ''));
  return true;
}
process.stdout.write = capture;
process.stderr.write = capture;
const takeLogs = (): string[] => {
  const taken = [...logs, ...(partial === '' ? [] : [partial])];
  logs = [];
  partial = '';
  return taken;
};

function errorPayload(error: unknown): FunctionErrorPayload {
  if (error instanceof Error)
    return { errorType: error.name, errorMessage: error.message, trace: (error.stack ?? '').split('\n') };
  return { errorType: typeof error, errorMessage: String(error), trace: [] };
}

type Handler = (event: unknown, context: Record<string, unknown>) => Promise<unknown>;

/**
 * A crash the host planned for this invocation (chaos: "a Lambda killed mid-invocation"). The first
 * `allowed` HTTP requests leave as usual; the next one and every one after are stopped before they
 * leave (they never reach an API). Once no request is in flight, the runtime is dead. A function
 * that ends first dies right after its last answer, before it could return: its work was done and
 * its caller never learns it. Dying at a request rather than at a moment of real time keeps the
 * crash reproducible: the requests that reached the APIs are the same on every run.
 */
class PlannedCrash {
  private sent = 0;
  private dying = false;
  private dead = false;

  constructor(
    private readonly allowed: number,
    private readonly die: (requestsSent: number) => void,
  ) {}

  /** Whether a request may leave. */
  admit(): boolean {
    if (!this.dying && this.sent < this.allowed) {
      this.sent += 1;
      return true;
    }
    this.dying = true;
    return false;
  }

  /** The handler ended: the crash comes now. */
  finish(): void {
    this.dying = true;
  }

  /** Dies once dying and nothing is in flight. */
  settle(inFlight: number): void {
    if (!this.dying || this.dead || inFlight > 0) return;
    this.dead = true;
    this.die(this.sent);
  }
}

let crash: PlannedCrash | undefined;
let requestsInFlight = 0;
diagnostics.subscribe('http.client.request.created', (message) => {
  const { request } = message as { request: ClientRequest };
  const plan = crash;
  if (plan && !plan.admit()) {
    // Never sent: the caller sees the connection fail, as a dying process's sockets do.
    request.destroy(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    plan.settle(requestsInFlight);
    return;
  }
  requestsInFlight += 1;
  request.once('close', () => {
    requestsInFlight -= 1;
    crash?.settle(requestsInFlight);
  });
});

/**
 * While an invocation runs, every millisecond of real time: run the timers now due; when nothing
 * but a timer can move the invocation on (no socket, lookup, file or zlib operation in flight,
 * twice in a row), say so once and wait for the host's `wake`.
 */
class Invocation {
  private quietPolls = 0;
  private waiting = false;
  private finished = false;

  start(): void {
    this.poll();
  }

  wake(): void {
    this.waiting = false;
    this.quietPolls = 0;
    this.poll();
  }

  finish(): void {
    this.finished = true;
  }

  private poll(): void {
    if (this.finished || this.waiting) return;
    const fired = timers.fireDue();
    // Left aside: real timers (this poll's own; every other is virtual) and message ports (the host's, stdout's).
    const busy =
      zlibWork.busy() || process.getActiveResourcesInfo().some((kind) => kind !== 'Timeout' && kind !== 'MessagePort');
    this.quietPolls = fired > 0 || busy ? 0 : this.quietPolls + 1;
    if (this.quietPolls >= 2) {
      this.waiting = true;
      const at = timers.nextAt();
      post(at === undefined ? { type: 'idle' } : { type: 'idle', at });
      return;
    }
    realSetTimeout(() => this.poll(), 1);
  }
}

let handler: Handler | undefined;
let current: Invocation | undefined;

async function load(request: LoadRequest): Promise<void> {
  clock = new Float64Array(request.clock);
  // A new environment: the previous one's frozen timers and variables are gone.
  timers.reset();
  for (const key of Object.keys(process.env)) delete process.env[key];
  Object.assign(process.env, request.environment);
  latency = new Map(Object.entries(request.latency ?? {}));
  handler = undefined;
  takeLogs();
  try {
    const module = (await import(`${request.bundle}?instance=${encodeURIComponent(request.instance)}`)) as Record<
      string,
      unknown
    >;
    const exported = module[request.handlerExport];
    if (typeof exported !== 'function')
      throw Object.assign(new Error(`index.${request.handlerExport} is undefined or not exported`), {
        name: 'Runtime.HandlerNotFound',
      });
    handler = exported as Handler;
    post({ type: 'loaded', instance: request.instance });
  } catch (error) {
    post({ type: 'init-error', instance: request.instance, error: errorPayload(error), logs: takeLogs() });
  }
}

async function invoke(
  id: string,
  event: unknown,
  context: InvocationContextData,
  crashAfterRequests: number | undefined,
): Promise<void> {
  const invocation = new Invocation();
  current = invocation;
  const plan =
    crashAfterRequests === undefined
      ? undefined
      : new PlannedCrash(crashAfterRequests, (requestsSent) => {
          invocation.finish();
          post({ type: 'crashed', id, requestsSent, logs: takeLogs() });
        });
  crash = plan;
  const lambdaContext: Record<string, unknown> = {
    ...context,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, context.deadline - now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
  invocation.start();
  let message: WorkerMessage;
  try {
    if (!handler) throw new Error('no function is loaded in this runtime');
    const result = await handler(event, lambdaContext);
    message = { type: 'done', id, result, logs: takeLogs() };
  } catch (error) {
    message = { type: 'done', id, error: errorPayload(error), logs: takeLogs() };
  }
  if (plan) {
    // The answer never leaves: the runtime dies once nothing is in flight (at once, if nothing is).
    plan.finish();
    plan.settle(requestsInFlight);
    return;
  }
  invocation.finish();
  current = undefined;
  post(message);
}

port.on('message', (message: HostMessage) => {
  switch (message.type) {
    case 'load':
      void load(message);
      return;
    case 'invoke':
      void invoke(message.id, message.event, message.context, message.crashAfterRequests);
      return;
    case 'wake':
      current?.wake();
      return;
  }
});
