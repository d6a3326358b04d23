import { failedStepDelaySeconds } from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import { stepFailureKind } from '../../lib/drain/step-failure.js';
import { drainStep, type DrainDeps } from '../../lib/drain/step.js';
import type { DrainRequest, DrainStepResult } from '../../lib/drain/step-result.js';

export interface DriverOptions {
  /** Budget of each step (Lambda: the invocation's remaining time less a margin). @default 60_000 */
  readonly stepBudgetMs?: number;
  /** Called after each step. */
  readonly onStep?: (result: DrainStepResult, step: number) => void;
  /** The state to resume from (e.g. one a crashed run left behind); undefined starts afresh. */
  readonly state?: unknown;
  /**
   * Retry a step that failed for a transient reason (lib/drain/step-failure.ts) with the workflow's capped
   * backoff until the drain's deadline, as the workflow does; a permanent failure is thrown at once.
   * Off: any failure is thrown at once.
   */
  readonly retryUntilDeadline?: boolean;
}

/** The drain's steps kept failing for a transient reason until its deadline: the drain ends there. */
export class DeadlinePassedWhileFailing extends Error {
  override readonly name = 'DeadlinePassedWhileFailing';

  constructor(
    readonly deadline: number,
    cause: unknown,
  ) {
    super(`the deadline ${new Date(deadline).toISOString()} came while the drain step kept failing`, { cause });
  }
}

/**
 * Loops drainStep until the drain ends (drained, deadline, node gone), sleeping nextCheckAfterMs
 * between steps: the local stand-in for the Step Functions loop, used by the CLI, the sandbox and tests.
 */
export async function runDrain(
  deps: DrainDeps,
  request: DrainRequest,
  options: DriverOptions = {},
): Promise<DrainStepResult> {
  const budget = options.stepBudgetMs ?? 60_000;
  let state: unknown = options.state;
  // The deadline the last step worked to (an earlier one may have been handed over on the Node).
  let deadline = request.deadline;
  let failures = 0;
  for (let step = 1; ; step++) {
    let result: DrainStepResult;
    try {
      result = await drainStep(deps, request, state, budget);
      failures = 0;
    } catch (error) {
      if (!options.retryUntilDeadline || stepFailureKind(error) === 'permanent') throw error;
      const left = deadline - deps.clock.now();
      if (left <= 0) throw new DeadlinePassedWhileFailing(deadline, error);
      failures++;
      await deps.sleep(Math.min(failedStepDelaySeconds(failures) * 1000, left));
      continue;
    }
    options.onStep?.(result, step);
    if (result.status !== 'in-progress') return result;
    state = result.state;
    deadline = result.deadline;
    await deps.sleep(result.nextCheckAfterMs);
  }
}
