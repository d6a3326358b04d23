import { ExecutionAlreadyExists, StartExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import { drainExecutionName, type DrainWorkflowInput } from '../workflow/contract.js';

export type LaunchOutcome = 'started' | 'already-running';

/** Starts drains; the sandbox and the CLI have a local implementation that loops the same step. */
export interface DrainLauncher {
  launch(input: DrainWorkflowInput): Promise<LaunchOutcome>;
}

/**
 * Starts the drain workflow with a deterministic execution name, so a duplicate event starts
 * nothing: Step Functions answers the same name and input idempotently, and a different input
 * under the same name with ExecutionAlreadyExists — a drain for that cause already exists.
 */
export class StepFunctionsDrainLauncher implements DrainLauncher {
  constructor(
    private readonly sfn: SFNClient,
    private readonly stateMachineArn: string,
  ) {}

  async launch(input: DrainWorkflowInput): Promise<LaunchOutcome> {
    const name = drainExecutionName(input.cluster, input.instanceId ?? input.node, input.cause);
    try {
      await this.sfn.send(new StartExecutionCommand({ stateMachineArn: this.stateMachineArn, name, input: JSON.stringify(input) }));
      return 'started';
    } catch (error) {
      if (error instanceof ExecutionAlreadyExists) return 'already-running';
      throw error;
    }
  }
}
