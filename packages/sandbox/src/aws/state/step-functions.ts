export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

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

/**
 * State machines and their executions. Nothing runs here: whoever runs executions (the deployed
 * world's interpreter) is told of each new one through `onStart` and reports its end through finish().
 */
export class StepFunctionsStore {
  private readonly machines = new Map<string, StateMachineRecord>();
  private readonly executionsByArn = new Map<string, ExecutionRecord>();
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
