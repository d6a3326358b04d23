import {
  cancelRepair,
  claimDrain,
  cordonAndClaim,
  forgetDrain,
  joinDrain,
  type ClaimResult,
  type CordonClaimResult,
} from '../drain/claim.js';
import {
  cordon,
  deleteNode,
  MISSING_REASON as MISSING,
  setShutdownTaint,
  uncordon,
  type NodeWriteView,
} from '../kube/node-writes.js';
import type { Action } from '@ec2-node-reconciler/model/action.js';
import type { Plan } from '@ec2-node-reconciler/model/action.js';
import type { NodeView } from '@ec2-node-reconciler/model/observation.js';
import { mapBounded } from '../support/bounded.js';
import { errorText } from '@ec2-node-reconciler/model/error-text.js';
import type { ActDeps } from './deps.js';
import type { ActionOutcome, OutcomeKind } from './outcome.js';

type Result = { outcome: OutcomeKind; detail?: string };

/**
 * The one ValidationError that makes completing moot: no such pending action (already completed,
 * or timed out). Any other (a wrong group or hook name) is a failure to report, not to hide.
 */
export function isNoActiveLifecycleAction(error: unknown): boolean {
  return (
    error instanceof Error &&
    error.name === 'ValidationError' &&
    /No active Lifecycle Action found/i.test(error.message)
  );
}

/** What this run knows of each node: as last read or patched, and the drain claims its cordons made. */
interface RunMemory {
  readonly latest: Map<string, NodeWriteView>;
  /** Nodes found gone or re-registered by an earlier action of this run: later actions on them are moot at once. */
  readonly missing: Map<string, string>;
  readonly claims: Map<string, Extract<ClaimResult, { kind: 'claimed' | 'claimed-by-other' }>>;
}

async function execute(action: Action, deps: ActDeps, memory: RunMemory): Promise<Result> {
  const { latest } = memory;
  switch (action.kind) {
    case 'delete': {
      const result = await deleteNode(deps.nodes, action);
      return result.kind === 'moot' ? { outcome: 'moot', detail: result.reason } : { outcome: 'done' };
    }
    case 'cordon': {
      const options = {
        reason: action.reason,
        expectedUid: action.uid,
        ...seen(latest, action),
        ...(action.until !== undefined ? { until: action.until } : {}),
      };
      let result: CordonClaimResult;
      if (action.claim) {
        result = await cordonAndClaim(deps.drainApi, action.node, options, action.claim, deps.clock);
        if (result.kind === 'cordoned' && result.claim) memory.claims.set(action.node, result.claim);
      } else {
        result = await cordon(deps.drainApi, action.node, options, deps.clock);
      }
      if (result.kind !== 'cordoned') return { outcome: 'moot', detail: MISSING[result.kind] };
      latest.set(action.node, result.node);
      return {
        outcome: result.changed ? 'done' : 'unchanged',
        ...(result.ours ? {} : { detail: 'already cordoned by someone else' }),
      };
    }
    case 'uncordon-own': {
      const result = await uncordon(deps.drainApi, action.node, { expectedUid: action.uid, ...seen(latest, action) });
      if (result.kind === 'uncordoned') {
        latest.set(action.node, result.node);
        return { outcome: result.changed ? 'done' : 'unchanged' };
      }
      return {
        outcome: 'moot',
        detail: result.kind === 'not-ours' ? 'the cordon is no longer ours' : MISSING[result.kind],
      };
    }
    case 'forget-drain': {
      const forgotten = await forgetDrain(deps.drainApi, action.node, {
        expectedUid: action.uid,
        ...seen(latest, action),
        execution: action.execution,
      });
      if (forgotten.kind === 'forgotten') return { outcome: forgotten.changed ? 'done' : 'unchanged' };
      return {
        outcome: 'moot',
        detail:
          forgotten.kind === 'claimed-by-other'
            ? `drain ${forgotten.execution} owns a removal now`
            : MISSING[forgotten.kind],
      };
    }
    case 'drain': {
      const guard = { expectedUid: action.uid, ...seen(latest, action) };
      if (action.mode === 'join') {
        const joined = await joinDrain(deps.drainApi, action.node, {
          ...guard,
          execution: action.execution,
          deadline: action.deadline,
          ...(action.lifecycle ? { lifecycle: action.lifecycle } : {}),
        });
        if (joined.kind === 'joined')
          return {
            outcome: 'already-running',
            detail: `joined running drain ${action.execution}${joined.changed ? '' : ' (nothing to hand over)'}`,
          };
        return {
          outcome: 'moot',
          detail:
            joined.kind === 'claimed-by-other'
              ? `drain ${joined.execution} owns the removal now`
              : MISSING[joined.kind],
        };
      }
      return startDrain(action, deps, memory, { joinOther: true });
    }
    case 'repair':
      switch (action.step) {
        case 'drain':
          // A failed replacement is on the group's record before its repair starts: a record that cannot be written starts nothing.
          if (action.failureRecord !== undefined)
            await deps.autoScaling.recordRepairFailures(action.group, action.failureRecord);
          // A repair never joins another drain: one that owns the node now is that drain's business.
          return startDrain(action, deps, memory, { joinOther: false });
        case 'replace':
          await deps.autoScaling.markUnhealthy(action.instanceId);
          return { outcome: 'done', detail: `marked Unhealthy: Auto Scaling group ${action.group} replaces it` };
        case 'cancel': {
          const cancelled = await cancelRepair(deps.drainApi, action.node, {
            expectedUid: action.uid,
            ...seen(latest, action),
            execution: action.execution,
          });
          if (cancelled.kind === 'cancelled') {
            return {
              outcome: cancelled.changed ? 'done' : 'unchanged',
              detail: cancelled.ours ? 'uncordoned' : 'the cordon is not ours: only the repair record went',
            };
          }
          if (cancelled.kind === 'removal-joined')
            return { outcome: 'moot', detail: 'a removal joined the repair drain since: it goes on' };
          return {
            outcome: 'moot',
            detail:
              cancelled.kind === 'claimed-by-other'
                ? `the node records ${cancelled.execution}, not this repair`
                : MISSING[cancelled.kind],
          };
        }
        default: {
          const unreachable: never = action;
          throw new Error(`unhandled repair step ${JSON.stringify(unreachable)}`);
        }
      }
    case 'taint-shutdown':
    case 'remove-shutdown-taint': {
      const result = await setShutdownTaint(deps.drainApi, action, action.kind === 'taint-shutdown');
      return result.kind === 'moot' ? { outcome: 'moot', detail: result.reason } : { outcome: result.kind };
    }
    case 'complete-lifecycle':
      try {
        await deps.autoScaling.completeLifecycleAction(action.instanceId, action.lifecycle, action.result);
        return { outcome: 'done' };
      } catch (error) {
        if (isNoActiveLifecycleAction(error)) return { outcome: 'moot', detail: errorText(error) };
        throw error;
      }
    case 'mark-unhealthy':
      await deps.autoScaling.markUnhealthy(action.instanceId);
      return { outcome: 'done' };
    case 'report':
      return { outcome: 'done' };
    default: {
      const unreachable: never = action;
      throw new Error(`unhandled action ${JSON.stringify(unreachable)}`);
    }
  }
}

/** A drain to record and start: a removal's (mode start) or a repair's. */
type DrainStart = Extract<Action, { kind: 'drain' }> | Extract<Action, { kind: 'repair'; step: 'drain' }>;

/**
 * Records the drain on the Node (claimed by this run's cordon already, or claimed here when the node
 * was cordoned before) and starts it. A record another run made first is joined when `joinOther`
 * (a removal signal is not lost), or left alone.
 */
async function startDrain(
  action: DrainStart,
  deps: ActDeps,
  memory: RunMemory,
  options: { readonly joinOther: boolean },
): Promise<Result> {
  const guard = { expectedUid: action.uid, ...seen(memory.latest, action) };
  const claimed =
    memory.claims.get(action.node) ??
    (await claimDrain(
      deps.drainApi,
      action.node,
      {
        ...guard,
        execution: action.execution,
        deadline: action.deadline,
        for: action.for,
        ...(action.launchedAt !== undefined ? { launchedAt: action.launchedAt } : {}),
        ...(action.replaces ? { replaces: action.replaces } : {}),
        ...(action.lifecycle ? { lifecycle: action.lifecycle } : {}),
      },
      deps.clock,
    ));
  if (claimed.kind === 'claimed-by-other') {
    if (!options.joinOther) return { outcome: 'moot', detail: `drain ${claimed.execution} owns the node now` };
    // Another run recorded its drain first: this signal joins it (its deadline, its lifecycle action) instead of being lost.
    const joined = await joinDrain(deps.drainApi, action.node, {
      expectedUid: action.uid,
      execution: claimed.execution,
      deadline: action.deadline,
      ...(action.lifecycle ? { lifecycle: action.lifecycle } : {}),
    });
    if (joined.kind === 'joined')
      return { outcome: 'already-running', detail: `drain ${claimed.execution} owns this removal: joined it` };
    return {
      outcome: 'moot',
      detail:
        joined.kind === 'claimed-by-other' ? `drain ${joined.execution} owns the removal now` : MISSING[joined.kind],
    };
  }
  if (claimed.kind !== 'claimed') return { outcome: 'moot', detail: MISSING[claimed.kind] };
  const launched = await deps.drains.launch({
    cluster: deps.clusterName,
    node: action.node,
    nodeUid: action.uid,
    ...(action.instanceId ? { instanceId: action.instanceId } : {}),
    deadline: new Date(action.deadline).toISOString(),
    reason: action.reason,
    cause: action.cause,
    execution: action.execution,
    ...(action.lifecycle ? { lifecycle: action.lifecycle } : {}),
  });
  if (launched === 'already-ran')
    return {
      outcome: 'moot',
      detail: `drain ${action.execution} has already run and ended: a drain is never started twice under one name`,
    };
  return { outcome: launched };
}

/** The node as this run last saw it, when it is still the one the action targets: no need to read it again. */
function seen(
  latest: ReadonlyMap<string, NodeWriteView>,
  target: { node: string; uid: string },
): { observed?: NodeWriteView } {
  const view = latest.get(target.node);
  return view?.uid === target.uid ? { observed: view } : {};
}

/** Pairs acted on at once: different machines' actions are independent; one pair's run in order. */
const ACT_CONCURRENCY = 8;

/**
 * The plan's actions grouped by the pair they concern (actions sharing a Node or an instance are one
 * group), each group in plan order: a cordon before its drain, a drain before its lifecycle completion.
 */
export function pairGroups(actions: readonly Action[]): number[][] {
  const parent = new Map<string, string>();
  const root = (key: string): string => {
    let r = key;
    for (let p = parent.get(r); p !== undefined && p !== r; p = parent.get(r)) r = p;
    parent.set(key, r);
    return r;
  };
  const keysOf = (action: Action, index: number): string[] => {
    const keys = [
      ...('node' in action && action.node ? [`node:${action.node}`] : []),
      ...(action.instanceId ? [`instance:${action.instanceId}`] : []),
    ];
    return keys.length > 0 ? keys : [`action:${index}`];
  };
  actions.forEach((action, index) => {
    const [first, ...rest] = keysOf(action, index).map((k) => {
      if (!parent.has(k)) parent.set(k, k);
      return root(k);
    });
    for (const other of rest) if (first !== undefined) parent.set(other, first);
  });
  const groups = new Map<string, number[]>();
  actions.forEach((action, index) => {
    const key = root(keysOf(action, index)[0] ?? `action:${index}`);
    groups.set(key, [...(groups.get(key) ?? []), index]);
  });
  return [...groups.values()];
}

/**
 * Carries out the plan: each pair's actions in order (a cordon before its drain), one at a time,
 * and different pairs a few at a time. Every action is idempotent; a failed one is recorded and
 * never stops the others. `observed`: the nodes this run read, which cordon and uncordon start from
 * (guarded by their uid and resourceVersion). `onOutcome` hears each outcome as it comes (its
 * notifications go out while other actions run); the result is in plan order.
 */
export async function act(
  plan: Plan,
  deps: ActDeps,
  observed: readonly NodeView[] = [],
  onOutcome?: (outcome: ActionOutcome, index: number) => void,
): Promise<ActionOutcome[]> {
  // Each patch answers with the node as it now is: the next action on it starts from that.
  const memory: RunMemory = {
    latest: new Map<string, NodeWriteView>(observed.map((n) => [n.name, n])),
    claims: new Map(),
    missing: new Map(),
  };
  const outcomes = new Array<ActionOutcome>(plan.actions.length);
  const one = async (action: Action): Promise<ActionOutcome> => {
    if (plan.dryRun && action.kind !== 'report') return { action, outcome: 'dry-run' };
    const target = 'node' in action ? action.node : undefined;
    const missing = target !== undefined && 'uid' in action ? memory.missing.get(target) : undefined;
    if (missing !== undefined) return { action, outcome: 'moot', detail: missing };
    try {
      const result = await execute(action, deps, memory);
      if (target !== undefined && result.outcome === 'moot' && Object.values(MISSING).includes(result.detail ?? ''))
        memory.missing.set(target, result.detail ?? '');
      return { action, ...result };
    } catch (error) {
      return { action, outcome: 'failed', detail: errorText(error) };
    }
  };
  await mapBounded(pairGroups(plan.actions), ACT_CONCURRENCY, async (indexes) => {
    for (const index of indexes) {
      const action = plan.actions[index];
      if (action === undefined) continue;
      const outcome = await one(action);
      outcomes[index] = outcome;
      onOutcome?.(outcome, index);
    }
  });
  return outcomes;
}
