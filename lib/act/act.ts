import { cordon, uncordon } from '../drain/cordon.js';
import type { Action } from '../model/action.js';
import type { Plan } from '../model/action.js';
import type { NodeView } from '../model/observation.js';
import type { ReconcilerDeps } from '../pipeline/deps.js';
import { errorText } from '../pipeline/errors.js';
import type { ActionOutcome, OutcomeKind } from './outcome.js';

type Result = { outcome: OutcomeKind; detail?: string };

/**
 * The one ValidationError that makes completing moot: no such pending action (already completed,
 * or timed out). Any other (a wrong group or hook name) is a failure to report, not to hide.
 */
export function isNoActiveLifecycleAction(error: unknown): boolean {
  return error instanceof Error && error.name === 'ValidationError' && /No active Lifecycle Action found/i.test(error.message);
}

async function execute(action: Action, deps: ReconcilerDeps, observed: ReadonlyMap<string, NodeView>): Promise<Result> {
  switch (action.kind) {
    case 'delete': {
      const result = await deps.nodes.deleteNode(action);
      return result.kind === 'moot' ? { outcome: 'moot', detail: result.reason } : { outcome: 'done' };
    }
    case 'cordon': {
      const result = await cordon(deps.drainApi, action.node, { reason: action.reason, expectedUid: action.uid, ...seen(observed, action) }, deps.clock);
      if (result.kind === 'not-found') return { outcome: 'moot', detail: 'node already gone' };
      if (result.kind === 'uid-mismatch') return { outcome: 'moot', detail: 'node was re-registered under the same name' };
      return { outcome: result.changed ? 'done' : 'unchanged', ...(result.ours ? {} : { detail: 'already cordoned by someone else' }) };
    }
    case 'uncordon-own': {
      const result = await uncordon(deps.drainApi, action.node, { expectedUid: action.uid, ...seen(observed, action) });
      if (result.kind === 'uncordoned') return { outcome: result.changed ? 'done' : 'unchanged' };
      return { outcome: 'moot', detail: result.kind === 'not-ours' ? 'the cordon is no longer ours' : result.kind };
    }
    case 'drain': {
      const launched = await deps.drains.launch({
        cluster: deps.clusterName,
        node: action.node,
        nodeUid: action.uid,
        ...(action.instanceId ? { instanceId: action.instanceId } : {}),
        deadline: new Date(action.deadline).toISOString(),
        reason: action.reason,
        cause: action.cause,
        ...(action.lifecycle ? { lifecycle: action.lifecycle } : {}),
      });
      return { outcome: launched };
    }
    case 'taint-shutdown':
    case 'remove-shutdown-taint': {
      const result = await deps.nodes.setShutdownTaint(action, action.kind === 'taint-shutdown');
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

/** The node this run observed, when it is still the one the action targets: no need to read it again. */
function seen(observed: ReadonlyMap<string, NodeView>, target: { node: string; uid: string }): { observed?: NodeView } {
  const view = observed.get(target.node);
  return view?.uid === target.uid ? { observed: view } : {};
}

/**
 * Carries out the plan in order (a cordon before its drain), one action at a time per node.
 * Every action is idempotent; a failed one is recorded and never stops the others. `observed`:
 * the nodes this run read, which cordon and uncordon start from (guarded by their uid and resourceVersion).
 */
export async function act(plan: Plan, deps: ReconcilerDeps, observed: readonly NodeView[] = []): Promise<ActionOutcome[]> {
  const byName = new Map(observed.map((n) => [n.name, n]));
  const outcomes: ActionOutcome[] = [];
  for (const action of plan.actions) {
    if (plan.dryRun && action.kind !== 'report') {
      outcomes.push({ action, outcome: 'dry-run' });
      continue;
    }
    try {
      const result = await execute(action, deps, byName);
      outcomes.push({ action, ...result });
    } catch (error) {
      outcomes.push({ action, outcome: 'failed', detail: errorText(error) });
    }
  }
  return outcomes;
}
