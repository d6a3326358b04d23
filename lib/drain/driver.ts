import { drainStep, type DrainDeps } from './step.js';
import type { DrainRequest, DrainStepResult } from './step-result.js';

export interface DriverOptions {
  /** Budget of each step (Lambda: the invocation's remaining time less a margin). @default 60_000 */
  readonly stepBudgetMs?: number;
  /** Called after each step. */
  readonly onStep?: (result: DrainStepResult, step: number) => void;
  /** The state to resume from (e.g. one a crashed run left behind); undefined starts afresh. */
  readonly state?: unknown;
  /** Waits before trying a failed step again, one per retry (the workflow's: 5 s, then 10 s); none by default. */
  readonly retryDelaysMs?: readonly number[];
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
  let retries = 0;
  for (let step = 1; ; step++) {
    let result: DrainStepResult;
    try {
      result = await drainStep(deps, request, state, budget);
      retries = 0;
    } catch (error) {
      const delay = options.retryDelaysMs?.[retries++];
      if (delay === undefined) throw error;
      await deps.sleep(delay);
      continue;
    }
    options.onStep?.(result, step);
    if (result.status !== 'in-progress') return result;
    state = result.state;
    await deps.sleep(result.nextCheckAfterMs);
  }
}
