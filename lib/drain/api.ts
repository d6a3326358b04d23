/**
 * The Kubernetes calls a drain needs, over the node writer's projection of a Node and a small one of
 * a Pod. The engine sees only this interface: the KubeClient adapter (kube-api.ts) implements it for
 * real clusters and the emulator, tests implement it in memory.
 */
import type { NodeWriteApi } from '../kube/node-writes.js';

/** Identifies one pod incarnation: a StatefulSet pod recreated under the same name has a new uid. */
export interface PodRef {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

export interface OwnerRef {
  readonly kind: string;
  readonly name: string;
}

/** What the drain filters read from a pod, and nothing more. */
export interface DrainPod extends PodRef {
  /** Pending, Running, Succeeded, Failed or Unknown (absent on a pod the kubelet has not reported yet). */
  readonly phase?: string;
  /** Epoch ms; set once a delete or eviction has been accepted. */
  readonly deletionTimestamp?: number;
  /** The controller owner reference (`controller: true`), if any. */
  readonly controller?: OwnerRef;
  /** Carries the `kubernetes.io/config.mirror` annotation: a static pod's API shadow. */
  readonly mirror: boolean;
  /** Mounts at least one emptyDir volume (its data dies with the pod). */
  readonly emptyDir: boolean;
  readonly terminationGracePeriodSeconds?: number;
}

/** How the API server answered one eviction (policy/v1). */
export type RemovalOutcome =
  /** Accepted: the pod is now terminating (or already deleted, for a finished pod). */
  | { readonly kind: 'accepted' }
  /** 404: the pod is already gone. */
  | { readonly kind: 'not-found' }
  /** 409 on the uid precondition: the name now belongs to a new pod, so ours is gone. */
  | { readonly kind: 'replaced' }
  /** 429: a PodDisruptionBudget allows no disruption now (`pdb` when the server names it), or the server throttles. */
  | { readonly kind: 'too-many-requests'; readonly pdb?: string; readonly message: string }
  /** 500 naming several PodDisruptionBudgets: the eviction API refuses such pods until the PDBs are fixed. */
  | { readonly kind: 'multiple-pdbs'; readonly message: string }
  /** Anything else the server answered (403 in a terminating namespace, 5xx, …). */
  | { readonly kind: 'failed'; readonly status: number; readonly message: string };

/** DeleteOptions the drain sets on an eviction besides the uid precondition. */
export interface RemovalOptions {
  /** Shorter than the pod's own terminationGracePeriodSeconds, so that it ends before the deadline (kubectl's --grace-period). */
  readonly gracePeriodSeconds?: number;
}

/** The node calls are the node writer's (cordon, the drain's record); the rest reads and evicts pods. */
export interface DrainApi extends NodeWriteApi {
  /**
   * Every pod bound to the node (all namespaces, all pages); with `labelSelector` (the Kubernetes
   * string form, e.g. `app=web,tier!=db`), only the pods it selects, as the API server filters them.
   */
  listPodsOnNode(node: string, labelSelector?: string): Promise<DrainPod[]>;
  /** Whether apps/v1 DaemonSet namespace/name exists; throws when the server cannot say. */
  daemonSetExists(namespace: string, name: string): Promise<boolean>;
  /** policy/v1 Eviction with a uid precondition. Throws only when no HTTP answer came back. */
  evictPod(pod: PodRef, options?: RemovalOptions): Promise<RemovalOutcome>;
}

export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

export const podKey = (pod: Pick<PodRef, 'namespace' | 'name'>): string => `${pod.namespace}/${pod.name}`;

export const podRef = (pod: PodRef): PodRef => ({ namespace: pod.namespace, name: pod.name, uid: pod.uid });

/** Terminal phases: such pods already caused their disruption, so every filter lets them go. */
export const isFinished = (pod: Pick<DrainPod, 'phase'>): boolean =>
  pod.phase === 'Succeeded' || pod.phase === 'Failed';
