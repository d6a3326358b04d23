import { describe, expect, it } from 'vitest';
import type { ReportAction, ReportRow, RunReport } from '../../lib/report/report.js';
import { SUMMARY_LIST_LIMIT, summarizeReport } from '../../lib/report/summary.js';

const row = (i: number, condition: ReportRow['condition'] = 'in-sync'): ReportRow => ({
  node: `ip-10-0-${Math.floor(i / 256) % 256}-${i % 256}.ec2.internal`,
  instanceId: `i-0${i.toString(16).padStart(16, '0')}`,
  condition,
  reason: condition === 'in-sync' ? 'running machine, live node' : 'the machine is terminated',
});

const action = (i: number, kind: ReportAction['kind'], outcome: ReportAction['outcome']): ReportAction => ({
  kind,
  node: row(i).node ?? '',
  reason: 'the machine is terminated',
  outcome,
});

function reportOf(parts: Partial<RunReport>): RunReport {
  return {
    kind: 'sweep',
    cluster: 'demo',
    startedAt: '2026-12-03T00:00:00.000Z',
    durationMs: 1,
    dryRun: false,
    conditions: { 'in-sync': 0 } as RunReport['conditions'],
    rows: [],
    actions: [],
    skipped: [],
    errors: [],
    incomplete: [],
    timings: { observeMs: 0, decideMs: 0, actMs: 0 },
    apiCalls: {},
    ...parts,
  };
}

describe('summarizeReport', () => {
  it('should keep a report within bounds whole', () => {
    const report = reportOf({ rows: [row(1), row(2, 'stale-object')], actions: [action(2, 'delete', 'done')] });

    expect(summarizeReport(report)).toEqual(report);
  });

  it('should bound a report of 100,000 pairs, keeping counts, divergences, failures and what it left out', () => {
    const rows = Array.from({ length: 100_000 }, (_, i) => row(i, i % 1000 === 999 ? 'stale-object' : 'in-sync'));
    const actions = [
      ...Array.from({ length: 3_000 }, (_, i) => action(i, 'report', 'done')),
      ...Array.from({ length: 100 }, (_, i) => action(i, 'delete', 'done')),
      action(7, 'delete', 'failed'),
    ];
    const skipped = Array.from({ length: 500 }, (_, i) => ({ kind: 'delete' as const, reason: `blocked ${i}` }));
    const errors = Array.from({ length: 400 }, (_, i) => `delete n${i}: 409`);
    const report = reportOf({ rows, actions, skipped, errors });

    const summary = summarizeReport(report);

    expect(JSON.stringify(report).length).toBeGreaterThan(10_000_000);
    expect(JSON.stringify(summary).length).toBeLessThan(100_000);
    expect(summary.conditions).toBe(report.conditions);
    expect(summary.rows).toHaveLength(SUMMARY_LIST_LIMIT);
    expect(summary.rows.every((r) => r.condition === 'stale-object')).toBe(true);
    expect(summary.actions).toHaveLength(SUMMARY_LIST_LIMIT);
    expect(summary.actions.some((a) => a.outcome === 'failed')).toBe(true);
    expect(summary.actions.every((a) => a.kind === 'delete')).toBe(true);
    expect(summary.skipped).toEqual(skipped.slice(0, SUMMARY_LIST_LIMIT));
    expect(summary.omitted).toEqual({
      rows: 100_000 - SUMMARY_LIST_LIMIT,
      actions: 3_101 - SUMMARY_LIST_LIMIT,
      skipped: 500 - SUMMARY_LIST_LIMIT,
      errors: 400 - SUMMARY_LIST_LIMIT,
    });
  });
});
