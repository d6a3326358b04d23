// An Amazon States Language interpreter for JSONata definitions, on the sandbox's virtual clock.
// Waits, retry intervals and timeouts are timers on the clock; task integrations go to injected
// handlers. The execution keeps a history shaped like Step Functions' (state entered/exited, task
// scheduled/succeeded/failed/timed out) for tests to read.
//
// Semantics followed (Step Functions Developer Guide): in each state, Arguments are evaluated over
// the state input; Assign and Output are then evaluated together over the variables as they were
// before the state (so Output never sees the state's own assignments); a Retry's n-th interval is
// IntervalSeconds × BackoffRate^n, capped by MaxDelaySeconds, drawn uniformly from [0, interval)
// with JitterStrategy FULL; a retrier whose attempts are spent passes the error to Catch; a
// catcher's Output defaults to the error output; every state's input and output, a task's result
// and its arguments are held to the 256 KiB payload limit (States.DataLimitExceeded).
import type { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import {
  parseDefinition,
  type ChoiceState,
  type Definition,
  type FailState,
  type State,
  type TaskState,
  type WaitState,
} from './asl.js';
import { errorMatches, STATES_ERRORS, StatesError } from './errors.js';
import { END_EVENT_TYPES, type ExecutionStatus, type HistoryEvent } from './history.js';
import { evaluateTemplate, type EvaluationScope } from './jsonata.js';

/** Step Functions' payload quota: 256 KiB of UTF-8 JSON. */
export const PAYLOAD_LIMIT_BYTES = 256 * 1024;

/**
 * Step Functions' quota on one Standard execution's history: an execution that reaches it fails
 * (with no Catch to take it), whatever state it is in.
 */
export const HISTORY_EVENT_LIMIT = 25_000;

export type { ExecutionStatus, HistoryEvent } from './history.js';

export interface ExecutionResult {
  readonly status: Exclude<ExecutionStatus, 'RUNNING'>;
  readonly output?: unknown;
  readonly error?: string;
  readonly cause?: string;
  readonly startDate: number;
  readonly stopDate: number;
}

/** What a task handler learns about the call besides its arguments. */
export interface TaskContext {
  readonly stateName: string;
  readonly resource: string;
  /** 0 for the first try, 1 for the first retry, … */
  readonly attempt: number;
  /** Aborted when the task times out or the execution ends: the result would be dropped. */
  readonly signal: AbortSignal;
  readonly executionArn: string;
  /** Lets simulated work take virtual time (a drain step that runs 40 s). */
  sleep(ms: number): Promise<void>;
  /**
   * Waits for work whose progress someone else accounts for (the world's Lambda service tracks an
   * invocation's real-time work and its waits on the clock): the task holds no unit of work while
   * it waits, so the world can move the clock when that work waits for it.
   */
  elsewhere<T>(work: Promise<T>): Promise<T>;
  now(): number;
}

export interface LambdaInvokeArguments {
  readonly FunctionName: string;
  readonly Payload?: unknown;
  readonly InvocationType?: string;
  readonly Qualifier?: string;
}

export interface PutEventsResult {
  readonly Entries: readonly {
    readonly EventId?: string;
    readonly ErrorCode?: string;
    readonly ErrorMessage?: string;
  }[];
  readonly FailedEntryCount: number;
}

/**
 * Where tasks go. Each returns the integration's answer or throws: a StatesError carries the error
 * name Step Functions would report (`Lambda.TooManyRequestsException`, the function's errorType,
 * `AutoScaling.…`); any other exception fails the task with its `name` as the error.
 */
export interface TaskHandlers {
  /** `arn:aws:states:::lambda:invoke` (and a plain function ARN): returns the function's response payload. */
  readonly lambdaInvoke?: (args: LambdaInvokeArguments, ctx: TaskContext) => Promise<unknown>;
  /** `arn:aws:states:::aws-sdk:<service>:<action>`: returns the API's response. */
  readonly awsSdk?: (
    call: { readonly service: string; readonly action: string; readonly parameters: unknown },
    ctx: TaskContext,
  ) => Promise<unknown>;
  /** `arn:aws:states:::events:putEvents`: a result with failed entries fails the task (EventBridge.FailedEntry). */
  readonly putEvents?: (args: unknown, ctx: TaskContext) => Promise<PutEventsResult>;
}

export interface StartOptions {
  /** The ASL definition (JSON) or one already read with parseDefinition. */
  readonly definition: unknown;
  readonly input?: unknown;
  readonly clock: VirtualClock;
  readonly tasks: TaskHandlers;
  /** @default arn:aws:states:us-east-1:123456789012:stateMachine:sandbox */
  readonly stateMachineArn?: string;
  /** The execution's name. @default exec-<start time> */
  readonly name?: string;
  readonly roleArn?: string;
  /** Source of JitterStrategy FULL and $random(); [0, 1). @default Math.random */
  readonly random?: () => number;
}

type Integration =
  | { readonly kind: 'lambda' }
  | { readonly kind: 'lambda-arn'; readonly functionArn: string }
  | { readonly kind: 'aws-sdk'; readonly service: string; readonly action: string }
  | { readonly kind: 'put-events' };

/** What a Task's Resource calls; undefined for an integration the interpreter does not emulate. */
export function integrationOf(resource: string): Integration | undefined {
  const optimized = /^arn:aws[\w-]*:states:::(.+)$/.exec(resource)?.[1];
  if (optimized === 'lambda:invoke') return { kind: 'lambda' };
  if (optimized === 'events:putEvents') return { kind: 'put-events' };
  const sdk = /^aws-sdk:([a-z0-9]+):([A-Za-z0-9]+)$/.exec(optimized ?? '');
  if (sdk?.[1] && sdk[2]) return { kind: 'aws-sdk', service: sdk[1], action: sdk[2] };
  if (/^arn:aws[\w-]*:lambda:[^:]+:\d{12}:function:[^:]+(:[^:]+)?$/.test(resource))
    return { kind: 'lambda-arn', functionArn: resource };
  return undefined;
}

const byteLength = (value: unknown): number =>
  value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value), 'utf8');

function checkSize(value: unknown, what: string): void {
  const size = byteLength(value);
  if (size > PAYLOAD_LIMIT_BYTES) {
    throw new StatesError(
      STATES_ERRORS.dataLimitExceeded,
      `The ${what} with a size of ${size} bytes exceeds the maximum number of bytes service limit (${PAYLOAD_LIMIT_BYTES}).`,
    );
  }
}

function asStatesError(error: unknown): StatesError {
  if (error instanceof StatesError) return error;
  if (error instanceof Error) return new StatesError(error.name || 'Error', error.message);
  return new StatesError('Error', String(error));
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** A state's outcome: the next state (or the end) and the output. */
interface Step {
  readonly next?: string;
  readonly output: unknown;
  readonly fail?: { readonly error?: string; readonly cause?: string };
}

/** How the run loop waits: the first of its wake-up sources to fire wins. */
type Wake = (outcome: { readonly ok: true } | { readonly ok: false; readonly error: Error }) => void;

class ExecutionStopped extends Error {
  constructor(readonly result: Pick<ExecutionResult, 'status' | 'error' | 'cause'>) {
    super(result.status);
  }
}

/** One running execution. Start it with `startExecution`. */
export class Execution {
  readonly arn: string;
  readonly name: string;
  readonly history: HistoryEvent[] = [];
  readonly startDate: number;
  private readonly definition: Definition;
  private readonly variables: Record<string, unknown> = {};
  private statusValue: ExecutionStatus = 'RUNNING';
  private readonly done: Promise<ExecutionResult>;
  /** Units of work that run in real time; 0 means the execution only waits for the clock. */
  private busy = 1;
  private readonly idleWaiters: (() => void)[] = [];
  private readonly timers = new Map<number, number>();
  private timerSeq = 0;
  private stopWith?: (result: Pick<ExecutionResult, 'status' | 'error' | 'cause'>) => void;
  private stopResult?: Pick<ExecutionResult, 'status' | 'error' | 'cause'>;
  private readonly executionAbort = new AbortController();

  constructor(private readonly options: StartOptions) {
    this.definition = isDefinition(options.definition) ? options.definition : parseDefinition(options.definition);
    for (const [name, state] of this.definition.states) {
      if (state.Type === 'Task' && !integrationOf(state.Resource))
        throw new Error(`state ${JSON.stringify(name)}: the resource ${state.Resource} is not emulated`);
    }
    this.startDate = options.clock.now();
    const machine = options.stateMachineArn ?? 'arn:aws:states:us-east-1:123456789012:stateMachine:sandbox';
    this.name = options.name ?? `exec-${this.startDate}`;
    this.arn = `${machine.replace(':stateMachine:', ':execution:')}:${this.name}`;
    this.done = this.run();
  }

  /** Whether, right now, only the clock (or work accounted elsewhere) can move the execution on. */
  get waiting(): boolean {
    return this.busy === 0 || this.statusValue !== 'RUNNING';
  }

  get status(): ExecutionStatus {
    return this.statusValue;
  }

  /** The final result, once the execution has ended. */
  result(): Promise<ExecutionResult> {
    return this.done;
  }

  /** Resolves when nothing but the clock can move the execution on (or it has ended). */
  idle(): Promise<void> {
    if (this.busy === 0 || this.statusValue !== 'RUNNING') return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** The earliest clock time the execution waits for, when it is waiting. */
  nextWakeAt(): number | undefined {
    const times = [...this.timers.values()];
    return times.length === 0 ? undefined : Math.min(...times);
  }

  /** StopExecution: ends a running execution ABORTED. */
  stop(error?: string, cause?: string): void {
    this.stopWith?.({ status: 'ABORTED', error, cause });
  }

  private record(event: Omit<HistoryEvent, 'id' | 'timestamp'>): void {
    this.history.push({ id: this.history.length + 1, timestamp: this.options.clock.now(), ...event });
    // The event that ends the execution is the one history keeps past the quota.
    if (this.history.length >= HISTORY_EVENT_LIMIT && this.statusValue === 'RUNNING' && !this.stopResult)
      this.stopWith?.({
        status: 'FAILED',
        error: STATES_ERRORS.runtime,
        cause: `The execution reached the maximum number of history events (${HISTORY_EVENT_LIMIT}).`,
      });
  }

  private release(): void {
    this.busy -= 1;
    if (this.busy === 0) this.idleWaiters.splice(0).forEach((resolve) => resolve());
  }

  /** A timer on the clock; `fire` runs at `at` unless cancelled. Returns the cancel function. */
  private timer(at: number, fire: () => void): () => void {
    const id = ++this.timerSeq;
    this.timers.set(id, at);
    this.options.clock.schedule(at, () => {
      if (!this.timers.delete(id)) return;
      fire();
    });
    return () => this.timers.delete(id);
  }

  /**
   * Parks the run loop (releasing its unit of real-time work) until one of the sources wakes it;
   * the first to call `wake` reclaims the unit synchronously, so no idle moment slips in between.
   */
  private park(register: (wake: Wake) => (() => void) | void): Promise<void> {
    return new Promise((resolve, reject) => {
      let woken = false;
      const cleanups: (() => void)[] = [];
      const wake: Wake = (outcome) => {
        if (woken) return;
        woken = true;
        this.busy += 1;
        cleanups.forEach((cleanup) => cleanup());
        if (outcome.ok) resolve();
        else reject(outcome.error);
      };
      // The execution's own end (timeout, stop) wakes every parked wait, and none parks after it.
      const stopped = () => new ExecutionStopped(this.stopResult ?? { status: 'ABORTED' });
      if (this.executionAbort.signal.aborted) {
        reject(stopped());
        return;
      }
      const cleanup = register(wake);
      if (cleanup) cleanups.push(cleanup);
      const onStop = () => wake({ ok: false, error: stopped() });
      this.executionAbort.signal.addEventListener('abort', onStop, { once: true });
      cleanups.push(() => this.executionAbort.signal.removeEventListener('abort', onStop));
      if (!woken) this.release();
    });
  }

  private sleepUntil(at: number): Promise<void> {
    if (at <= this.options.clock.now()) return Promise.resolve();
    return this.park((wake) => this.timer(at, () => wake({ ok: true })));
  }

  private scope(states: Record<string, unknown>): EvaluationScope {
    return {
      variables: this.variables,
      states,
      now: () => this.options.clock.now(),
      random: this.options.random ?? Math.random,
    };
  }

  private contextObject(stateName: string, enteredTime: number, retryCount: number): Record<string, unknown> {
    const machineArn = this.options.stateMachineArn ?? 'arn:aws:states:us-east-1:123456789012:stateMachine:sandbox';
    return {
      Execution: {
        Id: this.arn,
        Input: this.options.input ?? {},
        Name: this.name,
        RoleArn: this.options.roleArn,
        StartTime: iso(this.startDate),
        RedriveCount: 0,
      },
      State: { EnteredTime: iso(enteredTime), Name: stateName, RetryCount: retryCount },
      StateMachine: { Id: machineArn, Name: machineArn.split(':').at(-1) },
    };
  }

  private async run(): Promise<ExecutionResult> {
    const stopped = new Promise<never>((_, reject) => {
      this.stopWith = (result) => {
        if (this.statusValue !== 'RUNNING' || this.stopResult) return;
        this.stopResult = result;
        // Ending is work: idle() waits for the end instead of reporting a waiting execution.
        this.busy += 1;
        reject(new ExecutionStopped(result));
        this.executionAbort.abort();
      };
    });
    // Keep the rejection handled even when the race below has already settled.
    stopped.catch(() => undefined);
    const timeout = this.definition.timeoutSeconds;
    if (timeout !== undefined) {
      this.timer(this.startDate + timeout * 1000, () => {
        this.stopWith?.({
          status: 'TIMED_OUT',
          error: STATES_ERRORS.timeout,
          cause: `The execution timed out after ${timeout} seconds.`,
        });
      });
    }
    this.record({ type: 'ExecutionStarted', input: this.options.input ?? {} });
    let result: Pick<ExecutionResult, 'status' | 'output' | 'error' | 'cause'>;
    try {
      result = await Promise.race([this.loop(), stopped]);
    } catch (error) {
      if (error instanceof ExecutionStopped) result = error.result;
      else {
        const failure = asStatesError(error);
        result = { status: 'FAILED', error: failure.error, cause: failure.cause };
      }
    }
    return this.finish(result);
  }

  private finish(result: Pick<ExecutionResult, 'status' | 'output' | 'error' | 'cause'>): ExecutionResult {
    this.statusValue = result.status;
    this.executionAbort.abort();
    this.timers.clear();
    const type = END_EVENT_TYPES[result.status];
    this.record({ type, output: result.output, error: result.error, cause: result.cause });
    this.busy = 0;
    this.idleWaiters.splice(0).forEach((resolve) => resolve());
    return { ...result, startDate: this.startDate, stopDate: this.options.clock.now() };
  }

  private async loop(): Promise<Pick<ExecutionResult, 'status' | 'output' | 'error' | 'cause'>> {
    let name = this.definition.startAt;
    let input: unknown = this.options.input ?? {};
    for (;;) {
      const state = this.definition.states.get(name);
      if (!state) throw new StatesError(STATES_ERRORS.runtime, `no state ${name}`);
      const enteredTime = this.options.clock.now();
      this.record({ type: `${state.Type}StateEntered`, stateName: name, input });
      checkSize(input, `input of state '${name}'`);
      const step = await this.runState(name, state, input, enteredTime);
      checkSize(step.output, `output of state '${name}'`);
      if (step.fail) return { status: 'FAILED', error: step.fail.error, cause: step.fail.cause };
      this.record({ type: `${state.Type}StateExited`, stateName: name, output: step.output });
      if (step.next === undefined) return { status: 'SUCCEEDED', output: step.output };
      name = step.next;
      input = step.output;
    }
  }

  private runState(name: string, state: State, input: unknown, enteredTime: number): Promise<Step> {
    switch (state.Type) {
      case 'Task':
        return this.runTask(name, state, input, enteredTime);
      case 'Pass':
        return this.finishState(state, { input }, this.contextObject(name, enteredTime, 0), input, state.Next);
      case 'Choice':
        return this.runChoice(name, state, input, enteredTime);
      case 'Wait':
        return this.runWait(name, state, input, enteredTime);
      case 'Succeed':
        return this.outputOf(state.Output, { input, context: this.contextObject(name, enteredTime, 0) }, input).then(
          (output) => ({ output }),
        );
      case 'Fail':
        return this.runFail(name, state, input, enteredTime);
      default: {
        const unknown: never = state;
        throw new Error(`unknown state type ${JSON.stringify(unknown)}`);
      }
    }
  }

  private outputOf(
    template: unknown,
    states: Record<string, unknown>,
    fallback: unknown,
    field = 'Output',
  ): Promise<unknown> {
    return template === undefined ? Promise.resolve(fallback) : evaluateTemplate(template, field, this.scope(states));
  }

  /** Assign and Output of a state or rule: both over the variables as they were, then the assignments land. */
  private async finishState(
    spec: { readonly Assign?: Record<string, unknown>; readonly Output?: unknown },
    states: Record<string, unknown>,
    context: Record<string, unknown>,
    fallback: unknown,
    next: string | undefined,
  ): Promise<Step> {
    const scoped = { ...states, context };
    const assigned: Record<string, unknown> = {};
    for (const [variable, template] of Object.entries(spec.Assign ?? {})) {
      if (variable === 'states') throw new StatesError(STATES_ERRORS.runtime, 'the variable name "states" is reserved');
      assigned[variable] = await evaluateTemplate(template, `Assign/${variable}`, this.scope(scoped));
    }
    const output = await this.outputOf(spec.Output, scoped, fallback);
    Object.assign(this.variables, assigned);
    return { next, output };
  }

  private async runChoice(name: string, state: ChoiceState, input: unknown, enteredTime: number): Promise<Step> {
    const context = this.contextObject(name, enteredTime, 0);
    for (const [index, rule] of state.Choices.entries()) {
      const value =
        typeof rule.Condition === 'boolean'
          ? rule.Condition
          : await evaluateTemplate(rule.Condition, `Choices[${index}]/Condition`, this.scope({ input, context }));
      if (typeof value !== 'boolean') {
        throw new StatesError(
          STATES_ERRORS.queryEvaluation,
          `The Condition of Choices[${index}] in state '${name}' returned ${JSON.stringify(value)}, not a boolean.`,
        );
      }
      if (value) return this.finishState(rule, { input }, context, input, rule.Next);
    }
    if (state.Default === undefined)
      throw new StatesError(STATES_ERRORS.noChoiceMatched, `No Matches! (state '${name}')`);
    return this.finishState(state, { input }, context, input, state.Default);
  }

  private async runWait(name: string, state: WaitState, input: unknown, enteredTime: number): Promise<Step> {
    const context = this.contextObject(name, enteredTime, 0);
    const scope = this.scope({ input, context });
    let until: number;
    if (state.Seconds !== undefined) {
      const seconds = await evaluateTemplate(state.Seconds, 'Seconds', scope);
      if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 0 || seconds > 99_999_999) {
        throw new StatesError(
          STATES_ERRORS.queryEvaluation,
          `The Seconds of state '${name}' must be a whole number from 0 to 99999999, got ${JSON.stringify(seconds)}.`,
        );
      }
      until = enteredTime + seconds * 1000;
    } else {
      const timestamp = await evaluateTemplate(state.Timestamp, 'Timestamp', scope);
      const at =
        typeof timestamp === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(timestamp) ? Date.parse(timestamp) : Number.NaN;
      if (Number.isNaN(at))
        throw new StatesError(
          STATES_ERRORS.queryEvaluation,
          `The Timestamp of state '${name}' is not an ISO 8601 time: ${JSON.stringify(timestamp)}.`,
        );
      until = at;
    }
    await this.sleepUntil(until);
    return this.finishState(state, { input }, context, input, state.Next);
  }

  private async runFail(name: string, state: FailState, input: unknown, enteredTime: number): Promise<Step> {
    const scope = this.scope({ input, context: this.contextObject(name, enteredTime, 0) });
    const text = async (value: string | undefined, field: string) =>
      value === undefined ? undefined : String(await evaluateTemplate(value, field, scope));
    return {
      output: input,
      fail: { error: await text(state.Error, 'Error'), cause: await text(state.Cause, 'Cause') },
    };
  }

  private async runTask(name: string, state: TaskState, input: unknown, enteredTime: number): Promise<Step> {
    const used = new Map<number, number>();
    for (let attempt = 0; ; attempt++) {
      const context = this.contextObject(name, enteredTime, attempt);
      try {
        const args =
          state.Arguments === undefined
            ? input
            : await evaluateTemplate(state.Arguments, 'Arguments', this.scope({ input, context }));
        checkSize(args, `arguments of state '${name}'`);
        this.record({ type: 'TaskScheduled', stateName: name, resource: state.Resource, parameters: args });
        // Step Functions records the start of every attempt too: three events an attempt, as its history counts them.
        this.record({ type: 'TaskStarted', stateName: name, resource: state.Resource });
        const result = await this.invoke(name, state, args, attempt, context);
        checkSize(result, `result of state '${name}'`);
        this.record({ type: 'TaskSucceeded', stateName: name, resource: state.Resource, output: result });
        return await this.finishState(state, { input, result }, context, result, state.Next);
      } catch (caught) {
        if (caught instanceof ExecutionStopped) throw caught;
        const failure = asStatesError(caught);
        const retrier = state.Retry?.findIndex((r) => errorMatches(r.ErrorEquals, failure.error)) ?? -1;
        const policy = retrier >= 0 ? state.Retry?.[retrier] : undefined;
        if (policy) {
          const count = used.get(retrier) ?? 0;
          if (count < policy.MaxAttempts) {
            used.set(retrier, count + 1);
            await this.sleepUntil(this.options.clock.now() + this.retryDelayMs(policy, count));
            continue;
          }
        }
        const catcher = state.Catch?.find((c) => errorMatches(c.ErrorEquals, failure.error));
        if (!catcher) throw failure;
        const errorOutput = { Error: failure.error, Cause: failure.cause };
        return await this.finishState(catcher, { input, errorOutput }, context, errorOutput, catcher.Next);
      }
    }
  }

  /** IntervalSeconds × BackoffRate^n, capped by MaxDelaySeconds; FULL jitter draws from [0, that). */
  private retryDelayMs(policy: NonNullable<TaskState['Retry']>[number], retriesSoFar: number): number {
    let seconds = policy.IntervalSeconds * policy.BackoffRate ** retriesSoFar;
    if (policy.MaxDelaySeconds !== undefined) seconds = Math.min(seconds, policy.MaxDelaySeconds);
    if (policy.JitterStrategy === 'FULL') seconds *= (this.options.random ?? Math.random)();
    return Math.round(seconds * 1000);
  }

  /** Calls the integration, bounded by the state's TimeoutSeconds on the clock. */
  private async invoke(
    name: string,
    state: TaskState,
    args: unknown,
    attempt: number,
    context: Record<string, unknown>,
  ): Promise<unknown> {
    const integration = integrationOf(state.Resource);
    if (!integration) throw new StatesError(STATES_ERRORS.runtime, `resource ${state.Resource} is not emulated`);
    const timeoutSeconds =
      state.TimeoutSeconds === undefined
        ? undefined
        : Number(await evaluateTemplate(state.TimeoutSeconds, 'TimeoutSeconds', this.scope({ context })));
    const abort = new AbortController();
    // The handler holds a unit of real-time work while it runs (not while it sleeps on the clock).
    let handlerHolds = true;
    let abandoned = false;
    this.busy += 1;
    const ctx: TaskContext = {
      stateName: name,
      resource: state.Resource,
      attempt,
      signal: abort.signal,
      executionArn: this.arn,
      now: () => this.options.clock.now(),
      elsewhere: async <T>(work: Promise<T>): Promise<T> => {
        if (abandoned || !handlerHolds) return work;
        handlerHolds = false;
        this.release();
        try {
          return await work;
        } finally {
          if (!abandoned) {
            handlerHolds = true;
            this.busy += 1;
          }
        }
      },
      sleep: (ms) =>
        new Promise<void>((resolve) => {
          if (abandoned) return this.options.clock.schedule(this.options.clock.now() + ms, resolve);
          handlerHolds = false;
          this.timer(this.options.clock.now() + ms, () => {
            if (!abandoned) {
              handlerHolds = true;
              this.busy += 1;
            }
            resolve();
          });
          this.release();
        }),
    };
    const call = this.callIntegration(integration, args, ctx);
    let outcome: { ok: true; value: unknown } | { ok: false; error: StatesError } | undefined;
    try {
      await this.park((wake) => {
        call.then(
          (value) => {
            outcome = { ok: true, value };
            wake({ ok: true });
          },
          (error: unknown) => {
            outcome = { ok: false, error: asStatesError(error) };
            wake({ ok: true });
          },
        );
        const cancel =
          timeoutSeconds === undefined
            ? undefined
            : this.timer(this.options.clock.now() + timeoutSeconds * 1000, () => {
                outcome = {
                  ok: false,
                  error: new StatesError(STATES_ERRORS.timeout, `Task timed out after ${timeoutSeconds} seconds.`),
                };
                wake({ ok: true });
              });
        return cancel;
      });
    } finally {
      abandoned = true;
      abort.abort();
      if (handlerHolds) this.release();
    }
    if (!outcome) throw new StatesError(STATES_ERRORS.runtime, `task ${name} ended without an outcome`);
    if (outcome.ok) return outcome.value;
    const type = outcome.error.error === STATES_ERRORS.timeout ? 'TaskTimedOut' : 'TaskFailed';
    this.record({
      type,
      stateName: name,
      resource: state.Resource,
      error: outcome.error.error,
      cause: outcome.error.cause,
    });
    throw outcome.error;
  }

  private async callIntegration(integration: Integration, args: unknown, ctx: TaskContext): Promise<unknown> {
    const { tasks } = this.options;
    const missing = (what: string) =>
      new StatesError(STATES_ERRORS.runtime, `no handler for ${what} was given to the interpreter`);
    switch (integration.kind) {
      case 'lambda': {
        if (!tasks.lambdaInvoke) throw missing('lambda:invoke');
        const payload = await tasks.lambdaInvoke(args as LambdaInvokeArguments, ctx);
        // The optimized integration wraps the function's answer.
        return {
          ExecutedVersion: '$LATEST',
          Payload: payload,
          SdkHttpMetadata: { HttpStatusCode: 200 },
          SdkResponseMetadata: {},
          StatusCode: 200,
        };
      }
      case 'lambda-arn': {
        if (!tasks.lambdaInvoke) throw missing('Lambda functions');
        return tasks.lambdaInvoke({ FunctionName: integration.functionArn, Payload: args }, ctx);
      }
      case 'aws-sdk': {
        if (!tasks.awsSdk) throw missing(`aws-sdk:${integration.service}`);
        return tasks.awsSdk({ service: integration.service, action: integration.action, parameters: args }, ctx);
      }
      case 'put-events': {
        if (!tasks.putEvents) throw missing('events:putEvents');
        const result = await tasks.putEvents(args, ctx);
        if (result.FailedEntryCount > 0) throw new StatesError('EventBridge.FailedEntry', JSON.stringify(result));
        return result;
      }
      default: {
        const unknown: never = integration;
        throw new Error(`unknown integration ${JSON.stringify(unknown)}`);
      }
    }
  }
}

function isDefinition(value: unknown): value is Definition {
  return typeof value === 'object' && value !== null && 'states' in value && value.states instanceof Map;
}

/** Starts an execution; it runs as the clock moves (see runToCompletion). */
export function startExecution(options: StartOptions): Execution {
  return new Execution(options);
}

/**
 * Drives one execution to its end on its own: whenever it waits only for the clock, moves the
 * clock to its next timer. For tests and standalone use; in the sandbox the world moves the clock.
 */
export async function runToCompletion(
  execution: Execution,
  clock: VirtualClock,
  options: { readonly maxSteps?: number } = {},
): Promise<ExecutionResult> {
  const maxSteps = options.maxSteps ?? 100_000;
  for (let step = 0; step < maxSteps && execution.status === 'RUNNING'; step++) {
    await execution.idle();
    if (execution.status !== 'RUNNING') break;
    const at = execution.nextWakeAt();
    if (at === undefined) throw new Error('the execution waits for something other than the clock');
    clock.set(Math.max(at, clock.now()));
  }
  return execution.result();
}
