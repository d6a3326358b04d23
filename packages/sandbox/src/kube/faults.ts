// Fault injection: slow answers, error rates by verb/resource, scripted failures ("the next 3
// PATCHes of node X return 500") and connection resets — how tests make the API misbehave.
import { Suspensions } from '../suspensions.js';

/** Which requests a fault applies to; every field given must match. */
export type FaultMatch = {
  readonly verb?: string | readonly string[];
  readonly resource?: string;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
  /** Non-resource or any request path: exact string, or a pattern. */
  readonly path?: string | RegExp;
};

export type FaultEffect =
  /** Answer with a Status of this code (reason derived from the code unless given). */
  | {
      readonly status: number;
      readonly reason?: string;
      readonly message?: string;
      readonly retryAfterSeconds?: number;
    }
  /** Destroy the connection without an answer. */
  | { readonly reset: true }
  /**
   * Serve the request, then destroy the connection before the answer leaves: the change is made and
   * the client never learns it (what a client-side timeout leaves behind).
   */
  | { readonly lost: true }
  /** Delay the answer, then serve normally. */
  | { readonly delayMs: number };

export type FaultRule = FaultMatch & {
  readonly effect: FaultEffect;
  /** Apply to this many matching requests, then retire. @default unlimited */
  readonly times?: number;
  /** Chance (0..1) that a matching request is affected. @default 1 */
  readonly probability?: number;
};

/** The request as faults see it. */
export type FaultTarget = {
  verb: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  path: string;
  /** The authenticated user (absent before authentication). */
  user?: string;
};

/** Decides about each request as it comes (seeded chaos): an effect, or undefined to leave it alone. */
export type FaultDecider = (target: FaultTarget) => FaultEffect | undefined;

export type FaultDecision = { delayMs: number; effect: Exclude<FaultEffect, { delayMs: number }> | undefined };

type ActiveRule = { rule: FaultRule; remaining: number };

export class Faults {
  /** Added to every request (a slow API server or a long network path). */
  latencyMs = 0;
  private rules: ActiveRule[] = [];
  private deciders: FaultDecider[] = [];
  /** While any is in force (suspend), no request is delayed or failed. */
  private readonly suspensions = new Suspensions();

  /** @param random the chance source for `probability` (inject a seeded one for reproducible runs) */
  constructor(private readonly random: () => number = Math.random) {}

  /** Adds a rule; returns a function that removes it. */
  add(rule: FaultRule): () => void {
    const active = { rule, remaining: rule.times ?? Infinity };
    this.rules.push(active);
    return () => {
      this.rules = this.rules.filter((r) => r !== active);
    };
  }

  /** Adds a decider, asked after the rules about every request none of them failed; returns a function that removes it. */
  addDecider(decider: FaultDecider): () => void {
    this.deciders.push(decider);
    return () => {
      this.deciders = this.deciders.filter((d) => d !== decider);
    };
  }

  /** The next `count` matching requests fail with `status` (500 by default). */
  failNext(count: number, match: FaultMatch, status = 500, message?: string): () => void {
    return this.add({ ...match, times: count, effect: { status, ...(message === undefined ? {} : { message }) } });
  }

  /** A share of matching requests fail with `status` until removed. */
  errorRate(probability: number, match: FaultMatch, status = 500): () => void {
    return this.add({ ...match, probability, effect: { status } });
  }

  /** The next `count` matching requests lose their connection. */
  resetNext(count: number, match: FaultMatch = {}): () => void {
    return this.add({ ...match, times: count, effect: { reset: true } });
  }

  /**
   * Leaves every request alone until the returned function is called (no delay or failure, and no
   * counted rule used up): for requests that are not the world's, such as the operator's picture of it.
   */
  suspend(): () => void {
    return this.suspensions.begin();
  }

  /** Whether any rule or decider may fail a request now (latency aside: it changes no answer). */
  get armed(): boolean {
    if (this.suspensions.active) return false;
    return this.rules.length > 0 || this.deciders.length > 0;
  }

  clear(): void {
    this.rules = [];
    this.deciders = [];
    this.latencyMs = 0;
  }

  /** Consumes the rules that apply to this request; the first failing effect wins, delays add up. */
  decide(target: FaultTarget): FaultDecision {
    if (this.suspensions.active) return { delayMs: 0, effect: undefined };
    let delayMs = this.latencyMs;
    let effect: FaultDecision['effect'];
    for (const active of [...this.rules]) {
      if (effect !== undefined) break;
      if (active.remaining <= 0 || !matchesTarget(active.rule, target)) continue;
      if (active.rule.probability !== undefined && this.random() >= active.rule.probability) continue;
      active.remaining--;
      if (active.remaining <= 0) this.rules = this.rules.filter((r) => r !== active);
      const e = active.rule.effect;
      if ('delayMs' in e) delayMs += e.delayMs;
      else effect = e;
    }
    for (const decider of this.deciders) {
      if (effect !== undefined) break;
      const e = decider(target);
      if (e === undefined) continue;
      if ('delayMs' in e) delayMs += e.delayMs;
      else effect = e;
    }
    return { delayMs, effect };
  }
}

function matchesTarget(m: FaultMatch, t: FaultTarget): boolean {
  if (m.verb !== undefined && !(typeof m.verb === 'string' ? m.verb === t.verb : m.verb.includes(t.verb))) return false;
  if (m.resource !== undefined && m.resource !== t.resource) return false;
  if (m.subresource !== undefined && m.subresource !== t.subresource) return false;
  if (m.namespace !== undefined && m.namespace !== t.namespace) return false;
  if (m.name !== undefined && m.name !== t.name) return false;
  if (m.path !== undefined && !(typeof m.path === 'string' ? m.path === t.path : m.path.test(t.path))) return false;
  return true;
}

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  410: 'Expired',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

export const reasonForCode = (code: number): string | undefined => REASONS[code];
