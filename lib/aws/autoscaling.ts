import {
  CompleteLifecycleActionCommand,
  DescribeAutoScalingInstancesCommand,
  DescribeLifecycleHooksCommand,
  RecordLifecycleActionHeartbeatCommand,
  SetInstanceHealthCommand,
  type AutoScalingClient,
} from '@aws-sdk/client-auto-scaling';
import type { InstanceId } from '../model/instance-id.js';
import type { LifecycleRef } from '../model/signal.js';

/** DescribeAutoScalingInstances takes at most 50 ids a call. */
const ASG_BATCH = 50;

export interface AsgMembership {
  readonly group: string;
  readonly lifecycleState: string;
  /** The group's view of the instance's health; absent when the answer does not say. */
  readonly healthStatus?: 'Healthy' | 'Unhealthy';
}

/** HealthStatus as Auto Scaling words it (`HEALTHY`, `Unhealthy`, …), in one spelling. */
export function healthStatusOf(value: string | undefined): AsgMembership['healthStatus'] {
  const lower = value?.toLowerCase();
  return lower === 'healthy' ? 'Healthy' : lower === 'unhealthy' ? 'Unhealthy' : undefined;
}

export class AutoScalingAdapter {
  constructor(private readonly asg: AutoScalingClient) {}

  async describeInstances(ids: readonly InstanceId[]): Promise<Map<InstanceId, AsgMembership>> {
    const out = new Map<InstanceId, AsgMembership>();
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += ASG_BATCH) {
      const batch = unique.slice(i, i + ASG_BATCH);
      let token: string | undefined;
      do {
        const page = await this.asg.send(new DescribeAutoScalingInstancesCommand({ InstanceIds: batch, NextToken: token }));
        for (const instance of page.AutoScalingInstances ?? []) {
          const id = batch.find((b) => b === instance.InstanceId);
          if (id !== undefined && instance.AutoScalingGroupName && instance.LifecycleState) {
            const healthStatus = healthStatusOf(instance.HealthStatus);
            out.set(id, { group: instance.AutoScalingGroupName, lifecycleState: instance.LifecycleState, ...(healthStatus ? { healthStatus } : {}) });
          }
        }
        token = page.NextToken;
      } while (token);
    }
    return out;
  }

  /** The group's terminate lifecycle hooks (by name), to complete an action a sweep found. */
  async terminateHooks(group: string): Promise<string[]> {
    const page = await this.asg.send(new DescribeLifecycleHooksCommand({ AutoScalingGroupName: group }));
    return (page.LifecycleHooks ?? []).filter((h) => h.LifecycleTransition === 'autoscaling:EC2_INSTANCE_TERMINATING').flatMap((h) => (h.LifecycleHookName ? [h.LifecycleHookName] : []));
  }

  /** Identifies the action by token when there is one, else by instance id (both are accepted by the API). */
  async completeLifecycleAction(instanceId: InstanceId, lifecycle: LifecycleRef, result: 'CONTINUE' | 'ABANDON'): Promise<void> {
    await this.asg.send(
      new CompleteLifecycleActionCommand({
        AutoScalingGroupName: lifecycle.group,
        LifecycleHookName: lifecycle.hook,
        LifecycleActionResult: result,
        ...(lifecycle.token ? { LifecycleActionToken: lifecycle.token } : { InstanceId: instanceId }),
      }),
    );
  }

  /**
   * Keeps the lifecycle action alive (the drain-step function, at the start of each step): by token
   * when there is one, else by instance id. `abortSignal` bounds the call with its retries.
   */
  async recordHeartbeat(instanceId: InstanceId | undefined, lifecycle: LifecycleRef, abortSignal?: AbortSignal): Promise<void> {
    if (lifecycle.token === undefined && instanceId === undefined) throw new Error('recording a lifecycle heartbeat: neither a token nor an instance id');
    await this.asg.send(
      new RecordLifecycleActionHeartbeatCommand({
        AutoScalingGroupName: lifecycle.group,
        LifecycleHookName: lifecycle.hook,
        ...(lifecycle.token ? { LifecycleActionToken: lifecycle.token } : { InstanceId: instanceId }),
      }),
      abortSignal ? { abortSignal } : {},
    );
  }

  /** Opt-in remedy for an unregistered machine: let the group replace it. */
  async markUnhealthy(instanceId: InstanceId): Promise<void> {
    await this.asg.send(new SetInstanceHealthCommand({ InstanceId: instanceId, HealthStatus: 'Unhealthy', ShouldRespectGracePeriod: true }));
  }
}
