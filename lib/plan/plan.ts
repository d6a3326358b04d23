import type { Clock } from '../model/clock.js';
import type { Action, Plan, SkippedAction } from '../model/action.js';
import type { ClassifiedPair } from '../model/condition.js';
import { formatDuration } from '../model/duration.js';
import type { NodeView } from '../model/observation.js';
import type { Settings } from '../settings.js';
import { deletionAllowance } from './breaker.js';
import { exclusionOf } from './exclusion.js';
import { hasShutdownTaint, isOwnCordon, ownCordonTime } from './own-cordon.js';

export interface PlanContext {
  readonly settings: Settings;
  readonly clock: Clock;
  /** Cluster size for the breaker's percentage; unknown in the event path. */
  readonly clusterNodeCount?: number;
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
  for (const pair of pairs) planPair(pair, now, ctx.settings, decision);
  const guarded = applyBreaker(decision, deletionAllowance(ctx.settings, ctx.clusterNodeCount));
  return { dryRun: ctx.settings.dryRun, ...guarded };
}

/**
 * The cause of a drain a sweep found (no event): part of the workflow's execution name, which
 * Step Functions keeps unique for 90 days. Sweeps within the same hour name the same drain (so a
 * sweep every 10 minutes starts it once); a later hour may start it again if it is still needed —
 * a repeated drain of the same node is harmless (cordon and evictions are idempotent).
 */
export function sweepCause(now: number): string {
  return `sweep-${new Date(now).toISOString().slice(0, 13).replace(/[-T:]/g, '')}`;
}

function target(node: NodeView): { node: string; uid: string; resourceVersion: string } {
  return { node: node.name, uid: node.uid, resourceVersion: node.resourceVersion };
}

function planPair(pair: ClassifiedPair, now: number, settings: Settings, out: Decision): void {
  const { node, instanceId } = pair;
  const ids = instanceId !== undefined ? { instanceId } : {};
  const excluded = exclusionOf(pair);
  const skip = (kind: Action['kind'], reason: string): void => {
    out.skipped.push({ kind, ...(node ? { node: node.name } : {}), ...ids, reason });
  };
  const report = (): void => {
    out.actions.push({ kind: 'report', condition: pair.condition, ...(node ? { node: node.name } : {}), ...ids, reason: pair.reason });
  };

  switch (pair.condition) {
    case 'in-sync': {
      if (!node || instanceId === undefined) return;
      if (hasShutdownTaint(node)) {
        if (excluded) skip('remove-shutdown-taint', `excluded by ${excluded}`);
        else out.actions.push({ kind: 'remove-shutdown-taint', ...target(node), instanceId, reason: `${instanceId} runs again` });
      }
      if (isOwnCordon(node)) planOwnUncordon(node, ids, now, settings, excluded, out, skip);
      return;
    }
    case 'stale-object': {
      if (!node) return;
      const refusal = deleteRefusal(pair, node, now, settings) ?? (excluded ? `excluded by ${excluded}` : undefined);
      if (refusal) skip('delete', refusal);
      else out.actions.push({ kind: 'delete', ...target(node), ...ids, reason: pair.reason });
      return;
    }
    case 'slated-for-removal': {
      if (excluded) {
        skip(node ? 'drain' : 'complete-lifecycle', `excluded by ${excluded}`);
        report();
        return;
      }
      if (!node) {
        if (pair.lifecycle && instanceId !== undefined) {
          out.actions.push({ kind: 'complete-lifecycle', instanceId, lifecycle: pair.lifecycle, result: 'CONTINUE', reason: pair.reason });
        }
        return;
      }
      if (!node.unschedulable) out.actions.push({ kind: 'cordon', ...target(node), ...ids, reason: pair.reason });
      if (pair.drain === true) {
        out.actions.push({
          kind: 'drain',
          ...target(node),
          ...ids,
          reason: pair.reason,
          deadline: pair.deadline ?? now + settings.drainTimeout,
          cause: pair.signals[0]?.eventId ?? sweepCause(now),
          ...(pair.lifecycle ? { lifecycle: pair.lifecycle } : {}),
        });
      } else if (pair.lifecycle && instanceId !== undefined) {
        out.actions.push({ kind: 'complete-lifecycle', instanceId, lifecycle: pair.lifecycle, result: 'CONTINUE', reason: pair.reason });
      }
      return;
    }
    case 'stopped-machine': {
      if (!node || instanceId === undefined || hasShutdownTaint(node)) return;
      if (excluded) skip('taint-shutdown', `excluded by ${excluded}`);
      else out.actions.push({ kind: 'taint-shutdown', ...target(node), instanceId, reason: pair.reason });
      return;
    }
    case 'unregistered-machine': {
      report();
      const group = pair.instance?.autoScaling?.group;
      if (!settings.markUnregisteredUnhealthy || instanceId === undefined || group === undefined) return;
      if (excluded) skip('mark-unhealthy', `excluded by ${excluded}`);
      else out.actions.push({ kind: 'mark-unhealthy', instanceId, group, reason: pair.reason });
      return;
    }
    case 'unresponsive-machine':
    case 'identity-conflict':
    case 'unknown':
      report();
      return;
    case 'not-ec2':
      return;
    default: {
      const unreachable: never = pair.condition;
      throw new Error(`unhandled condition ${String(unreachable)}`);
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

function planOwnUncordon(
  node: NodeView,
  ids: { instanceId?: ClassifiedPair['instanceId'] },
  now: number,
  settings: Settings,
  excluded: string | undefined,
  out: Decision,
  skip: (kind: Action['kind'], reason: string) => void,
): void {
  const cordonedAt = ownCordonTime(node);
  if (cordonedAt === undefined) {
    skip('uncordon-own', 'our cordon has no readable time annotation; left cordoned');
    return;
  }
  if (now - cordonedAt < settings.uncordonAfter) return;
  if (excluded) {
    skip('uncordon-own', `excluded by ${excluded}`);
    return;
  }
  out.actions.push({
    kind: 'uncordon-own',
    ...target(node),
    ...ids,
    reason: `machine still running ${formatDuration(settings.uncordonAfter)} after our cordon, with nothing slating it`,
  });
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
