import { END_EVENT_TYPES, type ExecutionStatus, type HistoryEvent } from '../../sfn/history.js';

export type { ExecutionStatus } from '../../sfn/history.js';

export interface StateMachineRecord {
  readonly name: string;
  readonly arn: string;
  readonly type: 'STANDARD' | 'EXPRESS';
}

export interface ExecutionRecord {
  readonly arn: string;
  readonly stateMachineArn: string;
  readonly name: string;
  readonly input: string;
  readonly startDate: number;
  status: ExecutionStatus;
  stopDate?: number;
  output?: string;
  error?: string;
  cause?: string;
}

/** Parsed JSON, as the interpreter's history holds data; text that is not JSON stays text. */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * State machines and their executions. Nothing runs here: whoever runs executions (the deployed
 * world's interpreter) is told of each new one through `onStart`, hands over its history through
 * attachHistory() and reports its end through finish().
 */
export class StepFunctionsStore {
  private readonly machines = new Map<string, StateMachineRecord>();
  private readonly executionsByArn = new Map<string, ExecutionRecord>();
  private readonly histories = new Map<string, () => readonly HistoryEvent[]>();
  /** Called for every execution StartExecution creates. */
  onStart?: (execution: ExecutionRecord) => void;

  putStateMachine(machine: StateMachineRecord): void {
    this.machines.set(machine.arn, machine);
  }

  stateMachine(arn: string): StateMachineRecord | undefined {
    return this.machines.get(arn);
  }

  execution(arn: string): ExecutionRecord | undefined {
    return this.executionsByArn.get(arn);
  }

  addExecution(execution: ExecutionRecord): void {
    this.executionsByArn.set(execution.arn, execution);
    this.onStart?.(execution);
  }

  /** Where the history of an execution is kept by whoever runs it (the interpreter's, as it grows). */
  attachHistory(arn: string, history: () => readonly HistoryEvent[]): void {
    this.histories.set(arn, history);
  }

  /**
   * The execution's history events, oldest first: its runner's, else what the record alone tells
   * (started, and how it ended) for an execution nobody runs.
   */
  history(arn: string): readonly HistoryEvent[] {
    const runner = this.histories.get(arn);
    if (runner) return runner();
    const execution = this.executionsByArn.get(arn);
    if (!execution) return [];
    const started: HistoryEvent = {
      id: 1,
      type: 'ExecutionStarted',
      timestamp: execution.startDate,
      input: parsed(execution.input),
    };
    if (execution.status === 'RUNNING') return [started];
    const ended: HistoryEvent = {
      id: 2,
      type: END_EVENT_TYPES[execution.status],
      timestamp: execution.stopDate ?? execution.startDate,
      ...(execution.output !== undefined ? { output: parsed(execution.output) } : {}),
      ...(execution.error !== undefined ? { error: execution.error } : {}),
      ...(execution.cause !== undefined ? { cause: execution.cause } : {}),
    };
    return [started, ended];
  }

  executions(filter: { stateMachineArn?: string; status?: ExecutionStatus } = {}): readonly ExecutionRecord[] {
    return [...this.executionsByArn.values()].filter(
      (e) =>
        (filter.stateMachineArn === undefined || e.stateMachineArn === filter.stateMachineArn) &&
        (filter.status === undefined || e.status === filter.status),
    );
  }

  /** Ends a RUNNING execution (the sandbox's drain loop reports how it ended). */
  finish(
    arn: string,
    outcome: {
      status: Exclude<ExecutionStatus, 'RUNNING'>;
      at: number;
      output?: string;
      error?: string;
      cause?: string;
    },
  ): ExecutionRecord {
    const execution = this.executionsByArn.get(arn);
    if (!execution) throw new Error(`execution ${arn} is not in the emulator`);
    if (execution.status !== 'RUNNING') throw new Error(`execution ${arn} already ended (${execution.status})`);
    execution.status = outcome.status;
    execution.stopDate = outcome.at;
    execution.output = outcome.output;
    execution.error = outcome.error;
    execution.cause = outcome.cause;
    return execution;
  }
}
