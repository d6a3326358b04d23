// The arithmetic of packages/model/src/contract/api-budgets.ts, on what the stack deploys: the events function's
// event source mapping (MaximumConcurrency, BatchSize, MaximumBatchingWindowInSeconds) against
// EC2's DescribeInstances bucket, API Priority and Fairness seats and a spot warning's two minutes.
import { describe, expect, it } from 'vitest';
import { EC2_DESCRIBE_BUCKETS, KUBE_SEATS } from '@ec2-node-reconciler/model/contract/api-budgets.js';
import { FILTER_BATCH } from '../../lib/aws/ec2.js';
import { SPOT_NOTICE_MS } from '@ec2-node-reconciler/model/spot-notice.js';
import { defaultStack } from './support/synth.js';
import { resources } from './support/template.js';

interface MappingProperties {
  readonly BatchSize: number;
  readonly MaximumBatchingWindowInSeconds?: number;
  readonly ScalingConfig?: { readonly MaximumConcurrency?: number };
}

function mapping(): MappingProperties {
  const mappings = resources(defaultStack().template, 'AWS::Lambda::EventSourceMapping');
  expect(mappings).toHaveLength(1);
  return mappings[0]?.[1].Properties as unknown as MappingProperties;
}

describe('the events function’s event source, against the API budgets', () => {
  it('should bound its invocations: a MaximumConcurrency and a batching window of at least a second', () => {
    const { ScalingConfig, MaximumBatchingWindowInSeconds, BatchSize } = mapping();
    expect(ScalingConfig?.MaximumConcurrency).toBeGreaterThanOrEqual(2);
    expect(MaximumBatchingWindowInSeconds).toBeGreaterThanOrEqual(1);
    // A batch is one DescribeInstances (the instance-id filter takes 200 values).
    expect(BatchSize).toBeLessThanOrEqual(FILTER_BATCH);
  });

  it('should keep its Kubernetes requests in flight within 20 of API Priority and Fairness’s 49 seats', () => {
    const concurrency = mapping().ScalingConfig?.MaximumConcurrency ?? Number.POSITIVE_INFINITY;
    const inFlight = concurrency * KUBE_SEATS.perInvocation;
    expect(inFlight).toBeLessThanOrEqual(KUBE_SEATS.goal);
    expect(KUBE_SEATS.goal).toBeLessThan(KUBE_SEATS.globalDefault);
  });

  it('should ask EC2 at most half the DescribeInstances bucket’s refill a second, leaving the rest to every other caller', () => {
    const { ScalingConfig, MaximumBatchingWindowInSeconds = 0 } = mapping();
    const concurrency = ScalingConfig?.MaximumConcurrency ?? Number.POSITIVE_INFINITY;
    // Each slot starts a new batch at most once a window, and each batch asks EC2 once.
    const describesPerSecond = concurrency / MaximumBatchingWindowInSeconds;
    expect(describesPerSecond).toBeLessThanOrEqual(EC2_DESCRIBE_BUCKETS.nonMutating.refillPerSecond / 2);
    // Even the smaller bucket of unfiltered calls would hold it.
    expect(describesPerSecond).toBeLessThanOrEqual(EC2_DESCRIBE_BUCKETS.unfilteredUnpaginated.refillPerSecond);
  });

  it('should take in a storm of 500 warnings well within a spot warning’s two minutes', () => {
    const { ScalingConfig, MaximumBatchingWindowInSeconds = 0, BatchSize } = mapping();
    const concurrency = ScalingConfig?.MaximumConcurrency ?? 0;
    // With batches done within their window (a batch is a few round trips: see the storm benchmark).
    const eventsPerSecond = (concurrency * BatchSize) / Math.max(MaximumBatchingWindowInSeconds, 1);
    const secondsFor500 = 500 / eventsPerSecond;
    expect(secondsFor500 * 1000).toBeLessThan(SPOT_NOTICE_MS / 4);
  });
});
