import { operationNamed } from './iam/actions.js';
import type { ServiceName } from './services/names.js';
import { Suspensions } from '../suspensions.js';

/** Which requests a fault applies to; an omitted field matches everything. */
export interface RequestMatch {
  readonly service?: ServiceName;
  /** The operation, or its IAM action name where that differs (`InvokeFunction` for Lambda's `Invoke`). */
  readonly operation?: string;
}

export interface LatencyRule extends RequestMatch {
  /** Real milliseconds added before the answer (the virtual clock does not move). */
  readonly ms: number;
  /** Up to this many more, drawn from the seeded generator. */
  readonly jitterMs?: number;
}

/**
 * Throttles matching requests with the service's own throttling error (EC2 `RequestLimitExceeded`,
 * awsquery `Throttling`, JSON `ThrottlingException`), so SDK retries are exercised. Give one of:
 * `count` (the next N matching requests), `script` (one decision per matching request, in order;
 * the rule ends with the script) or `rate` (a probability per request, from the seeded generator).
 */
export interface ThrottleRule extends RequestMatch {
  readonly count?: number;
  readonly script?: readonly boolean[];
  readonly rate?: number;
}

/** Answers matching requests with an arbitrary error (e.g. `InternalError`, 500) instead of handling them. */
export interface FailureRule extends RequestMatch {
  readonly code: string;
  readonly message?: string;
  readonly status?: number;
  /** How many matching requests fail; default: every one until removed. */
  readonly count?: number;
}

/** A PutEvents entry as a partial-failure rule sees it. */
export interface EntryView {
  readonly source?: string;
  readonly detailType?: string;
  readonly eventBusName?: string;
}

/** Fails otherwise valid PutEvents entries: the call succeeds with `FailedEntryCount` > 0. */
export interface EntryFailureRule {
  readonly errorCode: string;
  readonly errorMessage?: string;
  /** Which entries; default: all. */
  readonly match?: (entry: EntryView) => boolean;
  /** How many entries fail; default: every matching one until removed. */
  readonly count?: number;
}

export interface FaultOptions {
  readonly latency?: readonly LatencyRule[];
  readonly throttle?: readonly ThrottleRule[];
  readonly failures?: readonly FailureRule[];
  readonly entryFailures?: readonly EntryFailureRule[];
  /** Seed of the generator behind `rate` and `jitterMs`, so runs repeat. */
  readonly seed?: number;
}

export type FaultDecision =
  | { readonly kind: 'throttle' }
  | { readonly kind: 'fail'; readonly code: string; readonly message: string; readonly status: number }
  /** The connection drops before the call is served. */
  | { readonly kind: 'reset' }
  /** The call is served, then the connection drops before the answer leaves (what a client-side timeout leaves behind). */
  | { readonly kind: 'lost' };

/** Who makes a call, and with what: what a decider keys its draws on. */
export interface CallView {
  readonly accessKeyId?: string;
  readonly params?: unknown;
}

/** Decides about each call as it comes (seeded chaos): a decision, or undefined to leave it alone. */
export type FaultDecider = (service: ServiceName, operation: string, call: CallView) => FaultDecision | undefined;

interface Counted<T> {
  readonly rule: T;
  /** Matching requests seen so far. */
  seen: number;
}

// Scenarios name calls by IAM action (`lambda:InvokeFunction`) as readily as by operation (`lambda:Invoke`).
const matches = (rule: RequestMatch, service: ServiceName, operation: string): boolean =>
  (rule.service === undefined || rule.service === service) &&
  (rule.operation === undefined || operationNamed(service, rule.operation) === operation);

/** mulberry32: small, fast and good enough for fault draws. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Injected misbehaviour. Every add method returns a function that removes the rule again. */
export class Faults {
  private latencies: LatencyRule[] = [];
  private throttles: Counted<ThrottleRule>[] = [];
  private failures: Counted<FailureRule>[] = [];
  private entryFailures: Counted<EntryFailureRule>[] = [];
  private deciders: FaultDecider[] = [];
  /** While any is in force (suspend), no call is delayed, throttled or failed. */
  private readonly suspensions = new Suspensions();
  /**
   * Two draw streams from the one seed: which calls a rate throttles does not move when a latency rule
   * with jitter is added or removed (each jittered delay would otherwise take a draw from the throttles).
   */
  private readonly throttleDraws: () => number;
  private readonly jitterDraws: () => number;

  constructor(options: FaultOptions = {}) {
    const seed = options.seed ?? 1;
    this.throttleDraws = generator(seed);
    this.jitterDraws = generator(seed ^ 0x5bd1e995);
    options.latency?.forEach((r) => this.latency(r));
    options.throttle?.forEach((r) => this.throttle(r));
    options.failures?.forEach((r) => this.fail(r));
    options.entryFailures?.forEach((r) => this.failEntries(r));
  }

  latency(rule: LatencyRule): () => void {
    if (!(rule.ms >= 0) || !((rule.jitterMs ?? 0) >= 0)) throw new Error('latency: ms and jitterMs must be >= 0');
    this.latencies.push(rule);
    return () => {
      this.latencies = this.latencies.filter((r) => r !== rule);
    };
  }

  throttle(rule: ThrottleRule): () => void {
    const given = [rule.count, rule.script, rule.rate].filter((v) => v !== undefined).length;
    if (given !== 1) throw new Error('throttle: give exactly one of count, script or rate');
    if (rule.rate !== undefined && !(rule.rate >= 0 && rule.rate <= 1))
      throw new Error('throttle: rate must be within [0, 1]');
    const entry = { rule, seen: 0 };
    this.throttles.push(entry);
    return () => {
      this.throttles = this.throttles.filter((r) => r !== entry);
    };
  }

  fail(rule: FailureRule): () => void {
    const entry = { rule, seen: 0 };
    this.failures.push(entry);
    return () => {
      this.failures = this.failures.filter((r) => r !== entry);
    };
  }

  failEntries(rule: EntryFailureRule): () => void {
    const entry = { rule, seen: 0 };
    this.entryFailures.push(entry);
    return () => {
      this.entryFailures = this.entryFailures.filter((r) => r !== entry);
    };
  }

  /** Adds a decider, asked about every call the rules leave alone. */
  addDecider(decider: FaultDecider): () => void {
    this.deciders.push(decider);
    return () => {
      this.deciders = this.deciders.filter((d) => d !== decider);
    };
  }

  /**
   * Leaves every call alone until the returned function is called (no delay, throttle or failure, and no
   * counted rule used up): for calls that are not the world's, such as the operator's picture of it.
   */
  suspend(): () => void {
    return this.suspensions.begin();
  }

  /** Whether any rule or decider may throttle or fail a call now (latency aside: it changes no answer). */
  get armed(): boolean {
    if (this.suspensions.active) return false;
    const live = <T extends { count?: number }>(entries: readonly Counted<T>[]) =>
      entries.some((e) => e.rule.count === undefined || e.seen < e.rule.count);
    return this.throttles.length > 0 || live(this.failures) || live(this.entryFailures) || this.deciders.length > 0;
  }

  clear(): void {
    this.latencies = [];
    this.throttles = [];
    this.failures = [];
    this.entryFailures = [];
    this.deciders = [];
  }

  /** Real milliseconds to wait before answering this request. */
  delayFor(service: ServiceName, operation: string): number {
    if (this.suspensions.active) return 0;
    return this.latencies
      .filter((r) => matches(r, service, operation))
      .reduce((sum, r) => sum + r.ms + (r.jitterMs ? Math.floor(this.jitterDraws() * r.jitterMs) : 0), 0);
  }

  /** Whether this request is throttled or failed; scripted and counted rules use up one step per call. */
  decide(service: ServiceName, operation: string, call: CallView = {}): FaultDecision | undefined {
    if (this.suspensions.active) return undefined;
    for (const entry of this.throttles.filter((e) => matches(e.rule, service, operation))) {
      const { rule } = entry;
      const step = entry.seen++;
      if (rule.count !== undefined) {
        if (step < rule.count) return { kind: 'throttle' };
      } else if (rule.script !== undefined) {
        if (rule.script[step] === true) return { kind: 'throttle' };
      } else if (rule.rate !== undefined && this.throttleDraws() < rule.rate) {
        return { kind: 'throttle' };
      }
    }
    for (const entry of this.failures.filter((e) => matches(e.rule, service, operation))) {
      const { rule } = entry;
      if (rule.count !== undefined && entry.seen >= rule.count) continue;
      entry.seen++;
      const status = rule.status ?? 500;
      return { kind: 'fail', code: rule.code, message: rule.message ?? `injected ${rule.code}`, status };
    }
    for (const decider of this.deciders) {
      const decision = decider(service, operation, call);
      if (decision !== undefined) return decision;
    }
    return undefined;
  }

  /** The injected failure for one otherwise valid PutEvents entry, if any. */
  entryFailure(entry: EntryView): { errorCode: string; errorMessage: string } | undefined {
    if (this.suspensions.active) return undefined;
    for (const counted of this.entryFailures) {
      const { rule } = counted;
      if (rule.match && !rule.match(entry)) continue;
      if (rule.count !== undefined && counted.seen >= rule.count) continue;
      counted.seen++;
      return { errorCode: rule.errorCode, errorMessage: rule.errorMessage ?? `injected ${rule.errorCode}` };
    }
    return undefined;
  }
}
