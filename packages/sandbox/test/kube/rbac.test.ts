// How a manifest is proven sufficient and minimal: every call the reconciler makes succeeds with
// the reconciler's token under RBAC, and calls outside its job are refused with 403.
import { readFile } from 'node:fs/promises';
import {
  ApiException,
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { startKubeEmulator, type KubeEmulator } from '../../src/kube/index.js';

const N1 = 'ip-10-0-1-1.ec2.internal';
let kube: KubeEmulator;
let core: CoreV1Api;
let apps: AppsV1Api;
let coordination: CoordinationV1Api;

beforeAll(async () => {
  const manifest = await readFile(new URL('../fixtures/rbac/design-minimal.yaml', import.meta.url), 'utf8');
  kube = await startKubeEmulator({
    clock: new VirtualClock(Date.UTC(2026, 10, 29, 10)),
    auth: {
      tokens: {
        'reconciler-token': {
          user: 'system:serviceaccount:ec2-node-reconciler:sweep',
          groups: ['ec2-node-reconciler'],
        },
      },
    },
    rbac: [manifest],
  });
  kube.store.seedNode({ name: N1, instanceId: 'i-0a1b2c3d4e5f60001' });
  kube.store.seedNode({ name: 'ip-10-0-1-2.ec2.internal', instanceId: 'i-0a1b2c3d4e5f60002' });
  kube.store.seedPod({ name: 'web-1', node: N1, owner: 'ReplicaSet/web-6d4f' });
  kube.store.seedPod({ name: 'agent-1', namespace: 'kube-system', node: N1, owner: 'DaemonSet/agent' });
  const config = new KubeConfig();
  config.loadFromString(kube.kubeconfig({ token: 'reconciler-token' }));
  core = config.makeApiClient(CoreV1Api);
  apps = config.makeApiClient(AppsV1Api);
  coordination = config.makeApiClient(CoordinationV1Api);
});
afterAll(async () => {
  await kube.close();
});

async function code(call: Promise<unknown>): Promise<number> {
  try {
    await call;
    return 200;
  } catch (error) {
    if (error instanceof ApiException) return error.code;
    throw error;
  }
}

describe('RBAC with the design manifest', () => {
  it('should allow every call the reconciler makes', async () => {
    const node = await core.readNode({ name: N1 });
    expect(await code(core.listNode({ limit: 500 }))).toBe(200);
    expect(await code(coordination.listNamespacedLease({ namespace: 'kube-node-lease', limit: 500 }))).toBe(200);
    expect(await code(coordination.readNamespacedLease({ namespace: 'kube-node-lease', name: N1 }))).toBe(200);
    expect(await code(core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${N1}` }))).toBe(200);
    expect(await code(core.readNamespacedPod({ namespace: 'default', name: 'web-1' }))).toBe(200);
    expect(await code(apps.readNamespacedDaemonSet({ namespace: 'kube-system', name: 'agent' }))).toBe(200);
    expect(
      await code(
        core.patchNode(
          { name: N1, body: { spec: { unschedulable: true } } },
          setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
        ),
      ),
    ).toBe(200);
    expect(
      await code(
        core.createNamespacedPodEviction({
          name: 'web-1',
          namespace: 'default',
          body: { metadata: { name: 'web-1', namespace: 'default' } },
        }),
      ),
    ).toBe(200);
    expect(
      await code(
        core.createNamespacedEvent({
          namespace: 'default',
          body: { metadata: { generateName: 'r-' }, involvedObject: { kind: 'Node', name: N1 }, reason: 'Cordoned' },
        }),
      ),
    ).toBe(200);
    expect(
      await code(
        core.deleteNode({
          name: 'ip-10-0-1-2.ec2.internal',
          body: { preconditions: { uid: node.metadata?.uid ?? '' } },
        }),
      ),
    ).toBe(409);
  });

  it('should refuse what the reconciler has no business doing', async () => {
    expect(await code(core.listSecretForAllNamespaces())).toBe(403);
    expect(await code(core.createNode({ body: { metadata: { name: 'rogue' } } }))).toBe(403);
    expect(await code(core.replaceNode({ name: N1, body: await core.readNode({ name: N1 }) }))).toBe(403);
    expect(await code(core.deleteNamespacedPod({ name: 'web-1', namespace: 'default' }))).toBe(403);
    expect(await code(coordination.listNamespacedLease({ namespace: 'default' }))).toBe(403);
    expect(
      await code(
        coordination.replaceNamespacedLease({
          namespace: 'kube-node-lease',
          name: N1,
          body: await coordination.readNamespacedLease({ namespace: 'kube-node-lease', name: N1 }),
        }),
      ),
    ).toBe(403);
    expect(
      kube.requestLog.filter({ status: 403, user: 'system:serviceaccount:ec2-node-reconciler:sweep' }).length,
    ).toBe(6);
  });
});
