// The longest a drain may go without a lifecycle heartbeat (docs/design.md §5: "no gap between heartbeats,
// retries included, may reach half the hook's heartbeat timeout"), computed from the drain step's
// Task state as the definition renders it (its Retry and TimeoutSeconds), the workflow's heartbeat
// interval and its longest wait. A hook whose heartbeat timeout is under twice this can lapse in
// the middle of a drain, and Auto Scaling then applies its default result.
//
// Where heartbeats come from:
//   - the drain-step function records one at the start of every invocation that runs (a retried one too);
//   - the workflow records one before its Wait when, by the end of the wait, the last one would be
//     `heartbeatInterval` old.
// So the worst gaps are:
//   - an attempt that heartbeats, runs to its task timeout and fails; the TaskFailed retrier's
//     longest delay; then every Lambda service/throttling retry, whose attempts never run the handler;
//   - the wait (at most `maxWaitSeconds`, or the interval when no heartbeat was due), then every
//     service/throttling retry.
// Assumed: each heartbeat call succeeds (a failed one is logged, and the next source covers it), and
// the handler records its heartbeat within `startSeconds` of the attempt (cold start and the call).
// An attempt that fails before its handler runs at all (a broken deployment) is not covered: the
// drain then fails after its tries and the lifecycle action is completed.

/** An ASL retrier as rendered in the definition. */
export interface AslRetrier {
  readonly ErrorEquals: readonly string[];
  readonly IntervalSeconds?: number;
  readonly MaxAttempts?: number;
  readonly BackoffRate?: number;
  readonly MaxDelaySeconds?: number;
}

/** Errors of attempts that never reached the handler: Lambda refused or lost the invocation. */
export const LAMBDA_SERVICE_ERRORS = [
  'Lambda.TooManyRequestsException',
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  'Lambda.ClientExecutionTimeoutException',
] as const;

/** Errors of attempts that ran the handler (it failed, or ran out of time). */
export const HANDLER_ERRORS = ['States.TaskFailed', 'States.Timeout'] as const;

/** Seconds allowed for a handler to record its heartbeat after an attempt starts (cold start and the call). */
export const HEARTBEAT_START_SECONDS = 5;

/** The delays (seconds) of a retrier's retries, before jitter (which only shortens them): ASL's defaults 1 s, 3 attempts, rate 2. */
export function retryDelays(retrier: AslRetrier): number[] {
  const interval = retrier.IntervalSeconds ?? 1;
  const rate = retrier.BackoffRate ?? 2;
  const cap = retrier.MaxDelaySeconds ?? Infinity;
  return Array.from({ length: retrier.MaxAttempts ?? 3 }, (_, n) => Math.min(cap, interval * rate ** n));
}

export interface HeartbeatGapInput {
  /** The drain step's Task state as rendered: `Retry` and `TimeoutSeconds` (an attempt's longest run). */
  readonly stepTask: { readonly Retry?: readonly AslRetrier[]; readonly TimeoutSeconds?: number };
  /** The workflow heartbeats before a wait when the last one would otherwise be this old by its end. */
  readonly heartbeatIntervalSeconds: number;
  /** The longest Wait between two steps. */
  readonly maxWaitSeconds: number;
}

export interface HeartbeatGap {
  /** The worst gap, whole seconds. */
  readonly seconds: number;
  /** Its parts, for the synth warning and docs/deploy.md. */
  readonly attemptSeconds: number;
  readonly handlerRetryDelaySeconds: number;
  readonly serviceRetrySeconds: number;
}

const covers = (retrier: AslRetrier, errors: readonly string[]): boolean =>
  retrier.ErrorEquals.some((e) => errors.includes(e) || e === 'States.ALL');

/**
 * The worst gap between two lifecycle heartbeats of a drain. Refuses a step task without a
 * TimeoutSeconds (an attempt could run for a year) or without a retrier for the Lambda service errors
 * ahead of the handler-error one (States.TaskFailed would catch them, and its attempts are not known
 * to run the handler).
 */
export function worstHeartbeatGap(input: HeartbeatGapInput): HeartbeatGap {
  const { Retry: retriers = [], TimeoutSeconds: attemptSeconds } = input.stepTask;
  if (attemptSeconds === undefined) throw new Error('drain step task: no TimeoutSeconds, so an attempt has no bound');
  const service = retriers.findIndex((r) => covers(r, LAMBDA_SERVICE_ERRORS));
  const handler = retriers.findIndex((r) => covers(r, HANDLER_ERRORS));
  const serviceRetrier = retriers[service];
  // States.TaskFailed matches Lambda's errors too: the service retrier must come first, for all of them.
  const allFirst = LAMBDA_SERVICE_ERRORS.every((e) => retriers.findIndex((r) => covers(r, [e])) === service);
  if (serviceRetrier === undefined || (handler !== -1 && handler < service) || !allFirst) {
    throw new Error(
      `drain step task: the Lambda service errors (${LAMBDA_SERVICE_ERRORS.join(', ')}) need one retrier ahead of States.TaskFailed`,
    );
  }
  const serviceRetrySeconds = retryDelays(serviceRetrier).reduce((a, b) => a + b, 0);
  const handlerRetrier = handler === -1 ? undefined : retriers[handler];
  const handlerRetryDelaySeconds = handlerRetrier ? Math.max(0, ...retryDelays(handlerRetrier)) : 0;
  const beforeRetries = Math.max(
    attemptSeconds + handlerRetryDelaySeconds,
    input.heartbeatIntervalSeconds,
    input.maxWaitSeconds,
  );
  return {
    seconds: Math.ceil(beforeRetries + serviceRetrySeconds + HEARTBEAT_START_SECONDS),
    attemptSeconds,
    handlerRetryDelaySeconds,
    serviceRetrySeconds,
  };
}
