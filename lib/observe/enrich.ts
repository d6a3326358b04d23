import type { InstanceId } from '../model/instance-id.js';
import type { InstanceView, ScheduledEvent } from '../model/observation.js';
import type { ReconcilerDeps } from '../pipeline/deps.js';
import { errorText } from '../pipeline/errors.js';

const LIVE = new Set(['pending', 'running', 'stopping', 'shutting-down']);

const failed = (what: string, error: unknown): string => `${what}: ${errorText(error)}`;

/**
 * Adds what only a sweep can find (DESIGN §2): ASG membership with `Terminating:Wait` and its
 * hook, and scheduled events. A failure here costs the slating it would have found this run, not
 * the sweep: it is reported and the instances go on without it.
 */
export async function enrichInstances(deps: ReconcilerDeps, instances: readonly InstanceView[]): Promise<{ instances: InstanceView[]; errors: string[] }> {
  const live = instances.filter((i) => LIVE.has(i.state)).map((i) => i.id);
  const errors: string[] = [];
  if (live.length === 0) return { instances: [...instances], errors };

  const [asg, events] = await Promise.all([
    deps.autoScaling.describeInstances(live).catch((error: unknown) => {
      errors.push(failed('describing Auto Scaling instances', error));
      return new Map<InstanceId, { group: string; lifecycleState: string }>();
    }),
    deps.ec2.scheduledEvents(live).catch((error: unknown) => {
      errors.push(failed('describing scheduled events', error));
      return new Map<InstanceId, ScheduledEvent[]>();
    }),
  ]);

  const terminatingGroups = [...new Set([...asg.values()].filter((m) => m.lifecycleState === 'Terminating:Wait').map((m) => m.group))];
  const hooks = new Map<string, string | undefined>();
  await Promise.all(
    terminatingGroups.map(async (group) => {
      try {
        hooks.set(group, await deps.autoScaling.terminateHook(group));
      } catch (error) {
        errors.push(failed(`describing lifecycle hooks of ${group}`, error));
      }
    }),
  );

  return {
    instances: instances.map((instance) => {
      const membership = asg.get(instance.id);
      const scheduled = events.get(instance.id);
      if (!membership && !scheduled) return instance;
      const hook = membership ? hooks.get(membership.group) : undefined;
      return {
        ...instance,
        ...(membership ? { autoScaling: { ...membership, ...(hook ? { terminateHook: hook } : {}) } } : {}),
        ...(scheduled ? { scheduledEvents: scheduled } : {}),
      };
    }),
    errors,
  };
}
