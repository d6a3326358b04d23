// The repair metrics (docs/design.md §1b) the dashboard's Repairs widget reads: counted from the run report,
// only what was carried out (a dry run's planned repair counts for nothing), stand-downs by Node.
import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DrainOutcome, DrainStepOutput } from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import { METRIC_NAMES } from '@ec2-node-reconciler/model/contract/metrics.js';
import { CONDITIONS } from '@ec2-node-reconciler/model/condition.js';
import {
  createTelemetry,
  recordDrainStepMetrics,
  recordEventProcessed,
  recordRunMetrics,
} from '../../lib/lambda/telemetry.js';
import type { ReportAction, RunReport } from '../../lib/report/report.js';
import { aDrainSummary } from '../support/world.js';

const standDown = {
  scope: 'group' as const,
  group: 'ng-a',
  unhealthy: 3,
  members: 10,
  allowed: 2,
  maxUnhealthyPercent: 20,
};

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
    expect(emitted(run, REPAIR_METRICS)).toEqual({
      RepairsStarted: 1,
      NodesRepaired: 2,
      RepairsCancelled: 1,
      RepairsBlocked: 2,
    });
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
    expect(emitted(run, REPAIR_METRICS)).toEqual({
      RepairsStarted: 0,
      NodesRepaired: 0,
      RepairsCancelled: 0,
      RepairsBlocked: 1,
    });
  });
});

function drainStepOutput(outcome: DrainOutcome, leftByReason: Record<string, number> = {}): DrainStepOutput {
  return {
    outcome,
    waitSeconds: 10,
    state: {},
    deadline: '2026-11-29T13:00:00.000Z',
    summary: aDrainSummary({ leftByReason }),
  };
}

// The dashboard and alarms read METRIC_NAMES (infra/observability.ts); the recorders can only write
// those names (they compile against them). What is left to check: that every name is written.
describe('metric names', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('should write every metric the dashboard and alarms read', () => {
    // prepare: every recorder, with a run and drain steps that touch each of their metrics
    const written = new Set<string>();
    vi.spyOn(Metrics.prototype, 'addMetric').mockImplementation(function (this: Metrics, name: string) {
      written.add(name);
      return this;
    });
    const { metrics } = createTelemetry('demo');
    // act
    recordEventProcessed(metrics);
    recordRunMetrics(
      metrics,
      report([{ kind: 'report', node: 'n1', reason: 'stale', outcome: 'done', condition: 'stale-object' }]),
    );
    for (const outcome of ['done', 'deadline', 'incomplete'] as const)
      recordDrainStepMetrics(metrics, drainStepOutput(outcome));
    // assess
    expect([...written].sort()).toEqual(Object.values(METRIC_NAMES).sort());
  });

  it('should count blocked pods but not those still waiting for their turn or their eviction', () => {
    const { metrics } = createTelemetry('demo');
    recordDrainStepMetrics(
      metrics,
      drainStepOutput('incomplete', { 'blocked-by-pdb': 2, unreplicated: 1, pending: 4, waiting: 3 }),
    );
    const blob = metrics.serializeMetrics() as unknown as Record<string, unknown>;
    expect({
      EvictionsBlocked: blob['EvictionsBlocked'],
      DrainsIncomplete: blob['DrainsIncomplete'],
      DrainsCompleted: blob['DrainsCompleted'],
    }).toEqual({
      EvictionsBlocked: 3,
      DrainsIncomplete: 1,
      DrainsCompleted: undefined,
    });
  });
});
