// AWS misbehaving under a full sweep: throttled reads (the SDK's adaptive retries ride them out;
// retries and the adaptive client-side rate limiter sleep in real time — about 1.5 s per throttle
// here — so the throttles are few) and PutEvents partial failures (the
// publisher retries the failed entries, never drops them silently).
import { describe, expect, it } from 'vitest';
import {
  nodeName,
  outputEvents,
  pairs,
  usePipelineWorld,
  conditionCounts,
  type PipelineWorld,
} from '../support/pipeline-world.js';

let world: PipelineWorld;
usePipelineWorld((w) => (world = w));

const counts = conditionCounts;

const putEventsEntries = (): number[] =>
  world.aws.requestLog.filter({ service: 'events', operation: 'PutEvents' }).map((e) => {
    const params: unknown = e.params;
    return typeof params === 'object' && params !== null && 'Entries' in params && Array.isArray(params.Entries)
      ? params.Entries.length
      : -1;
  });

describe('throttled AWS reads', () => {
  it('should sweep as usual through throttled DescribeInstances calls', async () => {
    pairs.inSync(world, 1);
    pairs.staleTerminated(world, 2);
    pairs.asgTerminatingWait(world, 3);
    world.aws.faults.throttle({ service: 'ec2', operation: 'DescribeInstances', count: 2 });

    const report = await world.sweep();

    expect(report.errors).toEqual([]);
    expect(report.conditions).toEqual(counts({ 'in-sync': 1, 'stale-object': 1, 'slated-for-removal': 1 }));
    expect(world.kube.store.getNode(nodeName(2))).toBeUndefined();
    expect(world.kube.store.getNode(nodeName(3))?.spec?.unschedulable).toBe(true);
    const throttled = world.aws.requestLog.entries
      .filter((e) => e.errorCode !== undefined)
      .map((e) => `${e.operation} ${e.status} ${e.errorCode ?? ''}`);
    expect(throttled).toEqual([
      'DescribeInstances 503 RequestLimitExceeded',
      'DescribeInstances 503 RequestLimitExceeded',
    ]);
    expect(world.aws.requestLog.filter({ operation: 'DescribeInstances' })).toHaveLength(3);
    // The report counts commands, not attempts.
    expect(report.apiCalls['ec2 DescribeInstances']).toBe(1);
  });
});

describe('PutEvents', () => {
  it('should publish in batches of 10 entries', async () => {
    for (let n = 1; n <= 12; n++) pairs.unresponsive(world, n);

    const report = await world.sweep();

    expect(report.errors).toEqual([]);
    expect(putEventsEntries()).toEqual([10, 2]);
    expect(outputEvents(world)).toHaveLength(12);
  });
});

describe('PutEvents partial failures', () => {
  it('should retry only the entries EventBridge failed, and deliver every output event', async () => {
    pairs.staleTerminated(world, 1);
    pairs.unresponsive(world, 2);
    pairs.unresponsive(world, 3);
    world.aws.faults.failEntries({ errorCode: 'InternalFailure', count: 1 });

    const report = await world.sweep();

    expect(report.errors).toEqual([]);
    expect(putEventsEntries()).toEqual([3, 1]);
    expect(
      outputEvents(world)
        .map((e) => e.detailType)
        .sort(),
    ).toEqual(['Divergence Detected', 'Divergence Detected', 'Node Deleted']);
  });

  it('should report entries still failing after the retries, without failing the run', async () => {
    pairs.staleTerminated(world, 1);
    pairs.unresponsive(world, 2);
    world.aws.faults.failEntries({
      errorCode: 'InternalFailure',
      match: (entry) => entry.detailType === 'Node Deleted',
    });

    const report = await world.sweep();

    expect(world.kube.store.getNode(nodeName(1))).toBeUndefined();
    expect(report.actions.find((a) => a.kind === 'delete')?.outcome).toBe('done');
    expect(report.errors).toEqual(['publishing Node Deleted: InternalFailure']);
    expect(putEventsEntries()).toEqual([2, 1, 1]);
    expect(outputEvents(world).map((e) => e.detailType)).toEqual(['Divergence Detected']);
  });

  it('should report a PutEvents call refused as a whole, without failing the run', async () => {
    pairs.staleTerminated(world, 1);
    world.aws.faults.fail({
      service: 'events',
      operation: 'PutEvents',
      code: 'AccessDeniedException',
      message: 'not authorized to perform: events:PutEvents',
      status: 400,
    });

    const report = await world.sweep();

    expect(world.kube.store.getNode(nodeName(1))).toBeUndefined();
    expect(report.errors).toEqual([
      expect.stringMatching(/^publishing output events: AccessDeniedException: not authorized/),
    ]);
  });
});
