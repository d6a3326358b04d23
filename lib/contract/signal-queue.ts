/**
 * The signal queue as deployed: a record the events function fails comes back after the visibility
 * timeout (six times the function's 60 s timeout, Lambda's advice for SQS sources), and after
 * maxReceiveCount receives it goes to the dead-letter queue. The sandbox's queue behaves the same.
 */
export const SIGNAL_QUEUE = {
  eventsFunctionTimeoutSeconds: 60,
  visibilityTimeoutSeconds: 360,
  maxReceiveCount: 3,
} as const;
