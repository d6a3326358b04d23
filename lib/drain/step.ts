// A drain step: as much of a drain as fits in one invocation's budget, pass after pass over the node
// (step-pass.ts), each phase of a pass working with the step's context (step-context.ts).
import type { Clock } from '@ec2-node-reconciler/model/clock.js';
import { errorText } from '@ec2-node-reconciler/model/error-text.js';
import type { DrainApi } from './api.js';
import { recordOutcome } from './claim.js';
import type { DrainSettings } from './settings.js';
import type { StepContext } from './step-context.js';
import { pass } from './step-pass.js';
import { outcomeOf, type DrainRequest, type DrainStepResult } from './step-result.js';
import { initialDrainState, packState, readDrainState } from './state.js';

export interface DrainDeps {
  readonly api: DrainApi;
  readonly clock: Clock;
  readonly settings: DrainSettings;
  /** Waits between checks inside a step: real time in production, a VirtualClock advance in the sandbox and tests. */
  readonly sleep: (ms: number) => Promise<void>;
  /** Called after every pass over the node's pods, for progress output. */
  readonly onProgress?: (progress: DrainStepResult) => void;
}

/**
 * Writes how the drain ended on its record, so that later runs know (an operator's uncordon leaves
 * the lifecycle action to them). Best effort: a drain that cannot say so still ended; a Node that is
 * gone or another incarnation has nothing to record.
 */
async function recordEnd({ api, request, state }: StepContext, result: DrainStepResult): Promise<DrainStepResult> {
  if (request.execution === undefined || result.status === 'node-gone' || result.status === 'node-replaced')
    return result;
  const uid = state.nodeUid ?? request.cordon.expectedUid;
  try {
    await recordOutcome(api, request.node, {
      ...(uid !== undefined ? { expectedUid: uid } : {}),
      execution: request.execution,
      outcome: outcomeOf(result.status),
    });
    return result;
  } catch (error) {
    return {
      ...result,
      message: `${result.message ? `${result.message}; ` : ''}could not record the outcome on the node: ${errorText(error)}`,
    };
  }
}

/**
 * Drains as much as fits in `budgetMs` (measured on the injected clock): checks the Node (same uid,
 * still cordoned once cordoned), cordons it the first time, then passes over its pods until the
 * drain ends or the next check would fall outside the budget. `state` is the previous step's, or
 * undefined: without it the step re-reads everything and carries on.
 */
export async function drainStep(
  deps: DrainDeps,
  request: DrainRequest,
  state: unknown,
  budgetMs: number,
): Promise<DrainStepResult> {
  const { api, clock, settings } = deps;
  const started = clock.now();
  // A working copy: the caller's state object is never changed under it.
  const working = readDrainState(state, request.node) ?? initialDrainState(request.node, started);
  working.steps++;
  const step: StepContext = {
    api,
    clock,
    settings,
    request,
    state: working,
    memory: { daemonSets: new Map(), messages: new Map() },
  };
  for (;;) {
    const result = await pass(step);
    // A snapshot: later passes keep working on `working`, and a progress listener may keep what it got.
    const full: DrainStepResult = { ...result, state: packState(working) };
    deps.onProgress?.(full);
    if (full.status !== 'in-progress') return recordEnd(step, full);
    if (clock.now() + full.nextCheckAfterMs >= started + budgetMs) return full;
    await deps.sleep(full.nextCheckAfterMs);
  }
}
