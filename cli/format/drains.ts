// `ec2-node-reconciler drains`: the rows of cli/observe/drain-list.ts as a table (kubectl-like: a
// short one, `-o wide` for every column) or as JSON with ISO 8601 times.
import { humanDuration } from '@ec2-node-reconciler/model/duration.js';
import type { DrainRow } from '../observe/drain-list.js';
import { cellWidth, table, type TableStyle } from './table.js';

const NONE = '—';
const iso = (ms: number | undefined): string | undefined => (ms === undefined ? undefined : new Date(ms).toISOString());

/** `running`, `running (local)`, `failed: incomplete`, `ended (local): done`, `unknown`. */
export function statusText(row: DrainRow): string {
  const how = row.status === 'running' || row.status === 'succeeded' ? undefined : row.outcome;
  return `${row.status}${row.runs === 'local' ? ' (local)' : ''}${how !== undefined ? `: ${how}` : ''}`;
}

/** `payments/ledger (2)`, each blocking budget with the pods it held back; `none` when the last step named none. */
function blockingText(row: DrainRow): string {
  if (row.blockingPdbs === undefined) return NONE;
  if (row.blockingPdbs.length === 0) return 'none';
  return row.blockingPdbs.map((b) => `${b.pdb} (${b.pods})`).join(', ');
}

/** The cause is cut to this in the default table (`-o wide` shows it whole); execution names (≤ 80) never are. */
const CAUSE_WIDTH = 50;

const ago = (at: number | undefined, now: number): string =>
  at === undefined ? NONE : `${humanDuration(now - at)} ago`;

export function formatDrains(rows: readonly DrainRow[], now: number, style: TableStyle = {}): string {
  if (rows.length === 0) return 'No drains recorded on Nodes or started lately.';
  const causeWidth = cellWidth(CAUSE_WIDTH, style);
  const headers = ['EXECUTION', 'NODE', 'STATUS', 'CAUSE', 'STARTED', 'PODS LEFT', 'BLOCKING PDB'];
  const cells = (row: DrainRow): string[] => {
    const cause = row.reason ?? row.for ?? NONE;
    return [
      row.execution,
      row.node ?? NONE,
      statusText(row),
      cause.length > causeWidth ? `${cause.slice(0, causeWidth - 1)}…` : cause,
      ago(row.startedAt, now),
      row.podsLeft === undefined ? NONE : String(row.podsLeft),
      blockingText(row),
    ];
  };
  if (style.wide !== true) return table(headers, rows.map(cells), Infinity);
  return table(
    [...headers, 'FOR', 'SIGNAL', 'DEADLINE', 'ENDED', 'LIFECYCLE', 'ON NODE', 'LAST STEP', 'ERROR'],
    rows.map((row) => [
      ...cells(row),
      row.for ?? NONE,
      row.cause ?? NONE,
      iso(row.deadline) ?? NONE,
      iso(row.stoppedAt) ?? NONE,
      row.lifecycle ? `${row.lifecycle.group}/${row.lifecycle.hook}` : NONE,
      row.recordedOnNode ? 'yes' : 'no',
      ago(row.lastStepAt, now),
      row.error ?? '',
    ]),
    Infinity,
  );
}

/** The rows with ISO 8601 times, for `-o json`. */
export function drainsJson(rows: readonly DrainRow[]): unknown[] {
  return rows.map(({ startedAt, stoppedAt, deadline, lastStepAt, ...row }) => ({
    ...row,
    ...(startedAt !== undefined ? { startedAt: iso(startedAt) } : {}),
    ...(stoppedAt !== undefined ? { stoppedAt: iso(stoppedAt) } : {}),
    ...(deadline !== undefined ? { deadline: iso(deadline) } : {}),
    ...(lastStepAt !== undefined ? { lastStepAt: iso(lastStepAt) } : {}),
  }));
}
