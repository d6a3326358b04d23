import { drainSettings, type DrainSettings } from '../../../lib/drain/settings.js';
import type { DrainDeps } from '../../../lib/drain/step.js';
import type { DrainRequest } from '../../../lib/drain/step-result.js';
import { sleepOn, VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { FakeCluster, pod } from './fake-api.js';

export const START = Date.UTC(2026, 0, 1, 12);

export interface Harness {
  readonly clock: VirtualClock;
  readonly cluster: FakeCluster;
  readonly deps: DrainDeps;
  readonly request: DrainRequest;
}

/** A fake cluster with one node and the deps a drain of it needs; the deadline is 10 minutes away. */
export function harness(options: { settings?: Partial<DrainSettings>; deadlineMs?: number } = {}): Harness {
  const clock = new VirtualClock(START);
  const cluster = new FakeCluster(clock);
  cluster.addNode('node-a');
  return {
    clock,
    cluster,
    deps: { api: cluster, clock, settings: drainSettings(undefined, options.settings), sleep: sleepOn(clock) },
    request: { node: 'node-a', deadline: START + (options.deadlineMs ?? 600_000), cordon: { reason: 'test' } },
  };
}

/** Every kind of pod kubectl drain tells apart, on node-a (and one pod elsewhere). */
export function seedMixedNode(cluster: FakeCluster): void {
  cluster.daemonSets.add('kube-system/agent');
  for (const p of [
    pod('web-1', { owner: ['ReplicaSet', 'web'] }),
    pod('web-2', { owner: ['ReplicaSet', 'web'], grace: 10 }),
    pod('db-0', { owner: ['StatefulSet', 'db'], grace: 60 }),
    pod('agent-x', { namespace: 'kube-system', owner: ['DaemonSet', 'agent'] }),
    pod('orphan-x', { namespace: 'kube-system', owner: ['DaemonSet', 'removed'] }),
    pod('etcd-node-a', { namespace: 'kube-system', mirror: true, owner: ['Node', 'node-a'] }),
    pod('cache', { owner: ['ReplicaSet', 'cache'], emptyDir: true }),
    pod('bare'),
    pod('job-done', { owner: ['Job', 'job'], phase: 'Succeeded' }),
    pod('leaving', { owner: ['ReplicaSet', 'old'], grace: 20 }),
    pod('elsewhere', { owner: ['ReplicaSet', 'web'], node: 'node-b' }),
  ]) {
    cluster.addPod(p);
  }
  const leaving = cluster.pods.get('default/leaving');
  if (leaving) cluster.terminate(leaving, 20);
}
