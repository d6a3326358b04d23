// Wire shapes of the Kubernetes objects the emulator stores. Only the fields the emulator itself
// reads are typed; everything else rides along untouched, as on a real API server.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export type OwnerReference = {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
};

export type ObjectMeta = {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  [key: string]: unknown;
};

/** Any stored object. Stored objects are never mutated: every write stores a new object. */
export type KubeObject = {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
};

/** A stored object: name, uid, resourceVersion and creationTimestamp are always set. */
export type StoredMeta = ObjectMeta & { name: string; uid: string; resourceVersion: string; creationTimestamp: string };

export type Taint = { key: string; value?: string; effect: string; timeAdded?: string };

export type NodeCondition = {
  type: string;
  status: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
};

export type NodeObject = KubeObject & {
  spec?: { providerID?: string; unschedulable?: boolean; taints?: Taint[]; podCIDR?: string; [key: string]: unknown };
  status?: {
    conditions?: NodeCondition[];
    addresses?: { type: string; address: string }[];
    nodeInfo?: Record<string, string>;
    [key: string]: unknown;
  };
};

export type PodCondition = { type: string; status: string; lastTransitionTime?: string | null; [key: string]: unknown };

export type PodObject = KubeObject & {
  spec?: {
    nodeName?: string;
    terminationGracePeriodSeconds?: number;
    containers?: { name: string; [key: string]: unknown }[];
    volumes?: { name: string; emptyDir?: unknown; [key: string]: unknown }[];
    [key: string]: unknown;
  };
  status?: {
    phase?: string;
    reason?: string;
    podIP?: string;
    conditions?: PodCondition[];
    containerStatuses?: { name: string; ready?: boolean; restartCount?: number; [key: string]: unknown }[];
    [key: string]: unknown;
  };
};

export type LabelSelectorRequirement = { key: string; operator: string; values?: string[] };
export type LabelSelector = { matchLabels?: Record<string, string>; matchExpressions?: LabelSelectorRequirement[] };

export type PdbObject = KubeObject & {
  spec?: {
    selector?: LabelSelector | null;
    minAvailable?: number | string;
    maxUnavailable?: number | string;
    unhealthyPodEvictionPolicy?: string;
  };
  status?: Record<string, unknown>;
};

export type ScalableObject = KubeObject & {
  spec?: { replicas?: number; selector?: LabelSelector; [key: string]: unknown };
};

export type LeaseObject = KubeObject & {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    renewTime?: string;
    acquireTime?: string;
    [key: string]: unknown;
  };
};

export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The controller among an object's owners, as Kubernetes' GetControllerOf finds it. */
export function controllerOf(object: KubeObject): OwnerReference | undefined {
  return object.metadata.ownerReferences?.find((ref) => ref.controller === true);
}
