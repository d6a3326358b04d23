// Realistic objects from a few fields. Nodes look like EKS nodes (~9 KB of JSON each, most of it
// status.images) so list payloads are honest; the large immutable parts are built once and
// shared between objects, which is what lets 100,000 nodes and 200,000 pods fit in memory.
import { createHash } from 'node:crypto';
import { regionOfZone } from '@ec2-node-reconciler/model/provider-id.js';
import { formatMicroTime, formatTime } from './time.js';
import { entryFor } from './managed-fields.js';
import {
  MIRROR_POD_ANNOTATION,
  NODE_LEASE_NAMESPACE,
  type KubeObject,
  type LabelSelector,
  type LeaseObject,
  type NodeCondition,
  type NodeObject,
  type OwnerReference,
  type PdbObject,
  type PodObject,
  type ScalableObject,
  type Taint,
} from './types.js';

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export type NodeSeed = {
  name: string;
  uid?: string;
  /** `aws:///<zone>/<instance-id>`; default derived from instanceId and zone, none when either is missing (`zone: null`). */
  providerID?: string;
  instanceId?: string;
  /**
   * The zone the cloud provider labels the Node with; `null` for a Node whose machine it cannot place
   * (a malformed or hybrid providerID): no zone or region labels. @default 'us-east-1a'
   */
  zone?: string | null;
  /** @default 'm5.large' */
  instanceType?: string;
  /** @default derived from an `ip-a-b-c-d` name, else from a hash of the name */
  internalIP?: string;
  /** Epoch ms. @default now */
  createdAt?: number;
  /** @default 'True' */
  ready?: ConditionStatus;
  /** Lease renewTime in epoch ms; `null` for a node without a Lease. @default now */
  lastHeartbeat?: number | null;
  /** Ready condition lastHeartbeatTime. @default lastHeartbeat, else now */
  readyHeartbeat?: number;
  /** Ready condition lastTransitionTime, epoch ms. @default createdAt */
  readySince?: number;
  /**
   * More conditions, as the EKS node monitoring agent posts them (`KernelReady`, `NetworkingReady`,
   * `StorageReady`, `ContainerRuntimeReady`, `AcceleratedHardwareReady`), each with its
   * lastTransitionTime (epoch ms). @default none
   */
  conditions?: readonly { type: string; status: ConditionStatus; since: number }[];
  /** Whether the simulated kubelet keeps heartbeating (and re-registers the node if deleted). @default true */
  heartbeating?: boolean;
  unschedulable?: boolean;
  /**
   * The field manager that set `spec.unschedulable` (the Node's managedFields then say so, as a server
   * would after that write). @default none: the Node carries no managed fields, as a seed that was never written.
   */
  cordonedBy?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  taints?: Taint[];
  /** EKS managed node group name, for the eks.amazonaws.com/nodegroup label. @default 'ng-default' */
  nodegroup?: string;
  /** @default 'v1.31.4-eks-aeac579' */
  kubeletVersion?: string;
};

export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';

export type OwnerSpec = { kind: string; name: string; apiVersion?: string; uid?: string };

export type PodSeed = {
  name: string;
  /** @default 'default' */
  namespace?: string;
  uid?: string;
  /** Node the pod is bound to; none = unscheduled (Pending). */
  node?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** `Kind/name` (`ReplicaSet/web-6d4f`, `DaemonSet/fluent-bit`, `StatefulSet/db`, `Job/x`) or an owner. */
  owner?: string | OwnerSpec;
  /** A static pod's mirror: annotation kubernetes.io/config.mirror and its Node as controller. */
  mirror?: boolean;
  emptyDir?: boolean;
  /** @default 'Running' when bound to a node, 'Pending' otherwise */
  phase?: PodPhase;
  /** Ready condition; @default true when Running */
  ready?: boolean;
  /** @default 30 */
  terminationGracePeriodSeconds?: number;
  createdAt?: number;
  podIP?: string;
  /** @default 'public.ecr.aws/nginx/nginx:1.27' */
  image?: string;
};

export type PdbSeed = {
  name: string;
  namespace?: string;
  uid?: string;
  /** matchLabels, or a full LabelSelector. */
  selector: Record<string, string> | LabelSelector;
  minAvailable?: number | string;
  maxUnavailable?: number | string;
  unhealthyPodEvictionPolicy?: 'IfHealthyBudget' | 'AlwaysAllow';
  createdAt?: number;
};

export type WorkloadSeed = {
  name: string;
  namespace?: string;
  uid?: string;
  /** @default { app: name } */
  selector?: Record<string, string>;
  /** ReplicaSet/StatefulSet replicas. @default 1 */
  replicas?: number;
  createdAt?: number;
  labels?: Record<string, string>;
};

export type LeaseSeed = {
  nodeName: string;
  renewTime: number;
  uid?: string;
  nodeUid?: string;
  leaseDurationSeconds?: number;
  createdAt?: number;
};

/** What builders need from their caller: the time and fresh uids. */
export type BuildContext = { now: number; uid: () => string };

const EKS_VERSION = 'v1.31.4-eks-aeac579';

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** Dedupes equal immutable sub-objects (capacity, condition lists, container specs) across objects. */
class Interner {
  private readonly cache = new Map<string, unknown>();
  intern<T>(value: T): T {
    const key = JSON.stringify(value);
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit as T;
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(key, deepFreeze(value));
    return value;
  }
}
const interner = new Interner();
const intern = <T>(value: T): T => interner.intern(value);

const IMAGE_NAMES = [
  ['602401143452.dkr.ecr.us-east-1.amazonaws.com/amazon-k8s-cni', 'v1.19.2-eksbuild.1', 101_000_000],
  ['602401143452.dkr.ecr.us-east-1.amazonaws.com/amazon-k8s-cni-init', 'v1.19.2-eksbuild.1', 61_000_000],
  ['602401143452.dkr.ecr.us-east-1.amazonaws.com/amazon/aws-network-policy-agent', 'v1.1.6-eksbuild.1', 41_000_000],
  ['602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/kube-proxy', 'v1.31.3-minimal-eksbuild.2', 33_000_000],
  ['602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/coredns', 'v1.11.4-eksbuild.2', 25_000_000],
  ['602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/pause', '3.10', 300_000],
  ['602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/aws-ebs-csi-driver', 'v1.38.1', 79_000_000],
  ['602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/csi-node-driver-registrar', 'v2.12.0-eks-1-31-10', 10_000_000],
  ['602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/livenessprobe', 'v2.14.0-eks-1-31-10', 9_000_000],
  ['602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/eks-pod-identity-agent', '0.1.10', 26_000_000],
  ['public.ecr.aws/aws-observability/aws-for-fluent-bit', '2.32.4', 112_000_000],
  ['public.ecr.aws/aws-observability/adot-operator', 'v0.109.0', 47_000_000],
  ['public.ecr.aws/eks/aws-load-balancer-controller', 'v2.11.0', 67_000_000],
  ['public.ecr.aws/karpenter/controller', '1.1.1', 51_000_000],
  ['registry.k8s.io/metrics-server/metrics-server', 'v0.7.2', 19_000_000],
  ['registry.k8s.io/ingress-nginx/controller', 'v1.12.0', 105_000_000],
  ['quay.io/prometheus/node-exporter', 'v1.8.2', 11_000_000],
  ['quay.io/prometheus/prometheus', 'v3.1.0', 127_000_000],
  ['quay.io/jetstack/cert-manager-controller', 'v1.16.2', 19_000_000],
  ['quay.io/jetstack/cert-manager-webhook', 'v1.16.2', 15_000_000],
  ['quay.io/jetstack/cert-manager-cainjector', 'v1.16.2', 13_000_000],
  ['ghcr.io/external-secrets/external-secrets', 'v0.12.1', 39_000_000],
  ['docker.io/grafana/loki', '3.3.2', 58_000_000],
  ['docker.io/grafana/promtail', '3.3.2', 89_000_000],
  ['docker.io/datadog/agent', '7.60.1', 312_000_000],
  ['public.ecr.aws/nginx/nginx', '1.27', 72_000_000],
  ['public.ecr.aws/docker/library/redis', '7.4', 45_000_000],
  ['public.ecr.aws/docker/library/postgres', '17.2', 152_000_000],
  ['111122223333.dkr.ecr.us-east-1.amazonaws.com/shop/web', '2026.11.3', 214_000_000],
  ['111122223333.dkr.ecr.us-east-1.amazonaws.com/shop/worker', '2026.11.3', 198_000_000],
  ['111122223333.dkr.ecr.us-east-1.amazonaws.com/shop/api', '2026.11.2', 187_000_000],
  ['111122223333.dkr.ecr.us-east-1.amazonaws.com/shop/search', '2026.10.9', 233_000_000],
] as const;

/** One list shared by every built Node: the largest part of a real Node object. */
export const NODE_IMAGES = deepFreeze(
  IMAGE_NAMES.map(([repo, tag, size]) => ({
    names: [`${repo}@sha256:${sha(`${repo}:${tag}`)}`, `${repo}:${tag}`],
    sizeBytes: size,
  })),
);

const INSTANCE_SHAPES: Record<string, { cpu: number; memoryKi: number; pods: number }> = {
  't3.medium': { cpu: 2, memoryKi: 3_964_584, pods: 17 },
  'm5.large': { cpu: 2, memoryKi: 7_929_076, pods: 29 },
  'm5.xlarge': { cpu: 4, memoryKi: 15_896_804, pods: 58 },
  'c5.2xlarge': { cpu: 8, memoryKi: 15_896_804, pods: 58 },
  'r5.4xlarge': { cpu: 16, memoryKi: 130_415_612, pods: 234 },
};

function resources(instanceType: string): { capacity: Record<string, string>; allocatable: Record<string, string> } {
  const shape = INSTANCE_SHAPES[instanceType] ?? { cpu: 2, memoryKi: 7_929_076, pods: 29 };
  return intern({
    capacity: {
      cpu: String(shape.cpu),
      'ephemeral-storage': '20959212Ki',
      'hugepages-1Gi': '0',
      'hugepages-2Mi': '0',
      memory: `${shape.memoryKi}Ki`,
      pods: String(shape.pods),
    },
    allocatable: {
      cpu: `${shape.cpu * 1000 - 70}m`,
      'ephemeral-storage': '18242267924',
      'hugepages-1Gi': '0',
      'hugepages-2Mi': '0',
      memory: `${shape.memoryKi - 637_952}Ki`,
      pods: String(shape.pods),
    },
  });
}

/** 10.x.y.z from an `ip-10-x-y-z…` name, else a stable address from the name's hash. */
export function ipFor(name: string): string {
  const match = /^ip-(\d+)-(\d+)-(\d+)-(\d+)/.exec(name);
  if (match) return match.slice(1, 5).join('.');
  const h = sha(name);
  return `10.${parseInt(h.slice(0, 2), 16)}.${parseInt(h.slice(2, 4), 16)}.${(parseInt(h.slice(4, 6), 16) % 254) + 1}`;
}

/** What the node monitoring agent says of a condition, in its words (status True: no problem found). */
function agentCondition(type: string, status: ConditionStatus, heartbeat: string, transition: string): NodeCondition {
  const reason =
    status === 'True'
      ? `${type.replace(/Ready$/, '')}IsReady`
      : status === 'False'
        ? `${type.replace(/Ready$/, '')}Problem`
        : 'Unknown';
  const message =
    status === 'True'
      ? 'Monitoring for the problem is healthy'
      : status === 'False'
        ? `The node monitoring agent found a problem (${type})`
        : 'The node monitoring agent has not reported';
  return { type, status, lastHeartbeatTime: heartbeat, lastTransitionTime: transition, reason, message };
}

/** The kubelet's conditions (shared, interned: most nodes have the same) and the agent's, when any. */
function withAgentConditions(
  kubelet: NodeCondition[],
  agent: NodeSeed['conditions'],
  heartbeat: string,
): NodeCondition[] {
  if (agent === undefined || agent.length === 0) return kubelet;
  return [...kubelet, ...agent.map((c) => agentCondition(c.type, c.status, heartbeat, formatTime(c.since)))];
}

function nodeConditions(ready: ConditionStatus, heartbeat: string, transition: string): NodeCondition[] {
  const ok = (type: string, reason: string, message: string): NodeCondition => ({
    type,
    status: 'False',
    lastHeartbeatTime: heartbeat,
    lastTransitionTime: transition,
    reason,
    message,
  });
  const readyCondition: NodeCondition =
    ready === 'True'
      ? {
          type: 'Ready',
          status: 'True',
          lastHeartbeatTime: heartbeat,
          lastTransitionTime: transition,
          reason: 'KubeletReady',
          message: 'kubelet is posting ready status',
        }
      : ready === 'False'
        ? {
            type: 'Ready',
            status: 'False',
            lastHeartbeatTime: heartbeat,
            lastTransitionTime: transition,
            reason: 'KubeletNotReady',
            message: 'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady',
          }
        : {
            type: 'Ready',
            status: 'Unknown',
            lastHeartbeatTime: heartbeat,
            lastTransitionTime: transition,
            reason: 'NodeStatusUnknown',
            message: 'Kubelet stopped posting node status.',
          };
  return intern([
    ok('MemoryPressure', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
    ok('DiskPressure', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
    ok('PIDPressure', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
    readyCondition,
  ]);
}

/**
 * The labels the cloud provider gives a Node in `zone`: the region is the zone's own (a Local Zone's
 * `us-west-2-lax-1a` is in `us-west-2`), none for a zone that names no region.
 */
function placementLabels(zone: string): Record<string, string> {
  const region = regionOfZone(zone);
  return {
    ...(region === undefined ? {} : { 'failure-domain.beta.kubernetes.io/region': region }),
    'failure-domain.beta.kubernetes.io/zone': zone,
    'topology.ebs.csi.aws.com/zone': zone,
    'topology.k8s.aws/zone-id': `use1-az${(zone.charCodeAt(zone.length - 1) % 6) + 1}`,
    ...(region === undefined ? {} : { 'topology.kubernetes.io/region': region }),
    'topology.kubernetes.io/zone': zone,
  };
}

export function buildNode(seed: NodeSeed, ctx: BuildContext): NodeObject {
  const zone = seed.zone === null ? undefined : (seed.zone ?? 'us-east-1a');
  const instanceType = seed.instanceType ?? 'm5.large';
  const ip = seed.internalIP ?? ipFor(seed.name);
  const providerID =
    seed.providerID ??
    (seed.instanceId === undefined || zone === undefined ? undefined : `aws:///${zone}/${seed.instanceId}`);
  const instanceId = seed.instanceId ?? /\/(i-[0-9a-f]+)$/.exec(providerID ?? '')?.[1];
  const created = seed.createdAt ?? ctx.now;
  const heartbeat = seed.readyHeartbeat ?? seed.lastHeartbeat ?? ctx.now;
  const h = sha(seed.name);
  const nodegroup = seed.nodegroup ?? 'ng-default';
  const version = seed.kubeletVersion ?? EKS_VERSION;
  const { capacity, allocatable } = resources(instanceType);
  const spec: NodeObject['spec'] = {
    ...(providerID === undefined ? {} : { providerID }),
    ...(seed.unschedulable === true ? { unschedulable: true } : {}),
    ...(seed.taints !== undefined && seed.taints.length > 0 ? { taints: seed.taints } : {}),
  };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: seed.name,
      uid: seed.uid ?? ctx.uid(),
      creationTimestamp: formatTime(created),
      ...(seed.unschedulable === true && seed.cordonedBy !== undefined
        ? { managedFields: [entryFor(seed.cordonedBy, 'v1', formatTime(ctx.now), [['spec', 'unschedulable']])] }
        : {}),
      labels: {
        'beta.kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/instance-type': instanceType,
        'beta.kubernetes.io/os': 'linux',
        'eks.amazonaws.com/capacityType': 'ON_DEMAND',
        'eks.amazonaws.com/nodegroup': nodegroup,
        'eks.amazonaws.com/nodegroup-image': 'ami-0b5f1e6c8a4d3e2f1',
        'k8s.io/cloud-provider-aws': '0f6ab0e4c9d7e1b2a3c4d5e6f7081920',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': seed.name,
        'kubernetes.io/os': 'linux',
        'node.kubernetes.io/instance-type': instanceType,
        ...(zone === undefined ? {} : placementLabels(zone)),
        ...seed.labels,
      },
      annotations: {
        'alpha.kubernetes.io/provided-node-ip': ip,
        ...(instanceId === undefined
          ? {}
          : { 'csi.volume.kubernetes.io/nodeid': `{"ebs.csi.aws.com":"${instanceId}"}` }),
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
        ...seed.annotations,
      },
    },
    spec,
    status: {
      addresses: [
        { type: 'InternalIP', address: ip },
        { type: 'InternalDNS', address: seed.name },
        { type: 'Hostname', address: seed.name },
      ],
      allocatable,
      capacity,
      conditions: withAgentConditions(
        nodeConditions(seed.ready ?? 'True', formatTime(heartbeat), formatTime(seed.readySince ?? created)),
        seed.conditions,
        formatTime(heartbeat),
      ),
      daemonEndpoints: DAEMON_ENDPOINTS,
      images: NODE_IMAGES,
      nodeInfo: {
        architecture: 'amd64',
        bootID: `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`,
        containerRuntimeVersion: 'containerd://1.7.25',
        kernelVersion: '6.1.119-129.201.amzn2023.x86_64',
        kubeProxyVersion: version,
        kubeletVersion: version,
        machineID: h.slice(32, 64),
        operatingSystem: 'linux',
        osImage: 'Amazon Linux 2023.6.20241212',
        systemUUID: `ec2${h.slice(3, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`,
      },
    },
  };
}

const DAEMON_ENDPOINTS = deepFreeze({ kubeletEndpoint: { Port: 10250 } });

export function buildLease(seed: LeaseSeed, ctx: BuildContext): LeaseObject {
  const renew = formatMicroTime(seed.renewTime);
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: seed.nodeName,
      namespace: NODE_LEASE_NAMESPACE,
      uid: seed.uid ?? ctx.uid(),
      creationTimestamp: formatTime(seed.createdAt ?? ctx.now),
      ...(seed.nodeUid === undefined
        ? {}
        : { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: seed.nodeName, uid: seed.nodeUid }] }),
    },
    spec: { holderIdentity: seed.nodeName, leaseDurationSeconds: seed.leaseDurationSeconds ?? 40, renewTime: renew },
  };
}

/** `ReplicaSet/web-6d4f` → { kind, name }; apiVersion from the kind. */
export function parseOwner(owner: string | OwnerSpec): OwnerSpec & { apiVersion: string } {
  const spec = typeof owner === 'string' ? parseOwnerString(owner) : owner;
  const apiVersion =
    spec.apiVersion ??
    {
      ReplicaSet: 'apps/v1',
      DaemonSet: 'apps/v1',
      StatefulSet: 'apps/v1',
      Deployment: 'apps/v1',
      Job: 'batch/v1',
      Node: 'v1',
      ReplicationController: 'v1',
    }[spec.kind] ??
    'v1';
  return { ...spec, apiVersion };
}

function parseOwnerString(text: string): OwnerSpec {
  const slash = text.indexOf('/');
  if (slash <= 0 || slash === text.length - 1) throw new Error(`owner must be Kind/name, got ${JSON.stringify(text)}`);
  return { kind: text.slice(0, slash), name: text.slice(slash + 1) };
}

function suffix(text: string, length: number): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  const h = sha(text);
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[parseInt(h.slice(i * 2, i * 2 + 2), 16) % alphabet.length] ?? 'x';
  return out;
}

export type PodBuildRefs = {
  /** The controller's uid (owner given without one). */
  ownerUid?: string;
  /** The node's uid, for a mirror pod's owner reference. */
  nodeUid?: string;
};

export function buildPod(seed: PodSeed, ctx: BuildContext, refs: PodBuildRefs = {}): PodObject {
  const namespace = seed.namespace ?? 'default';
  const phase: PodPhase = seed.phase ?? (seed.node === undefined ? 'Pending' : 'Running');
  const ready = seed.ready ?? phase === 'Running';
  const created = formatTime(seed.createdAt ?? ctx.now);
  const owner =
    seed.mirror === true && seed.owner === undefined && seed.node !== undefined
      ? { kind: 'Node', name: seed.node }
      : seed.owner;
  const ref = owner === undefined ? undefined : parseOwner(owner);
  const ownerReferences: OwnerReference[] | undefined =
    ref === undefined
      ? undefined
      : [
          {
            apiVersion: ref.apiVersion,
            kind: ref.kind,
            name: ref.name,
            uid: ref.uid ?? (ref.kind === 'Node' ? refs.nodeUid : refs.ownerUid) ?? ctx.uid(),
            controller: true,
            ...(ref.kind === 'Node' ? {} : { blockOwnerDeletion: true }),
          },
        ];
  const image = seed.image ?? 'public.ecr.aws/nginx/nginx:1.27';
  const template = ref === undefined ? seed.name : `${namespace}/${ref.kind}/${ref.name}`;
  const tokenVolume = `kube-api-access-${suffix(template, 5)}`;
  const hash = sha(`${namespace}/${seed.name}`);
  const podIP =
    seed.podIP ??
    (seed.node === undefined
      ? undefined
      : `10.${parseInt(hash.slice(0, 2), 16)}.${parseInt(hash.slice(2, 4), 16)}.${(parseInt(hash.slice(4, 6), 16) % 254) + 1}`);
  const hostIP = seed.node === undefined ? undefined : ipFor(seed.node);
  const labels = {
    ...(ref?.kind === 'ReplicaSet'
      ? { app: ref.name.replace(/-[a-z0-9]+$/, ''), 'pod-template-hash': ref.name.split('-').pop() ?? '' }
      : {}),
    ...(ref !== undefined && ref.kind !== 'ReplicaSet' && ref.kind !== 'Node' ? { app: ref.name } : {}),
    ...seed.labels,
  };
  const annotations = {
    ...(seed.mirror === true
      ? {
          [MIRROR_POD_ANNOTATION]: hash.slice(0, 32),
          'kubernetes.io/config.hash': hash.slice(0, 32),
          'kubernetes.io/config.seen': created,
          'kubernetes.io/config.source': 'file',
        }
      : {}),
    ...seed.annotations,
  };
  const spec = {
    containers: intern([
      {
        name: 'app',
        image,
        imagePullPolicy: 'IfNotPresent',
        resources: { requests: { cpu: '100m', memory: '128Mi' } },
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
        volumeMounts: [
          ...(seed.emptyDir === true ? [{ name: 'scratch', mountPath: '/scratch' }] : []),
          { name: tokenVolume, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true },
        ],
      },
    ]),
    dnsPolicy: 'ClusterFirst',
    enableServiceLinks: true,
    ...(seed.node === undefined ? {} : { nodeName: seed.node }),
    preemptionPolicy: 'PreemptLowerPriority',
    priority: 0,
    restartPolicy: 'Always',
    schedulerName: 'default-scheduler',
    securityContext: EMPTY,
    serviceAccount: 'default',
    serviceAccountName: 'default',
    terminationGracePeriodSeconds: seed.terminationGracePeriodSeconds ?? 30,
    tolerations: DEFAULT_TOLERATIONS,
    volumes: intern([
      ...(seed.emptyDir === true ? [{ name: 'scratch', emptyDir: {} }] : []),
      {
        name: tokenVolume,
        projected: {
          defaultMode: 420,
          sources: [
            { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
            { configMap: { items: [{ key: 'ca.crt', path: 'ca.crt' }], name: 'kube-root-ca.crt' } },
            {
              downwardAPI: {
                items: [{ fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' }, path: 'namespace' }],
              },
            },
          ],
        },
      },
    ]),
  };
  const scheduled = seed.node !== undefined;
  const running = phase === 'Running';
  const cond = (type: string, ok: boolean) => ({
    type,
    status: ok ? 'True' : 'False',
    lastProbeTime: null,
    lastTransitionTime: created,
  });
  const conditions = intern(
    scheduled
      ? [
          cond('PodReadyToStartContainers', running),
          cond('Initialized', true),
          cond('Ready', ready),
          cond('ContainersReady', ready),
          cond('PodScheduled', true),
        ]
      : [
          {
            ...cond('PodScheduled', false),
            reason: 'Unschedulable',
            message: '0/3 nodes are available: 3 node(s) were unschedulable.',
          },
        ],
  );
  const terminated = phase === 'Succeeded' || phase === 'Failed';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: seed.name,
      ...(ref?.kind === 'ReplicaSet' || ref?.kind === 'DaemonSet' ? { generateName: `${ref.name}-` } : {}),
      namespace,
      uid: seed.uid ?? ctx.uid(),
      creationTimestamp: created,
      ...(Object.keys(labels).length > 0 ? { labels } : {}),
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      ...(ownerReferences === undefined ? {} : { ownerReferences }),
    },
    spec,
    status: {
      phase,
      conditions,
      ...(hostIP === undefined ? {} : { hostIP, hostIPs: [{ ip: hostIP }] }),
      ...(podIP === undefined ? {} : { podIP, podIPs: [{ ip: podIP }] }),
      qosClass: 'Burstable',
      ...(scheduled ? { startTime: created } : {}),
      ...(scheduled
        ? {
            containerStatuses: [
              {
                name: 'app',
                image,
                imageID: `${image.split(':')[0] ?? image}@sha256:${sha(image)}`,
                containerID: `containerd://${hash}`,
                ready,
                restartCount: 0,
                started: running,
                state: terminated
                  ? {
                      terminated: {
                        exitCode: phase === 'Succeeded' ? 0 : 1,
                        reason: phase === 'Succeeded' ? 'Completed' : 'Error',
                        startedAt: created,
                        finishedAt: created,
                        containerID: `containerd://${hash}`,
                      },
                    }
                  : running
                    ? { running: { startedAt: created } }
                    : { waiting: { reason: 'ContainerCreating' } },
                lastState: EMPTY,
              },
            ],
          }
        : {}),
    },
  };
}

const EMPTY = deepFreeze({});
const DEFAULT_TOLERATIONS = deepFreeze([
  { effect: 'NoExecute', key: 'node.kubernetes.io/not-ready', operator: 'Exists', tolerationSeconds: 300 },
  { effect: 'NoExecute', key: 'node.kubernetes.io/unreachable', operator: 'Exists', tolerationSeconds: 300 },
]);

export function buildPdb(seed: PdbSeed, ctx: BuildContext): PdbObject {
  const selector: LabelSelector =
    'matchLabels' in seed.selector || 'matchExpressions' in seed.selector
      ? seed.selector
      : { matchLabels: seed.selector as Record<string, string> };
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: {
      name: seed.name,
      namespace: seed.namespace ?? 'default',
      uid: seed.uid ?? ctx.uid(),
      generation: 1,
      creationTimestamp: formatTime(seed.createdAt ?? ctx.now),
    },
    spec: {
      selector,
      ...(seed.minAvailable === undefined ? {} : { minAvailable: seed.minAvailable }),
      ...(seed.maxUnavailable === undefined ? {} : { maxUnavailable: seed.maxUnavailable }),
      ...(seed.unhealthyPodEvictionPolicy === undefined
        ? {}
        : { unhealthyPodEvictionPolicy: seed.unhealthyPodEvictionPolicy }),
    },
  };
}

export type WorkloadKind = 'DaemonSet' | 'ReplicaSet' | 'StatefulSet';

export function buildWorkload(kind: WorkloadKind, seed: WorkloadSeed, ctx: BuildContext): ScalableObject {
  const selector = seed.selector ?? { app: kind === 'ReplicaSet' ? seed.name.replace(/-[a-z0-9]+$/, '') : seed.name };
  const replicas = seed.replicas ?? 1;
  const template = {
    metadata: { labels: selector },
    spec: {
      containers: [{ name: 'app', image: 'public.ecr.aws/nginx/nginx:1.27' }],
      terminationGracePeriodSeconds: 30,
    },
  };
  const status: Record<string, number> =
    kind === 'DaemonSet'
      ? {
          currentNumberScheduled: replicas,
          desiredNumberScheduled: replicas,
          numberAvailable: replicas,
          numberMisscheduled: 0,
          numberReady: replicas,
          observedGeneration: 1,
          updatedNumberScheduled: replicas,
        }
      : {
          availableReplicas: replicas,
          fullyLabeledReplicas: replicas,
          observedGeneration: 1,
          readyReplicas: replicas,
          replicas,
        };
  const object: KubeObject = {
    apiVersion: 'apps/v1',
    kind,
    metadata: {
      name: seed.name,
      namespace: seed.namespace ?? 'default',
      uid: seed.uid ?? ctx.uid(),
      generation: 1,
      creationTimestamp: formatTime(seed.createdAt ?? ctx.now),
      ...(seed.labels === undefined ? {} : { labels: seed.labels }),
    },
    spec: {
      ...(kind === 'DaemonSet' ? {} : { replicas }),
      selector: { matchLabels: selector },
      template,
      ...(kind === 'StatefulSet' ? { serviceName: seed.name } : {}),
    },
    status,
  };
  return object;
}
