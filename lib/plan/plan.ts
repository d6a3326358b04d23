import type { DrainClaimRequest, Plan, SkippedAction } from '@ec2-node-reconciler/model/action.js';
import type { ClassifiedPair } from '@ec2-node-reconciler/model/condition.js';
import type { Signal } from '@ec2-node-reconciler/model/signal.js';
import { formatDuration } from '@ec2-node-reconciler/model/duration.js';
import type { DrainExecutionState, NodeView } from '@ec2-node-reconciler/model/observation.js';
import { completeLifecycleCommand, drainExecutionName } from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import { deletionAllowance } from './breaker.js';
import { exclusionOf, invalidExclusion } from './exclusion.js';
import { CORDON_UNTIL_ANNOTATION, CORDONED_BY_ANNOTATION } from '@ec2-node-reconciler/model/contract/labels.js';
import { isCordonedByReconciler, isCordonOurWrite, isOurCordonGone, otherCordonWriters } from '../kube/node-writes.js';
import {
  ANNOTATION_HORIZON_MS,
  cordonHeldUntil,
  hasShutdownTaint,
  isBeyondHorizon,
  ownCordonTime,
  type DrainClaim,
} from './own-cordon.js';
import { iso, recordedDrain, target, type PlannedActions, type PairPlanner, type PlanContext } from './pair.js';
import { deleteRefusal } from './delete-checks.js';
import { takeCensus, type Census } from './repair/census.js';
import { planRepairRecovery, planUnregistered, planUnresponsive } from './repair/plan-repair.js';
import { isCancellableRepair } from './repair/record.js';

export type { PlanContext } from './pair.js';

/**
 * Turns classified pairs into actions, each with its reason, applying every safety rail of
 * docs/design.md §4. Pure: a function of the pairs, the settings and the clock. dryRun does not change
 * what is planned (the report shows what would happen); act() honours it.
 */
export function plan(pairs: readonly ClassifiedPair[], ctx: PlanContext): Plan {
  const now = ctx.clock.now();
  const decision: PlannedActions = { actions: [], skipped: [] };
  // Repairs are judged per Auto Scaling group, which only a sweep sees whole.
  const census =
    ctx.scope === 'sweep' && (ctx.settings.repair.enabled || ctx.settings.markUnregisteredUnhealthy)
      ? takeCensus(pairs, ctx, now)
      : undefined;
  for (const pair of pairs) planPair(pair, now, ctx, decision, census);
  const guarded = applyBreaker(decision, deletionAllowance(ctx.settings, ctx.clusterNodeCount));
  return { dryRun: ctx.settings.dryRun, ...guarded };
}

/**
 * The cause of a drain a sweep found (no event): part of the workflow's execution name, which
 * Step Functions keeps unique for 90 days. One removal has one drain whatever the cause (the Node
 * records it, DRAIN_ANNOTATION), so the minute only keeps two removals of one machine apart.
 */
export function sweepCause(now: number): string {
  return `sweep-${new Date(now).toISOString().slice(0, 16).replace(/[-T:]/g, '')}`;
}

function planPair(
  pair: ClassifiedPair,
  now: number,
  ctx: PlanContext,
  out: PlannedActions,
  census: Census | undefined,
): void {
  const { node, instanceId } = pair;
  const ids = instanceId !== undefined ? { instanceId } : {};
  const enrichment = pair.instance?.enrichmentErrors ?? [];
  const p: PairPlanner = {
    pair,
    now,
    ctx,
    out,
    excluded: exclusionOf(pair),
    blindSpot:
      enrichment.length > 0
        ? `a lookup about ${instanceId ?? 'the instance'} failed this run (${enrichment.join('; ')})`
        : undefined,
    skip: (kind, reason, extra) =>
      out.skipped.push({ kind, ...(node ? { node: node.name } : {}), ...ids, reason, ...extra }),
    report: (options) =>
      out.actions.push({
        kind: 'report',
        condition: pair.condition,
        ...(node ? { node: node.name } : {}),
        ...ids,
        reason: pair.reason,
        ...options,
      }),
  };
  for (const { why } of pair.staleSignals ?? []) p.skip('drain', `stale signal, not acted on: ${why}`);
  const invalid = invalidExclusion(pair);
  if (invalid !== undefined) p.skip('report', invalid);

  switch (pair.condition) {
    case 'in-sync':
      planInSync(p);
      return;
    case 'stale-object': {
      if (!node) return;
      const refusal = deleteRefusal({ pair, node, now, settings: ctx.settings, excluded: p.excluded });
      if (refusal) p.skip('delete', refusal);
      else out.actions.push({ kind: 'delete', ...target(node), ...ids, reason: pair.reason });
      return;
    }
    case 'slated-for-removal':
      planSlated(p);
      return;
    case 'stopped-machine': {
      if (pair.lifecycle) planStoppedLifecycle(p);
      if (!node || instanceId === undefined || hasShutdownTaint(node)) return;
      if (pair.ours !== true)
        p.skip(
          'taint-shutdown',
          `${instanceId} is not this cluster's instance: a name alone does not make its Node ours to taint`,
        );
      else if (p.excluded) p.skip('taint-shutdown', `excluded by ${p.excluded}`);
      else out.actions.push({ kind: 'taint-shutdown', ...target(node), instanceId, reason: pair.reason });
      return;
    }
    case 'unregistered-machine':
      planUnregistered(p, census);
      return;
    case 'unresponsive-machine':
      planUnresponsive(p, census);
      return;
    case 'identity-conflict':
    case 'unknown':
      p.report();
      return;
    case 'other-owner':
      // Told once per Node (its Event is not counted again each sweep): theirs is no divergence of ours.
      p.report({ once: true });
      return;
    case 'not-ec2':
    case 'gone':
      return;
    default: {
      const unreachable: never = pair.condition;
      throw new Error(`unhandled condition ${String(unreachable)}`);
    }
  }
}

function planInSync(p: PairPlanner): void {
  const { pair, out } = p;
  const { node, instanceId } = pair;
  if (!node || instanceId === undefined) return;
  const ids = { instanceId };
  const shutdownTaint = hasShutdownTaint(node);
  const ownCordon = isCordonedByReconciler(node);
  const drain = recordedDrain(node, p.ctx, p.now);
  // A repair of this node that is not over: recovered, it is cancelled, even while its drain runs
  // (the cordon a running drain keeps is a removal's; a repair's is exactly what recovery undoes).
  if (drain !== undefined && isCancellableRepair(drain)) {
    planRepairRecovery(p, node, drain);
    if (shutdownTaint) planShutdownTaintRemoval(p, node, instanceId);
    return;
  }
  const drainOver = drain !== undefined && (drain.state.status === 'ended' || drain.state.status === 'absent');
  // Our uncordon takes the records with it; otherwise they go once the drain is over, and our cordon
  // annotations on a node someone else uncordoned, so that their later cordon never reads as ours.
  const staleCordon = !isCordonOurWrite(node) && node.annotations[CORDONED_BY_ANNOTATION] !== undefined;
  const forget = !ownCordon && (drainOver || (staleCordon && drain === undefined));
  if (!shutdownTaint && !ownCordon && !forget) return;
  // Each undoes something because nothing slates the machine any more: not knowable when a lookup failed.
  if (p.blindSpot !== undefined) {
    if (shutdownTaint) p.skip('remove-shutdown-taint', p.blindSpot);
    if (ownCordon) p.skip('uncordon-own', p.blindSpot);
    if (forget) p.skip('forget-drain', p.blindSpot);
    return;
  }
  if (forget && p.excluded) p.skip('forget-drain', `excluded by ${p.excluded}`);
  else if (forget) {
    out.actions.push({
      kind: 'forget-drain',
      ...target(node),
      ...ids,
      ...(drain ? { execution: drain.claim.execution } : {}),
      reason: drain
        ? `nothing slates ${instanceId} any more: the removal drain ${drain.claim.execution} was for is over, and a new one would get a drain of its own`
        : node.unschedulable
          ? `the node was cordoned again by ${otherCordonWriters(node).join(', ') || 'someone else'} after our cordon went: that cordon is theirs, and our cordon's annotations no longer describe it`
          : `the node was uncordoned by someone else: our cordon's annotations no longer describe it`,
    });
  }
  if (shutdownTaint) planShutdownTaintRemoval(p, node, instanceId);
  if (ownCordon) planOwnUncordon(p, node, ids, drain);
}

function planShutdownTaintRemoval(
  p: PairPlanner,
  node: NodeView,
  instanceId: NonNullable<ClassifiedPair['instanceId']>,
): void {
  if (p.blindSpot !== undefined) p.skip('remove-shutdown-taint', p.blindSpot);
  else if (p.excluded) p.skip('remove-shutdown-taint', `excluded by ${p.excluded}`);
  else
    p.out.actions.push({
      kind: 'remove-shutdown-taint',
      ...target(node),
      instanceId,
      reason: `${instanceId} runs again`,
    });
}

function planOwnUncordon(
  p: PairPlanner,
  node: NodeView,
  ids: { instanceId?: ClassifiedPair['instanceId'] },
  drain: ReturnType<typeof recordedDrain>,
): void {
  const { now, ctx, pair } = p;
  const { settings } = ctx;
  const cordonedAt = ownCordonTime(node);
  if (cordonedAt === undefined) {
    p.skip('uncordon-own', 'our cordon has no readable time annotation; left cordoned');
    return;
  }
  // A drain on the node (a spot warning needs no sweep to see it) keeps the cordon it works under.
  if (drain && (drain.state.status === 'running' || drain.state.status === 'unknown')) {
    p.skip(
      'uncordon-own',
      `drain ${drain.claim.execution} ${drain.state.status === 'running' ? 'is running' : 'may still be running'} on the node: its cordon stays`,
    );
    return;
  }
  const cordonMadeAt = Math.max(cordonedAt, drain?.claim.at ?? 0);
  // A machine started since our cordon (a spot stop and start, a return from a warm pool) lives a new
  // life: whatever the cordon was for happened to the old one. Its cordon goes once its kubelet is
  // back and Ready, not uncordonAfter later; a hold recorded for the old life's window goes with it.
  const startedAt = pair.instance?.launchedAt;
  const startedSince = startedAt !== undefined && startedAt > cordonMadeAt ? startedAt : undefined;
  if (startedSince !== undefined) {
    // The new life's kubelet has reported; or, should its clock lag EC2's, uncordonAfter has passed as before.
    const readyAgain =
      node.ready === 'True' &&
      ((pair.heartbeatAt ?? 0) >= startedSince || now - cordonMadeAt >= settings.uncordonAfter);
    if (!readyAgain) {
      p.skip(
        'uncordon-own',
        `${ids.instanceId ?? 'the machine'} started again at ${iso(startedSince)}, after our cordon: the cordon goes once its node is Ready`,
      );
      return;
    }
  } else if (now - cordonMadeAt < settings.uncordonAfter) return;
  // Our own `until` is bounded: a time further ahead than any setting reaches was not written by us for a window.
  const recordedHold = startedSince === undefined ? cordonHeldUntil(node) : undefined;
  const invalidHold = recordedHold !== undefined && isBeyondHorizon(recordedHold, now);
  if (invalidHold)
    p.skip(
      'report',
      `${CORDON_UNTIL_ANNOTATION}=${iso(recordedHold)} is more than ${formatDuration(ANNOTATION_HORIZON_MS)} ahead: invalid, not honoured`,
    );
  const heldUntil = Math.max(invalidHold ? 0 : (recordedHold ?? 0), pair.holdCordonUntil ?? 0);
  if (heldUntil > now) {
    p.skip('uncordon-own', `maintenance window ends at ${iso(heldUntil)}: the cordon is held until then`);
    return;
  }
  if (p.excluded) {
    p.skip('uncordon-own', `excluded by ${p.excluded}`);
    return;
  }
  p.out.actions.push({
    kind: 'uncordon-own',
    ...target(node),
    ...ids,
    reason:
      startedSince !== undefined
        ? `machine started again at ${iso(startedSince)}, after our cordon, and its node is Ready, with nothing slating it`
        : `machine still running ${formatDuration(settings.uncordonAfter)} after our cordon, with nothing slating it`,
  });
}

/**
 * Whether what slates the machine now is another removal than the one the recorded drain was for:
 * an operator's own drain is no removal's; maintenance is not a removal; a machine started since
 * lives a new life; and a signal announced after the record is news (a duplicate or late delivery
 * of the signal that made the record is not) — unless the recorded drain left the node drained and
 * it is still cordoned: then the later signal is the same machine on its way out (the state change
 * to shutting-down after a spot warning, the lifecycle action of the reclaim), and there is nothing
 * left to drain.
 */
function isNewRemoval(pair: ClassifiedPair, node: NodeView, claim: DrainClaim): boolean {
  if (claim.for === 'manual') return true;
  // A repair drained the machine for it to go: the removal that follows (the group replacing it) is
  // that repair's, unless an operator stopped the repair; then the machine stayed, and anything new is.
  if (claim.for === 'repair') return claim.outcome === 'cancelled-by-uncordon' || isRestarted(pair, claim);
  if (claim.for === 'maintenance' && pair.purpose === 'removal') return true;
  if (isRestarted(pair, claim)) return true;
  if (claim.outcome === 'done' && node.unschedulable) return false;
  return newsTo(pair, claim).length > 0;
}

/** The signals announced after the drain record was made. */
const newsTo = (pair: ClassifiedPair, claim: DrainClaim): readonly Signal[] =>
  claim.at === undefined ? [] : pair.signals.filter((s) => s.observedAt > (claim.at ?? Infinity));

/**
 * What names a drain's execution: the newest signal that slates the machine (the one that is news to
 * an earlier record, never a redelivery of the signal that made it), else the sweep's minute.
 */
function drainCause(pair: ClassifiedPair, now: number): string {
  const newest = pair.signals.reduce<Signal | undefined>(
    (latest, s) => (latest === undefined || s.observedAt > latest.observedAt ? s : latest),
    undefined,
  );
  return newest?.eventId ?? sweepCause(now);
}

/** The machine was started since the record was made: a new life. */
function isRestarted(pair: ClassifiedPair, claim: DrainClaim): boolean {
  const launchedAt = pair.instance?.launchedAt;
  return claim.launchedAt !== undefined && launchedAt !== undefined && launchedAt > claim.launchedAt;
}

/**
 * Completes the pair's lifecycle action now (CONTINUE), when no drain will: a function taking why. Refused
 * when a lookup failed, the instance is not ours, or the operator took the removal over (stopped its drain
 * to keep the machine: its lifecycle action is theirs).
 */
function lifecycleCompleter(p: PairPlanner, drain: ReturnType<typeof recordedDrain>): (why: string) => void {
  const { pair, out } = p;
  const { node, instanceId, lifecycle } = pair;
  const takenOver =
    drain !== undefined &&
    node !== undefined &&
    drain.claim.outcome === 'cancelled-by-uncordon' &&
    !isNewRemoval(pair, node, drain.claim);
  return (why: string): void => {
    if (!lifecycle || instanceId === undefined) return;
    const refusal =
      pair.ours !== true
        ? `${instanceId} is not this cluster's instance: its lifecycle action is left to its owner`
        : takenOver
          ? `the node was uncordoned during its drain: the lifecycle action is left to the operator (${completeLifecycleCommand({ group: lifecycle.group, hook: lifecycle.hook, instance: instanceId })})`
          : p.blindSpot;
    if (refusal) p.skip('complete-lifecycle', refusal);
    else
      out.actions.push({
        kind: 'complete-lifecycle',
        instanceId,
        lifecycle,
        result: 'CONTINUE',
        reason: `${pair.reason}; ${why}`,
        ...(node ? { node: node.name, nodeUid: node.uid } : {}),
      });
  };
}

/**
 * A stopped machine whose group is terminating it (a warm pool's member, a stopped member replaced): it
 * runs no pods, so there is nothing to drain, Node or not; the action is completed now rather than left
 * to the hook's timeout. An excluded Node changes nothing (nothing would be drained either). The Node
 * itself goes the stale-object way once the machine is terminated.
 */
function planStoppedLifecycle(p: PairPlanner): void {
  const { node } = p.pair;
  const complete = lifecycleCompleter(p, node ? recordedDrain(node, p.ctx, p.now) : undefined);
  complete('the machine is stopped: it runs no pods, there is nothing to drain');
}

function planSlated(p: PairPlanner): void {
  const { pair, out, now, ctx } = p;
  const { node, instanceId } = pair;
  const ids = instanceId !== undefined ? { instanceId } : {};
  const lifecycle = pair.lifecycle;
  const drain = node ? recordedDrain(node, p.ctx, p.now) : undefined;
  const completeNow = lifecycleCompleter(p, drain);

  if (pair.ours !== true) {
    p.skip(node ? 'drain' : 'complete-lifecycle', `${instanceId ?? 'the instance'} is not this cluster's instance`);
    p.report();
    return;
  }
  if (p.excluded) {
    p.skip(node ? 'drain' : 'complete-lifecycle', `excluded by ${p.excluded}`);
    // Auto Scaling would otherwise wait out the hook's timeout for a drain that never comes.
    completeNow(`excluded by ${p.excluded}: not drained`);
    p.report();
    return;
  }
  if (!node) {
    completeNow('no Node to drain');
    return;
  }

  if (
    drain &&
    drain.state.status !== 'absent' &&
    !(drain.state.status === 'ended' && isNewRemoval(pair, node, drain.claim))
  ) {
    planRecordedRemoval(p, node, drain.claim, drain.state, completeNow);
    return;
  }

  const deadline = pair.deadline ?? now + ctx.settings.drainTimeout;
  const until = pair.purpose === 'maintenance' ? pair.holdCordonUntil : undefined;
  const cordon = (claim?: DrainClaimRequest): void => {
    if (node.unschedulable) return;
    out.actions.push({
      kind: 'cordon',
      ...target(node),
      ...ids,
      reason: pair.reason,
      ...(until !== undefined ? { until } : {}),
      ...(claim ? { claim } : {}),
    });
  };
  if (pair.drain !== true) {
    cordon();
    completeNow('no drain by policy');
    return;
  }
  if (deadline <= now) {
    cordon();
    p.skip('drain', `its deadline passed at ${iso(deadline)}: no drain is started late; the node is cordoned`);
    completeNow('the deadline has passed');
    return;
  }
  const cause = drainCause(pair, now);
  const launchedAt = pair.instance?.launchedAt;
  const claim: DrainClaimRequest = {
    execution: `${ctx.executionPrefix ?? ''}${drainExecutionName(ctx.clusterName, instanceId ?? node.name, cause, node.uid)}`,
    deadline,
    for: pair.purpose ?? 'removal',
    ...(launchedAt !== undefined ? { launchedAt } : {}),
    ...(drain ? { replaces: drain.claim.execution } : {}),
    ...(lifecycle ? { lifecycle } : {}),
  };
  cordon(claim);
  out.actions.push({ kind: 'drain', ...target(node), ...ids, reason: pair.reason, cause, mode: 'start', ...claim });
}

/** A drain already owns this removal: join it while it runs, never start a second one (docs/design.md §2). */
function planRecordedRemoval(
  p: PairPlanner,
  node: NodeView,
  claim: DrainClaim,
  state: DrainExecutionState,
  completeNow: (why: string) => void,
): void {
  const { pair, out, now } = p;
  const ids = pair.instanceId !== undefined ? { instanceId: pair.instanceId } : {};
  switch (state.status) {
    case 'unknown':
      p.skip(
        'drain',
        `could not tell whether drain ${claim.execution} still runs (${state.error}): nothing started or completed this run`,
      );
      return;
    case 'running': {
      const earlier =
        pair.deadline !== undefined && pair.deadline < (claim.deadline ?? Infinity) && pair.deadline > now
          ? pair.deadline
          : undefined;
      const handOver = pair.lifecycle !== undefined && claim.lifecycle === undefined ? pair.lifecycle : undefined;
      if (earlier === undefined && handOver === undefined) {
        p.skip('drain', `drain ${claim.execution} of this removal is running`);
        return;
      }
      out.actions.push({
        kind: 'drain',
        ...target(node),
        ...ids,
        reason: pair.reason,
        deadline: earlier ?? claim.deadline ?? pair.deadline ?? now,
        cause: claim.execution,
        execution: claim.execution,
        for: claim.for ?? 'removal',
        mode: 'join',
        ...(handOver ? { lifecycle: handOver } : {}),
      });
      return;
    }
    case 'ended': {
      p.skip('drain', `this removal already had its drain (${claim.execution}): not drained again`);
      if (!pair.lifecycle || pair.instanceId === undefined) return;
      // The operator stopped the drain to keep the machine (the drain wrote so; or, from a drain that
      // could not say, the node is schedulable again): completing the action would end it anyway.
      const cancelled = claim.outcome !== undefined ? claim.outcome === 'cancelled-by-uncordon' : isOurCordonGone(node);
      if (!cancelled) {
        completeNow(`its drain ${claim.execution} has ended`);
        return;
      }
      p.skip(
        'complete-lifecycle',
        `the node was uncordoned during its drain: the lifecycle action is left to the operator (${completeLifecycleCommand({ group: pair.lifecycle.group, hook: pair.lifecycle.hook, instance: pair.instanceId })})`,
      );
      return;
    }
    case 'absent':
      return;
    default: {
      const unreachable: never = state;
      throw new Error(`unhandled drain state ${JSON.stringify(unreachable)}`);
    }
  }
}

function applyBreaker(decision: PlannedActions, allowed: number): Omit<Plan, 'dryRun'> {
  const deletes = decision.actions.filter((a) => a.kind === 'delete');
  if (deletes.length <= allowed) return decision;
  // The reason goes on every held Node and in the report: it says how to get out, and when to.
  const reason =
    `circuit breaker: ${deletes.length} deletions planned, at most ${allowed} allowed (maxDeletions / maxDeletionPercent); deleting none. ` +
    `If so many Nodes are really gone, check the list with \`ec2-node-reconciler sweep --dry-run --max-deletions ${deletes.length} --max-deletion-percent 100\` ` +
    `and run it once without --dry-run; if not, find out why their machines look gone (an EC2 outage, a wrong region or tag) first`;
  const skipped: SkippedAction[] = deletes.map((d) => ({
    kind: 'delete',
    node: d.node,
    ...(d.instanceId ? { instanceId: d.instanceId } : {}),
    reason,
  }));
  return {
    actions: [
      ...decision.actions.filter((a) => a.kind !== 'delete'),
      { kind: 'report', condition: 'stale-object', reason },
    ],
    skipped: [...decision.skipped, ...skipped],
    breaker: { wouldDelete: deletes.length, allowed, reason },
  };
}
