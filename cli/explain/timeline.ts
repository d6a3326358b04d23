// `explain NODE`: one Node's story, in time order, out of what the reconciler reports — the signals
// that named it (with their AWS event ids), the condition each run classified it in and why, each action
// planned for it and how it went, each action skipped and why, and its drains (pods left, blocking PDBs).
// The same entries serve a live cluster (a dry-run sweep, the Node's drain record and Events) and a
// simulation (every step's report, the drains the workflow ran).
import type { RunReport } from '../../lib/report/report.js';

export const ENTRY_KINDS = ['signal', 'condition', 'action', 'skipped', 'drain', 'event', 'operator'] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

export interface TimelineEntry {
  /** Epoch ms. */
  readonly at: number;
  readonly kind: EntryKind;
  /** What it was about, in a word or two (`sweep`, `EC2 Spot Instance Interruption Warning`, `drain`, an Event's reason). */
  readonly source: string;
  readonly text: string;
}

export interface NodeExplanation {
  readonly node: string;
  readonly instanceId?: string;
  /** Oldest first. */
  readonly entries: readonly TimelineEntry[];
}

/** Which Node, and its machine once known: report rows name either. */
export interface ExplainTarget {
  readonly node: string;
  readonly instanceId?: string;
}

const concerns = (target: ExplainTarget, item: { readonly node?: string; readonly instanceId?: string }): boolean =>
  item.node === target.node || (target.instanceId !== undefined && item.instanceId === target.instanceId);

/** The Node's machine, as a report links them (its row). */
export function instanceOf(report: Pick<RunReport, 'rows'>, node: string): string | undefined {
  return report.rows.find((row) => row.node === node && row.instanceId !== undefined)?.instanceId;
}

/** What one run said of the target: its condition and why, the actions planned (and how they went), those skipped. */
export function entriesOfReport(
  report: Pick<RunReport, 'rows' | 'actions' | 'skipped' | 'dryRun'>,
  at: number,
  source: string,
  target: ExplainTarget,
): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  for (const row of report.rows)
    if (concerns(target, row)) entries.push({ at, kind: 'condition', source, text: `${row.condition}: ${row.reason}` });
  for (const action of report.actions) {
    if (!concerns(target, action)) continue;
    const step = action.step !== undefined ? ` (${action.step})` : '';
    const how =
      action.outcome === 'dry-run'
        ? 'planned (dry run)'
        : report.dryRun && action.outcome === 'started'
          ? 'would start'
          : action.outcome;
    const detail = action.detail !== undefined ? ` — ${action.detail}` : '';
    entries.push({
      at,
      kind: 'action',
      source,
      text: `${action.kind}${step}: ${how}${detail}; because ${action.reason}`,
    });
  }
  for (const skipped of report.skipped)
    if (concerns(target, skipped))
      entries.push({ at, kind: 'skipped', source, text: `${skipped.kind} not taken: ${skipped.reason}` });
  return entries;
}

/** Oldest first; entries of one moment keep their order (signal, condition, actions, skips as told). */
export const inTimeOrder = (entries: readonly TimelineEntry[]): TimelineEntry[] =>
  entries
    .map((entry, index) => ({ entry, index }))
    .sort((a, b) => a.entry.at - b.entry.at || a.index - b.index)
    .map(({ entry }) => entry);

/** What a drain left: pods by reason and the PDBs that blocked them. */
export function drainLeftText(
  left: number | undefined,
  leftByReason: Readonly<Record<string, number>> | undefined,
  blocking: readonly string[],
): string {
  if (left === undefined) return '';
  if (left === 0) return ', no pods left';
  const reasons = Object.entries(leftByReason ?? {})
    .map(([reason, count]) => `${count} ${reason}`)
    .join(', ');
  const pdbs = blocking.length > 0 ? `; blocked by ${blocking.join(', ')}` : '';
  return `, ${left} pod(s) left${reasons ? ` (${reasons})` : ''}${pdbs}`;
}
