// Taking pods away: graceful pod deletion (a pod is marked and goes when its kubelet has stopped it),
// the eviction subresource's PodDisruptionBudget rules, and the PDB status the disruption
// controller keeps, folded in when a PDB is read. The arithmetic itself is pdb.ts's.
import { keyOf } from './collection.js';
import { StatusError, tooManyRequests } from './errors.js';
import type { Kubelets } from './kubelet.js';
import { canIgnorePdb, computePdbStatus, decideEviction, type PdbStatus } from './pdb.js';
import { deepEqual } from './patch.js';
import type { StoreCore } from './store-port.js';
import { formatTime } from './time.js';
import type { PdbObject, PodObject } from './types.js';

export type EvictionCore = Pick<StoreCore, 'clock' | 'stored' | 'current' | 'keys' | 'put' | 'drop'>;

export class Evictions {
  /** Pods being gracefully deleted: key → when their kubelet finishes. */
  private readonly terminating = new Map<string, number>();

  constructor(
    private readonly core: EvictionCore,
    private readonly kubelets: Pick<Kubelets, 'isAlive'>,
  ) {}

  // ---------- graceful deletion ----------

  /** Graceful pod deletion (pkg/registry/core/pod/strategy.go CheckGracefulDelete). */
  deletePod(
    pod: PodObject,
    requestedGrace: number | undefined,
    dryRun: boolean,
  ): { body: PodObject; removed: boolean } {
    const now = this.core.clock.now();
    const phase = pod.status?.phase;
    let grace = requestedGrace ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
    // Unbound and finished pods have nothing to stop: they go at once.
    if (pod.spec?.nodeName === undefined || phase === 'Succeeded' || phase === 'Failed') grace = 0;
    if (grace < 0) grace = 1;
    const key = keyOf(pod.metadata.namespace, pod.metadata.name ?? '');
    const previous = pod.metadata.deletionGracePeriodSeconds;
    if (pod.metadata.deletionTimestamp !== undefined && previous !== undefined && grace >= previous) {
      return { body: pod, removed: false };
    }
    if (dryRun) return { body: pod, removed: grace === 0 };
    if (grace === 0 && (pod.metadata.finalizers?.length ?? 0) === 0) {
      const gone = {
        ...pod,
        metadata: { ...pod.metadata, deletionTimestamp: formatTime(now), deletionGracePeriodSeconds: 0 },
      };
      this.core.drop('pods', pod);
      return { body: gone, removed: true };
    }
    const marked = this.core.put('pods', {
      ...pod,
      metadata: {
        ...pod.metadata,
        deletionTimestamp: formatTime(now + grace * 1000),
        deletionGracePeriodSeconds: grace,
      },
    });
    this.terminating.set(key, now + grace * 1000);
    return { body: marked, removed: false };
  }

  /** Pods whose grace period ran out on a live kubelet (or a Node gone) vanish, unless finalizers hold them. */
  finishGracePeriods(now: number): void {
    if (this.terminating.size === 0) return;
    for (const [key, deadline] of [...this.terminating]) {
      if (deadline > now) continue;
      const pod = this.core.stored('pods', key);
      if (pod === undefined) {
        this.terminating.delete(key);
        continue;
      }
      const node = (pod as PodObject).spec?.nodeName;
      if (node !== undefined && !this.kubelets.isAlive(node, deadline) && this.core.stored('nodes', node) !== undefined)
        continue;
      if ((pod.metadata.finalizers?.length ?? 0) > 0) continue;
      this.core.drop('pods', pod);
    }
  }

  /** A pod left the store, by whatever way: nothing is left to finish. */
  onPodRemoved(key: string): void {
    this.terminating.delete(key);
  }

  // ---------- eviction ----------

  /**
   * Refuses an eviction as eviction.go does when the pod's PodDisruptionBudget forbids it (429), or
   * when more than one covers the pod (500). Pods that can ignore PDBs always pass.
   */
  admit(pod: PodObject): void {
    if (canIgnorePdb(pod)) return;
    const namespace = pod.metadata.namespace ?? '';
    const pdbs = [...this.core.keys('poddisruptionbudgets', `${namespace}/`)].map((k) => {
      const pdb = this.core.current('poddisruptionbudgets', k) as PdbObject;
      return { pdb, status: this.pdbStatus(pdb) };
    });
    const verdict = decideEviction(pod, pdbs);
    switch (verdict.kind) {
      case 'multiple-pdbs':
        throw new StatusError(
          500,
          undefined,
          'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
        );
      case 'blocked':
        throw tooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0, [
          {
            reason: 'DisruptionBudget',
            message: `The disruption budget ${verdict.pdb} needs ${verdict.desiredHealthy} healthy pods and has ${verdict.currentHealthy} currently`,
          },
        ]);
      case 'delete':
        return;
    }
  }

  // ---------- PDB status ----------

  /** The PDB with the status the disruption controller would have written by now (the same object when unchanged). */
  withPdbStatus(pdb: PdbObject): PdbObject {
    const status = this.pdbStatus(pdb);
    const previous = pdb.status;
    const prevCondition = Array.isArray(previous?.['conditions'])
      ? (previous['conditions'][0] as Record<string, unknown> | undefined)
      : undefined;
    const [condition] = status.conditions;
    if (
      condition !== undefined &&
      prevCondition?.['status'] === condition.status &&
      typeof prevCondition['lastTransitionTime'] === 'string'
    ) {
      condition.lastTransitionTime = prevCondition['lastTransitionTime'];
    }
    if (deepEqual(previous, status)) return pdb;
    return { ...pdb, status };
  }

  private pdbStatus(pdb: PdbObject): PdbStatus {
    const namespace = pdb.metadata.namespace ?? '';
    const pods = [...this.core.keys('pods', `${namespace}/`)].map((k) => this.core.stored('pods', k) as PodObject);
    return computePdbStatus(
      pdb,
      pods,
      (ns, kind, name, uid) => {
        const storage = kind === 'ReplicaSet' ? 'replicasets' : kind === 'StatefulSet' ? 'statefulsets' : undefined;
        if (storage === undefined) return undefined;
        const owner = this.core.stored(storage, keyOf(ns, name));
        return owner?.metadata.uid === uid ? owner : undefined;
      },
      formatTime(this.core.clock.now()),
    );
  }
}
