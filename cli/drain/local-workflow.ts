// The drain workflow run in this process: what the state machine (infra/drain-workflow.ts) does,
// for the command line, which drains without Step Functions. Loop the drain step until it ends;
// then complete the Auto Scaling lifecycle action with CONTINUE (except after an operator's
// uncordon, which leaves it open for them); then report the outcome on the reconciler's bus as
// `Node Drained` or `Drain Failed`, with the detail the workflow's "Report outcome" state sends.
import {
  executionOf,
  type DrainOutcome,
  type DrainStepOutput,
  type DrainWorkflowInput,
} from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import type { OutputDetailType } from '@ec2-node-reconciler/model/contract/output-events.js';
import { errorText } from '@ec2-node-reconciler/model/error-text.js';
import {
  endHeldLifecycle,
  errorOutput,
  LifecycleHeartbeats,
  type HeldLifecycleEnd,
  type LifecycleCalls,
} from './held-lifecycle.js';
import { drainRequestOf, stepOutput } from '../../lib/drain/step-output.js';
import { DeadlinePassedWhileFailing, runDrain } from './driver.js';
import type { DrainDeps } from '../../lib/drain/step.js';
import type { DrainStepResult } from '../../lib/drain/step-result.js';

export { errorOutput, type ErrorOutput } from './held-lifecycle.js';

export interface LocalWorkflowDeps extends LifecycleCalls {
  readonly drain: DrainDeps;
  /** Puts the outcome on the reconciler's bus; absent, the outcome is only returned (no bus known). */
  readonly publish?: (
    detailType: OutputDetailType,
    detail: Record<string, unknown>,
    resources: readonly string[],
  ) => Promise<void>;
}

/** How the local workflow ended: as the execution's Drained / Not drained, with what it did about the lifecycle action. */
export interface LocalWorkflowEnd {
  readonly outcome: DrainOutcome | 'error';
  /** The last step's result (absent when the drain failed before one ended). */
  readonly result?: DrainStepResult;
  readonly output?: DrainStepOutput;
  /** The drain's failure (outcome `error`). */
  readonly error?: unknown;
  readonly lifecycle?: Omit<HeldLifecycleEnd, 'eventError'>;
  /** Recording the LifecycleActionCompleted Event failed: why (nothing else depends on it). */
  readonly eventError?: string;
  /** Lifecycle heartbeats that failed during the drain (each retried at the next pass). */
  readonly heartbeatErrors?: readonly string[];
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
  // As the workflow: the action the drain works for (one handed over on the Node, else the input's) is
  // kept alive while it drains: checked at every pass (a step may last a minute) and before every wait
  // (a step failing again and again makes no passes).
  const heartbeats = new LifecycleHeartbeats(deps, deps.drain.clock);
  const { instanceId } = input;
  let held = input.lifecycle;
  const beat = (): void => {
    if (held && instanceId) heartbeats.beat(instanceId, held);
  };
  const onProgress = (progress: DrainStepResult): void => {
    deps.drain.onProgress?.(progress);
    held = progress.lifecycle ?? held;
    beat();
  };
  const sleep = (ms: number): Promise<void> => {
    beat();
    return deps.drain.sleep(ms);
  };
  try {
    await runDrain({ ...deps.drain, onProgress, sleep }, drainRequestOf(input), {
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
  await heartbeats.settled();

  const ref = output?.lifecycle ?? input.lifecycle;
  const ended = ref && instanceId ? await endHeldLifecycle(deps, { ...input, instanceId }, ref, outcome) : undefined;
  const lifecycle = ended ? withoutEventError(ended) : undefined;

  const end: LocalWorkflowEnd = {
    outcome,
    ...(result ? { result } : {}),
    ...(output ? { output } : {}),
    ...(failure !== undefined ? { error: failure } : {}),
    ...(lifecycle ? { lifecycle } : {}),
    ...(ended?.eventError !== undefined ? { eventError: ended.eventError } : {}),
    ...(heartbeats.errors.length > 0 ? { heartbeatErrors: heartbeats.errors } : {}),
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

const withoutEventError = ({ eventError: _reported, ...end }: HeldLifecycleEnd): Omit<HeldLifecycleEnd, 'eventError'> =>
  end;

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
