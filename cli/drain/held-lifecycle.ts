// Whoever holds a lifecycle action heartbeats and completes it (docs/design.md §5). A drain run in this
// process (the CLI's `event`, `sweep`, `decommission --now` and `drain`) may hold one: started for it,
// or handed it on the Node while it runs (a scale-in joining the operator's drain). It then does what
// the deployed workflow does: a heartbeat when the last one is a heartbeat interval old, checked at
// every pass over the node's pods, and CONTINUE at the end (except after an operator's uncordon,
// which leaves the action to them). Without it the hook lapses and Auto Scaling applies its default
// result — ABANDON, for most groups — with the pods still on the machine.
import {
  completeLifecycleCommand,
  leavesLifecycleOpen,
  type LifecycleRef,
} from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import type { NodeEventRecorder } from '../../lib/kube/events.js';
import type { Clock } from '@ec2-node-reconciler/model/clock.js';
import type { InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import { lifecycleCompletedEvent } from '../../lib/drain/lifecycle-completed-event.js';
import { errorText } from '@ec2-node-reconciler/model/error-text.js';

/**
 * How often the deployed workflow records a lifecycle heartbeat by default (the construct's
 * lifecycleHeartbeatInterval, infra/node-reconciler.ts): a drain in this process records them as often.
 */
export const LIFECYCLE_HEARTBEAT_INTERVAL_MS = 60_000;

/** The Auto Scaling calls a holder of a lifecycle action makes (AutoScalingAdapter's, by instance id without a token). */
export interface LifecycleCalls {
  readonly recordHeartbeat: (instanceId: InstanceId, lifecycle: LifecycleRef) => Promise<void>;
  readonly completeLifecycleAction: (instanceId: InstanceId, lifecycle: LifecycleRef) => Promise<void>;
  /** Where the LifecycleActionCompleted Kubernetes Event goes, as the workflow's notice records it. */
  readonly events?: Pick<NodeEventRecorder, 'record'>;
  /** @default LIFECYCLE_HEARTBEAT_INTERVAL_MS */
  readonly heartbeatIntervalMs?: number;
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

/** What became of the lifecycle action a drain held, at its end. */
export interface HeldLifecycleEnd {
  readonly ref: LifecycleRef;
  readonly completed: boolean;
  /** Left open (after an operator's uncordon, or completing failed): the command that completes it. */
  readonly completeWith?: string;
  /** Completing it failed: why (the hook then waits for its timeout), as Step Functions' error output. */
  readonly error?: ErrorOutput;
  /** Recording the LifecycleActionCompleted Event failed: why (nothing else depends on it). */
  readonly eventError?: string;
}

const keyOf = (lifecycle: LifecycleRef): string => `${lifecycle.group}/${lifecycle.hook}`;

/**
 * The heartbeats of the lifecycle action a drain holds: `beat` at every pass records one when the last
 * one for that action is an interval old (or there was none); a failed one is retried at the next pass
 * and fails nothing (the hook outlives one missed heartbeat, as the workflow's gap analysis assumes).
 */
export class LifecycleHeartbeats {
  private last: { readonly key: string; readonly at: number } | undefined;
  private inFlight: Promise<void> | undefined;
  /** Why heartbeats failed, oldest first. */
  readonly errors: string[] = [];

  constructor(
    private readonly calls: Pick<LifecycleCalls, 'recordHeartbeat' | 'heartbeatIntervalMs'>,
    private readonly clock: Clock,
  ) {}

  /** Records a heartbeat for `lifecycle` of `instanceId` when one is due; never waits for it, never throws. */
  beat(instanceId: InstanceId, lifecycle: LifecycleRef): void {
    if (this.inFlight !== undefined) return;
    const now = this.clock.now();
    const key = keyOf(lifecycle);
    const interval = this.calls.heartbeatIntervalMs ?? LIFECYCLE_HEARTBEAT_INTERVAL_MS;
    if (this.last?.key === key && now - this.last.at < interval) return;
    this.inFlight = this.calls
      .recordHeartbeat(instanceId, lifecycle)
      .then(
        () => {
          this.last = { key, at: now };
        },
        (error: unknown) => {
          this.errors.push(errorText(error));
        },
      )
      .finally(() => {
        this.inFlight = undefined;
      });
  }

  /** Waits for a heartbeat under way: none may land after the action is completed. */
  async settled(): Promise<void> {
    await this.inFlight;
  }
}

/**
 * Ends the lifecycle action a drain held as the workflow does: CONTINUE (the machine goes either way),
 * with the LifecycleActionCompleted Event on the Node; left open, with the command that completes it,
 * after an operator's uncordon (`outcome` cancelled-by-uncordon).
 */
export async function endHeldLifecycle(
  calls: Pick<LifecycleCalls, 'completeLifecycleAction' | 'events'>,
  drain: { readonly node: string; readonly nodeUid: string; readonly instanceId: InstanceId },
  ref: LifecycleRef,
  outcome: string,
): Promise<HeldLifecycleEnd> {
  const completeWith = completeLifecycleCommand({ group: ref.group, hook: ref.hook, instance: drain.instanceId });
  if (leavesLifecycleOpen(outcome)) return { ref, completed: false, completeWith };
  try {
    await calls.completeLifecycleAction(drain.instanceId, ref);
  } catch (error) {
    return { ref, completed: false, completeWith, error: errorOutput(error) };
  }
  try {
    await calls.events?.record(lifecycleCompletedEvent(drain, ref, outcome));
    return { ref, completed: true };
  } catch (error) {
    return { ref, completed: true, eventError: errorText(error) };
  }
}
