import type { AsgMembership } from '../aws/autoscaling.js';
import type { InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import type { InstanceView, ScheduledEvent } from '@ec2-node-reconciler/model/observation.js';
import { AUTO_SCALING_GROUP_TAG } from '@ec2-node-reconciler/model/contract/labels.js';
import { ourTerminateHook } from '@ec2-node-reconciler/model/terminate-hook.js';
import { isTerminateWait } from '@ec2-node-reconciler/model/lifecycle-states.js';
import { mapBounded } from '../support/bounded.js';
import { errorText } from '@ec2-node-reconciler/model/error-text.js';
import type { ObserveDeps } from './deps.js';

const LIVE = new Set(['pending', 'running', 'stopping', 'shutting-down']);
/** Whose group is asked about: the live, and the stopped (a warm pool keeps its members stopped, or hibernated). */
const GROUPED = new Set([...LIVE, 'stopped']);

const failed = (what: string, error: unknown): string => `${what}: ${errorText(error)}`;

/** Hook lookups in flight at once (one per group with an instance in Terminating:Wait: few). */
const HOOK_CONCURRENCY = 4;

/**
 * Adds what only a sweep can find (docs/design.md §2): ASG membership with `Terminating:Wait` (or, for
 * a warm pool's member, `Warmed:Terminating:Wait`: one DescribeWarmPool listing per group that has a
 * warm pool) and its hook, and scheduled events. A failure here costs the slating it would have found this run, not
 * the sweep: it is reported, and each instance it concerns carries it (`enrichmentErrors`), so
 * that nothing is undone for it "because nothing slates it" (docs/design.md §1a). A group whose lookup
 * failed blinds its own instances only; a failed scheduled-event query, every live instance.
 */
export async function enrichInstances(
  deps: {
    readonly autoScaling: ObserveDeps['autoScaling'];
    readonly ec2: Pick<ObserveDeps['ec2'], 'scheduledEvents'>;
    readonly ownHooks?: ObserveDeps['ownHooks'];
  },
  instances: readonly InstanceView[],
): Promise<{ instances: InstanceView[]; errors: string[] }> {
  const live = instances.filter((i) => LIVE.has(i.state)).map((i) => i.id);
  const grouped = instances.filter((i) => GROUPED.has(i.state));
  const errors: string[] = [];
  const blind = new Map<InstanceId, string[]>();
  const blindFor = (ids: Iterable<InstanceId>, error: string) => {
    errors.push(error);
    for (const id of ids) blind.set(id, [...(blind.get(id) ?? []), error]);
  };

  // Auto Scaling tags every instance it launches with its group: the groups to ask are those tags.
  const byGroup = new Map<string, InstanceId[]>();
  for (const instance of grouped) {
    const group = instance.tags[AUTO_SCALING_GROUP_TAG];
    if (group !== undefined && group !== '') byGroup.set(group, [...(byGroup.get(group) ?? []), instance.id]);
  }
  if (live.length === 0 && byGroup.size === 0) return { instances: [...instances], errors };

  const [asg, events] = await Promise.all([
    byGroup.size === 0
      ? {
          members: new Map<InstanceId, AsgMembership>(),
          failed: new Map<string, string>(),
          warmPools: new Set<string>(),
        }
      : deps.autoScaling.describeGroups([...byGroup.keys()]).catch((error: unknown) => ({
          members: new Map<InstanceId, AsgMembership>(),
          failed: new Map([...byGroup.keys()].map((group) => [group, errorText(error)])),
          warmPools: new Set<string>(),
        })),
    live.length === 0
      ? new Map<InstanceId, ScheduledEvent[]>()
      : deps.ec2.scheduledEvents(live).catch((error: unknown) => {
          blindFor(live, failed('describing scheduled events', error));
          return new Map<InstanceId, ScheduledEvent[]>();
        }),
  ]);
  // One message per cause: a failed call of 100 groups is one error, naming its groups.
  const failedByCause = new Map<string, string[]>();
  for (const [group, error] of asg.failed) failedByCause.set(error, [...(failedByCause.get(error) ?? []), group]);
  for (const [error, groups] of failedByCause) {
    blindFor(
      groups.flatMap((g) => byGroup.get(g) ?? []),
      `describing Auto Scaling group${groups.length > 1 ? 's' : ''} ${groups.join(', ')}: ${error}`,
    );
  }

  // A warm pool's members are not among its group's instances: one listing of each pool (pages of 50).
  // A pool that cannot be read blinds its group's instances: which of them wait on a hook is unknown.
  const pools = [...asg.warmPools].filter((group) => byGroup.has(group));
  await mapBounded(pools, HOOK_CONCURRENCY, async (group) => {
    try {
      for (const [id, membership] of await deps.autoScaling.warmPoolMembers(group)) asg.members.set(id, membership);
    } catch (error) {
      blindFor(byGroup.get(group) ?? [], failed(`describing the warm pool of ${group}`, error));
    }
  });

  const terminating = [...asg.members].filter(([, m]) => isTerminateWait(m.lifecycleState));
  const terminatingGroups = [...new Set(terminating.map(([, m]) => m.group))];
  const hooks = new Map<string, { readonly hook: string; readonly heartbeatTimeoutSeconds?: number } | undefined>();
  await mapBounded(terminatingGroups, HOOK_CONCURRENCY, async (group) => {
    const waiting = terminating.filter(([, m]) => m.group === group).map(([id]) => id);
    try {
      // The event path decides by the same rule (packages/model/src/terminate-hook.ts).
      const chosen = ourTerminateHook(group, await deps.autoScaling.terminateHooks(group), deps.ownHooks);
      if (chosen.kind === 'ambiguous') blindFor(waiting, chosen.reason);
      else hooks.set(group, chosen.kind === 'ours' ? chosen : undefined);
    } catch (error) {
      blindFor(waiting, failed(`describing lifecycle hooks of ${group}`, error));
    }
  });

  return {
    instances: instances.map((instance) => {
      const membership = asg.members.get(instance.id);
      const scheduled = events.get(instance.id);
      const lookupsFailed = blind.get(instance.id);
      if (!membership && !scheduled && !lookupsFailed) return instance;
      const hook = membership ? hooks.get(membership.group) : undefined;
      return {
        ...instance,
        ...(membership
          ? {
              autoScaling: {
                ...membership,
                ...(hook ? { terminateHook: hook.hook } : {}),
                ...(hook?.heartbeatTimeoutSeconds !== undefined
                  ? { terminateHookTimeoutSeconds: hook.heartbeatTimeoutSeconds }
                  : {}),
              },
            }
          : {}),
        ...(scheduled ? { scheduledEvents: scheduled } : {}),
        ...(lookupsFailed ? { enrichmentErrors: lookupsFailed } : {}),
      };
    }),
    errors,
  };
}
