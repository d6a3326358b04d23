// The resources the emulator serves: one table drives discovery, routing, field selectors,
// strategic-merge keys and errors, so adding a resource is one entry here.
import type { GroupResource } from './errors.js';
import type { KubeObject, LeaseObject, NodeObject, PodObject } from './types.js';

export type FieldGetter = (object: KubeObject) => string;

export type SubresourceDef = { kind: string; group?: string; version?: string; verbs: readonly string[] };

export type ResourceDef = {
  /** The collection objects live in; two APIs may share one (core and events.k8s.io Events). */
  readonly storage: string;
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly singular: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly verbs: readonly string[];
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  readonly subresources: Readonly<Record<string, SubresourceDef>>;
  /** Field selectors the real server supports beyond metadata.name / metadata.namespace. */
  readonly fields: Readonly<Record<string, FieldGetter>>;
  /** Spec changes bump metadata.generation (PDBs, workloads); nodes and pods have none. */
  readonly generation: boolean;
  /** The main resource cannot change `.status` (only the status subresource can). */
  readonly statusSubresource: boolean;
  /** Objects that are not stored: the request is answered by a handler (access reviews). */
  readonly virtual?: boolean;
};

const CRUD = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] as const;

export const RBAC_GROUP = 'rbac.authorization.k8s.io';
/** plural, kind, namespaced. */
export const RBAC_KINDS = [
  ['clusterroles', 'ClusterRole', false],
  ['clusterrolebindings', 'ClusterRoleBinding', false],
  ['roles', 'Role', true],
  ['rolebindings', 'RoleBinding', true],
] as const;
const STATUS_VERBS = ['get', 'patch', 'update'] as const;

const str = (value: unknown): string =>
  value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);

const podFields: Record<string, FieldGetter> = {
  'spec.nodeName': (o) => str((o as PodObject).spec?.nodeName),
  'spec.restartPolicy': (o) => str((o as PodObject).spec?.['restartPolicy']),
  'spec.schedulerName': (o) => str((o as PodObject).spec?.['schedulerName']),
  'spec.serviceAccountName': (o) => str((o as PodObject).spec?.['serviceAccountName']),
  'spec.hostNetwork': (o) => String((o as PodObject).spec?.['hostNetwork'] === true),
  'status.phase': (o) => str((o as PodObject).status?.phase),
  'status.podIP': (o) => str((o as PodObject).status?.podIP),
  'status.nominatedNodeName': (o) => str((o as PodObject).status?.['nominatedNodeName']),
};

const nested = (object: KubeObject, path: string[]): string => {
  let node: unknown = object;
  for (const key of path)
    node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
  return str(node);
};

const coreEventFields: Record<string, FieldGetter> = Object.fromEntries(
  [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ].map((f) => [f, (o: KubeObject) => (f === 'source' ? nested(o, ['source', 'component']) : nested(o, f.split('.')))]),
);

// events.k8s.io/v1 selectors name the new fields, evaluated on the stored (core) shape.
const newEventFields: Record<string, FieldGetter> = {
  'regarding.kind': (o) => nested(o, ['involvedObject', 'kind']),
  'regarding.namespace': (o) => nested(o, ['involvedObject', 'namespace']),
  'regarding.name': (o) => nested(o, ['involvedObject', 'name']),
  'regarding.uid': (o) => nested(o, ['involvedObject', 'uid']),
  reason: (o) => nested(o, ['reason']),
  reportingController: (o) => nested(o, ['reportingComponent']),
  type: (o) => nested(o, ['type']),
};

export const RESOURCES: readonly ResourceDef[] = [
  {
    storage: 'namespaces',
    group: '',
    version: 'v1',
    plural: 'namespaces',
    singular: 'namespace',
    kind: 'Namespace',
    namespaced: false,
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['ns'],
    subresources: {},
    fields: { 'status.phase': (o) => nested(o, ['status', 'phase']) },
    generation: false,
    statusSubresource: true,
  },
  {
    storage: 'nodes',
    group: '',
    version: 'v1',
    plural: 'nodes',
    singular: 'node',
    kind: 'Node',
    namespaced: false,
    verbs: CRUD,
    shortNames: ['no'],
    subresources: { status: { kind: 'Node', verbs: STATUS_VERBS } },
    fields: { 'spec.unschedulable': (o) => String((o as NodeObject).spec?.unschedulable === true) },
    generation: false,
    statusSubresource: true,
  },
  {
    storage: 'pods',
    group: '',
    version: 'v1',
    plural: 'pods',
    singular: 'pod',
    kind: 'Pod',
    namespaced: true,
    verbs: CRUD,
    shortNames: ['po'],
    categories: ['all'],
    subresources: {
      eviction: { kind: 'Eviction', group: 'policy', version: 'v1', verbs: ['create'] },
      status: { kind: 'Pod', verbs: STATUS_VERBS },
    },
    fields: podFields,
    generation: false,
    statusSubresource: true,
  },
  {
    storage: 'events',
    group: '',
    version: 'v1',
    plural: 'events',
    singular: 'event',
    kind: 'Event',
    namespaced: true,
    verbs: CRUD,
    shortNames: ['ev'],
    subresources: {},
    fields: coreEventFields,
    generation: false,
    statusSubresource: false,
  },
  {
    storage: 'poddisruptionbudgets',
    group: 'policy',
    version: 'v1',
    plural: 'poddisruptionbudgets',
    singular: 'poddisruptionbudget',
    kind: 'PodDisruptionBudget',
    namespaced: true,
    verbs: CRUD,
    shortNames: ['pdb'],
    subresources: { status: { kind: 'PodDisruptionBudget', verbs: STATUS_VERBS } },
    fields: {},
    generation: true,
    statusSubresource: true,
  },
  ...(['daemonsets', 'replicasets', 'statefulsets'] as const).map((plural): ResourceDef => ({
    storage: plural,
    group: 'apps',
    version: 'v1',
    plural,
    singular: plural.slice(0, -1),
    kind: { daemonsets: 'DaemonSet', replicasets: 'ReplicaSet', statefulsets: 'StatefulSet' }[plural],
    namespaced: true,
    verbs: CRUD,
    shortNames: [{ daemonsets: 'ds', replicasets: 'rs', statefulsets: 'sts' }[plural]],
    categories: ['all'],
    subresources: {
      status: {
        kind: { daemonsets: 'DaemonSet', replicasets: 'ReplicaSet', statefulsets: 'StatefulSet' }[plural],
        verbs: STATUS_VERBS,
      },
    },
    fields: {},
    generation: true,
    statusSubresource: true,
  })),
  {
    storage: 'leases',
    group: 'coordination.k8s.io',
    version: 'v1',
    plural: 'leases',
    singular: 'lease',
    kind: 'Lease',
    namespaced: true,
    verbs: CRUD,
    subresources: {},
    fields: { 'spec.holderIdentity': (o) => str((o as LeaseObject).spec?.holderIdentity) },
    generation: false,
    statusSubresource: false,
  },
  {
    storage: 'events',
    group: 'events.k8s.io',
    version: 'v1',
    plural: 'events',
    singular: 'event',
    kind: 'Event',
    namespaced: true,
    verbs: CRUD,
    shortNames: ['ev'],
    subresources: {},
    fields: newEventFields,
    generation: false,
    statusSubresource: false,
  },
  // RBAC: served so that `kubectl apply` can install the reconciler's manifest, and read back by the
  // authorizer (the served objects govern every identity, the reconciler's included).
  ...RBAC_KINDS.map(([plural, kind, namespaced]): ResourceDef => ({
    storage: plural,
    group: RBAC_GROUP,
    version: 'v1',
    plural,
    singular: plural.slice(0, -1),
    kind,
    namespaced,
    verbs: CRUD,
    subresources: {},
    fields: {},
    generation: false,
    statusSubresource: false,
  })),
  {
    storage: 'selfsubjectaccessreviews',
    group: 'authorization.k8s.io',
    version: 'v1',
    plural: 'selfsubjectaccessreviews',
    singular: 'selfsubjectaccessreview',
    kind: 'SelfSubjectAccessReview',
    namespaced: false,
    verbs: ['create'],
    subresources: {},
    fields: {},
    generation: false,
    statusSubresource: false,
    virtual: true,
  },
  {
    storage: 'selfsubjectrulesreviews',
    group: 'authorization.k8s.io',
    version: 'v1',
    plural: 'selfsubjectrulesreviews',
    singular: 'selfsubjectrulesreview',
    kind: 'SelfSubjectRulesReview',
    namespaced: false,
    verbs: ['create'],
    subresources: {},
    fields: {},
    generation: false,
    statusSubresource: false,
    virtual: true,
  },
  {
    storage: 'selfsubjectreviews',
    group: 'authentication.k8s.io',
    version: 'v1',
    plural: 'selfsubjectreviews',
    singular: 'selfsubjectreview',
    kind: 'SelfSubjectReview',
    namespaced: false,
    verbs: ['create'],
    subresources: {},
    fields: {},
    generation: false,
    statusSubresource: false,
    virtual: true,
  },
];

export const groupResource = (def: ResourceDef): GroupResource => ({ group: def.group, resource: def.plural });

/** The resource served at group/version/plural, if any. */
export function findResource(group: string, version: string, plural: string): ResourceDef | undefined {
  return RESOURCES.find((r) => r.group === group && r.version === version && r.plural === plural);
}

/** The canonical definition for a storage collection (its first API). */
export function resourceForStorage(storage: string): ResourceDef {
  const def = RESOURCES.find((r) => r.storage === storage);
  if (def === undefined) throw new Error(`no resource stores ${storage}`);
  return def;
}

export const apiVersionOf = (def: ResourceDef): string =>
  def.group === '' ? def.version : `${def.group}/${def.version}`;
