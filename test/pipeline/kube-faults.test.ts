// The Kubernetes API misbehaving under a sweep: API Priority and Fairness throttling (429 with
// Retry-After) and an API server restarting (503) are ridden out by KubeClient's GET retries,
// waiting on the virtual clock; a write refused the same way is reported, never retried blindly.
import { describe, expect, it } from 'vitest';
import { conditionCounts, nodeName, pairs, usePipelineWorld, type PipelineWorld } from '../support/pipeline-world.js';

let world: PipelineWorld;
usePipelineWorld((w) => (world = w));

const statuses = (resource: string) =>
  world.kube.requestLog.entries.filter((e) => e.resource === resource && e.verb === 'list').map((e) => e.status);

describe('a throttled or restarting API server', () => {
  it('should sweep as usual through a throttled node list and an unavailable lease list', async () => {
    pairs.inSync(world, 1);
    pairs.staleTerminated(world, 2);
    world.kube.faults.add({ verb: 'list', resource: 'nodes', effect: { status: 429, retryAfterSeconds: 2 }, times: 2 });
    world.kube.faults.add({ verb: 'list', resource: 'leases', effect: { status: 503 }, times: 1 });
    const before = world.clock.now();

    const report = await world.sweep();

    expect(report.errors).toEqual([]);
    expect(report.conditions).toEqual(conditionCounts({ 'in-sync': 1, 'stale-object': 1 }));
    expect(world.kube.store.getNode(nodeName(2))).toBeUndefined();
    expect(statuses('nodes')).toEqual([429, 429, 200]);
    expect(statuses('leases')).toEqual([503, 200]);
    // Waited as asked (2 s twice, then 1 s), in emulated time.
    expect(world.clock.now() - before).toBeGreaterThanOrEqual(5_000);
    // The report counts calls, not attempts.
    expect(report.apiCalls['kube GET nodes']).toBe(1);
    expect(report.apiCalls['kube GET leases']).toBe(1);
  });

  it('should fail the sweep, saying why, when the node list stays unavailable', async () => {
    pairs.staleTerminated(world, 2);
    world.kube.faults.add({ verb: 'list', resource: 'nodes', effect: { status: 503, message: 'etcd leader changed' } });

    await expect(world.sweep()).rejects.toThrow(
      /GET \/api\/v1\/nodes: HTTP 503 ServiceUnavailable: etcd leader changed/,
    );

    // The first attempt and the client's five retries.
    expect(statuses('nodes')).toEqual([503, 503, 503, 503, 503, 503]);
    expect(world.kube.store.getNode(nodeName(2))).toBeDefined();
  });
});
