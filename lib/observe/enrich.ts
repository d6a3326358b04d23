import type { AsgMembership } from '../aws/autoscaling.js';
import type { InstanceId } from '../model/instance-id.js';
import type { InstanceView, ScheduledEvent } from '../model/observation.js';
import { AUTO_SCALING_GROUP_TAG } from '../contract/labels.js';
import { ourTerminateHook } from '../model/terminate-hook.js';
import { isTerminateWait } from '../model/lifecycle-states.js';
import { mapBounded } from '../support/bounded.js';
import { errorText } from '../support/errors.js';
import type { ObserveDeps } from './deps.js';

const LIVE = new Set(['pending', 'running', 'stopping', 'shutting-down']);

const failed = (what: string, error: unknown): string => `${what}: ${errorText(error)}`;

/** Hook lookups in flight at once (one per group with an instance in Terminating:Wait: few). */
const HOOK_CONCURRENCY = 4;

/**
 * Adds what only a sweep can find (docs/design.md §2): ASG membership with `Terminating:Wait` and its
 * hook, and scheduled events. A failure here costs the slating it would have found this run, not
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
  const liveInstances = instances.filter((i) => LIVE.has(i.state));
  const live = liveInstances.map((i) => i.id);
  const errors: string[] = [];
  if (live.length === 0) return { instances: [...instances], errors };
  const blind = new Map<InstanceId, string[]>();
  const blindFor = (ids: Iterable<InstanceId>, error: string) => {
    errors.push(error);
    for (const id of ids) blind.set(id, [...(blind.get(id) ?? []), error]);
  };

  // Auto Scaling tags every instance it launches with its group: the groups to ask are those tags.
  const byGroup = new Map<string, InstanceId[]>();
  for (const instance of liveInstances) {
    const group = instance.tags[AUTO_SCALING_GROUP_TAG];
    if (group !== undefined && group !== '') byGroup.set(group, [...(byGroup.get(group) ?? []), instance.id]);
  }

  const [asg, events] = await Promise.all([
    byGroup.size === 0
      ? { members: new Map<InstanceId, AsgMembership>(), failed: new Map<string, string>() }
      : deps.autoScaling.describeGroups([...byGroup.keys()]).catch((error: unknown) => ({
          members: new Map<InstanceId, AsgMembership>(),
          failed: new Map([...byGroup.keys()].map((group) => [group, errorText(error)])),
        })),
    deps.ec2.scheduledEvents(live).catch((error: unknown) => {
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

  const terminating = [...asg.members].filter(([, m]) => isTerminateWait(m.lifecycleState));
  const terminatingGroups = [...new Set(terminating.map(([, m]) => m.group))];
  const hooks = new Map<string, { readonly hook: string; readonly heartbeatTimeoutSeconds?: number } | undefined>();
  await mapBounded(terminatingGroups, HOOK_CONCURRENCY, async (group) => {
    const waiting = terminating.filter(([, m]) => m.group === group).map(([id]) => id);
    try {
      // The event path decides by the same rule (lib/model/terminate-hook.ts).
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
