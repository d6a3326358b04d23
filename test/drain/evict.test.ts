import { describe, expect, it } from 'vitest';
import { removePods, settleBounded } from '../../lib/drain/evict.js';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { FakeCluster, pod } from './support/fake-api.js';

describe('settleBounded', () => {
  it('should never have more than the limit in flight and keep results in input order', async () => {
    let inFlight = 0;
    let peak = 0;
    const results = await settleBounded([5, 1, 4, 2, 3, 0, 6], 3, async (n) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((resolve) => setTimeout(resolve, n));
      inFlight--;
      if (n === 4) throw new Error('four');
      return n * 10;
    });
    expect(peak).toBe(3);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : 'rejected'))).toEqual([
      50,
      10,
      'rejected',
      20,
      30,
      0,
      60,
    ]);
  });

  it('should handle no items', async () => {
    expect(await settleBounded([], 10, () => Promise.resolve(1))).toEqual([]);
  });
});

describe('removePods', () => {
  it('should give every pod a result and aggregate failures instead of stopping at the first', async () => {
    const cluster = new FakeCluster(new VirtualClock());
    const pods = ['a', 'b', 'c', 'd'].map((name) => cluster.addPod(pod(name, { owner: ['ReplicaSet', 'r'] })));
    cluster.pdbs.push({ namespace: 'default', name: 'pdb', covers: (p) => p.name === 'b', allowed: 0 });
    cluster.failOn = (call) =>
      call.op === 'evictPod' && call.name === 'default/c' ? new Error('socket hang up') : undefined;
    const [a, b, c, d] = pods;
    if (!a || !b || !c || !d) throw new Error('setup');
    const results = await removePods(
      cluster,
      [a, b, c, { ...d, uid: 'stale' }].map((p) => ({ pod: p })),
      { concurrency: 2 },
    );
    expect(results.map((r) => r.outcome.kind)).toEqual(['accepted', 'too-many-requests', 'error', 'replaced']);
    expect(results[1]?.outcome).toEqual(expect.objectContaining({ kind: 'too-many-requests', pdb: 'default/pdb' }));
    expect(results[2]?.outcome).toEqual(
      expect.objectContaining({ kind: 'error', message: 'evicting pod default/c: socket hang up' }),
    );
  });

  it('should not send what canStart refuses', async () => {
    const cluster = new FakeCluster(new VirtualClock());
    const p = cluster.addPod(pod('a', { owner: ['ReplicaSet', 'r'] }));
    const results = await removePods(cluster, [{ pod: p }], { concurrency: 1, canStart: () => false });
    expect(results[0]?.outcome).toEqual({ kind: 'not-attempted' });
    expect(cluster.evictions()).toEqual([]);
  });
});
