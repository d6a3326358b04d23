import type { Clock } from '../model/clock.js';
import type { Action, DrainClaimRequest, Plan, SkippedAction } from '../model/action.js';
import type { ClassifiedPair } from '../model/condition.js';
import { formatDuration } from '../model/duration.js';
import type { DrainExecutionState, NodeView } from '../model/observation.js';
import type { Settings } from '../settings.js';
import { completeLifecycleCommand, drainExecutionName } from '../workflow/contract.js';
import { deletionAllowance } from './breaker.js';
import { exclusionOf } from './exclusion.js';
import { cordonHeldUntil, drainClaimOf, hasShutdownTaint, isOwnCordon, ownCordonTime, type DrainClaim } from './own-cordon.js';

export interface PlanContext {
  readonly settings: Settings;
  readonly clock: Clock;
  /** Names the drain executions this run starts. */
  readonly clusterName: string;
  /** Cluster size for the breaker's percentage; unknown in the event path. */
  readonly clusterNodeCount?: number;
  /** What the workflow says of the drains the observed Nodes name (Observation.drains). */
  readonly drains?: ReadonlyMap<string, DrainExecutionState>;
}

type Decision = { actions: Action[]; skipped: SkippedAction[] };

/**
 * Turns classified pairs into actions, each with its reason, applying every safety rail of
 * DESIGN §4. Pure: a function of the pairs, the settings and the clock. dryRun does not change
 * what is planned (the report shows what would happen); act() honours it.
 */
export function plan(pairs: readonly ClassifiedPair[], ctx: PlanContext): Plan {
  const now = ctx.clock.now();
  const decision: Decision = { actions: [], skipped: [] };
  for (const pair of pairs) planPair(pair, now, ctx, decision);
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

function target(node: NodeView): { node: string; uid: string; resourceVersion: string } {
  return { node: node.name, uid: node.uid, resourceVersion: node.resourceVersion };
}

const iso = (ms: number): string => new Date(ms).toISOString();


interface PairPlanner {
  readonly pair: ClassifiedPair;
  readonly now: number;
  readonly ctx: PlanContext;
  readonly out: Decision;
  readonly excluded: string | undefined;
  /** Lookups about the instance that failed this run; no "nothing slates it" action is taken then. */
  readonly blindSpot: string | undefined;
  skip(kind: Action['kind'], reason: string): void;
  report(): void;
}

function planPair(pair: ClassifiedPair, now: number, ctx: PlanContext, out: Decision): void {
  const { node, instanceId } = pair;
  const ids = instanceId !== undefined ? { instanceId } : {};
  const enrichment = pair.instance?.enrichmentErrors ?? [];
  const p: PairPlanner = {
    pair,
    now,
    ctx,
    out,
    excluded: exclusionOf(pair),
    blindSpot: enrichment.length > 0 ? `a lookup about ${instanceId ?? 'the instance'} failed this run (${enrichment.join('; ')})` : undefined,
    skip: (kind, reason) => out.skipped.push({ kind, ...(node ? { node: node.name } : {}), ...ids, reason }),
    report: () => out.actions.push({ kind: 'report', condition: pair.condition, ...(node ? { node: node.name } : {}), ...ids, reason: pair.reason }),
  };
  for (const { why } of pair.staleSignals ?? []) p.skip('drain', `stale signal, not acted on: ${why}`);

  switch (pair.condition) {
    case 'in-sync':
      planInSync(p);
      return;
    case 'stale-object': {
      if (!node) return;
      const refusal = deleteRefusal(pair, node, now, ctx.settings) ?? (p.excluded ? `excluded by ${p.excluded}` : undefined);
      if (refusal) p.skip('delete', refusal);
      else out.actions.push({ kind: 'delete', ...target(node), ...ids, reason: pair.reason });
      return;
    }
    case 'slated-for-removal':
      planSlated(p);
      return;
    case 'stopped-machine': {
      if (!node || instanceId === undefined || hasShutdownTaint(node)) return;
      if (p.excluded) p.skip('taint-shutdown', `excluded by ${p.excluded}`);
      else out.actions.push({ kind: 'taint-shutdown', ...target(node), instanceId, reason: pair.reason });
      return;
    }
    case 'unregistered-machine': {
      p.report();
      const group = pair.instance?.autoScaling?.group;
      if (!ctx.settings.markUnregisteredUnhealthy || instanceId === undefined || group === undefined) return;
      const refusal = p.excluded ? `excluded by ${p.excluded}` : p.blindSpot ?? (pair.ours !== true ? 'not this cluster\'s instance' : undefined);
      if (refusal) p.skip('mark-unhealthy', refusal);
      else out.actions.push({ kind: 'mark-unhealthy', instanceId, group, reason: pair.reason });
      return;
    }
    case 'unresponsive-machine':
    case 'identity-conflict':
    case 'unknown':
      p.report();
      return;
    case 'not-ec2':
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
  const ownCordon = isOwnCordon(node);
  // Our uncordon takes the drain record with it; otherwise (an operator ended the drain) it is dropped once its drain has ended.
  const recorded = ownCordon ? undefined : drainClaimOf(node);
  const endedDrain = recorded && ['ended', 'absent'].includes(p.ctx.drains?.get(recorded.execution)?.status ?? 'unknown') ? recorded : undefined;
  if (!shutdownTaint && !ownCordon && !endedDrain) return;
  // Each undoes something because nothing slates the machine any more: not knowable when a lookup failed.
  if (p.blindSpot !== undefined) {
    if (shutdownTaint) p.skip('remove-shutdown-taint', p.blindSpot);
    if (ownCordon) p.skip('uncordon-own', p.blindSpot);
    if (endedDrain) p.skip('forget-drain', p.blindSpot);
    return;
  }
  if (endedDrain && p.excluded) p.skip('forget-drain', `excluded by ${p.excluded}`);
  else if (endedDrain) {
    out.actions.push({
      kind: 'forget-drain',
      ...target(node),
      ...ids,
      execution: endedDrain.execution,
      reason: `nothing slates ${instanceId} any more: the removal drain ${endedDrain.execution} was for is over, and a new one would get a drain of its own`,
    });
  }
  if (shutdownTaint) {
    if (p.excluded) p.skip('remove-shutdown-taint', `excluded by ${p.excluded}`);
    else out.actions.push({ kind: 'remove-shutdown-taint', ...target(node), instanceId, reason: `${instanceId} runs again` });
  }
  if (ownCordon) planOwnUncordon(p, node, ids);
}

function planOwnUncordon(p: PairPlanner, node: NodeView, ids: { instanceId?: ClassifiedPair['instanceId'] }): void {
  const { now, ctx, pair } = p;
  const { settings } = ctx;
  const cordonedAt = ownCordonTime(node);
  if (cordonedAt === undefined) {
    p.skip('uncordon-own', 'our cordon has no readable time annotation; left cordoned');
    return;
  }
  if (now - cordonedAt < settings.uncordonAfter) return;
  const heldUntil = Math.max(cordonHeldUntil(node) ?? 0, pair.holdCordonUntil ?? 0);
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
    reason: `machine still running ${formatDuration(settings.uncordonAfter)} after our cordon, with nothing slating it`,
  });
}

function planSlated(p: PairPlanner): void {
  const { pair, out, now, ctx } = p;
  const { node, instanceId } = pair;
  const ids = instanceId !== undefined ? { instanceId } : {};
  const lifecycle = pair.lifecycle;
  /** CONTINUE now (no drain will do it); refused when a lookup failed or the instance is not ours. */
  const completeNow = (why: string): void => {
    if (!lifecycle || instanceId === undefined) return;
    const refusal = pair.ours !== true ? `${instanceId} is not this cluster's instance: its lifecycle action is left to its owner` : p.blindSpot;
    if (refusal) p.skip('complete-lifecycle', refusal);
    else out.actions.push({ kind: 'complete-lifecycle', instanceId, lifecycle, result: 'CONTINUE', reason: `${pair.reason}; ${why}` });
  };

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

  const recorded = drainClaimOf(node);
  const state = recorded ? (ctx.drains?.get(recorded.execution) ?? { status: 'unknown', error: 'not looked up in this run' }) : undefined;
  if (recorded && state && state.status !== 'absent') {
    planClaimedRemoval(p, node, recorded, state, completeNow);
    return;
  }

  const deadline = pair.deadline ?? now + ctx.settings.drainTimeout;
  const until = pair.purpose === 'maintenance' ? pair.holdCordonUntil : undefined;
  const cordon = (claim?: DrainClaimRequest): void => {
    if (node.unschedulable) return;
    out.actions.push({ kind: 'cordon', ...target(node), ...ids, reason: pair.reason, ...(until !== undefined ? { until } : {}), ...(claim ? { claim } : {}) });
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
  const cause = pair.signals[0]?.eventId ?? sweepCause(now);
  const claim: DrainClaimRequest = {
    execution: drainExecutionName(ctx.clusterName, instanceId ?? node.name, cause),
    deadline,
    ...(recorded ? { replaces: recorded.execution } : {}),
    ...(lifecycle ? { lifecycle } : {}),
  };
  cordon(claim);
  out.actions.push({ kind: 'drain', ...target(node), ...ids, reason: pair.reason, cause, mode: 'start', ...claim });
}

/** A drain already owns this removal: join it while it runs, never start a second one (DESIGN §2). */
function planClaimedRemoval(
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
      p.skip('drain', `could not tell whether drain ${claim.execution} still runs (${state.error}): nothing started or completed this run`);
      return;
    case 'running': {
      const earlier = pair.deadline !== undefined && pair.deadline < (claim.deadline ?? Infinity) && pair.deadline > now ? pair.deadline : undefined;
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
        mode: 'join',
        ...(handOver ? { lifecycle: handOver } : {}),
      });
      return;
    }
    case 'ended':
      p.skip('drain', `this removal already had its drain (${claim.execution}): not drained again`);
      if (!pair.lifecycle || pair.instanceId === undefined) return;
      if (node.unschedulable) {
        completeNow(`its drain ${claim.execution} has ended`);
        return;
      }
      // Uncordoned since (the drain's own cordon stays until the machine goes): the operator stopped the drain to keep the machine.
      p.skip(
        'complete-lifecycle',
        `the node was uncordoned during its drain: the lifecycle action is left to the operator (${completeLifecycleCommand({ group: pair.lifecycle.group, hook: pair.lifecycle.hook, instance: pair.instanceId })})`,
      );
      return;
    case 'absent':
      return;
    default: {
      const unreachable: never = state;
      throw new Error(`unhandled drain state ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * The rails a delete must pass even for a stale-object (defence in depth: classify already
 * required most of them). Returns why not, or undefined when the delete may go ahead.
 */
function deleteRefusal(pair: ClassifiedPair, node: NodeView, now: number, settings: Settings): string | undefined {
  const state = pair.instance?.state;
  if (state !== undefined && state !== 'terminated') return `instance is ${state}, not terminated`;
  if (pair.heartbeatAt !== undefined && now - pair.heartbeatAt <= settings.heartbeatGrace) {
    return `heartbeat is younger than heartbeatGrace (${formatDuration(settings.heartbeatGrace)})`;
  }
  const age = now - node.createdAt;
  if (age < settings.minNodeAge) return `node is younger than minNodeAge (${formatDuration(settings.minNodeAge)})`;
  if (state === undefined && age < settings.notFoundGrace) {
    return `instance unknown to EC2 for less than notFoundGrace (${formatDuration(settings.notFoundGrace)})`;
  }
  return undefined;
}

function applyBreaker(decision: Decision, allowed: number): Omit<Plan, 'dryRun'> {
  const deletes = decision.actions.filter((a) => a.kind === 'delete');
  if (deletes.length <= allowed) return decision;
  const reason = `circuit breaker: ${deletes.length} deletions planned, at most ${allowed} allowed (maxDeletions / maxDeletionPercent); deleting none`;
  const skipped: SkippedAction[] = deletes.map((d) => ({ kind: 'delete', node: d.node, ...(d.instanceId ? { instanceId: d.instanceId } : {}), reason }));
  return {
    actions: [...decision.actions.filter((a) => a.kind !== 'delete'), { kind: 'report', condition: 'stale-object', reason }],
    skipped: [...decision.skipped, ...skipped],
    breaker: { wouldDelete: deletes.length, allowed, reason },
  };
}
