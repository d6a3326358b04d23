// The drain workflow run in this process: what the state machine (infra/drain-workflow.ts) does,
// for the command line, which drains without Step Functions. Loop the drain step until it ends;
// then complete the Auto Scaling lifecycle action with CONTINUE (except after an operator's
// uncordon, which leaves it open for them); then report the outcome on the reconciler's bus as
// `Node Drained` or `Drain Failed`, with the detail the workflow's "Report outcome" state sends.
import {
  completeLifecycleCommand,
  executionOf,
  leavesLifecycleOpen,
  type DrainOutcome,
  type DrainStepOutput,
  type DrainWorkflowInput,
  type LifecycleRef,
} from '../contract/drain-workflow.js';
import type { OutputDetailType } from '../contract/output-events.js';
import type { InstanceId } from '../model/instance-id.js';
import type { NodeEventRecorder } from '../kube/events.js';
import { lifecycleCompletedEvent } from '../report/notify.js';
import { errorText } from '../support/errors.js';
import { drainRequestOf, stepOutput } from './step-output.js';
import { DeadlinePassedWhileFailing, runDrain } from './driver.js';
import type { DrainDeps } from './step.js';
import type { DrainStepResult } from './step-result.js';

export interface LocalWorkflowDeps {
  readonly drain: DrainDeps;
  readonly completeLifecycleAction: (instanceId: InstanceId, lifecycle: LifecycleRef) => Promise<void>;
  /** Puts the outcome on the reconciler's bus; absent, the outcome is only returned (no bus known). */
  readonly publish?: (
    detailType: OutputDetailType,
    detail: Record<string, unknown>,
    resources: readonly string[],
  ) => Promise<void>;
  /** Where the LifecycleActionCompleted Kubernetes Event goes, as the workflow's notice records it. */
  readonly events?: Pick<NodeEventRecorder, 'record'>;
}

/** How the local workflow ended: as the execution's Drained / Not drained, with what it did about the lifecycle action. */
export interface LocalWorkflowEnd {
  readonly outcome: DrainOutcome | 'error';
  /** The last step's result (absent when the drain failed before one ended). */
  readonly result?: DrainStepResult;
  readonly output?: DrainStepOutput;
  /** The drain's failure (outcome `error`). */
  readonly error?: unknown;
  readonly lifecycle?: {
    readonly ref: LifecycleRef;
    readonly completed: boolean;
    /** Left open after an operator's uncordon: the command that completes it. */
    readonly completeWith?: string;
    /** Completing it failed: why (the hook then waits for its timeout), as Step Functions' error output. */
    readonly error?: ErrorOutput;
  };
  /** Recording the LifecycleActionCompleted Event failed: why (nothing else depends on it). */
  readonly eventError?: string;
  /** The output event's detail-type, when it was published. */
  readonly published?: OutputDetailType;
  /** Publishing failed: why (the drain's end stands). */
  readonly publishError?: string;
}

export async function runLocalWorkflow(deps: LocalWorkflowDeps, input: DrainWorkflowInput): Promise<LocalWorkflowEnd> {
  let outcome: LocalWorkflowEnd['outcome'];
  // The last step that ended: after a failure, the workflow still reports from it (`$step`).
  let result: DrainStepResult | undefined;
  let output: DrainStepOutput | undefined;
  let failure: unknown;
  try {
    await runDrain(deps.drain, drainRequestOf(input), {
      // As the workflow: a transient failure is tried again until the deadline, a permanent one ends the drain.
      retryUntilDeadline: true,
      onStep: (step) => {
        result = step;
        output = stepOutput(step, input);
      },
    });
    outcome = output?.outcome ?? 'error';
  } catch (error) {
    // Failing until the deadline ends the drain at its deadline, as the workflow's "Deadline passed?" does.
    outcome = error instanceof DeadlinePassedWhileFailing ? 'deadline' : 'error';
    failure = error instanceof DeadlinePassedWhileFailing ? error.cause : error;
  }

  const ref = output?.lifecycle ?? input.lifecycle;
  let lifecycle: LocalWorkflowEnd['lifecycle'];
  let eventError: string | undefined;
  if (ref && input.instanceId) {
    const completeWith = completeLifecycleCommand({ group: ref.group, hook: ref.hook, instance: input.instanceId });
    if (leavesLifecycleOpen(outcome)) lifecycle = { ref, completed: false, completeWith };
    else {
      try {
        await deps.completeLifecycleAction(input.instanceId, ref);
        lifecycle = { ref, completed: true };
        try {
          await deps.events?.record(lifecycleCompletedEvent(input, ref, outcome));
        } catch (error) {
          eventError = errorText(error);
        }
      } catch (error) {
        lifecycle = { ref, completed: false, completeWith, error: errorOutput(error) };
      }
    }
  }

  const end: LocalWorkflowEnd = {
    outcome,
    ...(result ? { result } : {}),
    ...(output ? { output } : {}),
    ...(failure !== undefined ? { error: failure } : {}),
    ...(lifecycle ? { lifecycle } : {}),
    ...(eventError !== undefined ? { eventError } : {}),
  };
  if (!deps.publish) return end;
  const detailType: OutputDetailType = outcome === 'done' ? 'Node Drained' : 'Drain Failed';
  try {
    // No `resources`, as the workflow's PutEvents entry has none: the detail names the instance.
    await deps.publish(detailType, outcomeDetail(input, end), []);
    return { ...end, published: detailType };
  } catch (error) {
    return { ...end, publishError: errorText(error) };
  }
}

/** An error as a Step Functions state's error output (`$states.errorOutput`): its name and its cause. */
export interface ErrorOutput {
  readonly Error: string;
  readonly Cause: string;
}

export const errorOutput = (error: unknown): ErrorOutput => ({
  Error: error instanceof Error ? error.name : 'Error',
  Cause: errorText(error),
});

/** The detail of the workflow's output event (infra/drain-workflow.ts OUTPUT_DETAIL), field for field. */
function outcomeDetail(input: DrainWorkflowInput, end: LocalWorkflowEnd): Record<string, unknown> {
  const { lifecycle } = end;
  return {
    cluster: input.cluster,
    node: input.node,
    nodeUid: input.nodeUid,
    ...(input.instanceId ? { instanceId: input.instanceId } : {}),
    reason: input.reason,
    cause: input.cause,
    deadline: end.output?.deadline ?? input.deadline,
    outcome: end.outcome,
    ...(end.output ? { summary: end.output.summary } : {}),
    ...(end.error !== undefined ? { error: errorOutput(end.error) } : {}),
    ...(lifecycle
      ? {
          lifecycle: {
            group: lifecycle.ref.group,
            hook: lifecycle.ref.hook,
            completed: lifecycle.completed,
            ...(lifecycle.error ? { error: lifecycle.error } : {}),
            ...(lifecycle.completeWith ? { completeWith: lifecycle.completeWith } : {}),
          },
        }
      : {}),
    execution: executionOf(input),
  };
}
