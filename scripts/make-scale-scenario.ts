/**
 * Writes a scenario of any size (JSON) for the benchmarks and `simulate` at scale: N EC2 nodes in managed
 * node groups of 500 (instances tagged as EKS tags them: `eks:cluster-name`, the
 * `kubernetes.io/cluster/<name>` ownership tag, their group's `aws:autoscaling:groupName`), every
 * Node with a Lease, and, unless `--healthy`, a few divergences per thousand (stale Node objects,
 * stopped machines, machines that never registered). Deterministic: the same text for the same
 * options.
 *
 *   npx tsx scripts/make-scale-scenario.ts --nodes 100000 [--healthy] [--out FILE.json]
 */
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

export interface ScaleOptions {
  readonly nodes: number;
  /** Machines per Auto Scaling group (the last group takes the rest). @default 500 */
  readonly groupSize?: number;
  /** Every machine in sync: what a benchmark repeats without the world changing between runs. @default false */
  readonly healthy?: boolean;
  /** The virtual clock's start; omitted: the time the scenario is loaded (a benchmark's emulators follow the wall clock). */
  readonly start?: string;
  readonly cluster?: string;
  readonly region?: string;
  /**
   * Pods on each Node: one of a DaemonSet (kube-system/node-agent), the others one of each of the
   * cluster-wide ReplicaSets app-1, app-2, … (a PDB each): what a snapshot reads of a real cluster. @default 0
   */
  readonly podsPerNode?: number;
}

export const SCALE_CLUSTER = 'scale';
export const SCALE_REGION = 'us-east-1';
const ZONES = ['a', 'b', 'c'];

/** `i-0` and 16 hex digits, distinct for every index (no float arithmetic: indexes past 2^53 never collide). */
export function scaleInstanceId(index: number): string {
  return `i-0${'5ca1e'}${index.toString(16).padStart(11, '0')}`;
}

/** `ip-10-a-b-c.ec2.internal`, distinct for every index below 2^24. */
export function scaleNodeName(index: number, region = SCALE_REGION): string {
  const host = `ip-10-${(index >> 16) & 0xff}-${(index >> 8) & 0xff}-${index & 0xff}`;
  return region === 'us-east-1' ? `${host}.ec2.internal` : `${host}.${region}.compute.internal`;
}

export const scaleGroupName = (group: number): string => `eks-ng-${String(group).padStart(4, '0')}-5ca1e`;

/** How many Auto Scaling groups a scenario of `nodes` machines has. */
export const scaleGroupCount = (nodes: number, groupSize = 500): number => Math.max(1, Math.ceil(nodes / groupSize));

/** One divergence every `EVERY` machines, in turn: stale Node, stopped machine, unregistered machine. */
const EVERY = 1000;
type Kind = 'in-sync' | 'stale' | 'stopped' | 'unregistered';
function kindOf(index: number, healthy: boolean): Kind {
  if (healthy || index % EVERY !== EVERY - 1) return 'in-sync';
  const turn = Math.floor(index / EVERY) % 3;
  return turn === 0 ? 'stale' : turn === 1 ? 'stopped' : 'unregistered';
}

/**
 * The scenario as JSON text (JSON is YAML too, and the loader reads it without the YAML parser,
 * which would take half a minute over 100,000 machines): one instance or Node a line.
 */
export function scaleScenarioText(options: ScaleOptions): string {
  const cluster = options.cluster ?? SCALE_CLUSTER;
  const region = options.region ?? SCALE_REGION;
  const groupSize = options.groupSize ?? 500;
  const healthy = options.healthy ?? false;
  const instances: string[] = [];
  const nodes: string[] = [];
  const pods: string[] = [];
  const podsPerNode = options.podsPerNode ?? 0;
  const counts = { 'in-sync': 0, stale: 0, stopped: 0, unregistered: 0 };
  for (let i = 0; i < options.nodes; i++) {
    const id = scaleInstanceId(i);
    const name = scaleNodeName(i, region);
    const zone = `${region}${ZONES[i % 3] ?? 'a'}`;
    const nodegroup = `ng-${Math.floor(i / groupSize)}`;
    const kind = kindOf(i, healthy);
    counts[kind]++;
    instances.push(
      JSON.stringify({
        id,
        state: kind === 'stale' ? 'terminated' : kind === 'stopped' ? 'stopped' : 'running',
        zone,
        privateDnsName: name,
        launchedAgo: '2d',
        tags: {
          'eks:cluster-name': cluster,
          [`kubernetes.io/cluster/${cluster}`]: 'owned',
          'eks:nodegroup-name': nodegroup,
        },
        // A terminated machine has left its group.
        ...(kind === 'stale' ? {} : { autoScaling: { group: scaleGroupName(Math.floor(i / groupSize)) } }),
      }),
    );
    if (kind === 'unregistered') continue;
    nodes.push(
      JSON.stringify({
        name,
        providerID: `aws:///${zone}/${id}`,
        createdAgo: '2d',
        ...(kind === 'in-sync' ? {} : { ready: 'Unknown', heartbeatAgo: '1h' }),
        labels: { 'eks.amazonaws.com/nodegroup': nodegroup, 'topology.kubernetes.io/zone': zone },
      }),
    );
    for (let k = 0; k < podsPerNode; k++) {
      const app = `app-${k}`;
      pods.push(
        JSON.stringify(
          k === 0
            ? {
                name: `node-agent-${i}`,
                namespace: 'kube-system',
                node: name,
                labels: { app: 'node-agent' },
                owner: 'DaemonSet/node-agent',
              }
            : { name: `${app}-${i}`, namespace: 'shop', node: name, labels: { app }, owner: `ReplicaSet/${app}-5ca1e` },
        ),
      );
    }
  }
  const pdbs = Array.from({ length: Math.max(0, podsPerNode - 1) }, (_, n) => {
    const app = `app-${n + 1}`;
    return JSON.stringify({ name: app, namespace: 'shop', selector: { app }, maxUnavailable: '10%' });
  });
  const head = {
    name: `scale-${options.nodes}${healthy ? '-healthy' : ''}`,
    ...(options.start ? { start: options.start } : {}),
    cluster: { name: cluster, region, accountId: '111122223333' },
    // Deleting a few hundred stale Nodes at once is what the breaker is for; here they are expected.
    settings: {
      heartbeatGrace: '2m',
      notFoundGrace: '10m',
      minNodeAge: '10m',
      maxDeletions: Math.max(10, counts.stale),
      maxDeletionPercent: 20,
    },
  };
  const tail = {
    steps: [{ sweep: {} }],
    expect: {
      conditions: {
        'stale-object': counts.stale,
        'stopped-machine': counts.stopped,
        'unregistered-machine': counts.unregistered,
      },
      deletions: counts.stale,
    },
  };
  const inner = (value: object): string => JSON.stringify(value).slice(1, -1);
  return [
    `{${inner(head)},`,
    '"instances": [',
    instances.join(',\n'),
    '],',
    '"nodes": [',
    nodes.join(',\n'),
    '],',
    ...(pods.length > 0 ? ['"pods": [', pods.join(',\n'), '],', '"pdbs": [', pdbs.join(',\n'), '],'] : []),
    `${inner(tail)}}`,
    '',
  ].join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: { nodes: { type: 'string' }, out: { type: 'string' }, healthy: { type: 'boolean' } },
  });
  const nodes = Number(values.nodes ?? '1000');
  if (!Number.isSafeInteger(nodes) || nodes < 1 || nodes >= 1 << 24)
    throw new Error(`--nodes: expected a whole number from 1 to 16777215, got ${values.nodes ?? ''}`);
  const text = scaleScenarioText({ nodes, healthy: values.healthy === true });
  if (values.out) {
    writeFileSync(values.out, text);
    process.stdout.write(`wrote ${values.out}\n`);
  } else {
    process.stdout.write(text);
  }
}
