// The Lambda service's side of a bundled function: execution environments (worker threads running
// the asset `cdk synth` built), one invocation at a time each, created on demand up to the
// function's reserved concurrency, kept warm between invocations, and discarded when an
// invocation times out or the runtime dies, as Lambda does.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { publishFunctionLogs } from '../taps.js';
import type { Activity } from './activity.js';
import type {
  FunctionErrorPayload,
  HostMessage,
  InvocationContextData,
  LoadRequest,
  WorkerMessage,
} from './protocol.js';
import {
  acquireRuntimeThread,
  discardRuntimeThread,
  releaseRuntimeThread,
  type RuntimeThread,
} from './runtime-pool.js';

const trace =
  process.env['SANDBOX_TRACE'] === '1' ? (line: string) => process.stderr.write(`[lambda] ${line}\n`) : () => undefined;

export interface HostedFunction {
  readonly name: string;
  readonly arn: string;
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
  readonly reservedConcurrency?: number;
  /** `index.handler`: the file (in the asset directory) and its export. */
  readonly handler: string;
  /** The bundled asset's directory. */
  readonly assetPath: string;
  /** Everything the function's process sees: the template's variables and the runtime's (credentials, region…). */
  readonly environment: Readonly<Record<string, string>>;
  /** Virtual milliseconds a request to each endpoint (`host:port`) takes (LoadRequest.latency). */
  readonly latency?: Readonly<Record<string, number>>;
}

export type InvocationResult =
  | { readonly ok: true; readonly payload: unknown; readonly logs: readonly string[]; readonly requestId: string }
  | {
      readonly ok: false;
      /** `error`: the handler threw; `timeout`: it ran past the function's timeout; `init`: the bundle did not load; `crash`: the runtime died. */
      readonly kind: 'error' | 'timeout' | 'init' | 'crash';
      readonly error: FunctionErrorPayload;
      readonly logs: readonly string[];
      readonly requestId: string;
    };

/** An invocation refused because every allowed execution environment is busy (429 TooManyRequestsException). */
export class FunctionThrottled extends Error {
  override readonly name = 'TooManyRequestsException';
  constructor(functionName: string, limit: number) {
    super(`Rate Exceeded. (${functionName}: ${limit} concurrent executions, the reserved concurrency)`);
  }
}

/** An invocation as a crash plan sees it. */
export interface InvocationView {
  readonly functionName: string;
  readonly requestId: string;
  /** When it started (the world's clock). */
  readonly at: number;
}

/**
 * Chaos: whether this invocation's runtime is killed part-way, and after how many of its HTTP
 * requests (0: before its first; more than it makes: after its last answer, before it returns).
 * Undefined: it runs as usual.
 */
export type CrashPlan = (invocation: InvocationView) => number | undefined;

export interface FunctionHostDeps {
  readonly clock: VirtualClock;
  /** The clock as the workers read it (one Float64 the world keeps current). */
  readonly clockBuffer: SharedArrayBuffer;
  readonly activity: Activity;
  /** A guard for the sandbox itself: an invocation busy this long in real time without waiting for the clock is stopped. @default 60_000 */
  readonly realTimeLimitMs?: number;
}

interface Running {
  readonly id: string;
  readonly resolve: (result: InvocationResult) => void;
  cancelTimeout: () => void;
  cancelWake?: () => void;
  /** Holds an activity unit (not waiting for the clock). */
  active: boolean;
  watchdog?: NodeJS.Timeout;
}

/** An execution environment: one instance of the function in a runtime thread. */
class Environment {
  running?: Running;
  dead = false;
  readonly crashLogs: string[] = [];

  constructor(
    readonly thread: RuntimeThread,
    readonly ready: Promise<{ readonly error: FunctionErrorPayload; readonly logs: readonly string[] } | undefined>,
  ) {}

  static start(
    thread: RuntimeThread,
    request: LoadRequest,
    onMessage: (env: Environment, message: WorkerMessage) => void,
    onDeath: (env: Environment, error: FunctionErrorPayload) => void,
  ): Environment {
    let loaded: (
      outcome: { readonly error: FunctionErrorPayload; readonly logs: readonly string[] } | undefined,
    ) => void = () => undefined;
    const env = new Environment(thread, new Promise((resolve) => (loaded = resolve)));
    thread.listener = {
      message: (message) => {
        if (message.type === 'loaded' && message.instance === request.instance) loaded(undefined);
        else if (message.type === 'init-error' && message.instance === request.instance)
          loaded({ error: message.error, logs: message.logs });
        else onMessage(env, message);
      },
      // The runtime's own output outside the bundle's logging (a crash's stack) goes to the function's log.
      output: (text) => env.crashLogs.push(text),
      death: (error, code) => {
        const payload = {
          errorType: 'Runtime.ExitError',
          errorMessage: error ? `the runtime exited: ${error.message}` : `the runtime exited with code ${code ?? '?'}`,
          trace: (error?.stack ?? '').split('\n'),
        };
        loaded({ error: payload, logs: [] });
        onDeath(env, payload);
      },
    };
    thread.environments += 1;
    thread.worker.postMessage(request satisfies HostMessage);
    return env;
  }

  takeCrashLogs(): string[] {
    return this.crashLogs
      .splice(0)
      .flatMap((chunk) => chunk.split('\n'))
      .filter((line) => line !== '');
  }

  post(message: HostMessage): void {
    this.thread.worker.postMessage(message);
  }
}

/** One function: invoke it, and know whether any of its invocations is doing work right now. */
export class FunctionHost {
  private readonly environments = new Set<Environment>();
  private requestSeq = 0;
  private instanceSeq = 0;
  /** Every invocation, in order, with its outcome once it ended (the function's log streams, in short). */
  readonly invocations: {
    readonly requestId: string;
    readonly startedAt: number;
    endedAt?: number;
    result?: InvocationResult;
  }[] = [];

  /** Set by chaos: invocations whose runtime is killed part-way (see CrashPlan). */
  crashes?: CrashPlan;

  constructor(
    readonly fn: HostedFunction,
    private readonly deps: FunctionHostDeps,
  ) {}

  /** Invocations running now (each in its own execution environment). */
  get concurrency(): number {
    return [...this.environments].filter((env) => env.running).length + this.starting;
  }

  /** Invocations whose new environment is being started: they hold concurrency already, as in Lambda. */
  private starting = 0;

  /**
   * Runs one invocation to its end: the handler's result, its error, or a timeout. Throws
   * FunctionThrottled when the reserved concurrency is in use.
   */
  async invoke(event: unknown, requestId = this.nextRequestId()): Promise<InvocationResult> {
    const limit = this.fn.reservedConcurrency;
    if (limit !== undefined && this.concurrency >= limit) throw new FunctionThrottled(this.fn.name, limit);
    const startedAt = this.deps.clock.now();
    const record: (typeof this.invocations)[number] = { requestId, startedAt };
    this.invocations.push(record);
    const { activity } = this.deps;
    // Starting (or reusing) an environment is work the clock waits for; the unit passes to the invocation.
    activity.acquire();
    // Until the environment is ready the unit belongs to this call, not to the environment.
    const placeholder: Running = {
      id: requestId,
      resolve: () => undefined,
      cancelTimeout: () => undefined,
      active: false,
    };
    let env = [...this.environments].find((e) => !e.running && !e.dead);
    if (env) env.running = placeholder;
    else {
      this.starting += 1;
      try {
        env = await this.start(placeholder);
      } finally {
        this.starting -= 1;
      }
    }
    const initFailure = await env.ready;
    if (initFailure || env.dead) {
      void this.discard(env);
      activity.release();
      const error = initFailure?.error ?? {
        errorType: 'Runtime.ExitError',
        errorMessage: 'the runtime exited while the function loaded',
        trace: [],
      };
      return this.finish(record, {
        ok: false,
        kind: 'init',
        error,
        logs: [...(initFailure?.logs ?? []), ...env.takeCrashLogs()],
        requestId,
      });
    }
    const deadline = startedAt + this.fn.timeoutSeconds * 1000;
    const context: InvocationContextData = {
      functionName: this.fn.name,
      functionVersion: '$LATEST',
      invokedFunctionArn: this.fn.arn,
      memoryLimitInMB: String(this.fn.memoryMb),
      awsRequestId: requestId,
      logGroupName: `/aws/lambda/${this.fn.name}`,
      logStreamName: `sandbox/[$LATEST]${requestId.replace(/-/g, '')}`,
      deadline,
    };
    const running = env;
    const crashAfterRequests = this.crashes?.({ functionName: this.fn.name, requestId, at: startedAt });
    const result = await new Promise<InvocationResult>((resolve) => {
      const state: Running = {
        id: requestId,
        resolve,
        active: true,
        cancelTimeout: this.deps.clock.schedule(deadline, () => this.timeOut(running, state)),
      };
      running.running = state;
      this.armWatchdog(running, state);
      trace(`${this.fn.name} ${requestId} invoked at ${new Date(this.deps.clock.now()).toISOString()}`);
      running.post({
        type: 'invoke',
        id: requestId,
        event,
        context,
        ...(crashAfterRequests !== undefined ? { crashAfterRequests } : {}),
      });
    });
    return this.finish(record, result);
  }

  /** Ends every execution environment; their threads go back to the pool. */
  async close(): Promise<void> {
    for (const env of [...this.environments]) {
      this.environments.delete(env);
      if (env.running) await this.discard(env);
      else releaseRuntimeThread(env.thread);
    }
  }

  private finish(record: (typeof this.invocations)[number], result: InvocationResult): InvocationResult {
    record.endedAt = this.deps.clock.now();
    record.result = result;
    // Lambda writes a failed invocation's error (message and stack) to the function's log stream too.
    const error = result.ok ? [] : [JSON.stringify(result.error)];
    publishFunctionLogs({ functionName: this.fn.name, lines: [...result.logs, ...error] });
    return result;
  }

  private nextRequestId(): string {
    const n = (++this.requestSeq).toString(16).padStart(12, '0');
    return `00000000-0000-4000-8000-${n}`;
  }

  private async start(placeholder: Running): Promise<Environment> {
    const thread = await acquireRuntimeThread();
    const [file = 'index', exportName = 'handler'] = splitHandler(this.fn.handler);
    const request: LoadRequest = {
      type: 'load',
      clock: this.deps.clockBuffer,
      bundle: pathToFileURL(join(this.fn.assetPath, `${file}.mjs`)).href,
      instance: `${this.fn.name}-${++this.instanceSeq}-${Math.random().toString(36).slice(2)}`,
      handlerExport: exportName,
      environment: this.fn.environment,
      ...(this.fn.latency ? { latency: this.fn.latency } : {}),
    };
    const env = Environment.start(
      thread,
      request,
      (e, m) => this.onMessage(e, m),
      (e, error) => this.onDeath(e, error),
    );
    env.running = placeholder;
    this.environments.add(env);
    return env;
  }

  private onMessage(env: Environment, message: WorkerMessage): void {
    const running = env.running;
    if (!running) return;
    const { activity, clock } = this.deps;
    switch (message.type) {
      case 'idle': {
        if (!running.active) return;
        trace(
          `${this.fn.name} ${running.id} waits for ${message.at === undefined ? 'nothing' : new Date(message.at).toISOString()}`,
        );
        running.active = false;
        clearTimeout(running.watchdog);
        // Without a time to wait for, it waits for nothing at all: only the timeout ends it, as in Lambda.
        if (message.at !== undefined) {
          running.cancelWake = clock.schedule(Math.max(message.at, clock.now()), () => {
            if (env.running !== running || running.active) return;
            running.active = true;
            activity.acquire();
            this.armWatchdog(env, running);
            env.post({ type: 'wake' });
          });
        }
        activity.release();
        return;
      }
      case 'done': {
        if (message.id !== running.id) return;
        const logs = [...env.takeCrashLogs(), ...message.logs];
        const result: InvocationResult = message.error
          ? { ok: false, kind: 'error', error: message.error, logs, requestId: running.id }
          : { ok: true, payload: message.result, logs, requestId: running.id };
        trace(
          `${this.fn.name} ${running.id} ${result.ok ? 'returned' : `failed ${message.error?.errorType ?? ''}`} at ${new Date(clock.now()).toISOString()}`,
        );
        this.end(env, running, result);
        return;
      }
      case 'crashed': {
        if (message.id !== running.id) return;
        trace(`${this.fn.name} ${running.id} killed after ${message.requestsSent} request(s)`);
        // What Lambda reports for a runtime that died mid-invocation; the environment goes with it.
        this.end(env, running, {
          ok: false,
          kind: 'crash',
          error: {
            errorType: 'Runtime.ExitError',
            errorMessage: `RequestId: ${running.id} Error: Runtime exited with error: signal: killed`,
            trace: [],
          },
          logs: [...env.takeCrashLogs(), ...message.logs],
          requestId: running.id,
        });
        void this.discard(env);
        return;
      }
      // Loading is the environment's own business (Environment.start).
      case 'loaded':
      case 'init-error':
        return;
    }
  }

  /** Ends the running invocation: the environment is free again (unless it died). */
  private end(env: Environment, running: Running, result: InvocationResult): void {
    running.cancelTimeout();
    running.cancelWake?.();
    clearTimeout(running.watchdog);
    env.running = undefined;
    if (running.active) this.deps.activity.release();
    running.active = false;
    running.resolve(result);
  }

  private timeOut(env: Environment, running: Running): void {
    if (env.running !== running) return;
    const seconds = this.fn.timeoutSeconds.toFixed(2);
    const at = new Date(this.deps.clock.now()).toISOString();
    this.end(env, running, {
      ok: false,
      kind: 'timeout',
      error: {
        errorType: 'Sandbox.Timedout',
        errorMessage: `${at} ${running.id} Task timed out after ${seconds} seconds`,
        trace: [],
      },
      logs: env.takeCrashLogs(),
      requestId: running.id,
    });
    // Lambda stops the environment: the next invocation starts cold.
    void this.discard(env);
  }

  private onDeath(env: Environment, error: FunctionErrorPayload): void {
    if (env.dead) return;
    env.dead = true;
    this.environments.delete(env);
    const running = env.running;
    if (running)
      this.end(env, running, { ok: false, kind: 'crash', error, logs: env.takeCrashLogs(), requestId: running.id });
  }

  private armWatchdog(env: Environment, running: Running): void {
    clearTimeout(running.watchdog);
    const limit = this.deps.realTimeLimitMs ?? 60_000;
    running.watchdog = setTimeout(() => {
      if (env.running !== running || !running.active) return;
      this.end(env, running, {
        ok: false,
        kind: 'crash',
        error: {
          errorType: 'Sandbox.Stuck',
          errorMessage: `${this.fn.name} worked ${limit / 1000} s of real time without waiting for the clock: stopped`,
          trace: [],
        },
        logs: env.takeCrashLogs(),
        requestId: running.id,
      });
      void this.discard(env);
    }, limit);
    running.watchdog.unref();
  }

  private async discard(env: Environment): Promise<void> {
    env.dead = true;
    this.environments.delete(env);
    await discardRuntimeThread(env.thread);
  }
}

function splitHandler(handler: string): [string, string] {
  const dot = handler.lastIndexOf('.');
  return dot < 0 ? ['index', handler] : [handler.slice(0, dot), handler.slice(dot + 1)];
}
