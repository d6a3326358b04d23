// Seeding from plain objects (what a scenario file or a test describes): each object is created as a
// client would create it; nodes get their Lease and simulated kubelet, pods their controller.
import {
  buildLease,
  buildNode,
  buildPdb,
  buildPod,
  buildWorkload,
  parseOwner,
  type LeaseSeed,
  type NodeSeed,
  type PdbSeed,
  type PodSeed,
  type WorkloadKind,
  type WorkloadSeed,
} from './builders.js';
import { keyOf } from './collection.js';
import type { Kubelets } from './kubelet.js';
import { apiVersionOf, RESOURCES } from './resources.js';
import type { StoreCore } from './store-port.js';
import { parseTime } from './time.js';
import type { KubeObject, LeaseObject, NodeObject, PdbObject, PodObject, ScalableObject } from './types.js';

/** A whole cluster as plain objects (what a scenario file describes), seeded in dependency order. */
export type ClusterSeed = {
  readonly nodes?: readonly NodeSeed[];
  readonly daemonSets?: readonly WorkloadSeed[];
  readonly replicaSets?: readonly WorkloadSeed[];
  readonly statefulSets?: readonly WorkloadSeed[];
  readonly pods?: readonly PodSeed[];
  readonly pdbs?: readonly PdbSeed[];
  /** Extra Leases (nodes get theirs from NodeSeed.lastHeartbeat). */
  readonly leases?: readonly LeaseSeed[];
  /** Any other served object, as full Kubernetes JSON (seeded first). */
  readonly objects?: readonly KubeObject[];
};

export type SeedingCore = Pick<StoreCore, 'clock' | 'buildContext' | 'stored' | 'put' | 'create'>;

export class Seeding {
  /** Pods seeded per auto-created controller (uid → count), which sets its replicas. */
  private readonly autoReplicas = new Map<string, number>();

  constructor(
    private readonly core: SeedingCore,
    private readonly kubelets: Pick<Kubelets, 'add'>,
  ) {}

  seedCluster(seed: ClusterSeed): void {
    for (const object of seed.objects ?? []) this.seed(object);
    for (const node of seed.nodes ?? []) this.seedNode(node);
    for (const ds of seed.daemonSets ?? []) this.seedWorkload('DaemonSet', ds);
    for (const rs of seed.replicaSets ?? []) this.seedWorkload('ReplicaSet', rs);
    for (const sts of seed.statefulSets ?? []) this.seedWorkload('StatefulSet', sts);
    for (const pod of seed.pods ?? []) this.seedPod(pod);
    for (const pdb of seed.pdbs ?? []) this.seedPdb(pdb);
    for (const lease of seed.leases ?? []) this.seedLease(lease);
  }

  /** Seeds any object as given (kind decides the resource); fills uid, creationTimestamp. */
  seed<T extends KubeObject>(object: T): T {
    const def = RESOURCES.find(
      (r) => r.kind === object.kind && apiVersionOf(r) === object.apiVersion && r.virtual !== true,
    );
    if (def === undefined) throw new Error(`cannot seed ${object.apiVersion} ${object.kind}: not a served resource`);
    if (def.storage === 'events' && def.group !== '') throw new Error('seed events as core/v1 Events');
    const created = this.core.create(def, object);
    return created as T;
  }

  seedNode(seed: NodeSeed): NodeObject {
    const node = this.seed(buildNode(seed, this.core.buildContext()));
    const heartbeat = seed.lastHeartbeat === undefined ? this.core.clock.now() : seed.lastHeartbeat;
    if (heartbeat !== null) {
      this.seed(
        buildLease(
          {
            nodeName: seed.name,
            renewTime: heartbeat,
            nodeUid: node.metadata.uid ?? '',
            createdAt: parseTime(node.metadata.creationTimestamp) ?? this.core.clock.now(),
          },
          this.core.buildContext(),
        ),
      );
    }
    const heartbeating = seed.heartbeating ?? true;
    // The kubelet's renewals stay on the seeded one's grid, from the first one after now on (a Lease
    // seeded 10 minutes old reads so until then); without a Lease, its last heartbeat is the Ready
    // condition's (a node never heard from must not read as fresh).
    this.kubelets.add(node, heartbeating, heartbeat ?? seed.readyHeartbeat ?? this.core.clock.now());
    return node;
  }

  seedLease(seed: LeaseSeed): LeaseObject {
    const nodeUid = seed.nodeUid ?? this.core.stored('nodes', seed.nodeName)?.metadata.uid;
    return this.seed(buildLease({ ...seed, ...(nodeUid === undefined ? {} : { nodeUid }) }, this.core.buildContext()));
  }

  /**
   * Seeds a pod; its controller (ReplicaSet, DaemonSet, StatefulSet) is created when missing, with
   * one replica per seeded pod, so drain finds the DaemonSet and PDBs find their scale.
   */
  seedPod(seed: PodSeed): PodObject {
    const namespace = seed.namespace ?? 'default';
    const refs: { ownerUid?: string; nodeUid?: string } = {};
    if (seed.node !== undefined) {
      const nodeUid = this.core.stored('nodes', seed.node)?.metadata.uid;
      if (nodeUid !== undefined) refs.nodeUid = nodeUid;
    }
    if (seed.owner !== undefined) {
      const owner = parseOwner(seed.owner);
      const kind = owner.kind;
      if (kind === 'ReplicaSet' || kind === 'DaemonSet' || kind === 'StatefulSet') {
        const storage = `${kind.toLowerCase()}s`;
        const key = keyOf(namespace, owner.name);
        const found = this.core.stored(storage, key);
        const existing = found === undefined ? undefined : (found as ScalableObject);
        if (existing === undefined) {
          const created = this.seedWorkload(kind, {
            name: owner.name,
            namespace,
            replicas: 1,
            ...(owner.uid === undefined ? {} : { uid: owner.uid }),
          });
          refs.ownerUid = created.metadata.uid ?? '';
          this.autoReplicas.set(refs.ownerUid, 1);
        } else {
          refs.ownerUid = existing.metadata.uid ?? '';
          const count = this.autoReplicas.get(refs.ownerUid);
          if (count !== undefined) {
            this.autoReplicas.set(refs.ownerUid, count + 1);
            if (kind !== 'DaemonSet')
              this.core.put(storage, { ...existing, spec: { ...existing.spec, replicas: count + 1 } });
          }
        }
      }
    }
    return this.seed(buildPod(seed, this.core.buildContext(), refs));
  }

  seedPdb(seed: PdbSeed): PdbObject {
    return this.seed(buildPdb(seed, this.core.buildContext()));
  }

  seedWorkload(kind: WorkloadKind, seed: WorkloadSeed): ScalableObject {
    return this.seed(buildWorkload(kind, seed, this.core.buildContext()));
  }
}
