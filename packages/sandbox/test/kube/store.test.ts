// The emulator's rules on a virtual clock: graceful deletion, evictions under PDBs, kubelet
// heartbeats and re-registration, garbage collection, pagination and optimistic concurrency.
import { beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { driveInRealTime } from '../../src/kube/real-time.js';
import { KubeStore, StatusError, type KubeObject, type NodeObject, type PdbObject } from '../../src/kube/index.js';

const N1 = 'ip-10-0-1-1.ec2.internal';
const N2 = 'ip-10-0-1-2.ec2.internal';
const START = Date.UTC(2026, 10, 29, 10, 0, 0);

let clock: VirtualClock;
let store: KubeStore;
beforeEach(() => {
  clock = new VirtualClock(START);
  store = new KubeStore(clock, { uids: 'sequential' });
  store.seedNode({ name: N1, instanceId: 'i-0a1b2c3d4e5f60001' });
  store.seedNode({ name: N2, instanceId: 'i-0a1b2c3d4e5f60002' });
});

/** The Status a failing store call throws. */
function statusOf(fn: () => unknown): { code: number; reason: string | undefined; message: string; causes: unknown } {
  try {
    fn();
  } catch (error) {
    if (error instanceof StatusError)
      return { code: error.code, reason: error.reason, message: error.message, causes: error.details?.causes };
    throw error;
  }
  throw new Error('expected a StatusError');
}

const pods = () => store.resource('pods');
const nodes = () => store.resource('nodes');

describe('graceful pod deletion', () => {
  it('should mark an evicted pod terminating and remove it when its grace period ends', () => {
    store.seedPod({ name: 'web-1', node: N1, owner: 'ReplicaSet/web-6d4f', terminationGracePeriodSeconds: 30 });

    const status = store.evict('default', 'web-1');

    expect(status).toMatchObject({ kind: 'Status', status: 'Success', code: 201 });
    const terminating = store.getPod('default', 'web-1');
    expect(terminating?.metadata.deletionTimestamp).toBe('2026-11-29T10:00:30Z');
    expect(terminating?.metadata.deletionGracePeriodSeconds).toBe(30);
    clock.advance(29_999);
    expect(store.getPod('default', 'web-1')).toBeDefined();
    clock.advance(1);
    expect(store.getPod('default', 'web-1')).toBeUndefined();
  });

  it('should delete at once with grace 0, unbound pods and finished pods', () => {
    store.seedPod({ name: 'a', node: N1 });
    store.seedPod({ name: 'pending' });
    store.seedPod({ name: 'done', node: N1, phase: 'Succeeded' });

    const result = store.delete(pods(), 'default', 'a', { gracePeriodSeconds: 0 });
    store.delete(pods(), 'default', 'pending');
    store.delete(pods(), 'default', 'done');

    expect(result.removed).toBe(true);
    expect(store.listPods().map((p) => p.metadata.name)).toEqual([]);
  });

  it('should shorten but never lengthen a grace period already running', () => {
    store.seedPod({ name: 'a', node: N1 });
    store.delete(pods(), 'default', 'a', { gracePeriodSeconds: 10 });
    store.delete(pods(), 'default', 'a', { gracePeriodSeconds: 60 });
    expect(store.getPod('default', 'a')?.metadata.deletionGracePeriodSeconds).toBe(10);
    store.delete(pods(), 'default', 'a', { gracePeriodSeconds: 2 });
    clock.advance(2_000);
    expect(store.getPod('default', 'a')).toBeUndefined();
  });

  it('should leave pods terminating on a node whose kubelet is down', () => {
    store.seedPod({ name: 'a', node: N1, terminationGracePeriodSeconds: 1 });
    store.kubelets.setHeartbeating(N1, false);

    store.evict('default', 'a');
    clock.advance(60_000);

    expect(store.getPod('default', 'a')?.metadata.deletionTimestamp).toBeDefined();
  });
});

describe('eviction and PodDisruptionBudgets', () => {
  const seedWeb = (count: number) => {
    for (let i = 0; i < count; i++)
      store.seedPod({
        name: `web-${i}`,
        node: i % 2 === 0 ? N1 : N2,
        owner: 'ReplicaSet/web-6d4f',
        labels: { app: 'web' },
      });
  };

  it('should refuse with 429 and the disruption budget cause when no disruption is allowed', () => {
    seedWeb(2);
    store.seedPdb({ name: 'web', selector: { app: 'web' }, minAvailable: 2 });

    const refusal = statusOf(() => store.evict('default', 'web-0'));

    expect(refusal).toEqual({
      code: 429,
      reason: 'TooManyRequests',
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      causes: [
        { reason: 'DisruptionBudget', message: 'The disruption budget web needs 2 healthy pods and has 2 currently' },
      ],
    });
    expect(store.getPod('default', 'web-0')?.metadata.deletionTimestamp).toBeUndefined();
  });

  it('should allow disruptions down to minAvailable and recompute the status as pods change', () => {
    seedWeb(3);
    store.seedPdb({ name: 'web', selector: { app: 'web' }, minAvailable: 2 });
    expect(store.getPdb('default', 'web')?.status).toMatchObject({
      currentHealthy: 3,
      desiredHealthy: 2,
      disruptionsAllowed: 1,
      expectedPods: 3,
    });

    store.evict('default', 'web-0');

    expect(store.getPdb('default', 'web')?.status).toMatchObject({ currentHealthy: 2, disruptionsAllowed: 0 });
    expect(statusOf(() => store.evict('default', 'web-1')).code).toBe(429);
  });

  it('should answer 500 when a pod matches more than one PDB', () => {
    seedWeb(3);
    store.seedPdb({ name: 'a', selector: { app: 'web' }, minAvailable: 1 });
    store.seedPdb({ name: 'b', selector: { app: 'web' }, maxUnavailable: 1 });

    expect(statusOf(() => store.evict('default', 'web-0'))).toMatchObject({
      code: 500,
      reason: undefined,
      message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
    });
  });

  it('should let terminal, pending and terminating pods bypass PDBs', () => {
    seedWeb(1);
    store.seedPod({
      name: 'web-done',
      node: N1,
      owner: 'ReplicaSet/web-6d4f',
      labels: { app: 'web' },
      phase: 'Succeeded',
    });
    store.seedPod({ name: 'web-pending', owner: 'ReplicaSet/web-6d4f', labels: { app: 'web' } });
    store.seedPdb({ name: 'web', selector: { app: 'web' }, minAvailable: 5 });
    store.delete(pods(), 'default', 'web-0', { gracePeriodSeconds: 30 });

    expect(store.evict('default', 'web-done').code).toBe(201);
    expect(store.evict('default', 'web-pending').code).toBe(201);
    // Evicting a pod that is already terminating succeeds (canIgnorePDB).
    expect(store.evict('default', 'web-0').code).toBe(201);
  });

  it('should evict an unready pod without budget when the budget is met', () => {
    seedWeb(3);
    store.seedPod({ name: 'web-sick', node: N1, owner: 'ReplicaSet/web-6d4f', labels: { app: 'web' }, ready: false });
    store.seedPdb({ name: 'web', selector: { app: 'web' }, minAvailable: 3 });

    expect(store.getPdb('default', 'web')?.status).toMatchObject({ currentHealthy: 3, disruptionsAllowed: 0 });
    expect(store.evict('default', 'web-sick').code).toBe(201);
    expect(statusOf(() => store.evict('default', 'web-0')).code).toBe(429);
  });

  it('should scale maxUnavailable and percentages by the controllers replicas', () => {
    store.seedReplicaSet({ name: 'api-7c9d', replicas: 4, selector: { app: 'api' } });
    for (let i = 0; i < 4; i++)
      store.seedPod({ name: `api-${i}`, node: N1, owner: 'ReplicaSet/api-7c9d', labels: { app: 'api' } });
    store.seedPdb({ name: 'api', selector: { app: 'api' }, maxUnavailable: '50%' });

    expect(store.getPdb('default', 'api')?.status).toMatchObject({
      expectedPods: 4,
      desiredHealthy: 2,
      disruptionsAllowed: 2,
    });
  });

  it('should allow no disruption when a covered pod has no scalable controller', () => {
    store.seedPod({ name: 'solo', node: N1, labels: { app: 'solo' } });
    store.seedPdb({ name: 'solo', selector: { app: 'solo' }, maxUnavailable: 1 });

    expect(store.getPdb('default', 'solo')?.status).toMatchObject({
      disruptionsAllowed: 0,
      conditions: [{ reason: 'SyncFailed' }],
    });
  });

  it('should report 404 for a missing pod', () => {
    expect(statusOf(() => store.evict('default', 'ghost'))).toMatchObject({
      code: 404,
      reason: 'NotFound',
      message: 'pods "ghost" not found',
    });
  });
});

describe('simulated kubelets', () => {
  it('should renew the Lease every 10 s of simulated time and stop when the kubelet stops', () => {
    expect(store.getLease(N1)?.spec?.renewTime).toBe('2026-11-29T10:00:00.000000Z');
    clock.advance(25_000);
    expect(store.getLease(N1)?.spec?.renewTime).toBe('2026-11-29T10:00:20.000000Z');

    store.kubelets.setHeartbeating(N1, false);
    clock.advance(60_000);

    expect(store.getLease(N1)?.spec?.renewTime).toBe('2026-11-29T10:00:20.000000Z');
    expect(store.getLease(N2)?.spec?.renewTime).toBe('2026-11-29T10:01:20.000000Z');
  });

  it('should bump the Lease resourceVersion when it renews', () => {
    const before = store.getLease(N1)?.metadata.resourceVersion;
    clock.advance(10_000);
    expect(store.getLease(N1)?.metadata.resourceVersion).not.toBe(before);
  });

  it('should refresh the Ready heartbeat every status report interval', () => {
    clock.advance(301_000);
    const ready = store.getNode(N1)?.status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready?.lastHeartbeatTime).toBe('2026-11-29T10:05:00Z');
  });

  it('should keep a seeded stale heartbeat when the kubelet is not heartbeating', () => {
    store.seedNode({ name: 'stale', lastHeartbeat: START - 600_000, heartbeating: false, ready: 'Unknown' });
    clock.advance(60_000);
    expect(store.getLease('stale')?.spec?.renewTime).toBe('2026-11-29T09:50:00.000000Z');
  });

  it("should serve a heartbeating kubelet's seeded stale Lease as seeded until its first renewal after seeding", () => {
    // heartbeatAgo: 10m on a running machine (heartbeating by default): stale at the start, not made fresh.
    store.seedNode({ name: 'quiet', lastHeartbeat: START - 600_000 });
    expect(store.getLease('quiet')?.spec?.renewTime).toBe('2026-11-29T09:50:00.000000Z');
    expect(store.heartbeatOf('lease', 'quiet')?.at).toBe(START - 600_000);
    clock.advance(9_000);
    expect(store.getLease('quiet')?.spec?.renewTime).toBe('2026-11-29T09:50:00.000000Z');
    clock.advance(1_000);
    expect(store.getLease('quiet')?.spec?.renewTime).toBe('2026-11-29T10:00:10.000000Z');
    expect(store.heartbeatOf('lease', 'quiet')?.at).toBe(START + 10_000);
  });

  it("should post a heartbeating kubelet's status at its first sync after seeding when the seeded report is older than 5 min", () => {
    const readyHeartbeat = (name: string) =>
      store.getNode(name)?.status?.conditions?.find((c) => c.type === 'Ready')?.lastHeartbeatTime;
    store.seedNode({ name: 'quiet', lastHeartbeat: START - 600_000 });
    store.seedNode({ name: 'recent', lastHeartbeat: START - 60_000 });
    expect(readyHeartbeat('quiet')).toBe('2026-11-29T09:50:00Z');
    expect(store.heartbeatOf('node', 'quiet')?.at).toBe(START - 600_000);
    clock.advance(10_000);
    expect(store.heartbeatOf('node', 'quiet')?.at).toBe(START + 10_000);
    expect(readyHeartbeat('quiet')).toBe('2026-11-29T10:00:10Z');
    // Reported a minute ago: the next report is on its 5-minute grid, not at once.
    expect(readyHeartbeat('recent')).toBe('2026-11-29T09:59:00Z');
    clock.advance(240_000);
    expect(readyHeartbeat('recent')).toBe('2026-11-29T10:04:00Z');
  });

  it('should keep the old Ready heartbeat of a Lease-less node whose kubelet is silent', () => {
    store.seedNode({
      name: 'silent',
      lastHeartbeat: null,
      readyHeartbeat: START - 3_600_000,
      heartbeating: false,
      ready: 'Unknown',
    });
    clock.advance(301_000);
    const ready = store.getNode('silent')?.status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready?.lastHeartbeatTime).toBe('2026-11-29T09:00:00Z');
    expect(store.getLease('silent')).toBeUndefined();
  });

  it('should re-register a deleted Node within 10 s with a new uid, and its Lease', () => {
    const uid = store.getNode(N1)?.metadata.uid;
    clock.advance(3_000);

    store.delete(nodes(), undefined, N1);

    expect(store.getNode(N1)).toBeUndefined();
    expect(store.getLease(N1)).toBeUndefined();
    clock.advance(7_000);
    const again = store.getNode(N1);
    expect(again?.metadata.uid).not.toBe(uid);
    expect(again?.metadata.creationTimestamp).toBe('2026-11-29T10:00:10Z');
    expect(store.getLease(N1)?.metadata.ownerReferences?.[0]?.uid).toBe(again?.metadata.uid);
  });

  it('should not re-register a Node whose kubelet stopped', () => {
    store.kubelets.setHeartbeating(N2, false);
    store.delete(nodes(), undefined, N2);
    clock.advance(60_000);
    expect(store.getNode(N2)).toBeUndefined();
  });

  it('should garbage-collect pods of a Node gone for 40 s', () => {
    store.seedPod({ name: 'a', node: N2 });
    store.kubelets.setHeartbeating(N2, false);
    store.delete(nodes(), undefined, N2);
    clock.advance(39_000);
    expect(store.getPod('default', 'a')).toBeDefined();
    clock.advance(1_000);
    expect(store.getPod('default', 'a')).toBeUndefined();
  });

  it('should keep the pods of a Node its kubelet registered again in time', () => {
    store.seedPod({ name: 'a', node: N1 });
    store.delete(nodes(), undefined, N1);
    clock.advance(60_000);
    expect(store.getPod('default', 'a')).toBeDefined();
  });
});

describe('lists', () => {
  beforeEach(() => {
    for (let i = 0; i < 25; i++)
      store.seedNode({ name: `node-${String(i).padStart(2, '0')}`, labels: { pool: i % 2 === 0 ? 'even' : 'odd' } });
  });

  it('should page in key order with continue tokens and remainingItemCount', () => {
    const first = store.list(nodes(), { limit: 10 });
    expect(first.items.map((n) => n.metadata.name)).toEqual(
      Array.from({ length: 10 }, (_, i) => `ip-10-0-1-${i + 1}.ec2.internal`)
        .slice(0, 2)
        .concat(Array.from({ length: 8 }, (_, i) => `node-0${i}`))
        .sort(),
    );
    expect(first.remainingItemCount).toBe(17);
    const names: string[] = [];
    let token: string | undefined;
    do {
      const page = store.list(nodes(), { limit: 10, ...(token === undefined ? {} : { continue: token }) });
      names.push(...page.items.map((n) => n.metadata.name ?? ''));
      token = page.continue;
    } while (token !== undefined);
    expect(names).toHaveLength(27);
    expect([...names].sort()).toEqual(names);
  });

  it('should filter by label and field selectors across pages', () => {
    const page = store.list(nodes(), {
      labelSelector: { requirements: [{ key: 'pool', op: 'in', values: ['odd'] }] },
      fieldSelector: [{ field: 'metadata.name', value: 'node-03', equal: false }],
      limit: 100,
    });
    expect(page.items.map((n) => n.metadata.name)).toEqual([
      'node-01',
      'node-05',
      'node-07',
      'node-09',
      'node-11',
      'node-13',
      'node-15',
      'node-17',
      'node-19',
      'node-21',
      'node-23',
    ]);
    expect(page.continue).toBeUndefined();
  });

  it('should reject a malformed continue token and an unsupported field', () => {
    expect(statusOf(() => store.list(nodes(), { continue: 'garbage' })).code).toBe(400);
    expect(
      statusOf(() => store.list(nodes(), { fieldSelector: [{ field: 'spec.bogus', value: 'x', equal: true }] })),
    ).toMatchObject({
      code: 400,
      message: 'field label not supported: spec.bogus',
    });
  });
});

describe('writes', () => {
  it('should refuse a stale resourceVersion with 409 Conflict', () => {
    const node = store.getNode(N1) as KubeObject;
    store.patch(nodes(), undefined, N1, 'application/merge-patch+json', { metadata: { labels: { a: 'b' } } });

    expect(statusOf(() => store.update(nodes(), undefined, N1, node))).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message: `Operation cannot be fulfilled on nodes "${N1}": the object has been modified; please apply your changes to the latest version and try again`,
    });
  });

  it('should check delete preconditions on uid and resourceVersion', () => {
    expect(statusOf(() => store.delete(nodes(), undefined, N1, { preconditions: { uid: 'other' } }))).toMatchObject({
      code: 409,
      message: expect.stringContaining(
        'Precondition failed: UID in precondition: other, UID in object meta: ',
      ) as unknown,
    });
    expect(statusOf(() => store.delete(nodes(), undefined, N1, { preconditions: { resourceVersion: '1' } })).code).toBe(
      409,
    );
    const node = store.getNode(N1);
    const result = store.delete(nodes(), undefined, N1, {
      preconditions: { uid: node?.metadata.uid ?? '', resourceVersion: node?.metadata.resourceVersion ?? '' },
    });
    expect(result.body).toMatchObject({
      kind: 'Status',
      status: 'Success',
      details: { name: N1, kind: 'nodes', uid: node?.metadata.uid },
    });
  });

  it('should fail a JSON patch whose test op fails with 422 and change nothing', () => {
    const before = store.getNode(N1);
    const failure = statusOf(() =>
      store.patch(nodes(), undefined, N1, 'application/json-patch+json', [
        { op: 'test', path: '/spec/providerID', value: 'aws:///us-east-1a/i-0ffffffffffffffff' },
        { op: 'add', path: '/spec/unschedulable', value: true },
      ]),
    );
    expect(failure).toMatchObject({ code: 422, reason: 'Invalid', causes: [{ field: '/spec/providerID' }] });
    expect(store.getNode(N1)).toEqual(before);
  });

  it('should apply a JSON patch guarded by a passing test op', () => {
    const node = store.patch(nodes(), undefined, N1, 'application/json-patch+json', [
      { op: 'test', path: '/spec/providerID', value: 'aws:///us-east-1a/i-0a1b2c3d4e5f60001' },
      { op: 'add', path: '/spec/unschedulable', value: true },
      { op: 'add', path: '/metadata/annotations/ec2-node-reconciler~1cordoned-by', value: 'ec2-node-reconciler' },
    ]);
    expect(node.spec).toMatchObject({ unschedulable: true });
    expect(node.metadata.annotations?.['ec2-node-reconciler/cordoned-by']).toBe('ec2-node-reconciler');
  });

  it('should forbid changing a set providerID', () => {
    expect(
      statusOf(() =>
        store.patch(nodes(), undefined, N1, 'application/merge-patch+json', {
          spec: { providerID: 'aws:///us-east-1b/i-0ffffffffffffffff' },
        }),
      ),
    ).toMatchObject({
      code: 422,
      message: `Node "${N1}" is invalid: spec.providerID: Forbidden: node updates may not change providerID except from "" to valid`,
    });
  });

  it('should ignore status changes through the main resource and bump PDB generation on spec change', () => {
    const patched = store.patch(nodes(), undefined, N1, 'application/merge-patch+json', { status: { conditions: [] } });
    expect((patched as NodeObject).status?.conditions).toHaveLength(4);
    store.seedPdb({ name: 'p', selector: { app: 'x' }, minAvailable: 1 });
    const pdb = store.patch(store.resource('poddisruptionbudgets'), 'default', 'p', 'application/merge-patch+json', {
      spec: { minAvailable: 2 },
    }) as PdbObject;
    expect(pdb.metadata.generation).toBe(2);
  });

  it('should create in an existing namespace only when asked to check', () => {
    expect(
      statusOf(() =>
        store.create(
          pods(),
          { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' } },
          { namespace: 'nope', requireNamespace: true },
        ),
      ),
    ).toMatchObject({
      code: 404,
      message: 'namespaces "nope" not found',
    });
    expect(
      statusOf(() => store.create(nodes(), { apiVersion: 'v1', kind: 'Node', metadata: { name: N1 } })),
    ).toMatchObject({ code: 409, reason: 'AlreadyExists' });
  });
});

describe('seeding', () => {
  it('should seed a cluster from plain objects in dependency order', () => {
    store.seedCluster({
      nodes: [
        {
          name: 'n3',
          providerID: 'aws:///us-east-1b/i-0a1b2c3d4e5f60003',
          createdAt: START - 7_200_000,
          lastHeartbeat: null,
          heartbeating: false,
          ready: 'Unknown',
        },
      ],
      pods: [
        { name: 'web-1', node: 'n3', owner: 'ReplicaSet/web-6d4f', labels: { app: 'web' } },
        { name: 'web-2', node: N1, owner: 'ReplicaSet/web-6d4f', labels: { app: 'web' } },
        { name: 'logs-1', namespace: 'kube-system', node: 'n3', owner: 'DaemonSet/logs' },
      ],
      pdbs: [{ name: 'web', selector: { app: 'web' }, maxUnavailable: 1 }],
      objects: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } }],
    });
    expect(store.getNode('n3')?.spec?.providerID).toBe('aws:///us-east-1b/i-0a1b2c3d4e5f60003');
    expect(store.getLease('n3')).toBeUndefined();
    expect(store.find(store.resource('daemonsets'), 'kube-system', 'logs')).toBeDefined();
    // The ReplicaSet created for the seeded pods has one replica per pod, so maxUnavailable scales.
    expect(store.getPdb('default', 'web')?.status).toMatchObject({
      expectedPods: 2,
      desiredHealthy: 1,
      disruptionsAllowed: 1,
    });
    expect(store.find(store.resource('namespaces'), undefined, 'shop')).toBeDefined();
  });

  it('should let a virtual clock follow wall time', async () => {
    const stop = driveInRealTime(clock, { speed: 100, tickMs: 10 });
    await new Promise((resolve) => setTimeout(resolve, 120));
    stop();
    expect(clock.now() - START).toBeGreaterThanOrEqual(5_000);
    expect(store.getLease(N1)?.spec?.renewTime).not.toBe('2026-11-29T10:00:00.000000Z');
  });
});
