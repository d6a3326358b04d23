import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KubeClient } from '../../lib/kube/client.js';
import { NodeEventRecorder } from '../../lib/kube/events.js';
import { NodeFinder } from '../../lib/kube/find-node.js';
import { LeaseClient } from '../../lib/kube/leases.js';
import { NodeClient } from '../../lib/kube/nodes.js';
import { deleteNode, setShutdownTaint } from '../../lib/kube/node-writes.js';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import type { InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import type { KubeEmulator } from '@ec2-node-reconciler/sandbox/kube/index.js';
import { startRbacCluster } from '../support/kube-world.js';
import { instanceId, NOW } from '../support/world.js';

let clock: VirtualClock;
let kube: KubeEmulator;
let kubeClient: KubeClient;

const nodeName = (n: number) => `ip-10-0-${Math.floor(n / 250)}-${n % 250}.ec2.internal`;
const seedNode = (n: number, over: Record<string, unknown> = {}) =>
  kube.store.seedNode({
    name: nodeName(n),
    instanceId: instanceId(n),
    zone: 'us-east-1a',
    createdAt: NOW - 3_600_000,
    ...over,
  });

beforeEach(async () => {
  clock = new VirtualClock(NOW);
  ({ kube, client: kubeClient } = await startRbacCluster(clock));
});
afterEach(async () => {
  await kube.close();
});

describe('NodeClient and the node writes over it (RBAC mode, the shipped manifest)', () => {
  it('should list every node across pages of 500 and keep only the projection', async () => {
    for (let n = 1; n <= 1_201; n++) seedNode(n);
    const nodes = await new NodeClient(kubeClient).listNodes();
    expect(nodes).toHaveLength(1_201);
    expect(kube.requestLog.filter({ verb: 'list', resource: 'nodes' })).toHaveLength(3);
    expect(nodes[0]).toEqual(
      expect.objectContaining({
        name: nodeName(1),
        providerID: `aws:///us-east-1a/${instanceId(1)}`,
        ready: 'True',
        unschedulable: false,
      }),
    );
    expect(Object.keys(nodes[0] ?? {})).not.toContain('status');
  });

  it('should delete a node only with a matching uid precondition', async () => {
    seedNode(1, { heartbeating: false });
    const client = new NodeClient(kubeClient);
    const view = await client.getNode(nodeName(1));
    if (!view) throw new Error('seeded node missing');
    expect(
      await deleteNode(client, { node: view.name, uid: 'someone-else', resourceVersion: view.resourceVersion }),
    ).toEqual(expect.objectContaining({ kind: 'moot' }));
    expect(kube.store.getNode(nodeName(1))).toBeDefined();
    expect(await deleteNode(client, { node: view.name, uid: view.uid, resourceVersion: view.resourceVersion })).toEqual(
      { kind: 'done' },
    );
    expect(kube.store.getNode(nodeName(1))).toBeUndefined();
    expect(await deleteNode(client, { node: view.name, uid: view.uid, resourceVersion: view.resourceVersion })).toEqual(
      { kind: 'moot', reason: 'node already gone' },
    );
  });

  it('should never delete a node re-registered under the same name between observe and act', async () => {
    seedNode(1);
    const client = new NodeClient(kubeClient);
    const observed = await client.getNode(nodeName(1));
    if (!observed) throw new Error('seeded node missing');
    // The kubelet re-registers: same name, new uid.
    kube.store.delete(kube.store.resource('nodes'), undefined, nodeName(1));
    clock.advance(10_000);
    const reborn = await client.getNode(nodeName(1));
    expect(reborn?.uid).not.toBe(observed.uid);
    const outcome = await deleteNode(client, {
      node: observed.name,
      uid: observed.uid,
      resourceVersion: observed.resourceVersion,
    });
    expect(outcome.kind).toBe('moot');
    expect(kube.store.getNode(nodeName(1))?.metadata.uid).toBe(reborn?.uid);
  });

  it('should add and remove the shutdown taint idempotently, keeping other taints', async () => {
    seedNode(1, { taints: [{ key: 'team', value: 'a', effect: 'NoSchedule' }] });
    const client = new NodeClient(kubeClient);
    const view = await client.getNode(nodeName(1));
    if (!view) throw new Error('seeded node missing');
    const target = { node: view.name, uid: view.uid, resourceVersion: view.resourceVersion };
    expect(await setShutdownTaint(client, target, true)).toEqual({ kind: 'done' });
    expect(await setShutdownTaint(client, target, true)).toEqual({ kind: 'unchanged' });
    expect(kube.store.getNode(nodeName(1))?.spec?.taints?.map((t) => t.key)).toEqual([
      'team',
      'node.cloudprovider.kubernetes.io/shutdown',
    ]);
    expect(await setShutdownTaint(client, target, false)).toEqual({ kind: 'done' });
    expect(kube.store.getNode(nodeName(1))?.spec?.taints?.map((t) => t.key)).toEqual(['team']);
  });

  it('should re-read and re-apply once after a 409 on the taint patch', async () => {
    seedNode(1);
    const client = new NodeClient(kubeClient);
    const view = await client.getNode(nodeName(1));
    if (!view) throw new Error('seeded node missing');
    kube.faults.failNext(1, { verb: 'patch', resource: 'nodes', name: nodeName(1) }, 409);
    expect(
      await setShutdownTaint(client, { node: view.name, uid: view.uid, resourceVersion: view.resourceVersion }, true),
    ).toEqual({ kind: 'done' });
    expect(kube.requestLog.filter({ verb: 'patch', resource: 'nodes' }).map((e) => e.status)).toEqual([409, 200]);
  });

  it('should keep the node lifecycle controller’s taint, timeAdded included, when adding the shutdown taint', async () => {
    const unreachable = {
      key: 'node.kubernetes.io/unreachable',
      effect: 'NoExecute' as const,
      timeAdded: '2026-11-29T11:58:00Z',
    };
    seedNode(1, { taints: [unreachable], heartbeating: false });
    const client = new NodeClient(kubeClient);
    const view = await client.getNode(nodeName(1));
    if (!view) throw new Error('seeded node missing');

    expect(
      await setShutdownTaint(client, { node: view.name, uid: view.uid, resourceVersion: view.resourceVersion }, true),
    ).toEqual({ kind: 'done' });

    expect(kube.store.getNode(nodeName(1))?.spec?.taints).toEqual([
      unreachable,
      { key: 'node.cloudprovider.kubernetes.io/shutdown', effect: 'NoSchedule' },
    ]);
  });

  it('should report a taint change on a vanished node as moot', async () => {
    const client = new NodeClient(kubeClient);
    expect(await setShutdownTaint(client, { node: 'gone', uid: 'x', resourceVersion: '1' }, true)).toEqual({
      kind: 'moot',
      reason: 'node already gone',
    });
  });
});

describe('LeaseClient', () => {
  it('should list the node Leases with their renew times, and get one', async () => {
    seedNode(1, { lastHeartbeat: NOW - 30_000, heartbeating: false });
    seedNode(2, { lastHeartbeat: null, heartbeating: false });
    const leases = new LeaseClient(kubeClient);
    const all = await leases.listLeases();
    expect(all.get(nodeName(1))?.renewTime).toBe(NOW - 30_000);
    expect(all.has(nodeName(2))).toBe(false);
    expect(await leases.getLease(nodeName(2))).toBeUndefined();
  });
});

describe('NodeFinder', () => {
  it('should find a node by its private DNS name, verified by providerID', async () => {
    seedNode(1);
    const { node } = await new NodeFinder(new NodeClient(kubeClient)).find(instanceId(1), {
      names: [nodeName(1)],
      scan: true,
    });
    expect(node?.name).toBe(nodeName(1));
    expect(kube.requestLog.filter({ verb: 'list', resource: 'nodes' })).toHaveLength(0);
  });

  it('should not take a node of the same name that belongs to another instance', async () => {
    seedNode(1);
    expect(
      (await new NodeFinder(new NodeClient(kubeClient)).find(instanceId(2), { names: [nodeName(1)], scan: false }))
        .node,
    ).toBeUndefined();
  });

  it('should scan when the node is not named after the private DNS name, then remember the name', async () => {
    kube.store.seedNode({ name: 'custom-name', instanceId: instanceId(3), zone: 'us-east-1a' });
    const hints = new Map<InstanceId, string>();
    expect(
      (
        await new NodeFinder(new NodeClient(kubeClient), hints).find(instanceId(3), {
          names: [nodeName(3)],
          scan: true,
        })
      ).node?.name,
    ).toBe('custom-name');
    expect(hints.get(instanceId(3))).toBe('custom-name');
    const lists = kube.requestLog.filter({ verb: 'list', resource: 'nodes' }).length;
    expect(
      (
        await new NodeFinder(new NodeClient(kubeClient), hints).find(instanceId(3), {
          names: [nodeName(3)],
          scan: true,
        })
      ).node?.name,
    ).toBe('custom-name');
    expect(kube.requestLog.filter({ verb: 'list', resource: 'nodes' })).toHaveLength(lists);
  });
});

describe('NodeEventRecorder', () => {
  it('should record an Event on the node in the default namespace', async () => {
    seedNode(1);
    await new NodeEventRecorder(kubeClient, clock).record({
      node: nodeName(1),
      reason: 'NodeCordoned',
      message: 'spot interruption',
      type: 'Normal',
    });
    const events = kube.store.list(kube.store.resource('events')).items;
    expect(events).toEqual([
      expect.objectContaining({
        reason: 'NodeCordoned',
        involvedObject: expect.objectContaining({ kind: 'Node', name: nodeName(1) }) as unknown,
      }),
    ]);
  });
});
