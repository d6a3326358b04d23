import type { SFNClient } from '@aws-sdk/client-sfn';
import type { DrainExecutionState } from '@ec2-node-reconciler/model/observation.js';
import { errorText } from '@ec2-node-reconciler/model/error-text.js';
import type { LazyClient } from './clients.js';
import { executionOf, type DrainWorkflowInput } from '@ec2-node-reconciler/model/contract/drain-workflow.js';
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

/** Chained executions followed in one question (the Node names a recent link; a hop adds one). */
const MAX_CHAIN_HOPS = 20;

/** The execution a drain execution continued in, from its output (`{"continuedAs": name}`); undefined for any other end. */
export function continuedAs(output: string | undefined): string | undefined {
  if (output === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(output);
    if (typeof parsed !== 'object' || parsed === null || !('continuedAs' in parsed)) return undefined;
    const { continuedAs: next } = parsed;
    return typeof next === 'string' && next !== '' ? next : undefined;
  } catch {
    return undefined;
  }
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

  /**
   * How the drain an execution started is doing: an execution that ended by continuing the drain in a
   * chained one (its output names it: infra/drain-workflow.ts) has not ended the drain, so the chain is
   * followed to the execution that holds it now. A hop a sweep meets must never read as an ended drain:
   * the plan would complete the lifecycle action under the drain's pods.
   */
  private async follow(
    name: string,
    describe: (arn: string) => Promise<{ status?: string; output?: string }>,
  ): Promise<DrainExecutionState> {
    let current = name;
    for (let hop = 0; hop <= MAX_CHAIN_HOPS; hop++) {
      const answer = await describe(this.executionArn(current));
      if (answer.status === 'RUNNING' || answer.status === 'PENDING_REDRIVE') return { status: 'running' };
      const next = answer.status === 'SUCCEEDED' ? continuedAs(answer.output) : undefined;
      if (next === undefined) return { status: 'ended' };
      current = next;
    }
    // A chain longer than this is read link by link in later runs: never a guess that it ended.
    return { status: 'unknown', error: `drain ${name} continued in more than ${MAX_CHAIN_HOPS} chained executions` };
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
          out.set(
            name,
            await this.follow(name, (arn) => sfn.send(new DescribeExecutionCommand({ executionArn: arn }))),
          );
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
