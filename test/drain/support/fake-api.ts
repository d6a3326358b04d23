import type { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import {
  podKey,
  type DrainApi,
  type DrainPod,
  type PodRef,
  type RemovalOptions,
  type RemovalOutcome,
} from '../../../lib/drain/api.js';
import { KubeApiError, type KubeRequest } from '../../../lib/kube/client.js';
import type { NodePatch, NodeWriteView } from '../../../lib/kube/node-writes.js';

/** The API server's refusal of a request, as the KubeClient throws it. */
export const refusal = (
  status: number,
  message: string,
  request: Pick<KubeRequest, 'method' | 'path'> = { method: 'PATCH', path: '/api/v1/nodes' },
): KubeApiError => new KubeApiError(status, { message }, request);

/** A PodDisruptionBudget reduced to what eviction needs: which pods it covers and how many may go now. */
export interface FakePdb {
  readonly namespace: string;
  readonly name: string;
  readonly covers: (pod: DrainPod) => boolean;
  /** Disruptions allowed now; an accepted eviction spends one, a covered pod going away gives it back. */
  allowed: number;
}

export interface FakePod extends DrainPod {
  readonly node: string;
}

export type Call =
  | { readonly op: 'getNode' | 'patchNode' | 'listPodsOnNode'; readonly name: string }
  | { readonly op: 'daemonSetExists'; readonly name: string }
  | { readonly op: 'evictPod'; readonly name: string; readonly uid: string };

/**
 * An in-memory cluster behind DrainApi, on a VirtualClock: an accepted eviction marks the pod
 * terminating and removes it when the clock reaches the end of its grace period, as a kubelet would.
 */
export class FakeCluster implements DrainApi {
  readonly nodes = new Map<string, NodeWriteView>();
  readonly pods = new Map<string, FakePod>();
  readonly daemonSets = new Set<string>();
  readonly pdbs: FakePdb[] = [];
  readonly calls: Call[] = [];
  /** Evictions the fake accepted, in order. */
  readonly accepted: string[] = [];
  /** Evictions sent for a pod that was already terminating: a duplicate removal. */
  readonly redundant: string[] = [];
  /** Set to make a call fail: return an error to throw, or undefined to let it through. */
  failOn?: (call: Call) => Error | undefined;
  private uidSeq = 0;
  private rv = 0;

  constructor(readonly clock: VirtualClock) {}

  addNode(name: string, overrides: Partial<NodeWriteView> = {}): NodeWriteView {
    const node: NodeWriteView = {
      name,
      uid: `node-uid-${name}`,
      resourceVersion: String(++this.rv),
      unschedulable: false,
      annotations: {},
      labels: {},
      taints: [],
      ...overrides,
    };
    this.nodes.set(name, node);
    return node;
  }

  addPod(pod: Omit<FakePod, 'uid'> & { uid?: string }): FakePod {
    const full: FakePod = { ...pod, uid: pod.uid ?? `uid-${++this.uidSeq}` };
    this.pods.set(podKey(full), full);
    return full;
  }

  podsOn(node: string): FakePod[] {
    return [...this.pods.values()].filter((p) => p.node === node).sort((a, b) => podKey(a).localeCompare(podKey(b)));
  }

  evictions(): Call[] {
    return this.calls.filter((c) => c.op === 'evictPod');
  }

  private record(call: Call): void {
    this.calls.push(call);
    const error = this.failOn?.(call);
    if (error) throw error;
  }

  getNode(name: string): Promise<NodeWriteView | undefined> {
    this.record({ op: 'getNode', name });
    return Promise.resolve(this.nodes.get(name));
  }

  patchNode(name: string, patch: NodePatch): Promise<NodeWriteView> {
    this.record({ op: 'patchNode', name });
    const node = this.nodes.get(name);
    if (!node) return Promise.reject(refusal(404, `nodes "${name}" not found`));
    if (patch.resourceVersion !== undefined && patch.resourceVersion !== node.resourceVersion) {
      return Promise.reject(refusal(409, 'the object has been modified'));
    }
    if (patch.uid !== undefined && patch.uid !== node.uid) {
      return Promise.reject(
        refusal(409, `Precondition failed: UID in precondition: ${patch.uid}, UID in object meta: ${node.uid}`),
      );
    }
    const merge = (
      base: Readonly<Record<string, string>>,
      change: Readonly<Record<string, string | null>> = {},
    ): Record<string, string> => {
      const out: Record<string, string> = { ...base };
      for (const [key, value] of Object.entries(change)) {
        if (value === null) delete out[key];
        else out[key] = value;
      }
      return out;
    };
    const next: NodeWriteView = {
      ...node,
      resourceVersion: String(++this.rv),
      unschedulable: patch.unschedulable === undefined ? node.unschedulable : patch.unschedulable === true,
      annotations: merge(node.annotations, patch.annotations),
      labels: merge(node.labels, patch.labels),
      taints: patch.taints ?? node.taints,
    };
    this.nodes.set(name, next);
    return Promise.resolve(next);
  }

  listPodsOnNode(node: string): Promise<DrainPod[]> {
    this.record({ op: 'listPodsOnNode', name: node });
    return Promise.resolve(this.podsOn(node).map((p) => ({ ...p })));
  }

  daemonSetExists(namespace: string, name: string): Promise<boolean> {
    this.record({ op: 'daemonSetExists', name: `${namespace}/${name}` });
    return Promise.resolve(this.daemonSets.has(`${namespace}/${name}`));
  }

  evictPod(ref: PodRef, options: RemovalOptions = {}): Promise<RemovalOutcome> {
    this.record({ op: 'evictPod', name: podKey(ref), uid: ref.uid });
    const pod = this.pods.get(podKey(ref));
    if (!pod) return Promise.resolve({ kind: 'not-found' });
    if (pod.uid !== ref.uid) return Promise.resolve({ kind: 'replaced' });
    if (pod.deletionTimestamp !== undefined) this.redundant.push(podKey(pod));
    const finished = pod.phase === 'Succeeded' || pod.phase === 'Failed';
    // Like the API server: terminal and terminating pods are deleted without consulting PDBs.
    if (!finished && pod.deletionTimestamp === undefined) {
      const covering = this.pdbs.filter((b) => b.namespace === pod.namespace && b.covers(pod));
      if (covering.length > 1) {
        return Promise.resolve({
          kind: 'multiple-pdbs',
          message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
        });
      }
      const [pdb] = covering;
      if (pdb && pdb.allowed <= 0) {
        return Promise.resolve({
          kind: 'too-many-requests',
          pdb: `${pdb.namespace}/${pdb.name}`,
          message: "Cannot evict pod as it would violate the pod's disruption budget.",
        });
      }
      if (pdb) pdb.allowed--;
    }
    this.terminate(pod, finished ? 0 : (options.gracePeriodSeconds ?? pod.terminationGracePeriodSeconds ?? 30));
    this.accepted.push(podKey(pod));
    return Promise.resolve({ kind: 'accepted' });
  }

  /** Marks the pod terminating and removes it once its grace period has passed on the clock. */
  terminate(pod: FakePod, graceSeconds: number): void {
    if (pod.deletionTimestamp !== undefined) return;
    const end = this.clock.now() + graceSeconds * 1000;
    const key = podKey(pod);
    if (graceSeconds === 0) {
      this.removePod(key, pod.uid);
      return;
    }
    this.pods.set(key, { ...pod, deletionTimestamp: end });
    this.clock.schedule(end, () => this.removePod(key, pod.uid));
  }

  private removePod(key: string, uid: string): void {
    const pod = this.pods.get(key);
    if (pod?.uid !== uid) return;
    this.pods.delete(key);
    // The workload's replacement becomes ready elsewhere, so its PDB allows one more disruption.
    for (const pdb of this.pdbs) if (pdb.namespace === pod.namespace && pdb.covers(pod)) pdb.allowed++;
  }
}

let seq = 0;

/** A pod builder: `pod('web-1', { owner: ['ReplicaSet', 'web'] })`. */
export function pod(
  name: string,
  options: {
    readonly namespace?: string;
    readonly node?: string;
    readonly owner?: readonly [kind: string, name: string];
    readonly phase?: string;
    readonly emptyDir?: boolean;
    readonly mirror?: boolean;
    readonly grace?: number;
    readonly deletionTimestamp?: number;
    readonly uid?: string;
  } = {},
): FakePod {
  return {
    namespace: options.namespace ?? 'default',
    name,
    uid: options.uid ?? `pod-${name}-${++seq}`,
    node: options.node ?? 'node-a',
    phase: options.phase ?? 'Running',
    mirror: options.mirror ?? false,
    emptyDir: options.emptyDir ?? false,
    terminationGracePeriodSeconds: options.grace ?? 30,
    ...(options.owner ? { controller: { kind: options.owner[0], name: options.owner[1] } } : {}),
    ...(options.deletionTimestamp !== undefined ? { deletionTimestamp: options.deletionTimestamp } : {}),
  };
}
