// How much repair a group and the cluster can bear (docs/design.md §1b), from the census: the breaker
// (Karpenter's unhealthy threshold: stand down while too much is unhealthy, or while an unhealthy Node
// cannot be placed in a group) and the budget (at most repair.maxParallel in flight per group, as a
// disruption budget). The back-off after failed replacements is its own rule (./backoff.ts). Pure.
import type { StandDown } from '@ec2-node-reconciler/model/action.js';
import type { RepairSettings } from '@ec2-node-reconciler/model/contract/settings.js';
import type { Census, GroupCensus } from './census.js';

/** The most unhealthy machines a group of `members` may have for repairs to go on: the percentage, rounded up (as Karpenter and EKS do). */
export const unhealthyAllowance = (members: number, maxUnhealthyPercent: number): number =>
  Math.ceil((members * maxUnhealthyPercent) / 100);

type Share = { readonly members: number; readonly unhealthy: number };

/**
 * Whether too much is unhealthy to take another machine out: the group's share, then the cluster's (an
 * outage across many small groups stands down too). Undefined when neither is over it.
 */
export function standDownOf(
  census: Census,
  group: string,
  counts: Share,
  maxUnhealthyPercent: number,
): { readonly reason: string; readonly standDown: StandDown } | undefined {
  const shares: [StandDown['scope'], string, Share][] = [
    ['group', `Auto Scaling group ${group}`, counts],
    ['cluster', 'the cluster (every Node, in a group or not)', census.cluster],
  ];
  for (const [scope, where, share] of shares) {
    const allowed = unhealthyAllowance(share.members, maxUnhealthyPercent);
    if (share.unhealthy <= allowed) continue;
    return {
      reason: `stand down: ${share.unhealthy} of ${share.members} machines of ${where} are unhealthy, more than ${maxUnhealthyPercent} % (${allowed}): taking another out would risk making an outage worse`,
      standDown: { scope, group, unhealthy: share.unhealthy, members: share.members, allowed, maxUnhealthyPercent },
    };
  }
  return undefined;
}

/**
 * A cautious stand-down: an unhealthy Node whose machine could not be looked up, or a machine that never
 * registered whose group could not be described, may be any group's. Undefined when every one is placed.
 */
export function unlocatedStandDown(census: Census): string | undefined {
  const { unlocated, unlocatedMachines } = census;
  const parts = [
    ...(unlocated.length > 0 ? [`the machine of unhealthy node ${someOf(unlocated)}`] : []),
    ...(unlocatedMachines.length > 0 ? [`the group of unregistered machine ${someOf(unlocatedMachines)}`] : []),
  ];
  if (parts.length === 0) return undefined;
  return `stand down: ${parts.join(' and ')} could not be looked up this run, so no group's unhealthy share is known: no repair starts or replaces until it can be counted`;
}

/** The first three names, and how many more. */
const someOf = (names: readonly string[]): string =>
  names.slice(0, 3).join(', ') + (names.length > 3 ? ` and ${names.length - 3} more` : '');

/** Why the group has no room for another repair (repair.maxParallel, counting every drain in it), or undefined. */
export function parallelLimit(group: string, counts: GroupCensus, repair: RepairSettings): string | undefined {
  if (counts.inFlight < repair.maxParallel) return undefined;
  return `${counts.inFlight} repair${counts.inFlight === 1 ? '' : 's'} or drain${counts.inFlight === 1 ? '' : 's'} in flight in Auto Scaling group ${group} (maxParallel ${repair.maxParallel}): it waits its turn`;
}
