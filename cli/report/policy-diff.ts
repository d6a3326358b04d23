// The policy diff of `simulate --compare`: what two settings made the reconciler do to each node
// over the same world and history, as counts of actions per node and the difference between them.
// Which actions are destructive (the ones a candidate may not add unless told so) is said here, once.
import type { ReportAction, RunReport } from '../../lib/report/report.js';

/**
 * What an action did, as the diff names it: its kind, with the step, mode or result that changes
 * what it means (a drain started vs joined, a lifecycle action continued vs abandoned).
 */
export function actionLabel(action: ReportAction): string | undefined {
  switch (action.kind) {
    case 'report':
      return undefined;
    case 'drain':
      return action.mode === 'join' ? 'drain (join)' : 'drain';
    case 'repair':
      return `repair ${action.step ?? ''}`.trim();
    case 'complete-lifecycle':
      return `complete-lifecycle ${action.result ?? ''}`.trim();
    case 'uncordon-own':
      return 'uncordon';
    case 'taint-shutdown':
      return 'taint';
    case 'remove-shutdown-taint':
      return 'untaint';
    case 'cordon':
    case 'delete':
    case 'forget-drain':
    case 'mark-unhealthy':
      return action.kind;
    default: {
      const unlabelled: never = action.kind;
      throw new Error(`no label for action kind ${String(unlabelled)}`);
    }
  }
}

/**
 * The actions a candidate policy may not add without `--allow-destructive`: each takes a Node, its
 * pods or its machine away (a delete, a drain, a repair's drain or replacement, an Unhealthy mark
 * that has the group replace the machine, a lifecycle action abandoned).
 */
export const DESTRUCTIVE_ACTIONS: ReadonlySet<string> = new Set([
  'delete',
  'drain',
  'repair drain',
  'repair replace',
  'mark-unhealthy',
  'complete-lifecycle ABANDON',
]);

/** Outcomes that mean the action was taken (or would be, dry run): a refused or moot one changed nothing. */
const TAKEN = new Set<ReportAction['outcome']>(['done', 'started', 'dry-run']);

/** node (or instance id) → action label → how many times it was taken. */
export type ActionCounts = ReadonlyMap<string, ReadonlyMap<string, number>>;

/** Counts the actions taken in reports (a run's sweeps and events), per node. */
export function countActions(reports: Iterable<Pick<RunReport, 'actions'>>): ActionCounts {
  const counts = new Map<string, Map<string, number>>();
  for (const report of reports)
    for (const action of report.actions) {
      const label = actionLabel(action);
      const target = action.node ?? action.instanceId;
      if (label === undefined || target === undefined || !TAKEN.has(action.outcome)) continue;
      const perNode = counts.get(target) ?? new Map<string, number>();
      counts.set(target, perNode);
      perNode.set(label, (perNode.get(label) ?? 0) + 1);
    }
  return counts;
}

/** One node's difference: a label's count under the candidate minus under the baseline (never 0). */
export interface NodeDiff {
  readonly node: string;
  readonly changes: readonly { readonly action: string; readonly delta: number; readonly destructive: boolean }[];
}

/** The nodes whose actions differ, in name order, each with its changes in label order. */
export function diffActions(baseline: ActionCounts, candidate: ActionCounts): NodeDiff[] {
  const nodes = [...new Set([...baseline.keys(), ...candidate.keys()])].sort();
  return nodes.flatMap((node) => {
    const a = baseline.get(node) ?? new Map<string, number>();
    const b = candidate.get(node) ?? new Map<string, number>();
    const changes = [...new Set([...a.keys(), ...b.keys()])]
      .sort()
      .map((action) => ({
        action,
        delta: (b.get(action) ?? 0) - (a.get(action) ?? 0),
        destructive: DESTRUCTIVE_ACTIONS.has(action),
      }))
      .filter((change) => change.delta !== 0);
    return changes.length > 0 ? [{ node, changes }] : [];
  });
}

/** Whether the candidate adds a destructive action anywhere. */
export const addsDestructive = (diff: readonly NodeDiff[]): boolean =>
  diff.some((node) => node.changes.some((c) => c.destructive && c.delta > 0));
