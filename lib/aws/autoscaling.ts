import type { TerminateHook } from '@ec2-node-reconciler/model/terminate-hook.js';
import type { AutoScalingClient } from '@aws-sdk/client-auto-scaling';
import { isInstanceId, type InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import { mapBounded } from '../support/bounded.js';
import { BytePool } from '../support/byte-pool.js';
import { errorText } from '@ec2-node-reconciler/model/error-text.js';
import { healthStatusOf, parseGroupsPage, suspendedProcessesOf, type GroupMember } from './groups-xml.js';
import type { LazyClient } from './clients.js';
import { readBodyInstead } from './read-body.js';
import type { LifecycleRef } from '@ec2-node-reconciler/model/signal.js';
import { REPAIR_FAILURES_TAG } from '@ec2-node-reconciler/model/contract/labels.js';

/** DescribeAutoScalingGroups answers for up to 100 groups a call (MaxRecords, which also lifts the 50-name cap). */
export const GROUP_BATCH = 100;
/** What the SDK is left to parse once the page has been read. */
const EMPTY_GROUPS =
  '<DescribeAutoScalingGroupsResponse xmlns="http://autoscaling.amazonaws.com/doc/2011-01-01/"><DescribeAutoScalingGroupsResult><AutoScalingGroups/></DescribeAutoScalingGroupsResult></DescribeAutoScalingGroupsResponse>';

/** Group lookups in flight at once (Auto Scaling's Describe* calls are throttled per account). */
const GROUP_CONCURRENCY = 4;

/** An instance's group, its LifecycleState and the group's view of its health (absent when the answer does not say). */
export type AsgMembership = GroupMember;

export { healthStatusOf };

/** What the groups said of their instances, and which groups could not be asked (with why). */
export interface GroupLookup {
  readonly members: Map<InstanceId, AsgMembership>;
  /** Group → error, for every group whose call failed: its instances' Auto Scaling state is unknown this run. */
  readonly failed: Map<string, string>;
  /** The groups that have a warm pool: DescribeWarmPool, not DescribeAutoScalingGroups, lists its members. */
  readonly warmPools: Set<string>;
}

/** DescribeWarmPool answers for 50 instances a page at most. */
export const WARM_POOL_PAGE = 50;

export class AutoScalingAdapter {
  /** Where group pages are assembled, reused from one to the next (byte-pool.ts). */
  private readonly buffers = new BytePool();

  constructor(private readonly asg: LazyClient<AutoScalingClient>) {}

  /** The client and the SDK's commands, both loaded on first use (clients.ts). */
  private connect() {
    return Promise.all([this.asg(), import('@aws-sdk/client-auto-scaling')]);
  }

  /**
   * The Auto Scaling state of every instance of these groups, through DescribeAutoScalingGroups:
   * one call answers for 100 groups and all their instances with each one's LifecycleState and
   * HealthStatus (node repair reads it: an Unhealthy member is being replaced), where
   * DescribeAutoScalingInstances takes 50 instance ids a call (2,000 calls for 100,000 instances).
   * The groups come from the instances' `aws:autoscaling:groupName` tag. A failed call costs only
   * its own groups.
   */
  async describeGroups(groups: readonly string[]): Promise<GroupLookup> {
    const members = new Map<InstanceId, AsgMembership>();
    const failed = new Map<string, string>();
    const warmPools = new Set<string>();
    const batches: string[][] = [];
    const unique = [...new Set(groups)];
    for (let i = 0; i < unique.length; i += GROUP_BATCH) batches.push(unique.slice(i, i + GROUP_BATCH));
    await mapBounded(batches, GROUP_CONCURRENCY, async (batch) => {
      try {
        const [asg, { DescribeAutoScalingGroupsCommand }] = await this.connect();
        let token: string | undefined;
        do {
          const command = new DescribeAutoScalingGroupsCommand({
            AutoScalingGroupNames: batch,
            MaxRecords: GROUP_BATCH,
            NextToken: token,
          });
          // 100 groups of 500 instances answer ~20 MB of XML: read for the ids, states and health alone (read-body.ts).
          const read = readBodyInstead(command, parseGroupsPage, EMPTY_GROUPS, this.buffers);
          const page = await asg.send(command);
          const lean = read();
          if (lean) {
            for (const [id, membership] of lean.members) members.set(id, membership);
            for (const group of lean.warmPools) warmPools.add(group);
            token = lean.nextToken;
            continue;
          }
          for (const group of page.AutoScalingGroups ?? []) {
            const suspendedProcesses = suspendedProcessesOf((group.SuspendedProcesses ?? []).map((p) => p.ProcessName));
            const repairFailures = group.Tags?.find((t) => t.Key === REPAIR_FAILURES_TAG)?.Value;
            if (group.WarmPoolConfiguration !== undefined && group.AutoScalingGroupName)
              warmPools.add(group.AutoScalingGroupName);
            for (const instance of group.Instances ?? []) {
              const id = instance.InstanceId;
              if (isInstanceId(id) && group.AutoScalingGroupName && instance.LifecycleState) {
                const healthStatus = healthStatusOf(instance.HealthStatus);
                members.set(id, {
                  group: group.AutoScalingGroupName,
                  lifecycleState: instance.LifecycleState,
                  ...(healthStatus ? { healthStatus } : {}),
                  ...(suspendedProcesses ? { suspendedProcesses } : {}),
                  ...(repairFailures ? { repairFailures } : {}),
                });
              }
            }
          }
          token = page.NextToken;
        } while (token);
      } catch (error) {
        for (const group of batch) failed.set(group, errorText(error));
      }
    });
    return { members, failed, warmPools };
  }

  /**
   * The members of a group's warm pool, each with its `Warmed:*` LifecycleState (DescribeWarmPool, 50 a
   * page): DescribeAutoScalingGroups does not list them, and a member terminated out of the pool waits
   * on the group's terminate hook in `Warmed:Terminating:Wait`. Throws when the group cannot be read.
   */
  async warmPoolMembers(group: string): Promise<Map<InstanceId, AsgMembership>> {
    const [asg, { DescribeWarmPoolCommand }] = await this.connect();
    const members = new Map<InstanceId, AsgMembership>();
    let token: string | undefined;
    do {
      const page = await asg.send(
        new DescribeWarmPoolCommand({ AutoScalingGroupName: group, MaxRecords: WARM_POOL_PAGE, NextToken: token }),
      );
      for (const instance of page.Instances ?? []) {
        const id = instance.InstanceId;
        if (!isInstanceId(id) || !instance.LifecycleState) continue;
        const healthStatus = healthStatusOf(instance.HealthStatus);
        members.set(id, { group, lifecycleState: instance.LifecycleState, ...(healthStatus ? { healthStatus } : {}) });
      }
      token = page.NextToken;
    } while (token);
    return members;
  }

  /** The group's terminate lifecycle hooks (names and heartbeat timeouts): whose action it is, and how long Auto Scaling keeps it. */
  async terminateHooks(group: string): Promise<TerminateHook[]> {
    const [asg, { DescribeLifecycleHooksCommand }] = await this.connect();
    const page = await asg.send(new DescribeLifecycleHooksCommand({ AutoScalingGroupName: group }));
    return (page.LifecycleHooks ?? [])
      .filter((h) => h.LifecycleTransition === 'autoscaling:EC2_INSTANCE_TERMINATING')
      .flatMap((h) =>
        h.LifecycleHookName
          ? [
              {
                name: h.LifecycleHookName,
                ...(h.HeartbeatTimeout !== undefined ? { heartbeatTimeoutSeconds: h.HeartbeatTimeout } : {}),
                ...(h.DefaultResult === 'CONTINUE' || h.DefaultResult === 'ABANDON'
                  ? { defaultResult: h.DefaultResult }
                  : {}),
              },
            ]
          : [],
      );
  }

  /** Identifies the action by token when there is one, else by instance id (both are accepted by the API). */
  async completeLifecycleAction(
    instanceId: InstanceId,
    lifecycle: LifecycleRef,
    result: 'CONTINUE' | 'ABANDON',
  ): Promise<void> {
    const [asg, { CompleteLifecycleActionCommand }] = await this.connect();
    await asg.send(
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
  async recordHeartbeat(
    instanceId: InstanceId | undefined,
    lifecycle: LifecycleRef,
    abortSignal?: AbortSignal,
  ): Promise<void> {
    if (lifecycle.token === undefined && instanceId === undefined)
      throw new Error('recording a lifecycle heartbeat: neither a token nor an instance id');
    const [asg, { RecordLifecycleActionHeartbeatCommand }] = await this.connect();
    await asg.send(
      new RecordLifecycleActionHeartbeatCommand({
        AutoScalingGroupName: lifecycle.group,
        LifecycleHookName: lifecycle.hook,
        ...(lifecycle.token ? { LifecycleActionToken: lifecycle.token } : { InstanceId: instanceId }),
      }),
      abortSignal ? { abortSignal } : {},
    );
  }

  /** Writes the group's repair back-off record (REPAIR_FAILURES_TAG), not propagated to its instances. */
  async recordRepairFailures(group: string, value: string): Promise<void> {
    const [asg, { CreateOrUpdateTagsCommand }] = await this.connect();
    await asg.send(
      new CreateOrUpdateTagsCommand({
        Tags: [
          {
            ResourceId: group,
            ResourceType: 'auto-scaling-group',
            Key: REPAIR_FAILURES_TAG,
            Value: value,
            PropagateAtLaunch: false,
          },
        ],
      }),
    );
  }

  /** Opt-in remedy for an unregistered machine: let the group replace it. */
  async markUnhealthy(instanceId: InstanceId): Promise<void> {
    const [asg, { SetInstanceHealthCommand }] = await this.connect();
    await asg.send(
      new SetInstanceHealthCommand({
        InstanceId: instanceId,
        HealthStatus: 'Unhealthy',
        ShouldRespectGracePeriod: true,
      }),
    );
  }
}
