import { describe, expect, it } from 'vitest';
import { podKey, type DrainApi, type PodRef } from '../../lib/drain/api.js';
import { runDrain } from '../../cli/drain/driver.js';
import type { PodReport } from '../../lib/drain/pod-report.js';
import { checkOffsetMs } from '../../lib/drain/next-check.js';
import { drainStep } from '../../lib/drain/step.js';
import type { DrainStepResult } from '../../lib/drain/step-result.js';
import { CORDONED_BY_ANNOTATION } from '@ec2-node-reconciler/model/contract/labels.js';
import { pod } from './support/fake-api.js';
import { harness, seedMixedNode, START } from './support/scenario.js';

const statusOf = (result: DrainStepResult): Record<string, string> =>
  Object.fromEntries(result.pods.map((r: PodReport) => [podKey(r.pod), r.status]));

describe('drainStep', () => {
  it('should drain a node the way kubectl drain --ignore-daemonsets --delete-emptydir-data --force does', async () => {
    const { cluster, deps, request } = harness();
    seedMixedNode(cluster);

    const result = await runDrain(deps, request);

    expect(result).toMatchObject({ status: 'drained', remaining: [], blocked: [], nextCheckAfterMs: 0 });
    expect(cluster.podsOn('node-a').map(podKey)).toEqual(['kube-system/agent-x', 'kube-system/etcd-node-a']);
    expect(cluster.podsOn('node-b').map(podKey)).toEqual(['default/elsewhere']);
    expect(statusOf(result)).toEqual({
      'default/bare': 'evicted',
      'default/cache': 'evicted',
      'default/db-0': 'evicted',
      'default/job-done': 'evicted',
      'default/web-1': 'evicted',
      'default/web-2': 'evicted',
      // Terminating before the drain began: waited on, not evicted.
      'default/leaving': 'gone',
      'kube-system/orphan-x': 'evicted',
      'kube-system/agent-x': 'skipped-daemonset',
      'kube-system/etcd-node-a': 'skipped-mirror',
    });
    expect(cluster.nodes.get('node-a')).toMatchObject({
      unschedulable: true,
      annotations: { [CORDONED_BY_ANNOTATION]: 'ec2-node-reconciler' },
    });
    expect(
      cluster
        .evictions()
        .map((c) => c.name)
        .sort(),
    ).toEqual([
      'default/bare',
      'default/cache',
      'default/db-0',
      'default/job-done',
      'default/web-1',
      'default/web-2',
      'kube-system/orphan-x',
    ]);
  });

  it('should finish when the longest grace period ends, not the sum of them', async () => {
    const { cluster, clock, deps, request } = harness();
    seedMixedNode(cluster);
    await runDrain(deps, request);
    // db-0 has the longest grace (60 s); one poll interval of slack.
    expect(clock.now() - START).toBeGreaterThanOrEqual(60_000);
    expect(clock.now() - START).toBeLessThanOrEqual(60_000 + deps.settings.pollIntervalMs);
  });

  it('should retry a PDB-blocked eviction after the back-off and evict once the budget allows', async () => {
    const { cluster, deps, request } = harness();
    for (const name of ['web-1', 'web-2', 'web-3']) cluster.addPod(pod(name, { owner: ['ReplicaSet', 'web'] }));
    cluster.pdbs.push({ namespace: 'default', name: 'web-pdb', covers: (p) => p.name.startsWith('web-'), allowed: 1 });
    const progress: DrainStepResult[] = [];

    const result = await runDrain({ ...deps, onProgress: (p) => progress.push(p) }, request);

    expect(result.status).toBe('drained');
    const first = progress[0];
    expect(first?.blocked).toEqual([
      {
        pod: expect.objectContaining({ name: 'web-2' }) as unknown,
        pdb: 'default/web-pdb',
        reason: expect.stringContaining('blocked by PodDisruptionBudget default/web-pdb') as unknown,
      },
      {
        pod: expect.objectContaining({ name: 'web-3' }) as unknown,
        pdb: 'default/web-pdb',
        reason: expect.stringContaining('attempt 1') as unknown,
      },
    ]);
    expect(first?.nextCheckAfterMs).toBe(deps.settings.pollIntervalMs);
    // Each pod is evicted successfully exactly once; refusals are retried on the back-off, not in a tight loop.
    expect([...cluster.accepted].sort()).toEqual(['default/web-1', 'default/web-2', 'default/web-3']);
    expect(cluster.evictions().length).toBeLessThanOrEqual(
      3 + 2 * Math.ceil(60_000 / deps.settings.evictionRetryDelayMs),
    );
  });

  it('should report a pod under several PDBs, drain the others, and end incomplete', async () => {
    const { cluster, deps, request } = harness({ deadlineMs: 120_000 });
    cluster.addPod(pod('web-1', { owner: ['ReplicaSet', 'web'] }));
    cluster.addPod(pod('api-1', { owner: ['ReplicaSet', 'api'] }));
    cluster.pdbs.push(
      { namespace: 'default', name: 'a', covers: (p) => p.name === 'api-1', allowed: 1 },
      { namespace: 'default', name: 'b', covers: (p) => p.name === 'api-1', allowed: 1 },
    );

    const result = await runDrain(deps, request);

    expect(result.status).toBe('incomplete');
    expect(statusOf(result)).toEqual({ 'default/web-1': 'evicted', 'default/api-1': 'multiple-pdbs' });
    expect(result.blocked).toEqual([
      {
        pod: expect.objectContaining({ name: 'api-1' }) as unknown,
        reason: expect.stringContaining('more than one PodDisruptionBudget') as unknown,
      },
    ]);
    expect(result.remaining[0]?.left).toBe('incomplete');
  });

  it('should stop at the deadline and say exactly what is left and why', async () => {
    const { cluster, clock, deps, request } = harness({ deadlineMs: 45_000, settings: { gracePeriod: 'pod' } });
    cluster.addPod(pod('stuck', { owner: ['ReplicaSet', 'a'] }));
    cluster.addPod(pod('slow', { owner: ['ReplicaSet', 'b'], grace: 600 }));
    cluster.addPod(pod('quick', { owner: ['ReplicaSet', 'c'], grace: 5 }));
    cluster.pdbs.push({ namespace: 'default', name: 'stuck-pdb', covers: (p) => p.name === 'stuck', allowed: 0 });

    const result = await runDrain(deps, request);

    expect(clock.now()).toBe(request.deadline);
    // A blocked pod is left: the drain is incomplete, not merely late.
    expect(result).toMatchObject({ status: 'incomplete', nextCheckAfterMs: 0 });
    expect(result.remaining).toEqual([
      expect.objectContaining({
        status: 'terminating',
        removal: 'evicted',
        left: 'incomplete',
        reason: expect.stringContaining('evicted') as unknown,
      }),
      expect.objectContaining({ status: 'blocked-by-pdb', pdb: 'default/stuck-pdb', left: 'incomplete' }),
    ]);
    expect(result.counts).toMatchObject({ evicted: 2, terminating: 1, left: 1, blocked: 1 });
    expect(result.remaining.map((r) => r.pod.name)).toEqual(['slow', 'stuck']);
    expect(statusOf(result)['default/quick']).toBe('evicted');
  });

  it('should count a pod that vanished before its eviction as gone', async () => {
    const { cluster, deps, request } = harness();
    const p = cluster.addPod(pod('web', { owner: ['ReplicaSet', 'web'] }));
    const api: DrainApi = {
      ...bind(cluster),
      evictPod: (ref: PodRef) => {
        cluster.pods.delete(podKey(ref));
        return cluster.evictPod(ref);
      },
    };
    const result = await drainStep({ ...deps, api }, request, undefined, 0);
    expect(result.status).toBe('drained');
    expect(result.pods).toEqual([
      { pod: { namespace: 'default', name: 'web', uid: p.uid }, status: 'gone', reason: expect.any(String) as unknown },
    ]);
  });

  it('should evict the others, leave refused pods, report them, and call the drain incomplete', async () => {
    const { cluster, deps, request } = harness({ settings: { deleteEmptyDirData: false, evictUnreplicated: false } });
    cluster.addPod(pod('bare'));
    cluster.addPod(pod('cache', { owner: ['ReplicaSet', 'c'], emptyDir: true }));
    cluster.addPod(pod('web', { owner: ['ReplicaSet', 'w'] }));

    const result = await runDrain(deps, request);

    expect(result).toMatchObject({ status: 'incomplete', counts: { evicted: 1, left: 2 } });
    expect(result.blocked.map((b) => [b.pod.name, b.reason])).toEqual([
      ['bare', 'declares no controller (nothing would recreate it); set evictUnreplicated to evict it'],
      ['cache', 'uses emptyDir (local data would be lost); set deleteEmptyDirData to evict it'],
    ]);
    expect(cluster.podsOn('node-a').map((p) => p.name)).toEqual(['bare', 'cache']);
  });

  it('should wait while a DaemonSet cannot be looked up, then skip its pod', async () => {
    const { cluster, deps, request } = harness();
    cluster.daemonSets.add('default/agent');
    cluster.addPod(pod('agent-1', { owner: ['DaemonSet', 'agent'] }));
    let failures = 2;
    cluster.failOn = (call) =>
      call.op === 'daemonSetExists' && failures-- > 0 ? new Error('etcd timeout') : undefined;

    const first = await drainStep(deps, request, undefined, 0);
    const final = await runDrain(deps, request, { state: first.state });

    expect(first).toMatchObject({ status: 'in-progress', remaining: [expect.objectContaining({ status: 'waiting' })] });
    expect(final.status).toBe('drained');
    expect(statusOf(final)).toEqual({ 'default/agent-1': 'skipped-daemonset' });
  });

  it('should stop when the node is gone or a new node took its name, never calling either drained', async () => {
    const { cluster, deps, request } = harness();
    expect(await drainStep(deps, { ...request, node: 'nope' }, undefined, 0)).toMatchObject({
      status: 'node-gone',
      nextCheckAfterMs: 0,
    });
    const result = await drainStep(deps, { ...request, cordon: { reason: 'x', expectedUid: 'old' } }, undefined, 0);
    expect(result).toMatchObject({
      status: 'node-replaced',
      message: expect.stringContaining('is now another Node') as unknown,
    });
    expect(cluster.nodes.get('node-a')?.unschedulable).toBe(false);
  });

  it('should do one pass per step on a zero budget, carrying on through JSON state without touching the caller’s copy', async () => {
    const { cluster, deps, request } = harness();
    seedMixedNode(cluster);
    let state: unknown;
    let steps = 0;
    let result: DrainStepResult | undefined;
    for (; steps < 100; steps++) {
      const before = JSON.stringify(state);
      result = await drainStep(deps, request, state, 0);
      expect(JSON.stringify(state)).toBe(before);
      if (result.status !== 'in-progress') break;
      state = JSON.parse(JSON.stringify(result.state)) as unknown;
      await deps.sleep(result.nextCheckAfterMs);
    }
    expect(result?.status).toBe('drained');
    expect(steps).toBeGreaterThan(5);
    // Cordoned once; every step checks the Node's identity and cordon with one read.
    expect(cluster.calls.filter((c) => c.op === 'patchNode')).toHaveLength(1);
    expect(cluster.calls.filter((c) => c.op === 'getNode')).toHaveLength(steps + 1);
  });

  it('should keep at most evictionConcurrency evictions in flight', async () => {
    const { cluster, deps, request } = harness({ settings: { evictionConcurrency: 4 } });
    for (let i = 0; i < 20; i++) cluster.addPod(pod(`web-${i}`, { owner: ['ReplicaSet', 'web'] }));
    let inFlight = 0;
    let peak = 0;
    const api: DrainApi = {
      ...bind(cluster),
      evictPod: async (ref: PodRef) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((resolve) => setImmediate(resolve));
        inFlight--;
        return cluster.evictPod(ref);
      },
    };
    await drainStep({ ...deps, api }, request, undefined, 0);
    expect(peak).toBe(4);
    expect(cluster.evictions()).toHaveLength(20);
  });
});

/** The cluster's methods bound, so a test can replace one of them. */
function bind(api: DrainApi): DrainApi {
  return {
    getNode: (name) => api.getNode(name),
    patchNode: (name, patch) => api.patchNode(name, patch),
    listPodsOnNode: (node) => api.listPodsOnNode(node),
    daemonSetExists: (namespace, name) => api.daemonSetExists(namespace, name),
    evictPod: (ref, options) => api.evictPod(ref, options),
  };
}

describe('checkOffsetMs: drains started together look again apart', () => {
  it('should give every Node its own offset within 900 ms, the same one every time', () => {
    const names = Array.from({ length: 500 }, (_, i) => `ip-10-0-${i >> 8}-${i & 255}.ec2.internal`);
    const offsets = names.map(checkOffsetMs);

    expect(offsets.every((o) => Number.isInteger(o) && o >= 0 && o < 900)).toBe(true);
    expect(names.map(checkOffsetMs)).toEqual(offsets);
    // Spread over the second: no tenth of it holds more than a fifth of the Nodes.
    const tenths = Array.from({ length: 9 }, (_, t) => offsets.filter((o) => Math.floor(o / 100) === t).length);
    expect(Math.max(...tenths)).toBeLessThan(100);
  });
});
