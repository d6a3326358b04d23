// How `simulate --replay` and `simulate --compare` print: the replay's summary (what was fed, routed,
// ignored and why, what the reconciler did by kind) and the policy diff of two settings.
import type { Simulation as SandboxSimulation } from '@ec2-node-reconciler/sandbox/simulate/run.js';
import { actionLabel, countActions, type ActionCounts, type NodeDiff } from '../report/policy-diff.js';
import type { ReportAction, RunReport } from '../../lib/report/report.js';
import { cellWidth, table, type TableStyle } from './table.js';

type Simulation = SandboxSimulation<RunReport>;

/** Every report a run produced: its sweeps' and its events'. */
export const reportsOf = (sim: Simulation): RunReport[] =>
  sim.steps.flatMap((s) => ((s.kind === 'sweep' || s.kind === 'event') && s.report ? [s.report] : []));

/**
 * What a run did, per node: its reports' actions, and the lifecycle actions its drain workflows
 * completed (the workflow completes with CONTINUE when a drain ends; no run report lists that).
 */
export function actionCounts(sim: Simulation): ActionCounts {
  const completions: ReportAction[] = sim.drains.flatMap((d) =>
    d.lifecycle?.completed === true
      ? [
          {
            kind: 'complete-lifecycle' as const,
            result: 'CONTINUE' as const,
            node: d.node,
            ...(d.instanceId !== undefined ? { instanceId: d.instanceId } : {}),
            reason: `the drain workflow completed ${d.lifecycle.group}'s lifecycle action`,
            outcome: 'done' as const,
          },
        ]
      : [],
  );
  return countActions([...reportsOf(sim), { actions: completions }]);
}

/** The counts as `simulate -o json` gives them: node → action → times taken, both in name order. */
export function actionCountsJson(counts: ActionCounts): Record<string, Record<string, number>> {
  return Object.fromEntries(
    [...counts]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([node, perNode]) => [node, Object.fromEntries([...perNode].sort(([a], [b]) => a.localeCompare(b)))]),
  );
}

/** Actions taken, by label, over every node. */
export function actionTotals(counts: ActionCounts): Map<string, number> {
  const totals = new Map<string, number>();
  for (const perNode of counts.values())
    for (const [label, n] of perNode) totals.set(label, (totals.get(label) ?? 0) + n);
  return new Map([...totals].sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * Reports that list only some of their actions: a sweep returns its report's summary (at most
 * SUMMARY_LIST_LIMIT actions, lib/report/summary.ts), so counts taken from one that acted on more are a floor.
 */
export const cutReports = (sim: Simulation): number =>
  reportsOf(sim).filter((r) => 'omitted' in r && isCut(r.omitted)).length;
const isCut = (omitted: unknown): boolean =>
  typeof omitted === 'object' && omitted !== null && 'actions' in omitted && Number(omitted.actions) > 0;

/** The line that says some counts are a floor, or nothing. */
export const cutNote = (sim: Simulation): string[] => {
  const cut = cutReports(sim);
  return cut > 0
    ? [
        `  note      ${cut} sweep report(s) listed only their first actions (a sweep returns a bounded summary): the counts from them are a floor`,
      ]
    : [];
};

const list = (entries: Iterable<[string, number]>): string =>
  [...entries].map(([name, n]) => `${name} ${n}`).join(', ') || 'none';

/**
 * What the events function made of the events it reconciled: how many it acted on, how many left
 * nothing to do (another cluster's machine, the account's other machines, a change already handled),
 * and how many receives failed and came back (an instance EC2 did not return yet, an API error).
 */
function handledLine(sim: Simulation): string {
  let acted = 0;
  let nothing = 0;
  let retried = 0;
  for (const step of sim.steps) {
    if (step.kind !== 'event' || step.attempt === 0) continue;
    if (step.failed !== undefined && !step.deadLettered) retried++;
    else if (step.report)
      if (step.report.actions.some((a) => actionLabel(a) !== undefined)) acted++;
      else nothing++;
  }
  return `${acted} acted on, ${nothing} with nothing to do for this cluster, ${retried} receive(s) failed and retried`;
}

/** How many sweeps ran through the deployed stack and how many were left out, by reason. */
function sweepsLines(r: NonNullable<Simulation['replay']>): string[] {
  const skipped = Object.entries(r.sweepsSkipped).sort(([, a], [, b]) => b - a);
  const total = skipped.reduce((sum, [, n]) => sum + n, 0);
  return [
    `  sweeps    ${r.sweeps - total} run, ${total} skipped${total === 0 ? '' : ' (provably changing nothing; --every-sweep runs them)'}`,
    ...skipped.map(([reason, n]) => `            ${String(n).padStart(6)}  ${reason}`),
  ];
}

/** The REPLAY section: empty for a run of a scenario's steps. */
export function replaySummaryLines(sim: Simulation): string[] {
  const r = sim.replay;
  if (!r) return [];
  const ignored = Object.entries(r.ignored).sort(([, a], [, b]) => b - a);
  const ignoredTotal = ignored.reduce((sum, [, n]) => sum + n, 0);
  const minutes = Math.round(r.sweepEveryMs / 60_000);
  return [
    'REPLAY',
    `  clock     ${r.from} → ${r.to}; ${r.sweeps} sweep(s), one every ${minutes} min (the deployed schedule)`,
    ...sweepsLines(r),
    `  events    ${r.fed} fed, ${r.routed} matched a rule (${r.queued} queued), ${ignoredTotal} ignored`,
    ...ignored.map(([reason, n]) => `            ${String(n).padStart(6)}  ${reason}`),
    `  handled   ${handledLine(sim)}`,
    ...(r.replayNamesStripped > 0
      ? [
          `            ${r.replayNamesStripped} carried replay-name (an archive replay): fed as their original events, without it`,
        ]
      : []),
    `  actions   ${list(actionTotals(actionCounts(sim)))}`,
    ...cutNote(sim),
    '',
  ];
}

/** One side of a comparison, in a line: what it was run with and what it did. */
export function runLine(name: string, settingsFile: string, sim: Simulation): string {
  return `${name} (${settingsFile}): ${list(actionTotals(actionCounts(sim)))}`;
}

/** The POLICY DIFF table: a row per node and action whose count differs. */
export function formatPolicyDiff(
  diff: readonly NodeDiff[],
  baseline: ActionCounts,
  candidate: ActionCounts,
  style: TableStyle = {},
): string {
  if (diff.length === 0) return 'POLICY DIFF  none: both settings take the same actions on every node';
  const rows = diff.flatMap((node) =>
    node.changes.map((c) => [
      node.node,
      c.action,
      String(baseline.get(node.node)?.get(c.action) ?? 0),
      String(candidate.get(node.node)?.get(c.action) ?? 0),
      `${c.delta > 0 ? 'added' : 'removed'}${c.destructive && c.delta > 0 ? ' (DESTRUCTIVE)' : ''}`,
    ]),
  );
  return ['POLICY DIFF', table(['NODE', 'ACTION', 'A', 'B', 'CHANGE'], rows, cellWidth(70, style))].join('\n');
}
