// Repair of unresponsive machines (docs/design.md §1b), decided here, behind its own rails. A repair is a
// drain the Node records as `for: repair`, bounded by repair.drainTimeout; when a later sweep finds
// it ended, the instance is marked Unhealthy so that its Auto Scaling group replaces it; a node that
// is Ready again before that has its repair cancelled (our cordon and the record go, which also
// stops a drain still running). Pure, like the rest of plan().
import { isWarmPoolState } from '../model/lifecycle-states.js';
import { ownershipOf } from '../classify/ownership.js';
import { badConditions, type BadCondition } from '../classify/node-health.js';
import type { RepairTrigger, StandDown } from '../model/action.js';
import type { ClassifiedPair } from '../model/condition.js';
import { formatDuration } from '../model/duration.js';
import { AUTO_SCALING_GROUP_TAG } from '../contract/labels.js';
import type { NodeView } from '../model/observation.js';
import type { RepairSettings } from '../contract/settings.js';
import { drainExecutionName, leavesLifecycleOpen } from '../contract/drain-workflow.js';
import type { DrainClaim } from './own-cordon.js';
import { repairDrainVerdict } from './repair-drain-end.js';
import { isOurCordonGone } from '../kube/node-writes.js';
import {
  backOffOf,
  formatFailures,
  isFailedReplacement,
  parseFailures,
  withFailure,
  type BackOffCensus,
} from './repair-backoff.js';
import { iso, recordedDrain, target, type PairPlanner, type PlanContext, type RecordedDrain } from './pair.js';

/** One Auto Scaling group as this run saw it. */
export interface GroupCensus {
  /** Its machines this run observed (every live instance of the cluster, or named by a Node, in the group). */
  readonly members: number;
  /** Those that are unhealthy: a bad repair condition on their Node, no Node past registrationGrace, or Unhealthy in the group. */
  readonly unhealthy: number;
  /** Repairs and drains in flight in the group; the repairs this run starts are added as they are planned. */
  inFlight: number;
  /** The back-off's record (the group's tag; the failures this run records are added as they are planned) and the latest healthy launch. */
  readonly backOff: BackOffCensus;
}

/** What a sweep knows of its Auto Scaling groups, for the stand-down and maxParallel. */
export interface Census {
  readonly groups: ReadonlyMap<string, GroupCensus>;
  /**
   * The same counts over the whole cluster: every group's machines and every other Node (Karpenter's,
   * EKS Auto Mode's, managed elsewhere). An outage that hits one machine in each of many small groups,
   * or the Nodes outside any group (a bad AMI rolled out everywhere, the control plane unreachable),
   * stands down although no group alone is over its share.
   */
  readonly cluster: { readonly members: number; readonly unhealthy: number };
  /**
   * Unhealthy Nodes whose machine's lookup failed this run: which group they count against is unknown,
   * so no group's unhealthy share is known for certain.
   */
  readonly unlocated: readonly string[];
}

/** The most unhealthy machines a group of `members` may have for repairs to go on: the percentage, rounded up (as Karpenter and EKS do). */
export const unhealthyAllowance = (members: number, maxUnhealthyPercent: number): number =>
  Math.ceil((members * maxUnhealthyPercent) / 100);

const groupOf = (pair: ClassifiedPair): string | undefined => pair.instance?.autoScaling?.group;

/** A drain that ended because someone else uncordoned the node: the operator took the node back. */
const cancelledByOperator = (claim: DrainClaim): boolean =>
  claim.outcome !== undefined && leavesLifecycleOpen(claim.outcome);

/** A repair the Node records that is not over: its drain runs or ended, and its machine is not replaced yet. */
export function isOpenRepair(drain: RecordedDrain): boolean {
  return drain.claim.for === 'repair' && !cancelledByOperator(drain.claim) && drain.state.status !== 'absent';
}

/** A repair the Node records that nobody else cancelled, whatever its drain's state: a recovered node has it cancelled. */
export const isCancellableRepair = (drain: RecordedDrain): boolean =>
  drain.claim.for === 'repair' && !cancelledByOperator(drain.claim);

/**
 * A repair whose drain is over and whose node is schedulable again: someone uncordoned it after the
 * drain ended (the drain itself notices only an uncordon while it runs). Pods may run there again, so
 * the machine is the operator's, and is not marked.
 */
const uncordonedSinceDrain = (node: NodeView, drain: RecordedDrain): boolean =>
  drain.claim.for === 'repair' &&
  isOurCordonGone(node) &&
  drain.state.status !== 'running' &&
  drain.state.status !== 'unknown';

/** Whether the node counts against repair.maxParallel: a drain of any purpose runs (or may), or a repair is not over. */
function isInFlight(node: NodeView, ctx: Pick<PlanContext, 'drains'>, now: number): boolean {
  const drain = recordedDrain(node, ctx, now);
  if (drain === undefined) return false;
  return (
    drain.state.status === 'running' ||
    drain.state.status === 'unknown' ||
    (isOpenRepair(drain) && !uncordonedSinceDrain(node, drain))
  );
}

function isUnhealthy(pair: ClassifiedPair, ctx: PlanContext, now: number): boolean {
  if (pair.instance?.autoScaling?.healthStatus === 'Unhealthy' || pair.condition === 'unregistered-machine')
    return true;
  return (
    pair.node !== undefined && badConditions(pair.node, pair.heartbeatAt, now, ctx.settings.heartbeatGrace).length > 0
  );
}

/** Every group's members, unhealthy machines and repairs in flight, each instance counted once; and the unhealthy Nodes no group can be told for. */
export function takeCensus(pairs: readonly ClassifiedPair[], ctx: PlanContext, now: number): Census {
  const unlocated = pairs.flatMap((pair) =>
    (isLookupFailed(pair) || isGroupLookupFailed(pair)) &&
    pair.node !== undefined &&
    badConditions(pair.node, pair.heartbeatAt, now, ctx.settings.heartbeatGrace).length > 0
      ? [pair.node.name]
      : [],
  );
  const machines = censusMachines(pairs, ctx, now);
  const cluster = { members: 0, unhealthy: 0 };
  for (const machine of machines.values()) {
    if (!machine.serving && !machine.unhealthy) continue;
    cluster.members += 1;
    if (machine.unhealthy) cluster.unhealthy += 1;
  }
  return { groups: groupCensus(machines), cluster, unlocated };
}

/** The machine's own lookup failed this run: which group it is in is unknown. */
const isLookupFailed = (pair: ClassifiedPair): boolean =>
  pair.condition === 'unknown' && pair.lookupError !== undefined;

/** Its group's tag names a group whose lookup failed this run: the group cannot count the machine. */
const isGroupLookupFailed = (pair: ClassifiedPair): boolean => {
  const instance = pair.instance;
  return (
    instance !== undefined &&
    instance.autoScaling === undefined &&
    instance.tags[AUTO_SCALING_GROUP_TAG] !== undefined &&
    (instance.enrichmentErrors ?? []).length > 0
  );
};

interface CensusMachine {
  /** Its Auto Scaling group; undefined for a Node of the cluster outside every group (Karpenter's, a managed or a self-managed one). */
  group: string | undefined;
  unhealthy: boolean;
  inFlight: boolean;
  serving: boolean;
  /** The group's back-off record, as this member's group lookup read it. */
  repairFailures?: string;
  /** Its launch, when it has stayed healthy for repair.after.Ready since (a replacement that worked). */
  healthyLaunchedAt?: number;
}

/**
 * Each Auto Scaling group member this run saw, once (by instance), and each other Node of the cluster,
 * once (by name). The Nodes outside every group count only towards the cluster's share: 20 of
 * Karpenter's Nodes NotReady beside one group machine is an outage of the cluster (its control plane,
 * its network, a bad AMI everywhere), which replacing the group machine would not cure.
 */
function censusMachines(pairs: readonly ClassifiedPair[], ctx: PlanContext, now: number): Map<string, CensusMachine> {
  const machines = new Map<string, CensusMachine>();
  for (const pair of pairs) {
    // A warm pool's member (DescribeWarmPool) is neither its group's capacity nor an outage of it: a Node
    // its warm-up left behind is NotReady while the machine rests stopped.
    if (isWarmPoolState(pair.instance?.autoScaling?.lifecycleState)) continue;
    const group = groupOf(pair);
    const id = pair.instance?.id;
    const key =
      group !== undefined && id !== undefined ? id : pair.node !== undefined ? `node/${pair.node.name}` : undefined;
    if (key === undefined) continue;
    const known = machines.get(key) ?? { group, unhealthy: false, inFlight: false, serving: false };
    known.unhealthy ||= isUnhealthy(pair, ctx, now);
    // A member still launching (or leaving) is no healthy capacity yet: counting it would hide an outage behind a scale-out.
    known.serving ||=
      group === undefined
        ? pair.node !== undefined
        : pair.instance?.state === 'running' && pair.instance.autoScaling?.lifecycleState === 'InService';
    known.inFlight ||= pair.node !== undefined && isInFlight(pair.node, ctx, now);
    const repairFailures = pair.instance?.autoScaling?.repairFailures;
    if (repairFailures !== undefined) known.repairFailures = repairFailures;
    const launchedAt = pair.instance?.launchedAt ?? 0;
    if (
      group !== undefined &&
      pair.condition === 'in-sync' &&
      pair.node !== undefined &&
      launchedAt > 0 &&
      now - launchedAt >= ctx.settings.repair.after.Ready &&
      pair.instance?.autoScaling?.lifecycleState === 'InService'
    )
      known.healthyLaunchedAt = launchedAt;
    machines.set(key, known);
  }
  return machines;
}

function groupCensus(machines: ReadonlyMap<string, CensusMachine>): Map<string, GroupCensus> {
  const census = new Map<string, GroupCensus>();
  for (const machine of machines.values()) {
    if (machine.group === undefined) continue;
    const counts = census.get(machine.group) ?? { members: 0, unhealthy: 0, inFlight: 0, backOff: { failures: [] } };
    const healthyLaunchedAt = Math.max(
      counts.backOff.healthyLaunchedAt ?? -Infinity,
      machine.unhealthy ? -Infinity : (machine.healthyLaunchedAt ?? -Infinity),
    );
    census.set(machine.group, {
      members: counts.members + (machine.serving || machine.unhealthy ? 1 : 0),
      unhealthy: counts.unhealthy + (machine.unhealthy ? 1 : 0),
      inFlight: counts.inFlight + (machine.inFlight ? 1 : 0),
      backOff: {
        failures: counts.backOff.failures.length > 0 ? counts.backOff.failures : parseFailures(machine.repairFailures),
        ...(Number.isFinite(healthyLaunchedAt) ? { healthyLaunchedAt } : {}),
      },
    });
  }
  return census;
}

const describe = (c: BadCondition): string =>
  `${c.type} ${c.status}${c.since !== undefined ? ` since ${iso(c.since)}` : ''}`;

/** The bad conditions that have been bad for their repair.after, or why none has yet. */
function dueTriggers(
  node: NodeView,
  pair: ClassifiedPair,
  now: number,
  ctx: PlanContext,
): { triggers: RepairTrigger[] } | { waiting: string } {
  const { repair, heartbeatGrace } = ctx.settings;
  const seen = badConditions(node, pair.heartbeatAt, now, heartbeatGrace);
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
      waiting: `${bad.map(describe).join(', ') || 'no condition is bad'}: since when is unknown, so it is not repaired`,
    };
  const what =
    next.fromLaunch === true
      ? `${next.type} ${next.status}, counted from the machine's launch at ${iso(next.since)} (later than the condition's last change)`
      : describe(next);
  return {
    waiting: `${what}: repaired once it has been so for ${formatDuration(repair.after[next.type])} (at ${iso(next.since + repair.after[next.type])})`,
  };
}

/**
 * The Auto Scaling processes a replacement needs: ReplaceUnhealthy terminates an Unhealthy member and
 * launches its successor through Terminate and Launch. With any of them suspended, a machine marked
 * Unhealthy stays (drained, for nothing) or goes without a successor.
 */
const REPLACEMENT_PROCESSES: ReadonlySet<string> = new Set(['Launch', 'ReplaceUnhealthy', 'Terminate']);

/** Why this machine may not be repaired (or replaced) this run, whatever its group: the ownership, exclusion, lookup and group rails. */
export function repairRefusal(p: PairPlanner, ownGroups: readonly string[] | undefined): string | undefined {
  const { pair } = p;
  const instance = pair.instance;
  if (pair.ours !== true || instance === undefined)
    return `${pair.instanceId ?? 'the instance'} is not this cluster's instance`;
  // Marking a machine Unhealthy has it terminated: only a machine its own tags (or the configured groups) make ours, never one a Node merely names.
  const owner = ownershipOf(instance, {
    clusterName: p.ctx.clusterName,
    ...(ownGroups !== undefined ? { ownGroups } : {}),
  });
  if (owner.kind !== 'ours')
    return `${instance.id} is not tagged for this cluster nor in a configured Auto Scaling group: a Node naming it is not enough to replace it`;
  if (p.excluded) return `excluded by ${p.excluded}`;
  if (p.blindSpot !== undefined) return p.blindSpot;
  const asg = instance.autoScaling;
  if (asg === undefined) return `${instance.id} is not in an Auto Scaling group: nothing would replace it`;
  if (ownGroups !== undefined && !ownGroups.includes(asg.group))
    return `Auto Scaling group ${asg.group} is not one of the configured autoScalingGroupNames`;
  const halted = (asg.suspendedProcesses ?? []).filter((process) => REPLACEMENT_PROCESSES.has(process));
  if (halted.length > 0) {
    return `Auto Scaling group ${asg.group} has ${halted.join(', ')} suspended: it would not replace a machine marked Unhealthy, so none is taken out until ${halted.length === 1 ? 'it is' : 'they are'} resumed`;
  }
  if (instance.state !== 'running') return `${instance.id} is ${instance.state}, not running`;
  if (asg.lifecycleState !== 'InService')
    return `Auto Scaling group ${asg.group} has it ${asg.lifecycleState}: only InService machines are repaired`;
  if (asg.healthStatus === 'Unhealthy')
    return `Auto Scaling group ${asg.group} already has it Unhealthy: the group is replacing it`;
  return undefined;
}

/**
 * Whether too much is unhealthy to take another machine out: the group's share, then the cluster's (an
 * outage across many small groups stands down too). Undefined when neither is over it.
 */
export function standDownOf(
  census: Census,
  group: string,
  counts: { readonly members: number; readonly unhealthy: number },
  maxUnhealthyPercent: number,
): { readonly reason: string; readonly standDown: StandDown } | undefined {
  const shares: [StandDown['scope'], string, { readonly members: number; readonly unhealthy: number }][] = [
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

/** The cause of a repair drain: part of its execution name (one a minute at most; the Node's record keeps it to one per repair). */
export function repairCause(now: number): string {
  return `repair-${new Date(now).toISOString().slice(0, 16).replace(/[-T:]/g, '')}`;
}

const triggerText = (triggers: readonly RepairTrigger[], repair: RepairSettings): string =>
  triggers.map((t) => `${describe(t)} (over ${formatDuration(repair.after[t.type])})`).join(', ');

/**
 * An unresponsive machine (reported as ever): with repair on, in a sweep, start its repair, or replace
 * it once its repair drain has ended, behind the repair rails. Never from an event: only a sweep sees
 * the whole group its stand-down is about.
 */
export function planUnresponsive(p: PairPlanner, census: Census | undefined): void {
  p.report();
  const { pair, ctx, now, out } = p;
  const { repair } = ctx.settings;
  const { node, instance, instanceId } = pair;
  if (
    !repair.enabled ||
    ctx.scope !== 'sweep' ||
    census === undefined ||
    node === undefined ||
    instanceId === undefined
  )
    return;
  const refused = repairRefusal(p, ctx.ownGroups);
  const group = instance?.autoScaling?.group;
  if (refused !== undefined || instance === undefined || group === undefined) {
    p.skip('repair', refused ?? `${instanceId} is not in an Auto Scaling group: nothing would replace it`);
    return;
  }
  const due = dueTriggers(node, pair, now, ctx);
  if ('waiting' in due) {
    p.skip('repair', due.waiting);
    return;
  }
  const { triggers } = due;
  const drain = recordedDrain(node, ctx, now);
  if (drain && (drain.state.status === 'running' || drain.state.status === 'unknown')) {
    const what =
      drain.claim.for === 'repair' ? `repair drain ${drain.claim.execution}` : `drain ${drain.claim.execution}`;
    p.skip(
      'repair',
      drain.state.status === 'unknown'
        ? `${what} may still be running (${drain.state.error}): nothing started beside it`
        : drain.claim.for === 'repair'
          ? `${what} is running`
          : `${what} runs on the node: no repair beside it`,
    );
    return;
  }
  // The operator uncordoned the node while it was already bad: it is theirs until its condition changes.
  const uncordonedAfter = drain !== undefined && isOpenRepair(drain) && uncordonedSinceDrain(node, drain);
  if (
    drain &&
    (cancelledByOperator(drain.claim) || uncordonedAfter) &&
    triggers.every((t) => t.since <= (drain.claim.at ?? Infinity))
  ) {
    const recorded = drain.claim.at !== undefined ? ` (recorded ${iso(drain.claim.at)})` : '';
    p.skip(
      'repair',
      uncordonedAfter
        ? `the node was uncordoned after its repair drain ${drain.claim.execution}${recorded} ended${drain.claim.outcome !== undefined ? ` (${drain.claim.outcome})` : ''}: it is the operator's, not replaced, nor repaired again until its condition changes`
        : `the node was uncordoned during its ${drain.claim.for === 'repair' ? 'repair ' : ''}drain ${drain.claim.execution}${recorded}: not repaired again until its condition changes`,
    );
    return;
  }

  // A cautious stand-down: an unhealthy Node whose machine could not be looked up may be this group's.
  if (census.unlocated.length > 0) {
    const nodes =
      census.unlocated.slice(0, 3).join(', ') +
      (census.unlocated.length > 3 ? ` and ${census.unlocated.length - 3} more` : '');
    p.skip(
      'repair',
      `stand down: the machine of unhealthy node ${nodes} could not be looked up this run, so no group's unhealthy share is known: no repair starts or replaces until it can be counted`,
    );
    return;
  }
  const counts = census.groups.get(group);
  if (counts === undefined) return;
  const held = standDownOf(census, group, counts, repair.maxUnhealthyPercent);
  if (held) {
    p.skip('repair', held.reason, { standDown: held.standDown });
    return;
  }

  if (drain && isOpenRepair(drain) && !uncordonedAfter) {
    const verdict = repairDrainVerdict(drain.claim.outcome, node);
    if (verdict.kind === 'blocked') {
      p.skip(
        'repair',
        `repair blocked: ${verdict.why}. To replace it anyway: aws autoscaling set-instance-health --instance-id ${instanceId} --health-status Unhealthy; to keep it: kubectl uncordon ${node.name}`,
      );
      return;
    }
    // A drain that failed (the step's errors, an aborted execution) did not drain: the machine waits out the drain window before it is marked.
    const deadline = drain.claim.deadline;
    if (verdict.kind === 'not-drained' && (deadline === undefined || now < deadline)) {
      p.skip(
        'repair',
        `repair drain ${drain.claim.execution} ended ${drain.claim.outcome !== undefined ? `${drain.claim.outcome}` : 'without an outcome (failed or stopped)'}: not replaced before its deadline${deadline !== undefined ? ` (${iso(deadline)})` : ''}`,
      );
      return;
    }
    out.actions.push({
      kind: 'repair',
      step: 'replace',
      ...target(node),
      instanceId,
      group,
      execution: drain.claim.execution,
      ...(drain.claim.outcome !== undefined ? { drainOutcome: drain.claim.outcome } : {}),
      triggers,
      reason: `repair: its drain ${drain.claim.execution} ended${drain.claim.outcome !== undefined ? ` (${drain.claim.outcome})` : ''}; ${triggerText(triggers, repair)}: Auto Scaling group ${group} replaces it`,
    });
    return;
  }

  const heldBack = backOffOf(group, counts.backOff, repair);
  if (heldBack) {
    p.skip('repair', heldBack.reason, { backOff: heldBack.backOff });
    return;
  }
  if (counts.inFlight >= repair.maxParallel) {
    p.skip(
      'repair',
      `${counts.inFlight} repair${counts.inFlight === 1 ? '' : 's'} or drain${counts.inFlight === 1 ? '' : 's'} in flight in Auto Scaling group ${group} (maxParallel ${repair.maxParallel}): it waits its turn`,
    );
    return;
  }
  counts.inFlight += 1;
  // A repair of a machine the group launched within failureWindow is a failed replacement: recorded on the group first.
  const failed = isFailedReplacement(instance.launchedAt, now, repair);
  if (failed) counts.backOff.failures = withFailure(counts.backOff, now, repair);
  const cause = repairCause(now);
  const claim = {
    execution: `${ctx.executionPrefix ?? ''}${drainExecutionName(ctx.clusterName, instanceId, cause, node.uid)}`,
    deadline: now + repair.drainTimeout,
    for: 'repair' as const,
    ...(instance.launchedAt > 0 ? { launchedAt: instance.launchedAt } : {}),
    ...(drain ? { replaces: drain.claim.execution } : {}),
  };
  const reason = `repair: ${triggerText(triggers, repair)}; ${pair.reason}`;
  if (!node.unschedulable) out.actions.push({ kind: 'cordon', ...target(node), instanceId, reason, claim });
  out.actions.push({
    kind: 'repair',
    step: 'drain',
    ...target(node),
    instanceId,
    group,
    reason,
    cause,
    mode: 'start',
    triggers,
    ...(failed ? { failureRecord: formatFailures(counts.backOff.failures) } : {}),
    ...claim,
  });
}

/**
 * A node Ready again while its repair is open: the repair is cancelled (our cordon goes with the
 * record, which stops a drain still running), whether or not repair is still on, unless nothing may
 * be undone for the machine this run, or its group is replacing it already.
 */
export function planRepairRecovery(p: PairPlanner, node: NodeView, drain: RecordedDrain): void {
  const { pair, out } = p;
  const { instanceId } = pair;
  if (instanceId === undefined) return;
  const group = pair.instance?.autoScaling?.group;
  const why =
    p.blindSpot ??
    (p.excluded ? `excluded by ${p.excluded}` : undefined) ??
    (pair.instance?.autoScaling?.healthStatus === 'Unhealthy'
      ? `Auto Scaling group ${group ?? ''} already has it Unhealthy: the group is replacing it, so it stays cordoned`
      : undefined);
  if (why !== undefined) {
    p.skip('repair', why);
    return;
  }
  const running = drain.state.status === 'running' || drain.state.status === 'unknown';
  out.actions.push({
    kind: 'repair',
    step: 'cancel',
    ...target(node),
    instanceId,
    ...(group !== undefined ? { group } : {}),
    execution: drain.claim.execution,
    reason: `${pair.reason}: the node recovered, its repair is cancelled (drain ${drain.claim.execution} ${running ? 'stops' : 'had ended'}; not replaced)`,
  });
}
