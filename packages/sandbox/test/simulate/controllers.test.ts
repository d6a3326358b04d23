// The workload controllers' stand-in: a reconcile with nothing to replace is left out until a pod
// changes, and one that could not place a replacement is tried again at every clock move.
import { beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { KubeStore, type NodeObject } from '../../src/kube/index.js';
import { WorkloadControllers } from '../../src/simulate/controllers.js';

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
  store.seedPod({ name: 'web-1', node: N1, owner: 'ReplicaSet/web-6d4f', terminationGracePeriodSeconds: 30 });
  store.seedPod({ name: 'db-0', node: N1, owner: 'StatefulSet/db', terminationGracePeriodSeconds: 30 });
});

const podNames = () => store.listPods().map((p) => `${p.metadata.name ?? ''}@${p.spec?.nodeName ?? ''}`);
const setUnschedulable = (name: string, unschedulable: boolean) => {
  const node = store.getNode(name);
  if (!node) throw new Error(`no node ${name}`);
  store.update(store.resource('nodes'), undefined, name, {
    ...node,
    spec: { ...node.spec, unschedulable },
  } satisfies NodeObject);
};

describe('WorkloadControllers.reconcile', () => {
  it('should replace a pod whose grace period ended while nothing read the store, at the first clock move after', () => {
    const controllers = new WorkloadControllers(store);
    controllers.reconcile();
    setUnschedulable(N1, true);
    store.evict('default', 'web-1');
    clock.advance(10_000);
    controllers.reconcile();
    // Still terminating: a ReplicaSet replaces it at once, elsewhere.
    expect(podNames()).toEqual(
      expect.arrayContaining(['web-1@' + N1, expect.stringMatching(new RegExp(`^web-6d4f-r\\d+@${N2}$`))]),
    );
    clock.advance(30_000);
    // Nothing read the store since the grace period ended: reconcile's own catch-up removes web-1.
    controllers.reconcile();
    expect(podNames().filter((p) => p.startsWith('web-'))).toHaveLength(1);
  });

  it('should create a StatefulSet pod again once its old pod is gone, not before', () => {
    const controllers = new WorkloadControllers(store);
    setUnschedulable(N1, true);
    store.evict('default', 'db-0');
    controllers.reconcile();
    expect(podNames().filter((p) => p.startsWith('db-0'))).toEqual([`db-0@${N1}`]);
    clock.advance(30_000);
    controllers.reconcile();
    expect(podNames().filter((p) => p.startsWith('db-0'))).toEqual([`db-0@${N2}`]);
  });

  it('should keep trying a replacement it could not place, and place it once a node becomes usable', () => {
    const controllers = new WorkloadControllers(store);
    setUnschedulable(N1, true);
    setUnschedulable(N2, true);
    store.evict('default', 'web-1');
    clock.advance(30_000);
    controllers.reconcile();
    expect(podNames().filter((p) => p.startsWith('web-'))).toEqual([]);
    // No pod changes from here on: only the node does.
    clock.advance(1_000);
    controllers.reconcile();
    expect(podNames().filter((p) => p.startsWith('web-'))).toEqual([]);
    setUnschedulable(N2, false);
    clock.advance(1_000);
    controllers.reconcile();
    expect(podNames().filter((p) => p.startsWith('web-'))).toEqual([expect.stringMatching(new RegExp(`@${N2}$`))]);
  });

  it('should create nothing, and write nothing, when no pod changed since every workload was whole', () => {
    const controllers = new WorkloadControllers(store);
    controllers.reconcile();
    const revision = store.changedRevision('pods');
    const before = podNames();
    for (let i = 0; i < 5; i++) {
      clock.advance(60_000);
      controllers.reconcile();
    }
    expect(podNames()).toEqual(before);
    expect(store.changedRevision('pods')).toBe(revision);
  });
});
