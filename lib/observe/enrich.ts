import type { AsgMembership } from '../aws/autoscaling.js';
import type { InstanceId } from '../model/instance-id.js';
import type { InstanceView, ScheduledEvent } from '../model/observation.js';
import { errorText } from '../pipeline/errors.js';
import type { ObserveDeps } from './deps.js';

const LIVE = new Set(['pending', 'running', 'stopping', 'shutting-down']);

const failed = (what: string, error: unknown): string => `${what}: ${errorText(error)}`;

/**
 * Which of a group's terminate hooks is ours to complete: a configured one; else the only one. With
 * several and none configured it would be a guess that cuts another system's hook short: ambiguous.
 */
function chooseHook(group: string, hooks: readonly string[], own: readonly string[] | undefined): string | undefined | { ambiguous: string } {
  if (own !== undefined) return hooks.find((h) => own.includes(h));
  if (hooks.length <= 1) return hooks[0];
  return { ambiguous: `Auto Scaling group ${group} has several terminate hooks (${hooks.join(', ')}): set lifecycleHookNames to say which is the reconciler's` };
}

/**
 * Adds what only a sweep can find (DESIGN §2): ASG membership with `Terminating:Wait` and its
 * hook, and scheduled events. A failure here costs the slating it would have found this run, not
 * the sweep: it is reported, and each instance it concerns carries it (`enrichmentErrors`), so
 * that nothing is undone for it "because nothing slates it" (DESIGN §1a).
 */
export async function enrichInstances(
  deps: Pick<ObserveDeps, 'autoScaling' | 'ec2' | 'ownHooks'>,
  instances: readonly InstanceView[],
): Promise<{ instances: InstanceView[]; errors: string[] }> {
  const live = instances.filter((i) => LIVE.has(i.state)).map((i) => i.id);
  const errors: string[] = [];
  if (live.length === 0) return { instances: [...instances], errors };
  const blind = new Map<InstanceId, string[]>();
  const blindFor = (ids: Iterable<InstanceId>, error: string) => {
    errors.push(error);
    for (const id of ids) blind.set(id, [...(blind.get(id) ?? []), error]);
  };

  const [asg, events] = await Promise.all([
    deps.autoScaling.describeInstances(live).catch((error: unknown) => {
      blindFor(live, failed('describing Auto Scaling instances', error));
      return new Map<InstanceId, AsgMembership>();
    }),
    deps.ec2.scheduledEvents(live).catch((error: unknown) => {
      blindFor(live, failed('describing scheduled events', error));
      return new Map<InstanceId, ScheduledEvent[]>();
    }),
  ]);

  const terminating = [...asg].filter(([, m]) => m.lifecycleState === 'Terminating:Wait');
  const terminatingGroups = [...new Set(terminating.map(([, m]) => m.group))];
  const hooks = new Map<string, string | undefined>();
  await Promise.all(
    terminatingGroups.map(async (group) => {
      const waiting = terminating.filter(([, m]) => m.group === group).map(([id]) => id);
      try {
        const chosen = chooseHook(group, await deps.autoScaling.terminateHooks(group), deps.ownHooks);
        if (typeof chosen === 'string' || chosen === undefined) hooks.set(group, chosen);
        else blindFor(waiting, chosen.ambiguous);
      } catch (error) {
        blindFor(waiting, failed(`describing lifecycle hooks of ${group}`, error));
      }
    }),
  );

  return {
    instances: instances.map((instance) => {
      const membership = asg.get(instance.id);
      const scheduled = events.get(instance.id);
      const lookupsFailed = blind.get(instance.id);
      if (!membership && !scheduled && !lookupsFailed) return instance;
      const hook = membership ? hooks.get(membership.group) : undefined;
      return {
        ...instance,
        ...(membership ? { autoScaling: { ...membership, ...(hook ? { terminateHook: hook } : {}) } } : {}),
        ...(scheduled ? { scheduledEvents: scheduled } : {}),
        ...(lookupsFailed ? { enrichmentErrors: lookupsFailed } : {}),
      };
    }),
    errors,
  };
}
