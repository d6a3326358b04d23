// What `simulate --replay` and `--compare` count a run did (cli/format/replay.ts): its reports' actions,
// and the lifecycle actions its drain workflows completed, which no run report lists.
import { describe, expect, it } from 'vitest';
import type { DrainRecord, Simulation } from '@ec2-node-reconciler/sandbox/simulate/run.js';
import { actionCounts, actionCountsJson } from '../../cli/format/replay.js';
import { CONDITIONS } from '@ec2-node-reconciler/model/condition.js';
import type { ReportAction, RunReport } from '../../lib/report/report.js';

const report = (actions: ReportAction[]): RunReport => ({
  kind: 'event',
  cluster: 'demo',
  startedAt: '2026-11-29T12:00:00Z',
  durationMs: 1,
  dryRun: false,
  conditions: Object.fromEntries(CONDITIONS.map((c) => [c, 0])) as RunReport['conditions'],
  rows: [],
  actions,
  skipped: [],
  errors: [],
  incomplete: [],
  timings: { observeMs: 0, decideMs: 0, actMs: 0 },
  apiCalls: {},
});

const drain = (node: string, completed: boolean): DrainRecord => ({
  node,
  instanceId: 'i-0bb0000000000e101',
  status: 'drained',
  startedAt: 0,
  finishedAt: 1,
  steps: 1,
  evicted: 1,
  terminating: 0,
  left: 0,
  leftByReason: {},
  blocked: [],
  graceShortened: [],
  lifecycle: { group: 'eks-ng-general', hook: 'ec2-node-reconciler-drain', completed },
  execution: `drain-${node}`,
});

describe('actionCounts', () => {
  it('should count the lifecycle actions the drain workflow completed, with the reports’ actions', () => {
    const empty = report([]);
    const sim: Simulation<RunReport> = {
      name: 's',
      start: 0,
      before: empty,
      after: empty,
      steps: [
        {
          step: 1,
          at: 0,
          kind: 'event',
          detailType: 'EC2 Instance-terminate Lifecycle Action',
          attempt: 1,
          report: report([{ kind: 'drain', mode: 'start', node: 'n1', reason: 'scale-in', outcome: 'started' }]),
        },
      ],
      drains: [drain('n1', true), drain('n2', false)],
      denied: [],
    };
    const counts = actionCounts(sim);
    expect(Object.fromEntries([...counts].map(([node, m]) => [node, Object.fromEntries(m)]))).toEqual({
      n1: { drain: 1, 'complete-lifecycle CONTINUE': 1 },
    });
  });
});

describe('actionCountsJson', () => {
  it('should give each node’s counts by action, nodes and actions in name order (simulate -o json’s actions)', () => {
    const counts = new Map([
      ['n2', new Map([['drain', 1]])],
      [
        'n1',
        new Map([
          ['uncordon', 1],
          ['cordon', 2],
        ]),
      ],
    ]);
    const json = actionCountsJson(counts);
    expect(JSON.stringify(json)).toBe('{"n1":{"cordon":2,"uncordon":1},"n2":{"drain":1}}');
  });
});
