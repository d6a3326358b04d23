// An execution's history as Step Functions keeps it, apart from the interpreter that writes it: the
// AWS emulator serves it (GetExecutionHistory) without loading the interpreter.

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

export interface HistoryEvent {
  readonly id: number;
  /** Step Functions' HistoryEventType names: `ExecutionStarted`, `TaskStateEntered`, `TaskScheduled`, … */
  readonly type: string;
  readonly timestamp: number;
  readonly stateName?: string;
  readonly input?: unknown;
  readonly output?: unknown;
  readonly resource?: string;
  readonly parameters?: unknown;
  readonly error?: string;
  readonly cause?: string;
}

/** The history event that ends an execution, by how it ended. */
export const END_EVENT_TYPES: Readonly<Record<Exclude<ExecutionStatus, 'RUNNING'>, string>> = {
  SUCCEEDED: 'ExecutionSucceeded',
  FAILED: 'ExecutionFailed',
  TIMED_OUT: 'ExecutionTimedOut',
  ABORTED: 'ExecutionAborted',
};
