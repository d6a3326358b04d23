/**
 * The Kubernetes calls a drain needs, over small projections of Node and Pod. The engine sees only
 * this interface: the KubeClient adapter (kube-api.ts) implements it for real clusters and the
 * emulator, tests implement it in memory.
 */

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

export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: string;
  readonly timeAdded?: string;
}

/** What cordon and uncordon read from a Node. */
export interface DrainNode {
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
  readonly unschedulable: boolean;
  readonly annotations: Readonly<Record<string, string>>;
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly Taint[];
}

/**
 * A strategic-merge patch of a Node. `null` removes a key. `taints` replaces the whole list (Node
 * taints carry no merge key), so a patch that sets it also sets `resourceVersion`: a concurrent
 * writer then gets a conflict instead of losing its taint.
 */
export interface NodePatch {
  readonly unschedulable?: boolean | null;
  readonly annotations?: Readonly<Record<string, string | null>>;
  readonly labels?: Readonly<Record<string, string | null>>;
  readonly taints?: readonly Taint[];
  /** Preconditions: the server refuses (409) a patch for another incarnation or a changed object. */
  readonly uid?: string;
  readonly resourceVersion?: string;
}

/** How the API server answered one eviction (policy/v1) or delete. */
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

/** DeleteOptions the drain sets on an eviction or delete besides the uid precondition. */
export interface RemovalOptions {
  /** Shorter than the pod's own terminationGracePeriodSeconds, so that it ends before the deadline (kubectl's --grace-period). */
  readonly gracePeriodSeconds?: number;
}

export interface DrainApi {
  /** The node, or undefined when it does not exist. */
  getNode(name: string): Promise<DrainNode | undefined>;
  patchNode(name: string, patch: NodePatch): Promise<DrainNode>;
  /** Every pod bound to the node (all namespaces, all pages). */
  listPodsOnNode(node: string): Promise<DrainPod[]>;
  /** Whether apps/v1 DaemonSet namespace/name exists; throws when the server cannot say. */
  daemonSetExists(namespace: string, name: string): Promise<boolean>;
  /** policy/v1 Eviction with a uid precondition. Throws only when no HTTP answer came back. */
  evictPod(pod: PodRef, options?: RemovalOptions): Promise<RemovalOutcome>;
  /** DELETE with a uid precondition and the pod's own grace period unless options shorten it. Throws only when no HTTP answer came back. */
  deletePod(pod: PodRef, options?: RemovalOptions): Promise<RemovalOutcome>;
}

export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

export const podKey = (pod: Pick<PodRef, 'namespace' | 'name'>): string => `${pod.namespace}/${pod.name}`;

export const podRef = (pod: PodRef): PodRef => ({ namespace: pod.namespace, name: pod.name, uid: pod.uid });

/** Terminal phases: such pods already caused their disruption, so every filter lets them go. */
export const isFinished = (pod: Pick<DrainPod, 'phase'>): boolean => pod.phase === 'Succeeded' || pod.phase === 'Failed';

/** An HTTP error answer from the API server, as the adapter and fakes throw it. */
export class DrainApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'DrainApiError';
  }
}

export const isConflict = (error: unknown): boolean => error instanceof DrainApiError && error.status === 409;
export const isNotFound = (error: unknown): boolean => error instanceof DrainApiError && error.status === 404;
