/**
 * Step Functions for the sandbox: an interpreter of JSONata-mode ASL (Task, Pass, Choice, Wait,
 * Succeed, Fail; Arguments/Output/Assign; Retry and Catch; timeouts) on the virtual clock, with
 * task integrations routed to injected handlers. Standalone: the sandbox world decides the handlers.
 */
export { parseDefinition, type Definition, type State } from './asl.js';
export { StatesError, STATES_ERRORS, errorMatches } from './errors.js';
export { evaluateTemplate, type EvaluationScope } from './jsonata.js';
export { END_EVENT_TYPES } from './history.js';
export {
  Execution,
  integrationOf,
  PAYLOAD_LIMIT_BYTES,
  runToCompletion,
  startExecution,
  type ExecutionResult,
  type ExecutionStatus,
  type HistoryEvent,
  type LambdaInvokeArguments,
  type PutEventsResult,
  type StartOptions,
  type TaskContext,
  type TaskHandlers,
} from './interpreter.js';
