// The operator's drain options (the CLI's `drain --grace-period` and `--dry-run`): a grace period given
// to every eviction, and a preview that judges every pod and writes nothing.
import { describe, expect, it } from 'vitest';
import { podKey } from '../../lib/drain/api.js';
import { runDrain } from '../../cli/drain/driver.js';
import { previewDrain } from '../../cli/drain/preview.js';
import { pod } from './support/fake-api.js';
import { harness, seedMixedNode, START } from './support/scenario.js';

describe('a drain with a grace period of its own', () => {
  it('should give every evicted pod that grace period instead of its own, and note no shortening', async () => {
    const { cluster, clock, deps, request } = harness();
    cluster.addPod(pod('slow', { owner: ['ReplicaSet', 'a'], grace: 120 }));
    cluster.addPod(pod('quick', { owner: ['ReplicaSet', 'b'], grace: 0 }));

    const result = await runDrain(deps, { ...request, gracePeriodSeconds: 7 });

    expect(result.status).toBe('drained');
    // The 120 s pod went after 7 s (one poll of slack), not after its own grace period.
    expect(clock.now() - START).toBeLessThanOrEqual(7_000 + deps.settings.pollIntervalMs);
    expect(result.pods.map((r) => [podKey(r.pod), r.status, r.grace])).toEqual([
      ['default/quick', 'evicted', undefined],
      ['default/slow', 'evicted', undefined],
    ]);
  });

  it('should still shorten it to end before the deadline, and say so', async () => {
    const { cluster, deps, request } = harness({ deadlineMs: 60_000 });
    cluster.addPod(pod('slow', { owner: ['ReplicaSet', 'a'], grace: 30 }));

    const result = await runDrain(deps, { ...request, gracePeriodSeconds: 300 });

    expect(result.status).toBe('drained');
    // 60 s to the deadline less the 5 s margin.
    expect(result.pods[0]?.grace).toEqual({ pod: 300, given: 55 });
  });
});

describe('previewDrain', () => {
  it('should judge every pod as the drain would, and send no write', async () => {
    const { cluster, deps } = harness({ settings: { evictUnreplicated: false } });
    seedMixedNode(cluster);

    const preview = await previewDrain(deps, 'node-a');

    const names = (planned: readonly { pod: { namespace: string; name: string } }[] = []) =>
      planned.map((p) => podKey(p.pod));
    expect(names(preview?.plan.toEvict)).toEqual([
      'default/cache',
      'default/db-0',
      'default/job-done',
      'default/web-1',
      'default/web-2',
    ]);
    expect(names(preview?.plan.refused)).toEqual(['default/bare', 'kube-system/orphan-x']);
    expect(names(preview?.plan.skipped)).toEqual(['kube-system/agent-x', 'kube-system/etcd-node-a']);
    expect(names(preview?.plan.waiting)).toEqual(['default/leaving']);
    expect(preview?.node.unschedulable).toBe(false);
    expect(cluster.calls.filter((c) => c.op === 'patchNode' || c.op === 'evictPod')).toEqual([]);
  });

  it('should say nothing of a node that does not exist', async () => {
    const { deps } = harness();
    expect(await previewDrain(deps, 'nope')).toBeUndefined();
  });
});
