// `simulate FILE --explain NODE`: the Node's timeline out of a simulation — each event delivered about
// its machine (with its id), what each run (event or sweep) classified, planned, did and skipped for it,
// the operator's steps on it, and the drains the workflow ran on it.
import type { Simulation, StepRecord } from '@ec2-node-reconciler/sandbox/simulate/run.js';
import {
  drainLeftText,
  entriesOfReport,
  inTimeOrder,
  instanceOf,
  type ExplainTarget,
  type NodeExplanation,
  type TimelineEntry,
} from './timeline.js';
import type { RunReport } from '../../lib/report/report.js';

/** The Node's machine: the first report that links them. */
function targetOf(simulation: Simulation<RunReport>, node: string): ExplainTarget {
  const reports = [
    simulation.before,
    ...simulation.steps.flatMap((s) => ((s.kind === 'sweep' || s.kind === 'event') && s.report ? [s.report] : [])),
    simulation.after,
  ];
  for (const report of reports) {
    const instanceId = instanceOf(report, node);
    if (instanceId !== undefined) return { node, instanceId };
  }
  const drained = simulation.drains.find((d) => d.node === node && d.instanceId !== undefined);
  return drained?.instanceId !== undefined ? { node, instanceId: drained.instanceId } : { node };
}

function eventEntries(
  record: Extract<StepRecord<RunReport>, { kind: 'event' }>,
  target: ExplainTarget,
): TimelineEntry[] {
  const fromReport = record.report ? entriesOfReport(record.report, record.at, 'event', target) : [];
  const named = target.instanceId !== undefined && (record.instanceIds ?? []).includes(target.instanceId);
  if (!named && fromReport.length === 0) return [];
  const id = record.eventId !== undefined ? ` ${record.eventId}` : '';
  const attempt = record.attempt > 1 ? ` (delivery ${record.attempt})` : '';
  const fate = record.deadLettered
    ? ' — dead-lettered'
    : record.rejected !== undefined
      ? ` — rejected: ${record.rejected}`
      : record.ignored !== undefined
        ? ` — ignored: ${record.ignored}`
        : record.failed !== undefined
          ? ` — failed: ${record.failed}`
          : '';
  return [
    { at: record.at, kind: 'signal', source: record.detailType, text: `event${id}${attempt}${fate}` },
    ...fromReport,
  ];
}

function stepEntries(record: StepRecord<RunReport>, target: ExplainTarget): TimelineEntry[] {
  switch (record.kind) {
    case 'sweep':
      if (record.failed !== undefined && record.report === undefined)
        return [{ at: record.at, kind: 'operator', source: 'sweep', text: `sweep failed: ${record.failed}` }];
      return record.report ? entriesOfReport(record.report, record.at, 'sweep', target) : [];
    case 'event':
      return eventEntries(record, target);
    case 'drain':
      return record.node === target.node
        ? [
            {
              at: record.at,
              kind: 'operator',
              source: 'drain',
              text: `operator's drain: ${record.status}${record.message ? ` — ${record.message}` : ''}`,
            },
          ]
        : [];
    case 'cordon':
    case 'uncordon':
      return record.node === target.node
        ? [
            {
              at: record.at,
              kind: 'operator',
              source: record.kind,
              text: `operator's kubectl ${record.kind}${record.failed ? ` failed: ${record.failed}` : ''}`,
            },
          ]
        : [];
    case 'condition':
      return record.node === target.node
        ? [{ at: record.at, kind: 'operator', source: 'kubelet', text: `${record.type} is ${record.status}` }]
        : [];
    case 'advance':
    case 'settle':
      return [];
  }
}

export function explainSimulation(simulation: Simulation<RunReport>, node: string): NodeExplanation {
  const target = targetOf(simulation, node);
  const entries: TimelineEntry[] = entriesOfReport(simulation.before, simulation.start, 'before', target);
  for (const record of simulation.steps) entries.push(...stepEntries(record, target));
  for (const drain of simulation.drains.filter((d) => d.node === node)) {
    const lifecycle = drain.lifecycle
      ? `; lifecycle action ${drain.lifecycle.group}/${drain.lifecycle.hook} ${drain.lifecycle.completed ? 'completed' : 'left open'}`
      : '';
    entries.push({
      at: drain.startedAt,
      kind: 'drain',
      source: 'workflow',
      text: `drain ${drain.execution} started`,
    });
    entries.push({
      at: drain.finishedAt ?? drain.startedAt,
      kind: 'drain',
      source: 'workflow',
      text: `drain ${drain.status} after ${drain.steps} step(s), ${drain.evicted} evicted${drainLeftText(drain.left, drain.leftByReason, drain.blocked)}${lifecycle}${drain.error ? `; ${drain.error}` : ''}`,
    });
  }
  // The picture after the last step is taken once the world has quiesced: when its sweep started.
  const after = Date.parse(simulation.after.startedAt);
  const last = Number.isNaN(after) ? (simulation.steps.at(-1)?.at ?? simulation.start) : after;
  entries.push(...entriesOfReport(simulation.after, last, 'after', target));
  return {
    node,
    ...(target.instanceId !== undefined ? { instanceId: target.instanceId } : {}),
    entries: inTimeOrder(entries),
  };
}
