// The tables the CLI prints: long cells cut by default and whole with `-o wide`; machines that are
// gone (terminated, no Node) shown as such, never folded into in-sync.
import { describe, expect, it } from 'vitest';
import { formatRunReport } from '../../cli/format/report.js';
import { formatSimulation } from '../../cli/format/simulation.js';
import { outputMode, tableStyle } from '../../cli/run/shared.js';
import { CliError } from '../../cli/exit-codes.js';
import { summarizeReport } from '../../lib/report/summary.js';
import { CONDITIONS, type Condition } from '@ec2-node-reconciler/model/condition.js';
import type { ReportRow, RunReport } from '../../lib/report/report.js';
import type { Simulation } from '@ec2-node-reconciler/sandbox/simulate/run.js';

const START = Date.parse('2026-11-29T12:00:00Z');
const LONG_WHY =
  'scheduled instance-retirement not before 2026-12-02T10:00:00.000Z; Auto Scaling group eks-general is terminating the machine';

const counts = (rows: readonly ReportRow[]): Record<Condition, number> => {
  const out = Object.fromEntries(CONDITIONS.map((c) => [c, 0])) as Record<Condition, number>;
  for (const row of rows) out[row.condition] += 1;
  return out;
};

function aReport(rows: readonly ReportRow[], over: Partial<RunReport> = {}): RunReport {
  return {
    kind: 'sweep',
    cluster: 'demo',
    startedAt: new Date(START).toISOString(),
    durationMs: 12,
    dryRun: false,
    conditions: counts(rows),
    rows,
    actions: [],
    skipped: [],
    errors: [],
    incomplete: [],
    timings: { observeMs: 1, decideMs: 1, actMs: 1 },
    apiCalls: {},
    ...over,
  };
}

const inSync = (n: number): ReportRow => ({
  node: `ip-10-0-0-${n}.ec2.internal`,
  instanceId: `i-0${String(n).padStart(16, '0')}`,
  condition: 'in-sync',
  reason: 'is running and the node is Ready',
});

const slated: ReportRow = {
  node: 'ip-10-0-9-9.ec2.internal',
  instanceId: 'i-09999999999999999',
  condition: 'slated-for-removal',
  reason: LONG_WHY,
};
const gone: ReportRow = {
  instanceId: 'i-08888888888888888',
  condition: 'gone',
  reason: 'i-08888888888888888 is terminated and has no Node object',
};

describe('formatRunReport', () => {
  it('should say what a bounded summary (the sweep function’s answer) left out, and where the rest is', () => {
    const summary = summarizeReport(aReport(Array.from({ length: 120 }, (_, i) => inSync(i))), 100);

    const text = formatRunReport(summary);

    expect(text).toContain('not shown: 20 rows');
    expect(text).toContain('sweep --dry-run');
    expect(formatRunReport(aReport([inSync(1)]))).not.toContain('not shown');
  });

  const report = aReport([slated], {
    actions: [{ kind: 'cordon', node: slated.node, reason: LONG_WHY, outcome: 'done' }],
    skipped: [{ kind: 'drain', node: slated.node, reason: LONG_WHY }],
  });

  it('should cut a long WHY to fit a terminal by default, and say so with an ellipsis', () => {
    const text = formatRunReport(report);
    expect(text).not.toContain(LONG_WHY);
    expect(text).toContain(`${LONG_WHY.slice(0, 69)}…`);
  });

  it('should print every WHY and BECAUSE whole with -o wide', () => {
    const text = formatRunReport(report, { wide: true });
    expect(text).not.toContain('…');
    // The row, the action and the skip: three whole reasons.
    expect(text.split(LONG_WHY)).toHaveLength(4);
  });
});

describe('formatSimulation', () => {
  /** A big cluster (its in-sync rows are folded) whose end has a gone machine. */
  const sim: Simulation<RunReport> = {
    name: 'wide',
    start: START,
    before: aReport([...Array.from({ length: 25 }, (_, n) => inSync(n + 1)), slated]),
    after: aReport([...Array.from({ length: 24 }, (_, n) => inSync(n + 1)), slated, gone]),
    steps: [],
    drains: [],
    denied: [],
  };

  it('should show a gone machine as its own row and count, not as in-sync', () => {
    const text = formatSimulation(sim);
    const after = text.slice(text.indexOf('AFTER'));
    expect(after).toMatch(
      /\(no node\)\s+i-08888888888888888\s+gone\s+i-08888888888888888 is terminated and has no Node object/,
    );
    expect(after).toContain('… and 24 more in-sync');
    expect(text).toContain('after:  in-sync 24, gone 1, slated-for-removal 1');
  });

  it('should print whole WHY cells with -o wide, cut ones by default', () => {
    expect(formatSimulation(sim)).not.toContain(LONG_WHY);
    expect(formatSimulation(sim, { wide: true }).split(LONG_WHY)).toHaveLength(3); // BEFORE and AFTER
  });
});

describe('-o', () => {
  it('should take table, wide and json, and refuse anything else naming them', () => {
    expect(outputMode({})).toBe('table');
    expect(outputMode({ output: 'wide' })).toBe('wide');
    expect(outputMode({ output: 'json' })).toBe('json');
    expect(tableStyle('wide')).toEqual({ wide: true });
    expect(tableStyle('table')).toEqual({ wide: false });
    expect(() => outputMode({ output: 'yaml' })).toThrow(CliError);
    expect(() => outputMode({ output: 'yaml' })).toThrow('-o/--output: expected table, wide, json, got yaml');
  });
});
