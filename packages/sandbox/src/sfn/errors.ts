// Errors as Step Functions names them: a task's own error (its name), or a States.* error the
// interpreter raises. Which names States.ALL and States.TaskFailed match is the Step Functions
// Developer Guide's ("Error handling in Step Functions").

/** An error a state raised, with the Error and Cause that `$states.errorOutput` and the history show. */
export class StatesError extends Error {
  constructor(
    readonly error: string,
    override readonly cause: string,
  ) {
    super(`${error}: ${cause}`);
    this.name = 'StatesError';
  }
}

export const STATES_ERRORS = {
  all: 'States.ALL',
  taskFailed: 'States.TaskFailed',
  timeout: 'States.Timeout',
  runtime: 'States.Runtime',
  queryEvaluation: 'States.QueryEvaluationError',
  dataLimitExceeded: 'States.DataLimitExceeded',
  noChoiceMatched: 'States.NoChoiceMatched',
} as const;

/**
 * "States.ALL can't catch the States.DataLimitExceeded terminal error type and runtime error
 * types"; "States.Runtime errors are not retriable, and will always cause the execution to fail".
 * So States.Runtime is never handled, and States.DataLimitExceeded only by its own name.
 */
export const isUncatchable = (error: string): boolean => error === STATES_ERRORS.runtime;
const beyondWildcards = (error: string): boolean =>
  error === STATES_ERRORS.runtime || error === STATES_ERRORS.dataLimitExceeded;

/**
 * Whether a retrier's or catcher's ErrorEquals covers an error: by name; States.ALL for any error
 * but the terminal ones; States.TaskFailed, in the guide's words, for "any known error name except
 * for States.Timeout" (nor the terminal ones).
 */
export function errorMatches(errorEquals: readonly string[], error: string): boolean {
  if (isUncatchable(error)) return false;
  return errorEquals.some((name) => {
    if (name === error) return true;
    if (beyondWildcards(error)) return false;
    if (name === STATES_ERRORS.all) return true;
    return name === STATES_ERRORS.taskFailed && error !== STATES_ERRORS.timeout;
  });
}
