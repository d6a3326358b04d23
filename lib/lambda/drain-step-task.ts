import { drainRequestOf, stepOutput } from '../drain/step-output.js';
import { asStepFailure, DrainStepPermanentError } from '../drain/step-failure.js';
import { checkOffsetMs } from '../drain/next-check.js';
import { drainStep, type DrainDeps } from '../drain/step.js';
import type { InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import { describeIssues } from '@ec2-node-reconciler/model/zod-issues.js';
import type { NodeEventRecorder } from '../kube/events.js';
import { lifecycleCompletedEvent } from '../drain/lifecycle-completed-event.js';
import { completeRepair, type RepairCompletion, type RepairCompletionDeps } from './repair-completion.js';
import {
  DrainNoticeSchema,
  DrainStepInputSchema,
  type DrainStepOutput,
  type LifecycleRef,
} from '@ec2-node-reconciler/model/contract/drain-workflow.js';

/** Time kept back from the invocation for returning the state. */
export const STEP_MARGIN_MS = 10_000;

/** Records a lifecycle heartbeat (AutoScalingAdapter.recordHeartbeat): by token when the action has one, else by instance id. */
export type RecordHeartbeat = (instanceId: InstanceId | undefined, lifecycle: LifecycleRef) => Promise<void>;

export interface DrainStepOptions {
  /**
   * Records the lifecycle heartbeat at the start of the step (the Lambda's; none in the local
   * stand-ins, which complete the action themselves). A failure does not fail the step.
   */
  readonly heartbeat?: RecordHeartbeat;
  /** Told about a heartbeat that failed (the action may have been completed by someone else). */
  readonly onHeartbeatFailed?: (error: unknown, lifecycle: LifecycleRef) => void;
  /**
   * Completes a repair whose drain this step saw end (repair-completion.ts): the Lambda's; none in the
   * local stand-ins, where the next sweep replaces the machine.
   */
  readonly repair?: RepairCompletionDeps;
  /** Told what became of the repair a drain that ended was for. */
  readonly onRepair?: (completion: RepairCompletion) => void;
}

/**
 * One bounded drain step for the workflow: validates the payload, records the lifecycle heartbeat
 * for the action the drain works for (the payload's, else the input's), steps, maps to the contract.
 */
export async function runDrainStepTask(
  payload: unknown,
  deps: DrainDeps,
  remainingMs: number,
  options: DrainStepOptions = {},
): Promise<DrainStepOutput> {
  const parsed = DrainStepInputSchema.safeParse(payload);
  // A payload no retry can mend: the drain ends at once (the workflow catches it by name).
  if (!parsed.success) throw new DrainStepPermanentError(`invalid drain step input: ${describeIssues(parsed.error)}`);
  const { input, state } = parsed.data;
  const lifecycle = parsed.data.lifecycle ?? input.lifecycle;
  const started = deps.clock.now();
  let heartbeatAt: string | undefined;
  // The API takes the token, or the instance id: without either there is nothing to heartbeat.
  if (options.heartbeat && lifecycle && (lifecycle.token !== undefined || input.instanceId !== undefined)) {
    try {
      await options.heartbeat(input.instanceId, lifecycle);
      heartbeatAt = new Date(started).toISOString();
    } catch (error) {
      options.onHeartbeatFailed?.(error, lifecycle);
    }
  }
  // A storm starts a batch's drains together: the first step of each looks at its own offset
  // within a second (as its later looks do, next-check.ts), so they do not reach the API server in one burst.
  if (state === undefined) await deps.sleep(checkOffsetMs(input.node));
  // The heartbeat's time comes out of the step's budget.
  const budgetMs = remainingMs - STEP_MARGIN_MS - (deps.clock.now() - started);
  const request = drainRequestOf(input);
  let result;
  try {
    result = await drainStep(deps, request, state, Math.max(1_000, budgetMs));
  } catch (error) {
    // Transient failures go out as they are (the workflow retries them until the deadline); a refused
    // request goes out under PERMANENT_STEP_ERROR, which ends the drain.
    throw asStepFailure(error);
  }
  const output = stepOutput(result, input);
  if (options.repair && output.outcome !== 'continue' && request.execution !== undefined) {
    const completion = await completeRepair(input, request.execution, output.outcome, result.blocked, options.repair);
    options.onRepair?.(completion);
  }
  return { ...output, ...(heartbeatAt ? { heartbeatAt } : {}) };
}

/** What recording a notice returns to the workflow (which keeps nothing of it). */
export interface DrainNoticeOutput {
  readonly recorded: string;
}

/**
 * The workflow's notice that it completed the drain's lifecycle action: the LifecycleActionCompleted
 * Event on the Node the drain started on. A failure fails the task, which the workflow catches: an
 * Event that could not be recorded never fails the drain.
 */
export async function recordDrainNotice(
  payload: unknown,
  events: Pick<NodeEventRecorder, 'record'>,
): Promise<DrainNoticeOutput> {
  const parsed = DrainNoticeSchema.safeParse(payload);
  if (!parsed.success) throw new Error(`invalid drain notice: ${describeIssues(parsed.error)}`);
  const { input, lifecycle, outcome } = parsed.data;
  const event = lifecycleCompletedEvent(input, lifecycle, outcome);
  await events.record(event);
  return { recorded: event.reason };
}
