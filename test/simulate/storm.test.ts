// A small storm in the deployed-world sandbox (the 500-warning storm is the benchmark's:
// test/bench/storm.bench.ts): 50 spot interruption warnings within 10 s across 50 nodes of a
// 150-node cluster, with request latency on the virtual clock and EC2's token buckets on. Held to
// what the sandbox itself recorded: every warned Node cordoned before its deadline, EC2 asked once
// a batch and far under its bucket's refill, the reconciler within its Kubernetes seats.
import { beforeAll, describe, expect, it } from 'vitest';
import { EC2_DESCRIBE_BUCKETS, EVENT_SOURCE, KUBE_SEATS } from '@ec2-node-reconciler/model/contract/api-budgets.js';
import { spotStormScenarioText } from '../../scripts/make-storm-scenario.js';
import { runStorm, type StormRun } from '../support/storm.js';

const WARNINGS = 50;
let run: StormRun;

beforeAll(async () => {
  // Warned nodes run only a DaemonSet pod: the drains end at their first look, so few drain-step
  // environments (worker threads) run at once and the test stays small.
  run = await runStorm(
    spotStormScenarioText({ nodes: 150, warnings: WARNINGS, withinSeconds: 10, workload: false }),
    'small-spot-storm.json',
  );
}, 120_000);

describe('a storm of 50 spot warnings in the deployed world', () => {
  it('should hold the scenario’s expectations: a drain per warning, nothing dead-lettered, nothing deleted, nothing denied', () => {
    expect(run.simulation.expectations?.failures).toEqual([]);
    expect(run.simulation.denied).toEqual([]);
  });

  it('should cordon every warned Node before its deadline (the warning’s time + 2 minutes)', () => {
    expect(run.measures.cordons).toHaveLength(WARNINGS);
    expect(run.measures.cordons.filter((c) => c.cordonedAt === undefined || c.cordonedAt > c.deadline)).toEqual([]);
    expect(run.measures.cordonedWithinDeadlinePct).toBe(100);
  });

  it('should take the warnings in batches, each looked up in one DescribeInstances, far under the bucket’s refill', () => {
    const { invocations, maxConcurrent } = run.functions['events'] ?? { invocations: 0, maxConcurrent: 0 };
    expect(invocations).toBeGreaterThan(0);
    expect(invocations).toBeLessThan(WARNINGS / 2);
    expect(maxConcurrent).toBeLessThanOrEqual(EVENT_SOURCE.maxConcurrency);
    expect(run.measures.ec2DescribePerSecond.count).toBeLessThanOrEqual(
      EC2_DESCRIBE_BUCKETS.unfilteredUnpaginated.refillPerSecond,
    );
    expect(run.measures.ec2Throttled).toBe(0);
  });

  it('should keep the reconciler’s Kubernetes requests in flight within its seats, the events function within its share', () => {
    expect(run.measures.kubeRequests).toBeGreaterThan(WARNINGS * 3);
    expect(run.measures.kubeInFlightEvents.count).toBeLessThanOrEqual(
      EVENT_SOURCE.maxConcurrency * KUBE_SEATS.perInvocation,
    );
    expect(run.measures.kubeInFlight.count).toBeLessThanOrEqual(KUBE_SEATS.goal);
  });
});
