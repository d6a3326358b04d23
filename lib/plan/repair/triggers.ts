// What triggers a repair (docs/design.md §1b), as Karpenter's repair policies do: a bad condition of the
// Node that has been bad for its toleration (repair.after[condition]). Which conditions are bad is
// classify's judgement (ClassifiedPair.badConditions); here only how long they have been so. Pure.
import type { RepairTrigger } from '@ec2-node-reconciler/model/action.js';
import type { ClassifiedPair } from '@ec2-node-reconciler/model/condition.js';
import { formatDuration } from '@ec2-node-reconciler/model/duration.js';
import type { BadCondition } from '@ec2-node-reconciler/model/node-conditions.js';
import type { RepairSettings } from '@ec2-node-reconciler/model/contract/settings.js';
import { iso } from '../pair.js';

/** A condition as the report says it: `Ready Unknown since …`. */
export const describeCondition = (c: BadCondition): string =>
  `${c.type} ${c.status}${c.since !== undefined ? ` since ${iso(c.since)}` : ''}`;

/** The triggers as the report says them, each with the toleration it has outlasted. */
export const triggerText = (triggers: readonly RepairTrigger[], repair: RepairSettings): string =>
  triggers.map((t) => `${describeCondition(t)} (over ${formatDuration(repair.after[t.type])})`).join(', ');

export type DueTriggers = { readonly triggers: RepairTrigger[] } | { readonly waiting: string };

/** The bad conditions that have been bad for their repair.after, or why none has yet. */
export function dueTriggers(pair: ClassifiedPair, now: number, repair: RepairSettings): DueTriggers {
  const seen = pair.badConditions ?? [];
  const bad = seen.filter((c) => c.inferred !== true);
  const inferred = seen.find((c) => c.inferred === true);
  if (bad.length === 0 && inferred !== undefined) {
    return {
      waiting: `Ready is still True though the kubelet's last heartbeat was at ${inferred.since !== undefined ? iso(inferred.since) : 'an unknown time'}: the control plane has not marked the node (its clock may be behind, or the node lifecycle controller is down), so it is not repaired`,
    };
  }
  // A machine is judged only over its current life: one launched (or started again, as from a warm pool)
  // after its condition last changed has been bad for as long as it has run, not since the Node said so.
  const launchedAt = pair.instance !== undefined && pair.instance.launchedAt > 0 ? pair.instance.launchedAt : undefined;
  const counted = bad.map((c) =>
    c.since !== undefined && launchedAt !== undefined && launchedAt > c.since
      ? { ...c, since: launchedAt, fromLaunch: true }
      : c,
  );
  const triggers = counted.flatMap((c) =>
    c.since !== undefined && now - c.since >= repair.after[c.type]
      ? [{ type: c.type, status: c.status, since: c.since }]
      : [],
  );
  if (triggers.length > 0) return { triggers };
  const dated = counted
    .filter((c): c is BadCondition & { since: number; fromLaunch?: boolean } => c.since !== undefined)
    .sort((a, b) => a.since + repair.after[a.type] - (b.since + repair.after[b.type]));
  const next = dated[0];
  if (next === undefined)
    return {
      waiting: `${bad.map(describeCondition).join(', ') || 'no condition is bad'}: since when is unknown, so it is not repaired`,
    };
  const what =
    next.fromLaunch === true
      ? `${next.type} ${next.status}, counted from the machine's launch at ${iso(next.since)} (later than the condition's last change)`
      : describeCondition(next);
  return {
    waiting: `${what}: repaired once it has been so for ${formatDuration(repair.after[next.type])} (at ${iso(next.since + repair.after[next.type])})`,
  };
}
