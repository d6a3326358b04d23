import { KubeConfig } from '@kubernetes/client-node';
import type { DrainApi } from '../../../lib/drain/api.js';
import { kubeDrainApi } from '../../../lib/drain/kube-api.js';
import { KubeClient } from '../../../lib/kube/client.js';
import { connectionFromKubeConfig } from '../../../cli/kube/kubeconfig.js';
import type { Clock } from '@ec2-node-reconciler/model/clock.js';
import {
  startKubeEmulator,
  type KubeEmulator,
  type KubeStore,
  type PodObject,
} from '@ec2-node-reconciler/sandbox/kube/index.js';

export const N1 = 'ip-10-0-1-1.ec2.internal';
export const N2 = 'ip-10-0-1-2.ec2.internal';

export interface Emulated {
  readonly kube: KubeEmulator;
  /** DrainApi over the KubeClient, reaching the emulator through the kubeconfig it writes (the CLI's way). */
  readonly api: DrainApi;
}

export async function emulated(clock: Clock): Promise<Emulated> {
  const kube = await startKubeEmulator({ clock, uids: 'sequential' });
  const kc = new KubeConfig();
  kc.loadFromString(kube.kubeconfig());
  return { kube, api: kubeDrainApi(new KubeClient(connectionFromKubeConfig(kc))) };
}

export function seedNodes(store: KubeStore, now: number): void {
  const hourAgo = now - 3_600_000;
  store.seedNode({ name: N1, instanceId: 'i-0a1b2c3d4e5f60001', createdAt: hourAgo });
  store.seedNode({ name: N2, instanceId: 'i-0a1b2c3d4e5f60002', createdAt: hourAgo });
}

/**
 * The pods every drain must tell apart, on N1 (plus two replicas of `web` on N2 so its PDB allows
 * one disruption): ReplicaSet, StatefulSet, DaemonSet, orphaned DaemonSet, mirror, emptyDir,
 * unreplicated, completed, and one already terminating. `blockingPdb` adds a PDB that allows no
 * disruption of db-0.
 */
export function seedMixedPods(
  store: KubeStore,
  options: { graceSeconds: number; blockingPdb: boolean; extraPods?: number },
): void {
  const grace = { terminationGracePeriodSeconds: options.graceSeconds };
  // A full node (110 pods by default on EKS) of ordinary ReplicaSet pods, for scale figures.
  for (let i = 0; i < (options.extraPods ?? 0); i++) {
    store.seedPod({ name: `app-${String(i).padStart(3, '0')}`, node: N1, owner: `ReplicaSet/app-${i % 10}`, ...grace });
  }
  store.seedPod({ name: 'web-6d4f-aaaaa', node: N1, owner: 'ReplicaSet/web-6d4f', labels: { app: 'web' }, ...grace });
  store.seedPod({ name: 'web-6d4f-bbbbb', node: N2, owner: 'ReplicaSet/web-6d4f', labels: { app: 'web' }, ...grace });
  store.seedPod({ name: 'web-6d4f-ccccc', node: N2, owner: 'ReplicaSet/web-6d4f', labels: { app: 'web' }, ...grace });
  store.seedPdb({ name: 'web', selector: { app: 'web' }, minAvailable: 2 });
  store.seedPod({ name: 'db-0', node: N1, owner: 'StatefulSet/db', labels: { app: 'db' }, ...grace });
  if (options.blockingPdb) store.seedPdb({ name: 'db', selector: { app: 'db' }, minAvailable: 1 });
  store.seedPod({ name: 'fluent-bit-x1', namespace: 'kube-system', node: N1, owner: 'DaemonSet/fluent-bit', ...grace });
  store.seedPod({
    name: 'retired-agent-x1',
    namespace: 'kube-system',
    node: N1,
    owner: 'DaemonSet/retired-agent',
    ...grace,
  });
  store.delete(store.resource('daemonsets', 'apps'), 'kube-system', 'retired-agent');
  store.seedPod({ name: `kube-proxy-${N1}`, namespace: 'kube-system', node: N1, mirror: true, ...grace });
  store.seedPod({ name: 'cache-7c9d-aaaaa', node: N1, owner: 'ReplicaSet/cache-7c9d', emptyDir: true, ...grace });
  store.seedPod({ name: 'solo', node: N1, ...grace });
  store.seedPod({ name: 'batch-done', node: N1, owner: 'Job/batch', phase: 'Succeeded', ...grace });
  store.seedPod({ name: 'old-5b8c-aaaaa', node: N1, owner: 'ReplicaSet/old-5b8c', ...grace });
  store.delete(store.resource('pods'), 'default', 'old-5b8c-aaaaa', { gracePeriodSeconds: options.graceSeconds });
}

/** Every pod, where it is and whether it is terminating: what two drained clusters are compared on. */
export function podState(store: KubeStore): string[] {
  return store
    .listPods()
    .map((p: PodObject) => {
      const where = p.spec?.nodeName ?? '-';
      const terminating = p.metadata.deletionTimestamp !== undefined ? ' (terminating)' : '';
      return `${p.metadata.namespace ?? ''}/${p.metadata.name ?? ''}@${where}${terminating}`;
    })
    .sort();
}
