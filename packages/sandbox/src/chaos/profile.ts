// The fault rates of the chaos differential (issue #16): what each API does wrong, and how often,
// while a scenario's steps run. Rates are per request (per invocation for Lambda), drawn by
// dice.ts from the run's seed.

export interface ChaosProfile {
  readonly kube: {
    /** 500 InternalError or 503 ServiceUnavailable, before the request is served. */
    readonly serverErrors: number;
    /**
     * Timeouts: half are the API server's own (504 Timeout, not served), half a client's (the
     * request is served, the answer never arrives).
     */
    readonly timeouts: number;
    /** The connection drops before the request is served. */
    readonly resets: number;
    /** 409 Conflict on a Node PATCH (another writer got there first), before it is served. */
    readonly nodePatchConflicts: number;
  };
  readonly aws: {
    /** The service's throttling error (EC2 RequestLimitExceeded, Auto Scaling Throttling) on these services. */
    readonly throttling: number;
    readonly throttledServices: readonly string[];
    /** On every service: half drop before the call is served, half after (the answer is lost). */
    readonly resets: number;
  };
  readonly lambda: {
    /** Invocations whose runtime is killed part-way. */
    readonly kills: number;
    /** A killed invocation dies after 0 to this many of its HTTP requests (past its last: before it returns). */
    readonly maxRequestsBeforeKill: number;
  };
}

/** The issue's matrix: 20% 5xx and timeouts on Kubernetes, 30% throttling on EC2 and Auto Scaling, resets, 409s on Node patches, killed invocations. */
export const ISSUE_16_CHAOS: ChaosProfile = {
  kube: { serverErrors: 0.1, timeouts: 0.1, resets: 0.05, nodePatchConflicts: 0.2 },
  aws: { throttling: 0.3, throttledServices: ['ec2', 'autoscaling'], resets: 0.05 },
  lambda: { kills: 0.1, maxRequestsBeforeKill: 8 },
};

/** What was injected, by kind: the closing note's "faults injected". */
export const FAULT_KINDS = [
  'kube-500',
  'kube-503',
  'kube-504',
  'kube-answer-lost',
  'kube-reset',
  'kube-409-node-patch',
  'aws-throttle',
  'aws-reset',
  'aws-answer-lost',
  'lambda-killed',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
export type FaultCounts = Record<FaultKind, number>;

export const noFaults = (): FaultCounts => Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as FaultCounts;
