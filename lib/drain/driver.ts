import { VirtualClock, type Clock } from '../model/clock.js';
import { drainStep, type DrainDeps } from './step.js';
import type { DrainRequest, DrainStepResult } from './step-result.js';

export interface DriverOptions {
  /** Budget of each step (Lambda: the invocation's remaining time less a margin). @default 60_000 */
  readonly stepBudgetMs?: number;
  /** Called after each step. */
  readonly onStep?: (result: DrainStepResult, step: number) => void;
  /** The state to resume from (e.g. one a crashed run left behind); undefined starts afresh. */
  readonly state?: unknown;
}

/**
 * A sleep that follows the clock: a VirtualClock is advanced (so a drain over minutes of emulated
 * time runs in milliseconds), any other clock waits in real time.
 */
export function sleepOn(clock: Clock): (ms: number) => Promise<void> {
  if (clock instanceof VirtualClock) {
    return async (ms) => {
      clock.advance(ms);
      // Let I/O callbacks (an emulator answering on the same event loop) run between steps.
      await new Promise<void>((resolve) => setImmediate(resolve));
    };
  }
  return (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms));
}

/**
 * Loops drainStep until the drain ends (drained, deadline, node gone), sleeping nextCheckAfterMs
 * between steps: the local stand-in for the Step Functions loop, used by the CLI, the sandbox and tests.
 */
export async function runDrain(deps: DrainDeps, request: DrainRequest, options: DriverOptions = {}): Promise<DrainStepResult> {
  const budget = options.stepBudgetMs ?? 60_000;
  let state: unknown = options.state;
  for (let step = 1; ; step++) {
    const result = await drainStep(deps, request, state, budget);
    options.onStep?.(result, step);
    if (result.status !== 'in-progress') return result;
    state = result.state;
    await deps.sleep(result.nextCheckAfterMs);
  }
}
