// The signal queue's redelivery against a spot warning's two minutes (issue #28). The queue (infra)
// and the events function (functions/events.ts, which knows a record's last receive) read their
// numbers here; test/infra/signal-queue.test.ts checks the arithmetic on the synthesized template.

/**
 * Lambda's advice for an SQS event source (docs: "Using Lambda with Amazon SQS", backoff and
 * throttling): a redrive policy's maxReceiveCount of at least 5, because a receive whose invocation
 * Lambda throttles counts as much as one the function fails.
 */
export const LAMBDA_ADVISED_MIN_RECEIVES = 5;

/**
 * Lambda's advice for an SQS event source: a visibility timeout of at least six times the function's
 * timeout, so that a batch still being retried by a throttled poller is not delivered again meanwhile.
 */
export const LAMBDA_ADVISED_VISIBILITY_FACTOR = 6;

/**
 * The signal queue as deployed: a record the events function fails comes back after the visibility
 * timeout, and after maxReceiveCount receives it goes to the dead-letter queue. The sandbox's queue
 * behaves the same.
 *
 * The arithmetic, against a spot warning's 2-minute notice (120 s):
 * - visibilityTimeoutSeconds = 6 × 60 s (the events function's timeout) = 360 s: a record failed or
 *   throttled on a receive comes back 360 s later, 3 × the notice. A spot warning is useful on its
 *   first receive only; its machine is gone before any redelivery (the sweep reports the Node after).
 * - What the later receives decide is where the record ends. Receives come at 0, 360, 720, 1080 and
 *   1440 s; a record failed on all of them goes to the DLQ after 5 × 360 s = 1800 s (30 min).
 *   On its last receive the function reports a record rather than fail it for what only waiting
 *   would fix (functions/events.ts: lastReceive), so a spot warning reaches the DLQ only when Lambda
 *   throttled every one of its receives: 30 minutes of throttling, an outage the DLQ alarm should tell.
 *   With 3 receives (before issue #28) that took 3 throttled receives in 18 minutes — what an account
 *   with a concurrency quota of 10 meets in a storm of warnings — and the DLQ filled with warnings the
 *   function never saw.
 * - Signals that live longer get the same 5 attempts within 24 minutes: a lifecycle action (its
 *   heartbeat timeout 1 h by default, the drain workflow heartbeats it once started), a rebalance
 *   recommendation, a scheduled change days ahead.
 */
const EVENTS_FUNCTION_TIMEOUT_SECONDS = 60;
export const SIGNAL_QUEUE = {
  eventsFunctionTimeoutSeconds: EVENTS_FUNCTION_TIMEOUT_SECONDS,
  visibilityTimeoutSeconds: LAMBDA_ADVISED_VISIBILITY_FACTOR * EVENTS_FUNCTION_TIMEOUT_SECONDS,
  maxReceiveCount: LAMBDA_ADVISED_MIN_RECEIVES,
} as const;
