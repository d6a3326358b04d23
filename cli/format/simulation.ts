import type { RunReport } from '../../lib/report/report.js';
import type {
  DrainRecord,
  Simulation as SandboxSimulation,
  StepRecord as SandboxStep,
} from '@ec2-node-reconciler/sandbox/simulate/run.js';
import { conditionSummary, correspondenceTable } from './report.js';
import { replaySummaryLines } from './replay.js';
import { cellWidth, offset, table, type TableStyle } from './table.js';

type Simulation = SandboxSimulation<RunReport>;
type StepRecord = SandboxStep<RunReport>;

function stepLines(step: StepRecord, start: number): string[][] {
  const at = offset(step.at, start);
  switch (step.kind) {
    case 'advance':
      return [[at, 'clock', `advance ${Math.round(step.ms / 1000)}s`, '', '']];
    case 'settle':
      return [[at, 'drains', 'settle', '', '']];
    case 'drain':
      return [[at, 'operator', `drain (CLI) → ${step.status}`, step.node, step.message ?? '']];
    case 'cordon':
    case 'uncordon':
      return [[at, 'operator', `kubectl ${step.kind}${step.failed ? ' → FAILED' : ''}`, step.node, step.failed ?? '']];
    case 'condition':
      return [[at, 'node', `condition ${step.type}=${step.status}`, step.node, '']];
    case 'sweep':
    case 'event': {
      const source =
        step.kind === 'sweep'
          ? 'sweep'
          : `event: ${step.detailType}${step.attempt > 1 ? ` (receive ${step.attempt})` : ''}`;
      if (step.kind === 'event' && step.deadLettered) return [[at, source, 'DEAD-LETTERED', '', step.failed ?? '']];
      if (step.kind === 'event' && step.ignored) return [[at, source, 'ignored', '', step.ignored]];
      if (step.kind === 'event' && step.rejected)
        return [[at, source, 'REJECTED (retried, then → DLQ)', '', step.rejected]];
      if (step.kind === 'event' && step.failed && !step.report)
        return [[at, source, 'FAILED (retried after the visibility timeout)', '', step.failed]];
      const actions = (step.report?.actions ?? []).filter((a) => a.kind !== 'report' || a.condition !== undefined);
      // A repair that stood down did nothing, and that is worth a line: it is why the machine is still there.
      const stoodDown = (step.report?.skipped ?? []).flatMap((s) =>
        s.standDown !== undefined || s.backOff !== undefined
          ? [[at, source, 'repair → STOOD DOWN', s.node ?? s.instanceId ?? '', s.reason]]
          : [],
      );
      const retry: string[][] =
        step.kind === 'event' && step.failed
          ? [[at, source, 'FAILED (retried after the visibility timeout)', '', step.failed]]
          : [];
      if (actions.length === 0 && stoodDown.length === 0)
        return retry.length > 0 ? retry : [[at, source, 'nothing to do', '', '']];
      return [
        ...actions.map((a) => [
          at,
          source,
          a.kind === 'report'
            ? `report ${a.condition ?? ''}`
            : `${a.kind}${a.step !== undefined ? ` ${a.step}` : ''} → ${a.outcome}${a.detail ? ` (${a.detail})` : ''}`,
          a.node ?? a.instanceId ?? '',
          a.reason,
        ]),
        ...stoodDown,
        ...retry,
      ];
    }
  }
}

/** Above this many rows, in-sync pairs nothing happened to are folded into one line (-o json has them all). */
const FOLD_ABOVE = 20;

/** The correspondence table, with the uneventful in-sync rows of a big cluster folded away. */
function condensedTable(report: RunReport, involved: ReadonlySet<string>, style: TableStyle): string {
  if (report.rows.length <= FOLD_ABOVE) return correspondenceTable(report, style);
  const shown = report.rows.filter(
    (r) => r.condition !== 'in-sync' || involved.has(r.node ?? '') || involved.has(r.instanceId ?? ''),
  );
  const folded = report.rows.length - shown.length;
  if (folded === 0) return correspondenceTable(report, style);
  return `${correspondenceTable({ ...report, rows: shown }, style)}\n… and ${folded} more in-sync (nothing happened to them; -o json lists every row)`;
}

/** Pods named in a DRAINS row at most (-o json lists them all). */
const NAMED = 3;
const named = (items: readonly string[]): string =>
  items.length > NAMED ? `${items.slice(0, NAMED).join(', ')} and ${items.length - NAMED} more` : items.join(', ');

/** A drain's row note: what was left and why, shortened grace periods, the lifecycle action left open, the error. */
function drainNotes(d: DrainRecord): string {
  const notes: string[] = [];
  const reasons = Object.entries(d.leftByReason).map(([reason, n]) => `${reason} ${n}`);
  if (reasons.length > 0)
    notes.push(`left: ${reasons.join(', ')}${d.blocked.length > 0 ? ` (${named(d.blocked)})` : ''}`);
  if (d.graceShortened.length > 0) notes.push(`grace shortened: ${named(d.graceShortened)}`);
  if (d.lifecycle && !d.lifecycle.completed)
    notes.push(`lifecycle action left open: ${d.lifecycle.completeWith ?? ''}`);
  if (d.error) notes.push(d.error);
  return notes.join('; ');
}

/** The demo and `simulate -o table` (or `-o wide`: no cell cut): before, timeline, drains, after, summary. */
export function formatSimulation(sim: Simulation, style: TableStyle = {}): string {
  const involved = new Set<string>(sim.drains.flatMap((d) => [d.node, d.instanceId ?? '']));
  for (const step of sim.steps) {
    if ((step.kind !== 'sweep' && step.kind !== 'event') || !step.report) continue;
    for (const a of step.report.actions)
      if (a.kind !== 'report' || a.condition !== undefined)
        for (const id of [a.node, a.instanceId]) if (id) involved.add(id);
  }
  // A replayed month is thousands of sweeps and events that did nothing: its timeline keeps what
  // did something (the REPLAY section counts the rest, and -o json has every record).
  const timeline = sim.steps
    .flatMap((s) => stepLines(s, sim.start))
    .filter((line) => !sim.replay || (line[2] !== 'nothing to do' && line[2] !== 'ignored'));
  const drains = sim.drains.map((d) => [
    d.node,
    d.status,
    `${offset(d.startedAt, sim.start)} → ${d.finishedAt !== undefined ? offset(d.finishedAt, sim.start) : '…'}`,
    `${d.evicted} evicted${d.terminating > 0 ? ` (${d.terminating} terminating)` : ''}, ${d.left} left`,
    drainNotes(d),
  ]);
  const lines = [
    `scenario ${sim.name} (starts ${new Date(sim.start).toISOString()}${sim.replay ? ', replaying a history' : ''})`,
    '',
    'BEFORE',
    condensedTable(sim.before, involved, style),
    '',
    'TIMELINE',
    table(['TIME', 'SOURCE', 'ACTION', 'TARGET', 'WHY'], timeline, cellWidth(70, style)),
    '',
  ];
  if (drains.length > 0)
    lines.push('DRAINS', table(['NODE', 'RESULT', 'WHEN', 'PODS', 'LEFT / NOTES'], drains, cellWidth(70, style)), '');
  if (sim.denied.length > 0) {
    const rows = sim.denied.map((d) => [offset(d.at, sim.start), d.api === 'aws' ? 'IAM' : 'RBAC', d.call, d.by]);
    lines.push('DENIED', table(['TIME', 'BY', 'CALL', 'CALLER'], rows, cellWidth(90, style)), '');
  }
  lines.push('AFTER', condensedTable(sim.after, involved, style), '');
  lines.push(...replaySummaryLines(sim));
  const deletes = sim.steps
    .flatMap((s) => ('report' in s && s.report ? s.report.actions : []))
    .filter((a) => a.kind === 'delete' && a.outcome === 'done').length;
  const drained = sim.drains.filter((d) => d.status === 'drained').length;
  lines.push(`SUMMARY  before: ${conditionSummary(sim.before)}`);
  lines.push(`         after:  ${conditionSummary(sim.after)}`);
  lines.push(`         ${deletes} node(s) deleted, ${sim.drains.length} drain(s) started, ${drained} drained`);
  if (sim.expectations) {
    const { passed, failures } = sim.expectations;
    lines.push(
      '',
      failures.length === 0
        ? `EXPECT   all ${passed} expectation(s) hold`
        : `EXPECT   ${failures.length} failed, ${passed} held:`,
    );
    for (const f of failures) lines.push(`  ✗ ${f}`);
  }
  return lines.join('\n');
}
