// Why a drain step failed decides how the drain goes on (docs/design.md §5): a transient failure
// (the API server restarting, throttled, timed out, a reset connection) is retried with capped
// backoff until the drain's deadline, and only then does the drain end; a permanent one (the request
// itself is refused: validation, forbidden) ends the drain at once, since no retry changes it.
import { httpStatus } from '../kube/client.js';

/**
 * The error name a permanent failure carries out of the drain-step function: Step Functions reports it
 * as the task's error, and the workflow's first retrier and catcher take it by this name.
 */
export const PERMANENT_STEP_ERROR = 'DrainStepPermanentError';

export class DrainStepPermanentError extends Error {
  override readonly name = PERMANENT_STEP_ERROR;
}

/**
 * HTTP statuses that say the request will be refused however often it is sent: malformed (400),
 * forbidden by RBAC (403), not allowed (405), unsupported media (415), invalid (422). 401 is left out:
 * an expired or not yet valid token is renewed by the next attempt. 404 and 409 never reach here as
 * failures: the step reads them as a gone Node or pod and as a conflict to decide again.
 */
const PERMANENT_STATUSES: ReadonlySet<number> = new Set([400, 403, 405, 415, 422]);

export type StepFailureKind = 'transient' | 'permanent';

/** Errors, outermost first, through their `cause` chain (bounded: a cycle never loops). */
function* causeChain(error: unknown): Generator<unknown> {
  let current = error;
  for (let depth = 0; depth < 10 && current !== undefined; depth++) {
    yield current;
    current = current instanceof Error ? current.cause : undefined;
  }
}

/**
 * Transient unless some error in the chain says the request itself is refused. Everything else —
 * 5xx, 429, timeouts, resets, an invocation out of time, an answer that is not the expected object,
 * an unknown error — counts as transient: a drain that waits for its deadline keeps the machine's pods
 * safe, and the deadline bounds the wait.
 */
export function stepFailureKind(error: unknown): StepFailureKind {
  for (const e of causeChain(error)) {
    if (e instanceof DrainStepPermanentError) return 'permanent';
    const status = httpStatus(e);
    if (status !== undefined && PERMANENT_STATUSES.has(status)) return 'permanent';
  }
  return 'transient';
}

/** The error to fail the step with: a permanent failure under PERMANENT_STEP_ERROR, a transient one as it is. */
export function asStepFailure(error: unknown): unknown {
  if (error instanceof DrainStepPermanentError || stepFailureKind(error) !== 'permanent') return error;
  const message = error instanceof Error ? error.message : String(error);
  return new DrainStepPermanentError(message, { cause: error });
}
