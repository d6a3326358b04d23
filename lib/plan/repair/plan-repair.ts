// Repair of unresponsive machines (docs/design.md §1b), decided here, behind its own rails (./checks.ts). A
// repair is a drain the Node records as `for: repair`, bounded by repair.drainTimeout; when a later sweep
// finds it ended, the instance is marked Unhealthy so that its Auto Scaling group replaces it; a node
// that is Ready again before that has its repair cancelled (our cordon and the record go, which also
// stops a drain still running). Shaped like Karpenter's node repair: the census (./census.ts), the
// triggers (./triggers.ts), the breaker and budget (./policy.ts). Pure, like the rest of plan().
import { drainExecutionName } from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import type { NodeView } from '@ec2-node-reconciler/model/observation.js';
import { firstRefusal, type Refusal } from '../check.js';
import { recordedDrain, target, type PairPlanner, type RecordedDrain } from '../pair.js';
import { formatFailures, isFailedReplacement, withFailure } from './backoff.js';
import type { Census } from './census.js';
import {
  MACHINE_CHECKS,
  MARK_UNHEALTHY_CHECKS,
  notOurs,
  RECOVERY_CHECKS,
  REPAIR_CHECKS,
  REPLACE_CHECKS,
  START_CHECKS,
  type RepairCheckCode,
  type RepairSubject,
} from './checks.js';
import { isDrainLive, isRepairToFinish } from './record.js';
import { dueTriggers, triggerText } from './triggers.js';

/** The cause of a repair drain: part of its execution name (one a minute at most; the Node's record keeps it to one per repair). */
export function repairCause(now: number): string {
  return `repair-${new Date(now).toISOString().slice(0, 16).replace(/[-T:]/g, '')}`;
}

/** Why this machine may not be taken out this run, whatever its group's health: MACHINE_CHECKS, in their order. */
function machineRefusal(p: PairPlanner): Refusal<RepairCheckCode> | undefined {
  const { pair } = p;
  const instance = pair.instance;
  // Without its instance nothing shows the machine is ours: the first rail's refusal.
  if (instance === undefined) return notOurs(pair);
  return firstRefusal(MACHINE_CHECKS, {
    pair,
    instance,
    excluded: p.excluded,
    blindSpot: p.blindSpot,
    ownGroups: p.ctx.ownGroups,
  });
}

const skipFor = (p: PairPlanner, kind: 'repair' | 'mark-unhealthy', refusal: Refusal<RepairCheckCode>): void =>
  p.skip(kind, refusal.reason, refusal.extra);

/**
 * An unresponsive machine (reported as ever): with repair on, in a sweep, start its repair, or replace
 * it once its repair drain has ended, behind the repair rails. Never from an event: only a sweep sees
 * the whole group its stand-down is about.
 */
export function planUnresponsive(p: PairPlanner, census: Census | undefined): void {
  p.report();
  const { pair, ctx, now } = p;
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
  const refused = machineRefusal(p);
  if (refused !== undefined) {
    skipFor(p, 'repair', refused);
    return;
  }
  // Unreachable past MACHINE_CHECKS (they require the group, and the census counts every InService member).
  const group = instance?.autoScaling?.group;
  const counts = group !== undefined ? census.groups.get(group) : undefined;
  if (instance === undefined || group === undefined || counts === undefined) return;
  const due = dueTriggers(pair, now, repair);
  const subject: RepairSubject = {
    node,
    instance,
    instanceId,
    group,
    triggers: 'triggers' in due ? due.triggers : [],
    waiting: 'waiting' in due ? due.waiting : undefined,
    drain: recordedDrain(node, ctx, now),
    census,
    counts,
    repair,
    now,
  };
  const held = firstRefusal(REPAIR_CHECKS, subject);
  if (held !== undefined) {
    skipFor(p, 'repair', held);
    return;
  }
  const { drain } = subject;
  if (drain !== undefined && isRepairToFinish(node, drain)) planReplace(p, { ...subject, drain });
  else planRepairStart(p, subject);
}

/** A repair whose drain has ended: its group replaces the machine, once that end allows it (REPLACE_CHECKS). */
function planReplace(p: PairPlanner, subject: RepairSubject & { readonly drain: RecordedDrain }): void {
  const held = firstRefusal(REPLACE_CHECKS, subject);
  if (held !== undefined) {
    skipFor(p, 'repair', held);
    return;
  }
  const { node, instanceId, group, drain, triggers, repair } = subject;
  p.out.actions.push({
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
}

/** A repair to start (START_CHECKS): our cordon, and a repair drain bounded by repair.drainTimeout. */
function planRepairStart(p: PairPlanner, subject: RepairSubject): void {
  const held = firstRefusal(START_CHECKS, subject);
  if (held !== undefined) {
    skipFor(p, 'repair', held);
    return;
  }
  const { pair, ctx, now, out } = p;
  const { node, instance, instanceId, group, counts, drain, triggers, repair } = subject;
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
 * A machine running with no Node past registrationGrace: with markUnregisteredUnhealthy, marked Unhealthy
 * for its group to replace, behind the same rails as a repair (it has the machine terminated too).
 */
export function planUnregistered(p: PairPlanner, census: Census | undefined): void {
  p.report();
  const { pair, ctx } = p;
  const { instanceId } = pair;
  const group = pair.instance?.autoScaling?.group;
  if (!ctx.settings.markUnregisteredUnhealthy || instanceId === undefined || group === undefined) return;
  const refused =
    machineRefusal(p) ??
    firstRefusal(MARK_UNHEALTHY_CHECKS, {
      census,
      group,
      counts: census?.groups.get(group),
      repair: ctx.settings.repair,
    });
  if (refused !== undefined) skipFor(p, 'mark-unhealthy', refused);
  else p.out.actions.push({ kind: 'mark-unhealthy', instanceId, group, reason: pair.reason });
}

/**
 * A node Ready again while its repair is open: the repair is cancelled (our cordon goes with the
 * record, which stops a drain still running), whether or not repair is still on, unless nothing may
 * be undone for the machine this run, or its group is replacing it already (RECOVERY_CHECKS).
 */
export function planRepairRecovery(p: PairPlanner, node: NodeView, drain: RecordedDrain): void {
  const { pair, out } = p;
  const { instanceId } = pair;
  if (instanceId === undefined) return;
  const held = firstRefusal(RECOVERY_CHECKS, {
    instance: pair.instance,
    excluded: p.excluded,
    blindSpot: p.blindSpot,
  });
  if (held !== undefined) {
    skipFor(p, 'repair', held);
    return;
  }
  const group = pair.instance?.autoScaling?.group;
  out.actions.push({
    kind: 'repair',
    step: 'cancel',
    ...target(node),
    instanceId,
    ...(group !== undefined ? { group } : {}),
    execution: drain.claim.execution,
    reason: `${pair.reason}: the node recovered, its repair is cancelled (drain ${drain.claim.execution} ${isDrainLive(drain) ? 'stops' : 'had ended'}; not replaced)`,
  });
}
