// What happens to Nodes over time: kubelet heartbeats folded into Nodes and Leases when read, a
// deleted Node's Lease garbage-collected and the Node re-registered by its kubelet, and the pod GC
// deleting the pods of a Node gone longer than the quarantine.
import { buildLease } from './builders.js';
import { keyOf } from './collection.js';
import type { Kubelets } from './kubelet.js';
import type { StoreCore } from './store-port.js';
import { formatTime } from './time.js';
import { NODE_LEASE_NAMESPACE, type KubeObject, type NodeObject } from './types.js';

export type NodeLifecycleCore = Pick<
  StoreCore,
  'clock' | 'newUid' | 'buildContext' | 'stored' | 'podsOn' | 'put' | 'drop'
>;

export class NodeLifecycle {
  /** Nodes deleted while pods were bound to them: name → deletion time. */
  private readonly deletedNodes = new Map<string, number>();

  constructor(
    private readonly core: NodeLifecycleCore,
    private readonly kubelets: Kubelets,
    /** How long a pod may stay bound to a missing Node before the pod GC deletes it. */
    private readonly quarantineMs: number,
  ) {}

  /** A Node or node Lease with the heartbeats its kubelet has posted by now (the same object when none). */
  refresh(storage: string, object: KubeObject): KubeObject {
    if (storage === 'nodes') return this.kubelets.refreshNode(object);
    if (storage === 'leases' && object.metadata.namespace === NODE_LEASE_NAMESPACE)
      return this.kubelets.refreshLease(object);
    return object;
  }

  /** What follows a Node or node Lease leaving the store. */
  afterRemoved(storage: string, object: KubeObject): void {
    if (storage === 'nodes') this.afterNodeRemoved(object);
    if (storage === 'leases' && object.metadata.namespace === NODE_LEASE_NAMESPACE) {
      this.kubelets.onLeaseDeleted(object.metadata.name ?? '', this.core.clock.now());
    }
  }

  /** Kubelets re-register their deleted Nodes and re-create their Leases, when due. */
  catchUpKubelets(): void {
    this.kubelets.catchUp({
      registerNode: (template, at) => this.reRegister(template, at),
      ensureLease: (nodeName, at) => this.ensureLease(nodeName, at),
    });
  }

  /** The pod GC: the pods of a Node gone for the quarantine are deleted. */
  collectOrphanPods(now: number): void {
    if (this.deletedNodes.size === 0) return;
    for (const [name, at] of [...this.deletedNodes]) {
      if (this.core.stored('nodes', name) !== undefined) {
        this.deletedNodes.delete(name);
        continue;
      }
      if (now < at + this.quarantineMs) continue;
      this.deletedNodes.delete(name);
      for (const key of [...this.core.podsOn(name)]) {
        const pod = this.core.stored('pods', key);
        if (pod !== undefined) this.core.drop('pods', pod);
      }
    }
  }

  private afterNodeRemoved(node: NodeObject): void {
    const name = node.metadata.name ?? '';
    const now = this.core.clock.now();
    // The garbage collector removes dependents whose owner is gone: the node's Lease.
    const lease = this.core.stored('leases', keyOf(NODE_LEASE_NAMESPACE, name));
    if (lease?.metadata.ownerReferences?.some((r) => r.uid === node.metadata.uid) === true)
      this.core.drop('leases', lease);
    if (this.core.podsOn(name).size > 0) this.deletedNodes.set(name, now);
    this.kubelets.onNodeDeleted(name, now);
  }

  private reRegister(template: NodeObject, at: number): void {
    const name = template.metadata.name ?? '';
    if (this.core.stored('nodes', name) !== undefined) return;
    const stamp = formatTime(at);
    const conditions = template.status?.conditions?.map((c) => ({
      ...c,
      lastHeartbeatTime: stamp,
      lastTransitionTime: stamp,
    }));
    const node = this.core.put('nodes', {
      ...template,
      metadata: { ...template.metadata, uid: this.core.newUid(), creationTimestamp: stamp },
      status: { ...template.status, ...(conditions === undefined ? {} : { conditions }) },
    });
    this.ensureLease(name, at, node.metadata.uid);
  }

  private ensureLease(nodeName: string, at: number, nodeUid?: string): void {
    const existing = this.core.stored('leases', keyOf(NODE_LEASE_NAMESPACE, nodeName));
    const uid = nodeUid ?? this.core.stored('nodes', nodeName)?.metadata.uid;
    if (existing !== undefined) {
      if (uid !== undefined) {
        this.core.put('leases', {
          ...existing,
          metadata: {
            ...existing.metadata,
            ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: nodeName, uid }],
          },
        });
      }
      return;
    }
    this.core.put(
      'leases',
      buildLease(
        { nodeName, renewTime: at, createdAt: at, ...(uid === undefined ? {} : { nodeUid: uid }) },
        this.core.buildContext(),
      ),
    );
  }
}
