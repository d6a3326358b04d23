// The repair metrics (DESIGN §1b) the dashboard's Repairs widget reads: counted from the run report,
// only what was carried out (a dry run's planned repair counts for nothing), stand-downs by Node.
import { describe, expect, it } from 'vitest';
import { CONDITIONS } from '../../lib/model/condition.js';
import { createTelemetry, recordRunMetrics } from '../../lib/lambda/telemetry.js';
import type { ReportAction, RunReport } from '../../lib/report/report.js';

const standDown = { group: 'ng-a', unhealthy: 3, members: 10, allowed: 2, maxUnhealthyPercent: 20 };

function report(actions: ReportAction[], skipped: RunReport['skipped'] = []): RunReport {
  return {
    kind: 'sweep',
    cluster: 'demo',
    startedAt: '2026-11-29T12:00:00.000Z',
    durationMs: 12,
    dryRun: false,
    conditions: Object.fromEntries(CONDITIONS.map((c) => [c, 0])) as RunReport['conditions'],
    rows: [],
    actions,
    skipped,
    errors: [],
    incomplete: [],
    timings: { observeMs: 1, decideMs: 1, actMs: 1 },
    apiCalls: {},
  };
}

/** The values of the named metrics in the EMF blob the run's metrics serialize to. */
function emitted(run: RunReport, names: readonly string[]): Record<string, unknown> {
  const { metrics } = createTelemetry('demo');
  recordRunMetrics(metrics, run);
  const blob = metrics.serializeMetrics() as unknown as Record<string, unknown>;
  return Object.fromEntries(names.map((name) => [name, blob[name]]));
}

const REPAIR_METRICS = ['RepairsStarted', 'NodesRepaired', 'RepairsCancelled', 'RepairsBlocked'] as const;

describe('repair metrics', () => {
  it('should count repair drains started, machines replaced, repairs cancelled and stand-downs', () => {
    const run = report(
      [
        { kind: 'cordon', node: 'n1', reason: 'repair', outcome: 'done' },
        { kind: 'repair', step: 'drain', node: 'n1', reason: 'repair', outcome: 'started' },
        { kind: 'repair', step: 'drain', node: 'n2', reason: 'repair', outcome: 'failed' },
        { kind: 'repair', step: 'replace', node: 'n3', reason: 'repair', outcome: 'done' },
        { kind: 'repair', step: 'replace', node: 'n4', reason: 'repair', outcome: 'done' },
        { kind: 'repair', step: 'cancel', node: 'n5', reason: 'recovered', outcome: 'done' },
      ],
      [
        { kind: 'repair', node: 'n6', reason: 'stand down', standDown },
        { kind: 'repair', node: 'n7', reason: 'stand down', standDown },
        { kind: 'repair', node: 'n8', reason: 'waits its turn' },
      ],
    );
    expect(emitted(run, REPAIR_METRICS)).toEqual({ RepairsStarted: 1, NodesRepaired: 2, RepairsCancelled: 1, RepairsBlocked: 2 });
  });

  it('should count nothing carried out in a dry run, though the stand-down is still reported', () => {
    const run = report(
      [
        { kind: 'cordon', node: 'n1', reason: 'repair', outcome: 'dry-run' },
        { kind: 'repair', step: 'drain', node: 'n1', reason: 'repair', outcome: 'dry-run' },
        { kind: 'repair', step: 'replace', node: 'n3', reason: 'repair', outcome: 'dry-run' },
      ],
      [{ kind: 'repair', node: 'n6', reason: 'stand down', standDown }],
    );
    expect(emitted(run, REPAIR_METRICS)).toEqual({ RepairsStarted: 0, NodesRepaired: 0, RepairsCancelled: 0, RepairsBlocked: 1 });
  });
});
