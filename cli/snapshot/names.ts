// How a snapshot names what it writes: as the cluster and the account name it (`keepNames`), or
// renamed (`anonymizer`, `snapshot --anonymize`). Renaming is consistent within one snapshot (the same
// input always gets the same output, so references still meet: a Node's providerID names its instance,
// its name is that instance's private DNS name, a pod names its Node, a PDB selects its pods) and keyed
// by a secret drawn for the snapshot, so a name cannot be found again by hashing guesses.
//
// What is renamed: the cluster, the account id, instance ids (still valid ids), private DNS names and
// the Node names made of them (their IP, their instance id; the region's suffix stays, as the zones do:
// the sandbox needs them to link Nodes to machines), other Node names, Auto Scaling groups and hooks (but
// EKS's own hook, whose name means something to the reconciler), namespaces (but Kubernetes' own),
// pods, their owners, PDBs, label and taint values (but those of well-known keys, such as an instance
// type or a zone), label keys under an organisation's own domain, tag values. Tags the reconciler does
// not read are dropped, and so are scheduled events' descriptions.
import { createHmac, randomBytes } from 'node:crypto';
import {
  AUTO_SCALING_GROUP_TAG,
  CLUSTER_OWNERSHIP_TAG_PREFIX,
  CLUSTER_TAG_EKS,
  CLUSTER_TAG_KARPENTER,
  clusterOwnershipTag,
  EXCLUDE_KEY,
  KARPENTER_NODEPOOL_TAG,
  LABEL_PREFIX,
} from '@ec2-node-reconciler/model/contract/labels.js';
import { EKS_TERMINATE_HOOK } from '@ec2-node-reconciler/model/terminate-hook.js';

export interface SnapshotNames {
  /** Whether names are renamed (a snapshot safe to share). */
  readonly anonymized: boolean;
  cluster(name: string): string;
  accountId(id: string): string;
  instanceId(id: string): string;
  /** A Node's name, and an instance's private DNS name: the one renaming, so that they still match. */
  hostName(name: string): string;
  providerId(providerId: string): string;
  group(name: string): string;
  hook(name: string): string;
  namespace(name: string): string;
  /** A pod's or a PDB's name. */
  objectName(kind: string, name: string): string;
  /** A pod's controller: `Node` owners are their Node's name. */
  ownerName(kind: string, name: string): string;
  labels(labels: Readonly<Record<string, string>>): Record<string, string>;
  /** A taint's key and value, as a label's. */
  labelKey(key: string): string;
  labelValue(key: string, value: string): string;
  /** An instance's tags, as many as the reconciler reads (all of them when names are kept). */
  tags(tags: Readonly<Record<string, string>>, cluster: string): Record<string, string>;
  /** The reconciler's own annotation values (drain records, cordon marks), with the ids and names in them renamed. */
  annotationValue(value: string, context: AnnotationContext): string;
  /** A free-text description (a scheduled event's): dropped when anonymized. */
  description(text: string | undefined): string | undefined;
}

/** The names an annotation of the reconciler's may hold besides instance ids. */
export interface AnnotationContext {
  readonly node: string;
  readonly cluster: string;
  /** Auto Scaling groups and their hooks (a lifecycle action's record names them). */
  readonly groups: ReadonlyMap<string, readonly string[]>;
}

/** Names as the cluster and the account have them. */
export const keepNames: SnapshotNames = {
  anonymized: false,
  cluster: (name) => name,
  accountId: (id) => id,
  instanceId: (id) => id,
  hostName: (name) => name,
  providerId: (providerId) => providerId,
  group: (name) => name,
  hook: (name) => name,
  namespace: (name) => name,
  objectName: (_kind, name) => name,
  ownerName: (_kind, name) => name,
  labels: (labels) => ({ ...labels }),
  labelKey: (key) => key,
  labelValue: (_key, value) => value,
  tags: (tags) => ({ ...tags }),
  annotationValue: (value) => value,
  description: (text) => text,
};

/** Namespaces every cluster has: their names say nothing about this one. */
const SYSTEM_NAMESPACES = new Set(['default', 'kube-system', 'kube-public', 'kube-node-lease']);

/** Label key domains whose keys (not values, unless listed below) say nothing about the organisation. */
const PUBLIC_KEY_DOMAIN =
  /(^|\.)(kubernetes\.io|k8s\.io|karpenter\.sh|karpenter\.k8s\.aws|amazonaws\.com|ec2-node-reconciler)$/;

/** Label keys whose values are facts of the platform (an instance type, a zone), not names. */
const PUBLIC_VALUE_KEYS = new Set([
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
  'node.kubernetes.io/instance-type',
  'beta.kubernetes.io/instance-type',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'eks.amazonaws.com/compute-type',
  'eks.amazonaws.com/capacityType',
  'karpenter.sh/capacity-type',
  'node.kubernetes.io/exclude-from-external-load-balancers',
  EXCLUDE_KEY,
]);
const isPublicValueKey = (key: string): boolean =>
  PUBLIC_VALUE_KEYS.has(key) || key.startsWith('node-role.kubernetes.io/') || key.startsWith(`${LABEL_PREFIX}/`);

/** Labels whose value is a Node's name. */
const HOSTNAME_KEYS = new Set(['kubernetes.io/hostname']);

const IP_HOST = /^ip-(\d{1,3})-(\d{1,3})-(\d{1,3})-(\d{1,3})(\..+)?$/;
const ID_HOST = /^(i-[0-9a-f]{8}(?:[0-9a-f]{9})?)(\..+)?$/;
const INSTANCE_ID_ANYWHERE = /\bi-[0-9a-f]{17}\b|\bi-[0-9a-f]{8}\b/g;
const AWS_PROVIDER_ID = /^aws:\/\/\/([^/]+)\/(i-[0-9a-f]+)$/;

/**
 * Renames consistently within one snapshot, keyed by `secret` (drawn at random by default: two
 * snapshots of the same cluster do not share names).
 */
export function anonymizer(secret: Buffer = randomBytes(32)): SnapshotNames {
  const memo = new Map<string, string>();
  const taken = new Set<string>();
  const digest = (kind: string, value: string, attempt: number): string =>
    createHmac('sha256', secret).update(`${kind}\0${value}\0${attempt}`).digest('hex');
  /** The renaming of `value` among `kind`'s: made once, and never the same as another value's. */
  const rename = (kind: string, value: string, make: (hex: string) => string): string => {
    const key = `${kind}\0${value}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    for (let attempt = 0; ; attempt++) {
      const candidate = make(digest(kind, value, attempt));
      if (taken.has(`${kind}\0${candidate}`)) continue;
      taken.add(`${kind}\0${candidate}`);
      memo.set(key, candidate);
      return candidate;
    }
  };
  const token = (kind: string, prefix: string, value: string): string =>
    rename(kind, value, (hex) => `${prefix}-${hex.slice(0, 10)}`);

  const instanceId = (id: string): string =>
    rename('instance', id, (hex) => (id.length === 10 ? `i-${hex.slice(0, 8)}` : `i-${hex.slice(0, 17)}`));
  const ip = (octets: string): string =>
    rename('ip', octets, (hex) => {
      const n = parseInt(hex.slice(0, 6), 16);
      return `10-${(n >> 16) & 255}-${(n >> 8) & 255}-${n & 255}`;
    });
  const hostName = (name: string): string => {
    const byIp = IP_HOST.exec(name);
    if (byIp) return `ip-${ip(byIp.slice(1, 5).join('-'))}${byIp[5] ?? ''}`;
    const byId = ID_HOST.exec(name);
    if (byId?.[1] !== undefined) return `${instanceId(byId[1])}${byId[2] ?? ''}`;
    return token('host', 'node', name);
  };
  const cluster = (name: string): string => token('cluster', 'cluster', name);
  const group = (name: string): string => token('group', 'group', name);
  const labelKey = (key: string): string => {
    const slash = key.indexOf('/');
    if (slash < 0 || PUBLIC_KEY_DOMAIN.test(key.slice(0, slash))) return key;
    return `label.example/${token('label-key', 'key', key)}`;
  };
  const labelValue = (key: string, value: string): string => {
    if (value === '' || isPublicValueKey(key)) return value;
    if (HOSTNAME_KEYS.has(key)) return hostName(value);
    return token('label-value', 'v', value);
  };
  return {
    anonymized: true,
    cluster,
    accountId: (id) => rename('account', id, (hex) => String(parseInt(hex.slice(0, 12), 16) % 1e12).padStart(12, '0')),
    instanceId,
    hostName,
    providerId: (providerId) => {
      const aws = AWS_PROVIDER_ID.exec(providerId);
      if (aws?.[1] !== undefined && aws[2] !== undefined) return `aws:///${aws[1]}/${instanceId(aws[2])}`;
      // Another provider's (EKS hybrid nodes, Fargate): its scheme tells the reconciler it is not EC2's.
      const scheme = /^([a-z][a-z0-9+.-]*):\/\//.exec(providerId)?.[1] ?? 'unknown';
      return `${scheme}:///${token('provider', 'id', providerId)}`;
    },
    group,
    hook: (name) => (name === EKS_TERMINATE_HOOK ? name : token('hook', 'hook', name)),
    namespace: (name) => (SYSTEM_NAMESPACES.has(name) ? name : token('namespace', 'ns', name)),
    objectName: (kind, name) => token(`object:${kind}`, kind.toLowerCase(), name),
    ownerName: (kind, name) => (kind === 'Node' ? hostName(name) : token(`owner:${kind}`, kind.toLowerCase(), name)),
    labels: (labels) =>
      Object.fromEntries(Object.entries(labels).map(([key, value]) => [labelKey(key), labelValue(key, value)])),
    labelKey,
    labelValue,
    tags: (tags, clusterName) => {
      const out: Record<string, string> = {};
      for (const [key, value] of Object.entries(tags)) {
        if (key === CLUSTER_TAG_EKS || key === CLUSTER_TAG_KARPENTER)
          out[key] = value === clusterName ? cluster(value) : token('tag-value', 'v', value);
        else if (key.startsWith(CLUSTER_OWNERSHIP_TAG_PREFIX))
          out[clusterOwnershipTag(cluster(key.slice(CLUSTER_OWNERSHIP_TAG_PREFIX.length)))] = value;
        else if (key === AUTO_SCALING_GROUP_TAG) out[key] = group(value);
        else if (key === KARPENTER_NODEPOOL_TAG) out[key] = labelValue(key, value);
        else if (key === EXCLUDE_KEY) out[key] = value;
        // The reconciler's own tags (decommission, repair back-off): their presence matters, their text is the operator's.
        else if (key.startsWith(`${LABEL_PREFIX}/`)) out[key] = token('tag-value', 'v', value);
        // Any other tag is not read by the reconciler: dropped.
      }
      return out;
    },
    annotationValue: (value, context) => {
      const renamings: [string, string][] = [
        [context.node, hostName(context.node)],
        [context.cluster, cluster(context.cluster)],
      ];
      for (const [name, hooks] of context.groups) {
        renamings.push([name, group(name)]);
        for (const hook of hooks) if (hook !== EKS_TERMINATE_HOOK) renamings.push([hook, token('hook', 'hook', hook)]);
      }
      // Longest first: a name inside another (a group named after the cluster) is renamed as part of the longer one.
      renamings.sort((a, b) => b[0].length - a[0].length);
      let out = value.replace(INSTANCE_ID_ANYWHERE, (id) => instanceId(id));
      for (const [from, to] of renamings) if (from !== '') out = out.split(from).join(to);
      return out;
    },
    description: () => undefined,
  };
}
