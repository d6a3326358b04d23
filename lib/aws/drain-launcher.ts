import type { SFNClient } from '@aws-sdk/client-sfn';
import type { DrainExecutionState } from '../model/observation.js';
import { errorText } from '../support/errors.js';
import type { LazyClient } from './clients.js';
import { executionOf, type DrainWorkflowInput } from '../contract/drain-workflow.js';
import { drainExecutionArn } from './drain-executions.js';

/**
 * `already-running`: a drain runs under that name (this removal's, started by another run);
 * `already-ran`: one ran under that name and has ended — names are unique for 90 days, so nothing
 * was started, and nothing runs.
 */
export type LaunchOutcome = 'started' | 'already-running' | 'already-ran';

/** Starts drains and says how they are doing; the sandbox and the CLI have local implementations that loop the same step. */
export interface DrainLauncher {
  /** Drains run in this process (the CLI): their names carry LOCAL_DRAIN_PREFIX, and they run until their deadline. */
  readonly local?: boolean;
  launch(input: DrainWorkflowInput): Promise<LaunchOutcome>;
  /** What the workflow says of these executions (by name); a failed question is `unknown`, never a guess. */
  status(executions: readonly string[]): Promise<Map<string, DrainExecutionState>>;
}

/** Questions asked at once at most (DescribeExecution is throttled per account). */
const STATUS_CONCURRENCY = 5;

/**
 * Starts the drain workflow with a deterministic execution name, so a duplicate event starts
 * nothing: Step Functions answers the same name and input idempotently while the execution runs,
 * and with ExecutionAlreadyExists for a different input, or for an execution that has ended — which
 * one is asked (DescribeExecution), so an ended drain is never reported as running.
 */
export class StepFunctionsDrainLauncher implements DrainLauncher {
  constructor(
    private readonly sfn: LazyClient<SFNClient>,
    private readonly stateMachineArn: string,
  ) {}

  async launch(input: DrainWorkflowInput): Promise<LaunchOutcome> {
    const name = executionOf(input);
    const [sfn, { StartExecutionCommand, ExecutionAlreadyExists }] = await Promise.all([
      this.sfn(),
      import('@aws-sdk/client-sfn'),
    ]);
    try {
      await sfn.send(
        new StartExecutionCommand({ stateMachineArn: this.stateMachineArn, name, input: JSON.stringify(input) }),
      );
      return 'started';
    } catch (error) {
      if (error instanceof ExecutionAlreadyExists) return this.existing(name);
      throw error;
    }
  }

  /** How the execution of that name is: running, or ended; running when that cannot be told (it exists). */
  private async existing(name: string): Promise<'already-running' | 'already-ran'> {
    const state = (await this.status([name])).get(name);
    return state?.status === 'ended' ? 'already-ran' : 'already-running';
  }

  /** `arn:…:stateMachine:<machine>` → `arn:…:execution:<machine>:<name>`. */
  executionArn(name: string): string {
    return drainExecutionArn(this.stateMachineArn, name);
  }

  async status(executions: readonly string[]): Promise<Map<string, DrainExecutionState>> {
    const out = new Map<string, DrainExecutionState>();
    const queue = [...new Set(executions)];
    if (queue.length === 0) return out;
    const [sfn, { DescribeExecutionCommand, ExecutionDoesNotExist }] = await Promise.all([
      this.sfn(),
      import('@aws-sdk/client-sfn'),
    ]);
    const ask = async (): Promise<void> => {
      for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
        try {
          const answer = await sfn.send(new DescribeExecutionCommand({ executionArn: this.executionArn(name) }));
          out.set(name, {
            status: answer.status === 'RUNNING' || answer.status === 'PENDING_REDRIVE' ? 'running' : 'ended',
          });
        } catch (error) {
          out.set(
            name,
            error instanceof ExecutionDoesNotExist
              ? { status: 'absent' }
              : { status: 'unknown', error: errorText(error) },
          );
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(STATUS_CONCURRENCY, queue.length) }, ask));
    return out;
  }
}
