/**
 * Writes test/scenarios/demo.yaml, the cluster `npm start` simulates: three managed node groups
 * across three zones, ~40 EC2 nodes, a Fargate node, ~400 pods (DaemonSets on every EC2 node,
 * Deployments with PodDisruptionBudgets, a StatefulSet, finished Jobs) and one of everything the
 * reconciler handles. Deterministic: the same file every run.
 *
 *   npx tsx scripts/make-demo-scenario.ts [--out test/scenarios/demo.yaml]
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const REGION = 'us-west-2';
const ZONES = ['a', 'b', 'c'].map((z) => `${REGION}${z}`);
const START = '2026-11-29T10:00:00Z';
const START_MS = Date.parse(START);
const CLUSTER = 'shop-prod';
const ACCOUNT = '111122223333';

type Flow = string | number | boolean | readonly Flow[] | { readonly [key: string]: Flow | undefined };

/** A YAML flow scalar: plain when unambiguous, else JSON-quoted (valid YAML). */
function scalar(value: string | number | boolean): string {
  if (typeof value !== 'string') return String(value);
  const word =
    /^[A-Za-z_][A-Za-z0-9_./:-]*$/.test(value) &&
    !value.endsWith(':') &&
    !/^(true|false|yes|no|on|off|null|y|n)$/i.test(value);
  const plain = word || /^\d+[smhd]$/.test(value);
  return plain ? value : JSON.stringify(value);
}

/** One-line YAML flow style, the way the hand-written scenarios look. */
function flow(value: Flow): string {
  if (Array.isArray(value)) return `[ ${value.map((v: Flow) => flow(v)).join(', ')} ]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value).filter((e): e is [string, Flow] => e[1] !== undefined);
    return `{ ${entries.map(([k, v]) => `${scalar(k)}: ${flow(v)}`).join(', ')} }`;
  }
  return scalar(value);
}

/** Deterministic pseudo-random numbers (a 32-bit LCG), so the file never changes between runs. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    // The high bits: an LCG's low bits repeat with a short period.
    return state >>> 8;
  };
}

/** The demo scenario's YAML text (deterministic: the same text on every call). */
export function demoScenarioYaml(): string {
  const rand = lcg(20261129);
  const hex = (n: number) => Array.from({ length: n }, () => (rand() % 16).toString(16)).join('');

  interface Machine {
    id: string;
    node?: string;
    zone: string;
    group?: string;
    nodegroup?: string;
    capacity?: 'ON_DEMAND' | 'SPOT';
    instanceType?: string;
    launchedAgo: string;
    instance: Record<string, Flow>;
    nodeObject?: Record<string, Flow>;
    /** Schedulable for application pods. */
    schedulable: boolean;
    /** Gets DaemonSet pods (every EC2 node the DaemonSets' tolerations allow). */
    daemonSets: boolean;
  }

  const machines: Machine[] = [];
  const hostOf = new Map<string, number>();

  function nodeName(zoneIndex: number): string {
    const subnet = 16 * (zoneIndex + 1) + (rand() % 16);
    const key = `${subnet}`;
    const host = (hostOf.get(key) ?? 10 + (rand() % 40)) + 1 + (rand() % 7);
    hostOf.set(key, host);
    return `ip-10-0-${subnet}-${host}.${REGION}.compute.internal`;
  }

  interface GroupSpec {
    readonly nodegroup: string;
    readonly asg: string;
    readonly capacity: 'ON_DEMAND' | 'SPOT';
    readonly types: readonly string[];
    readonly size: number;
  }

  const GROUPS: readonly GroupSpec[] = [
    {
      nodegroup: 'general',
      asg: `eks-general-${hex(8)}-${hex(4)}`,
      capacity: 'ON_DEMAND',
      types: ['m7i.2xlarge'],
      size: 16,
    },
    {
      nodegroup: 'spot',
      asg: `eks-spot-${hex(8)}-${hex(4)}`,
      capacity: 'SPOT',
      types: ['m7i.xlarge', 'm6i.xlarge', 'm5.xlarge'],
      size: 14,
    },
    {
      nodegroup: 'memory',
      asg: `eks-memory-${hex(8)}-${hex(4)}`,
      capacity: 'ON_DEMAND',
      types: ['r7i.2xlarge'],
      size: 8,
    },
  ];
  const HOOK = 'ec2-node-reconciler-drain';

  function addMachine(
    group: GroupSpec,
    index: number,
    overrides: { instance?: Record<string, Flow>; node?: Record<string, Flow> | null; schedulable?: boolean } = {},
  ): Machine {
    const zoneIndex = index % 3;
    const zone = ZONES[zoneIndex] ?? `${REGION}a`;
    const id = `i-0${hex(16)}`;
    const name = nodeName(zoneIndex);
    const days = 1 + (rand() % 20);
    const launchedAgo = `${days}d`;
    const instanceType = group.types[index % group.types.length] ?? 'm7i.xlarge';
    const instance: Record<string, Flow> = {
      id,
      state: 'running',
      zone,
      privateDnsName: name,
      launchedAgo,
      spot: group.capacity === 'SPOT' ? true : undefined,
      tags: {
        'eks:cluster-name': CLUSTER,
        'eks:nodegroup-name': group.nodegroup,
        'kubernetes.io/cluster/shop-prod': 'owned',
      },
      autoScaling: { group: group.asg, hook: HOOK },
      ...overrides.instance,
    } as Record<string, Flow>;
    const node =
      overrides.node === null
        ? undefined
        : ({
            name,
            providerID: `aws:///${zone}/${id}`,
            createdAgo: launchedAgo,
            heartbeatAgo: `${1 + (rand() % 9)}s`,
            labels: {
              'eks.amazonaws.com/nodegroup': group.nodegroup,
              'eks.amazonaws.com/capacityType': group.capacity,
              'node.kubernetes.io/instance-type': instanceType,
              'topology.kubernetes.io/zone': zone,
            },
            ...overrides.node,
          } as Record<string, Flow>);
    const machine: Machine = {
      id,
      zone,
      group: group.asg,
      nodegroup: group.nodegroup,
      capacity: group.capacity,
      instanceType,
      launchedAgo,
      instance,
      ...(node ? { node: name, nodeObject: node } : {}),
      schedulable: overrides.schedulable ?? node !== undefined,
      daemonSets: node !== undefined,
    };
    machines.push(machine);
    return machine;
  }

  const [general, spot, memory] = GROUPS as [GroupSpec, GroupSpec, GroupSpec];
  const cast: Record<string, Machine> = {};
  for (const group of GROUPS) for (let i = 0; i < group.size; i++) addMachine(group, i);

  // One of everything, on otherwise ordinary machines.
  const pick = (group: GroupSpec, nth: number): Machine => {
    const found = machines.filter((m) => m.nodegroup === group.nodegroup)[nth];
    if (!found) throw new Error(`no machine ${nth} in ${group.nodegroup}`);
    return found;
  };
  cast.spot = pick(spot, 3);
  cast.scaleIn = pick(general, 5);
  cast.retiring = pick(memory, 2);
  cast.retiring.instance.scheduledEvents = [
    { code: 'instance-retirement', notBefore: '3d', description: 'The instance is running on degraded hardware' },
  ];
  cast.stopped = pick(general, 9);
  Object.assign(cast.stopped.instance, { state: 'stopped' });
  Object.assign(cast.stopped.nodeObject ?? {}, { ready: 'Unknown', heartbeatAgo: '47m' });
  cast.stopped.schedulable = false;
  cast.unresponsive = pick(spot, 8);
  Object.assign(cast.unresponsive.nodeObject ?? {}, { ready: 'Unknown', heartbeatAgo: '23m', heartbeating: false });
  cast.unresponsive.schedulable = false;

  // Three stale Node objects: machines terminated hours ago (one so long ago EC2 forgets it).
  const stale = [general, spot, memory].map((group, i) => {
    const m = addMachine(group, 20 + i, {
      instance: { state: i === 2 ? 'absent' : 'terminated' },
      node: { ready: 'Unknown', heartbeatAgo: ['3h', '5h', '2d'][i] ?? '3h' },
      schedulable: false,
    });
    if (i === 2) m.instance = { id: m.id, state: 'absent', zone: m.zone };
    else delete m.instance.autoScaling;
    return m;
  });

  // A machine that never joined (bad user data, wrong security group): running for 45 minutes, no Node.
  cast.unregistered = addMachine(general, 30, { instance: { launchedAgo: '45m' }, node: null });

  // Fargate: CoreDNS runs there.
  const fargateName = `fargate-ip-192-168-${100 + (rand() % 50)}-${rand() % 250}.${REGION}.compute.internal`;
  const fargate = {
    name: fargateName,
    providerID: `aws:///${ZONES[1] ?? ''}/${hex(10)}-${hex(32)}/${fargateName}`,
    createdAgo: '6d',
    labels: { 'eks.amazonaws.com/compute-type': 'fargate', 'topology.kubernetes.io/zone': ZONES[1] ?? '' },
    taints: [{ key: 'eks.amazonaws.com/compute-type', value: 'fargate', effect: 'NoSchedule' }],
  };

  // ---------- pods ----------

  const pods: Record<string, Flow | undefined>[] = [];
  const pdbs: Record<string, Flow | undefined>[] = [];
  const podSuffix = () => Array.from({ length: 5 }, () => 'bcdfghjklmnpqrstvwxz2456789'[rand() % 27]).join('');

  for (const m of machines.filter((x) => x.daemonSets && x.node)) {
    for (const [ds, ns, labels] of [
      ['aws-node', 'kube-system', { 'k8s-app': 'aws-node' }],
      ['kube-proxy', 'kube-system', { 'k8s-app': 'kube-proxy' }],
      ['ebs-csi-node', 'kube-system', { app: 'ebs-csi-node' }],
      ['node-exporter', 'monitoring', { 'app.kubernetes.io/name': 'node-exporter' }],
    ] as const) {
      pods.push({ name: `${ds}-${podSuffix()}`, namespace: ns, node: m.node ?? '', labels, owner: `DaemonSet/${ds}` });
    }
  }

  interface Deployment {
    readonly name: string;
    readonly namespace: string;
    readonly replicas: number;
    readonly groups: readonly string[];
    readonly pdb?: { minAvailable?: number | string; maxUnavailable?: number | string };
    readonly grace?: number;
    readonly emptyDir?: boolean;
    readonly kind?: 'ReplicaSet' | 'StatefulSet';
  }

  const DEPLOYMENTS: readonly Deployment[] = [
    {
      name: 'frontend',
      namespace: 'shop',
      replicas: 36,
      groups: ['general', 'spot'],
      pdb: { maxUnavailable: '10%' },
      grace: 20,
    },
    { name: 'catalog', namespace: 'shop', replicas: 30, groups: ['general', 'spot'], pdb: { minAvailable: '80%' } },
    { name: 'cart', namespace: 'shop', replicas: 18, groups: ['general', 'spot'], pdb: { maxUnavailable: 1 } },
    { name: 'checkout', namespace: 'shop', replicas: 12, groups: ['general'], pdb: { maxUnavailable: 1 }, grace: 45 },
    {
      name: 'recommendations',
      namespace: 'shop',
      replicas: 20,
      groups: ['spot'],
      pdb: { maxUnavailable: '25%' },
      emptyDir: true,
    },
    {
      name: 'search-api',
      namespace: 'search',
      replicas: 12,
      groups: ['memory', 'general'],
      pdb: { minAvailable: '75%' },
    },
    { name: 'image-resizer', namespace: 'media', replicas: 16, groups: ['spot'], emptyDir: true, grace: 10 },
    {
      name: 'orders-worker',
      namespace: 'orders',
      replicas: 14,
      groups: ['general', 'memory'],
      pdb: { maxUnavailable: 2 },
      grace: 60,
    },
    { name: 'notifications', namespace: 'orders', replicas: 8, groups: ['general', 'spot'] },
    { name: 'inventory', namespace: 'shop', replicas: 14, groups: ['general', 'memory'], pdb: { maxUnavailable: 1 } },
    {
      name: 'payments-api',
      namespace: 'payments',
      replicas: 12,
      groups: ['general', 'memory'],
      pdb: { maxUnavailable: 1 },
      grace: 30,
    },
    {
      name: 'auth',
      namespace: 'identity',
      replicas: 10,
      groups: ['general', 'spot'],
      pdb: { minAvailable: '60%' },
      grace: 15,
    },
    {
      name: 'redis',
      namespace: 'shop',
      replicas: 3,
      groups: ['memory'],
      pdb: { maxUnavailable: 1 },
      kind: 'StatefulSet',
      grace: 30,
    },
    {
      name: 'postgres',
      namespace: 'orders',
      replicas: 3,
      groups: ['memory'],
      pdb: { minAvailable: 2 },
      kind: 'StatefulSet',
      grace: 60,
    },
    {
      name: 'prometheus',
      namespace: 'monitoring',
      replicas: 2,
      groups: ['memory'],
      pdb: { maxUnavailable: 1 },
      kind: 'StatefulSet',
      emptyDir: true,
      grace: 120,
    },
    {
      name: 'ingress-nginx-controller',
      namespace: 'ingress-nginx',
      replicas: 6,
      groups: ['general'],
      pdb: { minAvailable: 4 },
    },
    { name: 'cluster-autoscaler', namespace: 'kube-system', replicas: 1, groups: ['general'] },
    { name: 'metrics-server', namespace: 'kube-system', replicas: 2, groups: ['general'], pdb: { minAvailable: 1 } },
  ];

  /** Nodes an app pod may land on: in one of its node groups, up and schedulable. */
  const targets = (groups: readonly string[]) =>
    machines.filter((m) => m.node && m.schedulable && groups.includes(m.nodegroup ?? ''));
  const load = new Map<string, number>();
  let turn = 0;
  /** The scheduler, roughly: spread a workload's replicas over nodes, then fill the least loaded node. */
  function place(groups: readonly string[], taken: Set<string>): Machine | undefined {
    const nodes = targets(groups);
    turn += 1;
    const score = (m: Machine) => (taken.has(m.node ?? '') ? 1_000 : 0) + (load.get(m.node ?? '') ?? 0);
    const order = (m: Machine) => (nodes.indexOf(m) + turn * 5) % nodes.length;
    const best = [...nodes].sort((a, b) => score(a) - score(b) || order(a) - order(b))[0];
    if (best?.node) {
      load.set(best.node, (load.get(best.node) ?? 0) + 1);
      taken.add(best.node);
    }
    return best;
  }

  for (const d of DEPLOYMENTS) {
    const hash = `${hex(8)}${(rand() % 10).toString()}`.slice(0, 9);
    const owner = d.kind === 'StatefulSet' ? `StatefulSet/${d.name}` : `ReplicaSet/${d.name}-${hash}`;
    const taken = new Set<string>();
    for (let i = 0; i < d.replicas; i++) {
      const node = place(d.groups, taken);
      if (!node?.node) continue;
      pods.push({
        name: d.kind === 'StatefulSet' ? `${d.name}-${i}` : `${d.name}-${hash}-${podSuffix()}`,
        namespace: d.namespace,
        node: node.node,
        labels: { app: d.name },
        owner,
        emptyDir: d.emptyDir ? true : undefined,
        terminationGracePeriodSeconds: d.grace,
      });
    }
    if (d.pdb) pdbs.push({ name: d.name, namespace: d.namespace, selector: { app: d.name }, ...d.pdb });
  }

  // CoreDNS on Fargate (EKS's Fargate-only profile for kube-system).
  for (let i = 0; i < 2; i++)
    pods.push({
      name: `coredns-5d8f7c9b4-${podSuffix()}`,
      namespace: 'kube-system',
      node: fargateName,
      labels: { 'k8s-app': 'kube-dns' },
      owner: 'ReplicaSet/coredns-5d8f7c9b4',
    });

  // Finished Jobs (a drain leaves them be: they are completed).
  const jobNodes = new Set<string>();
  for (let i = 0; i < 10; i++) {
    const node = place(['general', 'spot'], jobNodes);
    if (node?.node)
      pods.push({
        name: `nightly-report-2911${i}-${podSuffix()}`,
        namespace: 'orders',
        node: node.node,
        labels: { app: 'nightly-report' },
        owner: `Job/nightly-report-2911${i}`,
        phase: 'Succeeded',
      });
  }

  // The stale nodes' and the unresponsive node's workload pods are still listed on them.
  for (const m of [...stale, cast.unresponsive, cast.stopped]) {
    if (!m?.node) continue;
    pods.push({
      name: `orders-worker-legacy-${podSuffix()}`,
      namespace: 'orders',
      node: m.node,
      labels: { app: 'orders-legacy' },
      owner: 'none',
    });
  }

  // ---------- events ----------

  const at = (seconds: number) => new Date(START_MS + seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;

  const spotEvent = {
    version: '0',
    id: uuid(),
    'detail-type': 'EC2 Spot Instance Interruption Warning',
    source: 'aws.ec2',
    account: ACCOUNT,
    time: at(30),
    region: REGION,
    resources: [`arn:aws:ec2:${REGION}:${ACCOUNT}:instance/${cast.spot.id}`],
    detail: { 'instance-id': cast.spot.id, 'instance-action': 'terminate' },
  };
  const lifecycleEvent = {
    version: '0',
    id: uuid(),
    'detail-type': 'EC2 Instance-terminate Lifecycle Action',
    source: 'aws.autoscaling',
    account: ACCOUNT,
    time: at(45),
    region: REGION,
    resources: [
      `arn:aws:autoscaling:${REGION}:${ACCOUNT}:autoScalingGroup:${uuid()}:autoScalingGroupName/${general.asg}`,
    ],
    detail: {
      LifecycleActionToken: '7c1e5a2b-4d3f-4e8a-9b6c-0d1e2f3a4b5c',
      AutoScalingGroupName: general.asg,
      LifecycleHookName: HOOK,
      EC2InstanceId: cast.scaleIn.id,
      LifecycleTransition: 'autoscaling:EC2_INSTANCE_TERMINATING',
      Origin: 'AutoScalingGroup',
      Destination: 'EC2',
    },
  };

  // ---------- the file ----------

  const ecNodes = machines.filter((m) => m.nodeObject);
  const lines: string[] = [
    '# The embedded demo (`npm start`): a production-like EKS cluster — three managed node groups over three',
    '# zones, ~40 EC2 nodes, a Fargate node, ~400 pods with PDBs — and one of everything the reconciler handles:',
    '# three stale Node objects, a spot interruption, an ASG scale-in with a lifecycle hook, a stopped machine,',
    '# a machine that never registered, a silent kubelet, a scheduled retirement.',
    '# Generated by scripts/make-demo-scenario.ts (deterministic); edit that, not this file.',
    'name: demo-shop-prod',
    `start: ${START}`,
    `cluster: ${flow({ name: CLUSTER, region: REGION, accountId: ACCOUNT })}`,
    `settings: ${flow({ heartbeatGrace: '2m', notFoundGrace: '10m', minNodeAge: '10m', maxDeletions: 10, maxDeletionPercent: 20, rebalance: 'cordon' })}`,
    'instances:',
    ...machines.map((m) => `  - ${flow(m.instance)}`),
    'nodes:',
    ...ecNodes.map((m) => `  - ${flow(m.nodeObject ?? {})}`),
    `  - ${flow(fargate)}`,
    `pods:   # ${pods.length}`,
    ...pods.map((p) => `  - ${flow(p)}`),
    'pdbs:',
    ...pdbs.map((p) => `  - ${flow(p)}`),
    'steps:',
    '  - sweep: {}        # deletes the stale Nodes, taints the stopped machine, drains the retiring one, reports the rest',
    '  - advance: 30s',
    `  - event: { inline: ${flow(spotEvent)} }`,
    '  - advance: 15s',
    `  - event: { inline: ${flow(lifecycleEvent)} }`,
    '  - settle: {}       # drains run to the end; the lifecycle action is completed; EC2 takes both machines',
    '  - advance: 5m      # their kubelets have been silent past heartbeatGrace',
    '  - sweep: {}        # deletes the two Nodes whose machines are now gone',
    'expect:',
    '  nodes:',
    ...stale.map((m) => `    ${m.node ?? ''}: deleted`),
    `    ${cast.spot.node ?? ''}: deleted`,
    `    ${cast.scaleIn.node ?? ''}: deleted`,
    `    ${cast.retiring.node ?? ''}: drained`,
    `    ${cast.stopped.node ?? ''}: { exists: true, unschedulable: false, taints: [ node.cloudprovider.kubernetes.io/shutdown ] }`,
    `    ${cast.unresponsive.node ?? ''}: untouched`,
    `    ${fargateName}: untouched`,
    ...machines
      .filter((m) => m.node && m.schedulable && !Object.values(cast).includes(m))
      .slice(0, 3)
      .map((m) => `    ${m.node ?? ''}: untouched`),
    '  lifecycleActions:',
    `    - { instance: ${cast.scaleIn.id}, result: CONTINUE }`,
    '  conditions:      # as the final sweep saw them',
    // The healthy nodes in sync; the two terminated machines whose Nodes the first sweep deleted are
    // gone (EC2 still returns a terminated instance for about an hour: a machine with no Node).
    `    in-sync: ${machines.filter((m) => m.node && m.schedulable && !Object.values(cast).includes(m)).length}`,
    '    stale-object: 2',
    '    gone: 2',
    '    slated-for-removal: 1',
    '    stopped-machine: 1',
    '    unresponsive-machine: 1',
    '    unregistered-machine: 1',
    '    not-ec2: 1',
    '    identity-conflict: 0',
    '    unknown: 0',
    '  deletions: 5',
    '',
  ];
  return lines.join('\n');
}

export const DEMO_FILE = fileURLToPath(new URL('../test/scenarios/demo.yaml', import.meta.url));

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  const out = values.out ?? DEMO_FILE;
  writeFileSync(out, demoScenarioYaml());
  process.stdout.write(`wrote ${out}\n`);
}
