import type { InstanceState } from '@ec2-node-reconciler/model/instance-states.js';

/**
 * What happened on the AWS side, in the order it happened (times are the clock's, in epoch ms).
 * The sandbox turns these into the EventBridge events AWS would emit (state-change notifications,
 * lifecycle actions, tag changes), so the emulator never has to know the event formats.
 */
export type AwsChange =
  | {
      readonly kind: 'instance-state';
      readonly at: number;
      readonly instanceId: string;
      readonly from: InstanceState;
      readonly to: InstanceState;
    }
  | {
      readonly kind: 'instance-tags';
      readonly at: number;
      readonly instanceId: string;
      readonly set: Readonly<Record<string, string>>;
      readonly removed: readonly string[];
      /** `api`: CreateTags or DeleteTags (what AWS announces with a Tag Change on Resource event); absent: the world's own change (a scenario's event). */
      readonly by?: 'api';
    }
  | {
      readonly kind: 'lifecycle-action-started';
      readonly at: number;
      readonly instanceId: string;
      readonly group: string;
      readonly hook: string;
      readonly transition: LifecycleTransition;
      readonly token: string;
      /** `health`: the group started it itself, replacing a member marked Unhealthy (no scenario event announced it). */
      readonly origin?: 'health';
    }
  | {
      readonly kind: 'lifecycle-action-completed';
      readonly at: number;
      readonly instanceId: string;
      readonly group: string;
      readonly hook: string;
      readonly result: LifecycleActionResult;
      /** `api`: CompleteLifecycleAction; `timeout`: the heartbeat timeout applied the hook's default result. */
      readonly by: 'api' | 'timeout';
    }
  | {
      readonly kind: 'instance-health';
      readonly at: number;
      readonly instanceId: string;
      readonly group: string;
      readonly healthStatus: 'HEALTHY' | 'UNHEALTHY';
    }
  /** Auto Scaling launched a member to replace one it terminated as Unhealthy. */
  | {
      readonly kind: 'instance-launched';
      readonly at: number;
      readonly instanceId: string;
      readonly group: string;
      readonly replaces: string;
    };

export type LifecycleTransition = 'autoscaling:EC2_INSTANCE_LAUNCHING' | 'autoscaling:EC2_INSTANCE_TERMINATING';
export type LifecycleActionResult = 'CONTINUE' | 'ABANDON';

export type ChangeListener = (change: AwsChange) => void;

/** Keeps every change and tells subscribers synchronously. */
export class ChangeFeed {
  private readonly all: AwsChange[] = [];
  private readonly listeners = new Set<ChangeListener>();

  get changes(): readonly AwsChange[] {
    return this.all;
  }

  emit(change: AwsChange): void {
    this.all.push(change);
    for (const listener of this.listeners) listener(change);
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
