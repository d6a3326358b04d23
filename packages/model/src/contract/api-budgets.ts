// The outside limits a storm of interruptions meets (issue #16, shared NOTES.md), and the settings
// that keep the reconciler within them. The event source (infra) and the functions' clients (lib)
// read their numbers here; test/infra/api-budgets.test.ts checks the arithmetic on the synthesized
// template. The sandbox's AWS emulator enforces EC2's buckets with its own copy of AWS's table
// (packages/sandbox/src/aws/rate-limits.ts): an oracle never reads the numbers it judges.

/**
 * EC2 throttles each API per account and Region with a token bucket shared by every caller
 * (docs: "Request throttling for the Amazon EC2 API"). The reconciler's DescribeInstances calls are
 * all filtered (`instance-id`, `tag-key`) and paginated, so they draw on the non-mutating bucket;
 * unfiltered, unpaginated ones would draw on a smaller one.
 */
export const EC2_DESCRIBE_BUCKETS = {
  /** Filtered or paginated Describe* (the reconciler's): burst and tokens added per second. */
  nonMutating: { capacity: 100, refillPerSecond: 20 },
  /** DescribeInstances and DescribeInstanceStatus without a filter or pagination. */
  unfilteredUnpaginated: { capacity: 50, refillPerSecond: 10 },
} as const;

/**
 * How a sweep reads the cluster's instances (issue #28): a listing of more than one page is read
 * again as this many disjoint listings at once (lib/aws/id-partitions.ts), so that 100,000 instances
 * are four chains of 25 pages of 1000, not one of 100; EC2 answers a large page in a second or more,
 * and a chain of 100 would take minutes of a sweep's 300 s. A listing of one page stays one call
 * (most clusters): the first page is asked for alone, and only a NextToken opens the partitions.
 * - Calls: at most one page more per partition (its last, partly filled) and the first page, read
 *   again: ≤ 100 + 1 + 4 for 100,000 instances, within sweep-100k-api-calls-ratio's 5 %.
 * - Bucket: four DescribeInstances in flight, each a page long (a second or more on EC2), draw a few
 *   tokens a second of EC2_DESCRIBE_BUCKETS.nonMutating; a 100k sweep's ~105 calls over the listing's
 *   seconds stay within its burst of 100 and refill of 20 a second.
 */
export const EC2_SWEEP_LISTING = {
  /** Disjoint listings read at once (1 to 16). */
  partitions: 4,
} as const;

/**
 * Kubernetes API Priority and Fairness puts an IAM-authenticated client (an EKS access entry) in
 * the `global-default` priority level: about 49 seats (concurrent requests) per API server before
 * borrowing. The reconciler keeps to well under half of them.
 */
export const KUBE_SEATS = {
  globalDefault: 49,
  /**
   * What the reconciler keeps in flight at once, every function together (the storm benchmark
   * measures it); the events function alone stays within it by construction (EVENT_SOURCE).
   */
  goal: 20,
  /** What one invocation (of any function) keeps in flight at once: KubeClientOptions.maxInFlight. */
  perInvocation: 8,
} as const;

/**
 * The events function's SQS event source. Each invocation observes its whole batch in one pass
 * (one DescribeInstances for up to 200 instances), so:
 * - EC2: at most `maxConcurrency` DescribeInstances in flight, and a new batch per slot at most
 *   once per batching window: ≤ maxConcurrency / batchingWindowSeconds = 2 a second, a tenth of
 *   the bucket's refill, the rest left to every other caller of the account.
 * - Kubernetes: ≤ maxConcurrency × KUBE_SEATS.perInvocation = 16 requests in flight ≤ KUBE_SEATS.goal.
 * - Deadlines: up to maxConcurrency × batchSize / max(window, a batch's time) events a second:
 *   50 a second for batches done within the window, so 500 warnings are cordoned within seconds,
 *   far inside a spot warning's two minutes.
 */
export const EVENT_SOURCE = {
  /** MaximumConcurrency of the event source mapping (Lambda's least: 2). */
  maxConcurrency: 2,
  /** Records per invocation (above 10, Lambda needs a batching window of at least 1 s). */
  batchSize: 25,
  /** MaximumBatchingWindowInSeconds: how long Lambda gathers records before invoking. */
  batchingWindowSeconds: 1,
} as const;

/**
 * Lambda concurrency (issue #28): Lambda refuses a reserved concurrency that would leave the account
 * fewer than `minUnreserved` unreserved concurrent executions in the region. The sweep reserves
 * `sweepReserved` so that sweeps never overlap; an account whose quota is 10 (a new account) cannot
 * hold even that, and is deployed with reserveSweepConcurrency=false until its quota is raised
 * (Service Quotas, `quotaCode`). `doctor` checks it (cli/doctor/concurrency.ts).
 */
export const LAMBDA_CONCURRENCY = {
  minUnreserved: 10,
  sweepReserved: 1,
  /** Service Quotas' code of Lambda's "Concurrent executions". */
  quotaCode: 'L-B99A9384',
} as const;
