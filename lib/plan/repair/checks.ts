// The repair's rails (docs/design.md §1b) as ordered lists of pure checks (lib/plan/check.ts), in the order
// they are evaluated, the first refusal being the reason the report gives:
//   MACHINE_CHECKS    whether the machine may be taken out at all (a repair, a replace, mark-unhealthy);
//   REPAIR_CHECKS     then, for an unresponsive machine: due, nothing running beside it, not the
//                     operator's, and the breaker (every unhealthy Node placed, no stand-down);
//   REPLACE_CHECKS    then, for a repair whose drain has ended: whether its end lets the group replace it;
//   START_CHECKS      or, for a repair to start: the back-off, and the group's budget (maxParallel);
//   MARK_UNHEALTHY_CHECKS  after MACHINE_CHECKS, for a machine that never registered;
//   RECOVERY_CHECKS   for a repair to cancel, its node Ready again.
// Ownership and health are classify's judgement (ClassifiedPair.ownedBy, .badConditions), read here, never
// judged again.
import type { ClassifiedPair } from '@ec2-node-reconciler/model/condition.js';
import type { InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import type { InstanceView, NodeView } from '@ec2-node-reconciler/model/observation.js';
import type { RepairTrigger } from '@ec2-node-reconciler/model/action.js';
import type { RepairSettings } from '@ec2-node-reconciler/model/contract/settings.js';
import { pass, refuse, type Check, type Refusal } from '../check.js';
import { notExcluded } from '../exclusion.js';
import { iso, type RecordedDrain } from '../pair.js';
import { backOffOf } from './backoff.js';
import type { Census, GroupCensus } from './census.js';
import { repairDrainVerdict } from './drain-end.js';
import { parallelLimit, standDownOf, unlocatedStandDown } from './policy.js';
import { cancelledByOperator, isDrainLive, isOpenRepair, uncordonedSinceDrain } from './record.js';

export type RepairCheckCode =
  | 'not-ours'
  | 'not-ours-by-tags'
  | 'excluded'
  | 'lookup-failed'
  | 'no-group'
  | 'not-configured-group'
  | 'replacement-suspended'
  | 'not-running'
  | 'not-in-service'
  | 'already-unhealthy'
  | 'not-due'
  | 'drain-live'
  | 'taken-back'
  | 'unlocated'
  | 'stand-down'
  | 'drain-blocked'
  | 'drain-window'
  | 'back-off'
  | 'max-parallel'
  | 'not-sweep';

type RepairCheck<Subject> = Check<Subject, RepairCheckCode>;

/** What the machine rails read: the pair, its instance, and what plan() found about it. */
export interface MachineSubject {
  readonly pair: ClassifiedPair;
  readonly instance: InstanceView;
  /** The opt-out that holds (lib/plan/exclusion.ts), or undefined. */
  readonly excluded: string | undefined;
  /** A lookup about the instance that failed this run, or undefined. */
  readonly blindSpot: string | undefined;
  /** The configured autoScalingGroupNames, when set. */
  readonly ownGroups: readonly string[] | undefined;
}

/** The refusal of a machine nothing shows to be this cluster's (none of its own, or no instance at all). */
export const notOurs = (pair: ClassifiedPair): Refusal<'not-ours'> =>
  refuse('not-ours', `${pair.instanceId ?? 'the instance'} is not this cluster's instance`);

const ours: RepairCheck<MachineSubject> = ({ pair }) => (pair.ours !== true ? notOurs(pair) : pass());

/** Marking a machine Unhealthy has it terminated: only a machine its own tags (or the configured groups) make ours, never one a Node merely names. */
const oursByItsTags: RepairCheck<MachineSubject> = ({ pair, instance }) =>
  pair.ownedBy !== 'instance'
    ? refuse(
        'not-ours-by-tags',
        `${instance.id} is not tagged for this cluster nor in a configured Auto Scaling group: a Node naming it is not enough to replace it`,
      )
    : pass();

const lookedUp: RepairCheck<{ readonly blindSpot: string | undefined }> = ({ blindSpot }) =>
  blindSpot !== undefined ? refuse('lookup-failed', blindSpot) : pass();

const inGroup: RepairCheck<MachineSubject> = ({ instance }) =>
  instance.autoScaling === undefined
    ? refuse('no-group', `${instance.id} is not in an Auto Scaling group: nothing would replace it`)
    : pass();

const inConfiguredGroup: RepairCheck<MachineSubject> = ({ instance, ownGroups }) => {
  const group = instance.autoScaling?.group;
  return group !== undefined && ownGroups !== undefined && !ownGroups.includes(group)
    ? refuse('not-configured-group', `Auto Scaling group ${group} is not one of the configured autoScalingGroupNames`)
    : pass();
};

/**
 * The Auto Scaling processes a replacement needs: ReplaceUnhealthy terminates an Unhealthy member and
 * launches its successor through Terminate and Launch. With any of them suspended, a machine marked
 * Unhealthy stays (drained, for nothing) or goes without a successor.
 */
const REPLACEMENT_PROCESSES: ReadonlySet<string> = new Set(['Launch', 'ReplaceUnhealthy', 'Terminate']);

const replacementRuns: RepairCheck<MachineSubject> = ({ instance }) => {
  const asg = instance.autoScaling;
  const halted = (asg?.suspendedProcesses ?? []).filter((process) => REPLACEMENT_PROCESSES.has(process));
  if (asg === undefined || halted.length === 0) return pass();
  return refuse(
    'replacement-suspended',
    `Auto Scaling group ${asg.group} has ${halted.join(', ')} suspended: it would not replace a machine marked Unhealthy, so none is taken out until ${halted.length === 1 ? 'it is' : 'they are'} resumed`,
  );
};

const running: RepairCheck<MachineSubject> = ({ instance }) =>
  instance.state !== 'running' ? refuse('not-running', `${instance.id} is ${instance.state}, not running`) : pass();

const inService: RepairCheck<MachineSubject> = ({ instance }) => {
  const asg = instance.autoScaling;
  return asg !== undefined && asg.lifecycleState !== 'InService'
    ? refuse(
        'not-in-service',
        `Auto Scaling group ${asg.group} has it ${asg.lifecycleState}: only InService machines are repaired`,
      )
    : pass();
};

const notYetUnhealthy: RepairCheck<MachineSubject> = ({ instance }) => {
  const asg = instance.autoScaling;
  return asg !== undefined && asg.healthStatus === 'Unhealthy'
    ? refuse('already-unhealthy', `Auto Scaling group ${asg.group} already has it Unhealthy: the group is replacing it`)
    : pass();
};

/** Whether this machine may be taken out (repaired, replaced, marked Unhealthy) at all: ownership, exclusion, lookups, then its group. */
export const MACHINE_CHECKS: readonly RepairCheck<MachineSubject>[] = [
  ours,
  oursByItsTags,
  notExcluded,
  lookedUp,
  inGroup,
  inConfiguredGroup,
  replacementRuns,
  running,
  inService,
  notYetUnhealthy,
];

/** What the rails of a repair read, once the machine rails have passed. */
export interface RepairSubject {
  readonly node: NodeView;
  readonly instance: InstanceView;
  readonly instanceId: InstanceId;
  readonly group: string;
  /** The conditions that have been bad for their repair.after (empty while `waiting`). */
  readonly triggers: readonly RepairTrigger[];
  /** Why no condition has been bad for long enough yet, or undefined when some has. */
  readonly waiting: string | undefined;
  /** The drain the Node records, if any. */
  readonly drain: RecordedDrain | undefined;
  readonly census: Census;
  readonly counts: GroupCensus;
  readonly repair: RepairSettings;
  readonly now: number;
}

const due: RepairCheck<RepairSubject> = ({ waiting }) => (waiting !== undefined ? refuse('not-due', waiting) : pass());

/** Nothing is started beside a drain that runs (or may) on the node, of any purpose. */
const noDrainLive: RepairCheck<RepairSubject> = ({ drain }) => {
  if (drain === undefined || !isDrainLive(drain)) return pass();
  const what =
    drain.claim.for === 'repair' ? `repair drain ${drain.claim.execution}` : `drain ${drain.claim.execution}`;
  return refuse(
    'drain-live',
    drain.state.status === 'unknown'
      ? `${what} may still be running (${drain.state.error}): nothing started beside it`
      : drain.claim.for === 'repair'
        ? `${what} is running`
        : `${what} runs on the node: no repair beside it`,
  );
};

/** The operator uncordoned the node while it was already bad: it is theirs until its condition changes. */
const notTakenBack: RepairCheck<RepairSubject> = ({ node, drain, triggers }) => {
  if (drain === undefined) return pass();
  const uncordonedAfter = isOpenRepair(drain) && uncordonedSinceDrain(node, drain);
  if (!(cancelledByOperator(drain.claim) || uncordonedAfter)) return pass();
  if (!triggers.every((t) => t.since <= (drain.claim.at ?? Infinity))) return pass();
  const recorded = drain.claim.at !== undefined ? ` (recorded ${iso(drain.claim.at)})` : '';
  return refuse(
    'taken-back',
    uncordonedAfter
      ? `the node was uncordoned after its repair drain ${drain.claim.execution}${recorded} ended${drain.claim.outcome !== undefined ? ` (${drain.claim.outcome})` : ''}: it is the operator's, not replaced, nor repaired again until its condition changes`
      : `the node was uncordoned during its ${drain.claim.for === 'repair' ? 'repair ' : ''}drain ${drain.claim.execution}${recorded}: not repaired again until its condition changes`,
  );
};

/** The breaker, first part: an unhealthy Node whose machine could not be looked up may be this group's. */
const everyUnhealthyPlaced: RepairCheck<{ readonly census: Census | undefined }> = ({ census }) => {
  const reason = census === undefined ? undefined : unlocatedStandDown(census);
  return reason !== undefined ? refuse('unlocated', reason) : pass();
};

/** What the stand-down reads: the census of a sweep (none from an event) and the machine's group. */
interface ShareSubject {
  readonly census: Census | undefined;
  readonly group: string;
  readonly counts: GroupCensus | undefined;
  readonly repair: Pick<RepairSettings, 'maxUnhealthyPercent'>;
}

/** The breaker: too much of the group, or of the cluster, is unhealthy to take another machine out. */
const notStandingDown: RepairCheck<ShareSubject> = ({ census, group, counts, repair }) => {
  const held =
    census !== undefined && counts !== undefined
      ? standDownOf(census, group, counts, repair.maxUnhealthyPercent)
      : undefined;
  return held ? refuse('stand-down', held.reason, { standDown: held.standDown }) : pass();
};

/** After MACHINE_CHECKS, for an unresponsive machine: due, nothing beside a live drain, not the operator's, the breaker. */
export const REPAIR_CHECKS: readonly RepairCheck<RepairSubject>[] = [
  due,
  noDrainLive,
  notTakenBack,
  everyUnhealthyPlaced,
  notStandingDown,
];

/** A repair whose drain has ended: what the replace reads. */
export interface ReplaceSubject extends RepairSubject {
  readonly drain: RecordedDrain;
}

/** The drain left pods it may not evict on a live kubelet: marking the machine Unhealthy would terminate them. */
const drainEndAllows: RepairCheck<ReplaceSubject> = ({ node, instanceId, drain }) => {
  const verdict = repairDrainVerdict(drain.claim.outcome, node);
  return verdict.kind === 'blocked'
    ? refuse(
        'drain-blocked',
        `repair blocked: ${verdict.why}. To replace it anyway: aws autoscaling set-instance-health --instance-id ${instanceId} --health-status Unhealthy; to keep it: kubectl uncordon ${node.name}`,
      )
    : pass();
};

/** A drain that failed (the step's errors, an aborted execution) did not drain: the machine waits out the drain window before it is marked. */
const drainWindowOver: RepairCheck<ReplaceSubject> = ({ node, drain, now }) => {
  const deadline = drain.claim.deadline;
  if (repairDrainVerdict(drain.claim.outcome, node).kind !== 'not-drained') return pass();
  if (deadline !== undefined && now >= deadline) return pass();
  return refuse(
    'drain-window',
    `repair drain ${drain.claim.execution} ended ${drain.claim.outcome !== undefined ? `${drain.claim.outcome}` : 'without an outcome (failed or stopped)'}: not replaced before its deadline${deadline !== undefined ? ` (${iso(deadline)})` : ''}`,
  );
};

/** After REPAIR_CHECKS, for a repair whose drain has ended: whether that end lets its group replace the machine. */
export const REPLACE_CHECKS: readonly RepairCheck<ReplaceSubject>[] = [drainEndAllows, drainWindowOver];

/** A group whose replacements keep failing is not repaired again and again (./backoff.ts). */
const notBackingOff: RepairCheck<RepairSubject> = ({ group, counts, repair }) => {
  const held = backOffOf(group, counts.backOff, repair);
  return held ? refuse('back-off', held.reason, { backOff: held.backOff }) : pass();
};

/** The group's budget: at most repair.maxParallel repairs and drains in flight. */
const withinParallelLimit: RepairCheck<RepairSubject> = ({ group, counts, repair }) => {
  const reason = parallelLimit(group, counts, repair);
  return reason !== undefined ? refuse('max-parallel', reason) : pass();
};

/** After REPAIR_CHECKS, for a repair to start: the back-off, then the group's budget. */
export const START_CHECKS: readonly RepairCheck<RepairSubject>[] = [notBackingOff, withinParallelLimit];

/** What marking a machine that never registered reads, once the machine rails have passed. */
export type MarkSubject = ShareSubject;

/** Only a sweep sees the whole group its stand-down is about. */
const sweepOnly: RepairCheck<MarkSubject> = ({ census }) =>
  census === undefined ? refuse('not-sweep', 'only a sweep sees the whole group: not marked from an event') : pass();

/**
 * After MACHINE_CHECKS, for an unregistered machine: from a sweep, and the breaker, every unhealthy Node
 * placed first, as for a repair (marking it has the machine terminated too).
 */
export const MARK_UNHEALTHY_CHECKS: readonly RepairCheck<MarkSubject>[] = [
  sweepOnly,
  everyUnhealthyPlaced,
  notStandingDown,
];

/** What cancelling a recovered node's repair reads. */
export interface RecoverySubject {
  readonly instance: InstanceView | undefined;
  readonly excluded: string | undefined;
  readonly blindSpot: string | undefined;
}

/** Its group is replacing the machine already: the node stays cordoned. */
const notBeingReplaced: RepairCheck<RecoverySubject> = ({ instance }) =>
  instance?.autoScaling?.healthStatus === 'Unhealthy'
    ? refuse(
        'already-unhealthy',
        `Auto Scaling group ${instance.autoScaling.group} already has it Unhealthy: the group is replacing it, so it stays cordoned`,
      )
    : pass();

/** For a repair to cancel (its node Ready again): nothing may be undone for the machine this run, or its group replaces it already. */
export const RECOVERY_CHECKS: readonly RepairCheck<RecoverySubject>[] = [lookedUp, notExcluded, notBeingReplaced];
