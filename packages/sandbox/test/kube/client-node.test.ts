// The calls the reconciler makes, through @kubernetes/client-node 2.x: paginated lists, identity-
// guarded patches, deletes with preconditions, evictions, Leases and Events.
import {
  ApiException,
  CoordinationV1Api,
  CoreV1Api,
  EventsV1Api,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { startKubeEmulator, type KubeEmulator } from '../../src/kube/index.js';

const START = Date.UTC(2026, 10, 29, 10);
let clock: VirtualClock;
let kube: KubeEmulator;
let core: CoreV1Api;
let coordination: CoordinationV1Api;

beforeEach(async () => {
  clock = new VirtualClock(START);
  kube = await startKubeEmulator({ clock, uids: 'sequential' });
  for (let i = 1; i <= 12; i++) {
    kube.store.seedNode({
      name: `ip-10-0-1-${i}.ec2.internal`,
      instanceId: `i-0a1b2c3d4e5f600${String(i).padStart(2, '0')}`,
      labels: i <= 3 ? { 'ec2-node-reconciler/exclude': 'true' } : {},
    });
  }
  const config = new KubeConfig();
  config.loadFromString(kube.kubeconfig());
  core = config.makeApiClient(CoreV1Api);
  coordination = config.makeApiClient(CoordinationV1Api);
});
afterEach(async () => {
  await kube.close();
});

/** The HTTP status and Status body of a failed client-node call. */
async function failure(call: Promise<unknown>): Promise<{ code: number; status: Record<string, unknown> }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiException)
      return { code: error.code, status: JSON.parse(String(error.body)) as Record<string, unknown> };
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('nodes', () => {
  it('should list every node in pages with limit and continue', async () => {
    const names: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await core.listNode({ limit: 5, ...(token === undefined ? {} : { _continue: token }) });
      names.push(...page.items.map((n) => n.metadata?.name ?? ''));
      token = page.metadata?._continue;
      pages++;
    } while (token !== undefined && token !== '');
    expect(pages).toBe(3);
    expect(new Set(names).size).toBe(12);
    expect((await core.listNode({ labelSelector: '!ec2-node-reconciler/exclude' })).items).toHaveLength(9);
  });

  it('should cordon with an identity-guarded JSON patch, and refuse it when the identity changed', async () => {
    const name = 'ip-10-0-1-4.ec2.internal';
    const cordon = (instance: string) =>
      core.patchNode({
        name,
        body: [
          { op: 'test', path: '/spec/providerID', value: `aws:///us-east-1a/${instance}` },
          { op: 'add', path: '/spec/unschedulable', value: true },
        ],
      });
    expect((await cordon('i-0a1b2c3d4e5f60004')).spec?.unschedulable).toBe(true);
    const refused = await failure(cordon('i-0a1b2c3d4e5f60099'));
    expect(refused.code).toBe(422);
    expect(refused.status).toMatchObject({ kind: 'Status', reason: 'Invalid' });
  });

  it('should apply strategic-merge and merge patches', async () => {
    const name = 'ip-10-0-1-5.ec2.internal';
    const strategic = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
    const tainted = await core.patchNode(
      {
        name,
        body: { spec: { taints: [{ key: 'node.cloudprovider.kubernetes.io/shutdown', effect: 'NoSchedule' }] } },
      },
      strategic,
    );
    expect(tainted.spec?.taints?.map((t) => t.key)).toEqual(['node.cloudprovider.kubernetes.io/shutdown']);
    const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
    const labelled = await core.patchNode(
      { name, body: { metadata: { annotations: { 'ec2-node-reconciler/reason': 'spot' } } } },
      merge,
    );
    expect(labelled.metadata?.annotations?.['ec2-node-reconciler/reason']).toBe('spot');
  });

  it('should delete only the node the preconditions name', async () => {
    const name = 'ip-10-0-1-6.ec2.internal';
    const node = await core.readNode({ name });
    const stale = await failure(
      core.deleteNode({ name, body: { preconditions: { uid: '00000000-0000-4000-8000-00000000ffff' } } }),
    );
    expect(stale.code).toBe(409);
    expect(stale.status).toMatchObject({ reason: 'Conflict' });

    const status = await core.deleteNode({
      name,
      body: { preconditions: { uid: node.metadata?.uid ?? '', resourceVersion: node.metadata?.resourceVersion ?? '' } },
    });
    expect(status.status).toBe('Success');
    expect((await failure(core.readNode({ name }))).code).toBe(404);
  });
});

describe('pods', () => {
  beforeEach(() => {
    const node = 'ip-10-0-1-7.ec2.internal';
    kube.store.seedPod({
      name: 'web-1',
      node,
      owner: 'ReplicaSet/web-6d4f',
      labels: { app: 'web' },
      terminationGracePeriodSeconds: 5,
    });
    kube.store.seedPod({ name: 'web-2', node, owner: 'ReplicaSet/web-6d4f', labels: { app: 'web' } });
    kube.store.seedPod({ name: 'other', node: 'ip-10-0-1-8.ec2.internal' });
    kube.store.seedPdb({ name: 'web', selector: { app: 'web' }, minAvailable: 1 });
  });

  it("should list one node's pods by field selector", async () => {
    const pods = await core.listPodForAllNamespaces({
      fieldSelector: 'spec.nodeName=ip-10-0-1-7.ec2.internal,status.phase!=Succeeded',
    });
    expect(pods.items.map((p) => p.metadata?.name)).toEqual(['web-1', 'web-2']);
  });

  it('should evict under the PDB: the first succeeds, the second is refused with 429', async () => {
    await core.createNamespacedPodEviction({
      name: 'web-1',
      namespace: 'default',
      body: { metadata: { name: 'web-1', namespace: 'default' } },
    });
    const refused = await failure(
      core.createNamespacedPodEviction({
        name: 'web-2',
        namespace: 'default',
        body: { metadata: { name: 'web-2', namespace: 'default' } },
      }),
    );
    expect(refused.code).toBe(429);
    expect(refused.status).toMatchObject({
      reason: 'TooManyRequests',
      details: { causes: [{ reason: 'DisruptionBudget' }] },
    });

    const terminating = await core.readNamespacedPod({ name: 'web-1', namespace: 'default' });
    expect(terminating.metadata?.deletionTimestamp).toBeDefined();
    clock.advance(5_000);
    expect((await failure(core.readNamespacedPod({ name: 'web-1', namespace: 'default' }))).code).toBe(404);
  });
});

describe('leases', () => {
  it('should read renewed Leases and refuse a stale update with 409', async () => {
    clock.advance(10_000);
    const lease = await coordination.readNamespacedLease({
      name: 'ip-10-0-1-1.ec2.internal',
      namespace: 'kube-node-lease',
    });
    expect(String(lease.spec?.renewTime)).toContain('2026-11-29T10:00:10');
    const all = await coordination.listNamespacedLease({ namespace: 'kube-node-lease', limit: 500 });
    expect(all.items).toHaveLength(12);

    clock.advance(10_000);
    // The kubelet renewed it meanwhile: the copy read 10 s ago is stale.
    const stale = await failure(
      coordination.replaceNamespacedLease({
        name: 'ip-10-0-1-1.ec2.internal',
        namespace: 'kube-node-lease',
        body: lease,
      }),
    );
    expect(stale.code).toBe(409);
  });
});

describe('events', () => {
  it('should create Events through events.k8s.io/v1', async () => {
    const config = new KubeConfig();
    config.loadFromString(kube.kubeconfig());
    const events = config.makeApiClient(EventsV1Api);
    const created = await events.createNamespacedEvent({
      namespace: 'default',
      body: {
        metadata: { generateName: 'reconciler-' },
        eventTime: new Date(START),
        reportingController: 'ec2-node-reconciler',
        reportingInstance: 'sweep',
        action: 'Cordon',
        reason: 'SlatedForRemoval',
        type: 'Normal',
        note: 'cordoned',
        regarding: { kind: 'Node', name: 'ip-10-0-1-1.ec2.internal' },
      },
    });
    expect(created.metadata?.name).toMatch(/^reconciler-/);
    expect((await core.listNamespacedEvent({ namespace: 'default' })).items[0]?.reason).toBe('SlatedForRemoval');
  });
});
