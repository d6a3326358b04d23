import type { RunReport } from '../../lib/report/report.js';
import type { ReportSummary } from '../../lib/report/summary.js';
import { cellWidth, table, type TableStyle } from './table.js';

/** The correspondence table: node, instance, condition, why. */
export function correspondenceTable(report: RunReport, style: TableStyle = {}): string {
  const rows = report.rows.map((r) => [r.node ?? '(no node)', r.instanceId ?? '—', r.condition, r.reason]);
  return rows.length === 0
    ? '(no nodes, no instances)'
    : table(['NODE', 'INSTANCE', 'CONDITION', 'WHY'], rows, cellWidth(70, style));
}

export function conditionSummary(report: RunReport): string {
  return Object.entries(report.conditions)
    .filter(([, n]) => n > 0)
    .map(([c, n]) => `${c} ${n}`)
    .join(', ');
}

/** A whole run report for a terminal: the table, then actions, skips and errors (cut to fit, unless `wide`). */
export function formatRunReport(report: ReportSummary, style: TableStyle = {}): string {
  const lines = [
    `${report.kind} of ${report.cluster} at ${report.startedAt}${report.dryRun ? ' (dry run: nothing changed)' : ''} — ${report.durationMs} ms`,
    '',
    correspondenceTable(report, style),
    '',
  ];
  const actions = report.actions.filter((a) => a.kind !== 'report');
  if (actions.length > 0) {
    lines.push(
      table(
        ['ACTION', 'TARGET', 'OUTCOME', 'WHY'],
        actions.map((a) => [
          a.step !== undefined ? `${a.kind} ${a.step}` : a.kind,
          a.node ?? a.instanceId ?? '',
          a.detail ? `${a.outcome}: ${a.detail}` : a.outcome,
          a.reason,
        ]),
        cellWidth(70, style),
      ),
      '',
    );
  } else lines.push('no actions', '');
  if (report.skipped.length > 0)
    lines.push(
      table(
        ['SKIPPED', 'TARGET', 'BECAUSE'],
        report.skipped.map((s) => [
          s.standDown !== undefined || s.backOff !== undefined ? `${s.kind} (stand down)` : s.kind,
          s.node ?? s.instanceId ?? '',
          s.reason,
        ]),
        cellWidth(80, style),
      ),
      '',
    );
  if (report.breaker) lines.push(`CIRCUIT BREAKER  ${report.breaker.reason.replace(/^circuit breaker: /, '')}`, '');
  for (const error of report.errors) lines.push(`error: ${error}`);
  const omitted = omittedLine(report);
  if (omitted) lines.push(omitted);
  lines.push(
    `conditions: ${conditionSummary(report)}; API calls: ${Object.values(report.apiCalls).reduce((a, b) => a + b, 0)}`,
  );
  return lines.join('\n');
}

/** What a bounded summary (the sweep function's answer) left out, and where the rest is. */
function omittedLine(report: ReportSummary): string | undefined {
  const cut = Object.entries(report.omitted ?? {}).filter(([, n]) => n > 0);
  if (cut.length === 0) return undefined;
  return `not shown: ${cut.map(([list, n]) => `${n} ${list}`).join(', ')} (every action is an output event; \`ec2-node-reconciler sweep --dry-run\` prints every row)`;
}
