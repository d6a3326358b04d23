/**
 * Writes the storm scenarios (JSON) the storm benchmark and the storm integration test run in the
 * deployed-world sandbox, with request latency on the virtual clock (scenario `latency`):
 *
 * - `spot`: a Spot capacity reclaim — W spot interruption warnings within S seconds (seeded random
 *   times) across W distinct nodes of an N-node cluster of spot instances in managed node groups;
 *   each warned node runs a ReplicaSet pod (5 s grace) and a DaemonSet pod.
 * - `refresh`: an instance refresh — A terminate lifecycle actions, one every M·60/A seconds over M
 *   minutes, on the nodes of Auto Scaling groups with a terminate hook (heartbeat timeout 1 h);
 *   every app's pods spread over the nodes, each app under a PodDisruptionBudget that allows one
 *   disruption at a time.
 *
 * Deterministic: the same text for the same options.
 *
 *   npx tsx scripts/make-storm-scenario.ts spot --nodes 2000 --warnings 500 --within 60 [--out FILE]
 *   npx tsx scripts/make-storm-scenario.ts refresh --nodes 400 --actions 200 --minutes 10 [--out FILE]
 */
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { scaleGroupName, scaleInstanceId, scaleNodeName } from './make-scale-scenario.js';

const CLUSTER = 'storm';
const REGION = 'us-east-1';
const ACCOUNT = '111122223333';
const ZONES = ['a', 'b', 'c'];
const START = '2026-11-29T12:00:00Z';
const START_MS = Date.parse(START);
const GROUP_SIZE = 500;
const HOOK = 'ec2-node-reconciler-drain';

/**
 * Virtual time each request of the functions takes: EC2's DescribeInstances is slower than an API
 * server in the cluster's own region (figures of the order seen from Lambda in the same region).
 */
export const STORM_LATENCY = { aws: 50, kube: 10 } as const;

/** Deterministic pseudo-random numbers in [0, 1) (a 32-bit LCG's high bits). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return (state >>> 8) / 0x1000000;
  };
}

/** A UUID from a counter: event ids and lifecycle tokens that are distinct and stable. */
const uuid = (kind: number, n: number): string =>
  `${kind.toString(16).padStart(8, '0')}-5ca1-4e00-8000-${n.toString(16).padStart(12, '0')}`;

const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const zoneOf = (i: number): string => `${REGION}${ZONES[i % 3] ?? 'a'}`;

interface Machine {
  readonly instance: Record<string, unknown>;
  readonly node: Record<string, unknown>;
}

function machine(i: number, options: { spot: boolean; hook?: string }): Machine {
  const zone = zoneOf(i);
  const nodegroup = `ng-${Math.floor(i / GROUP_SIZE)}`;
  const group = scaleGroupName(Math.floor(i / GROUP_SIZE));
  return {
    instance: {
      id: scaleInstanceId(i),
      state: 'running',
      zone,
      privateDnsName: scaleNodeName(i, REGION),
      launchedAgo: '2d',
      spot: options.spot,
      tags: {
        'eks:cluster-name': CLUSTER,
        [`kubernetes.io/cluster/${CLUSTER}`]: 'owned',
        'eks:nodegroup-name': nodegroup,
      },
      autoScaling: { group, ...(options.hook ? { hook: options.hook, heartbeatTimeout: '1h' } : {}) },
    },
    node: {
      name: scaleNodeName(i, REGION),
      providerID: `aws:///${zone}/${scaleInstanceId(i)}`,
      createdAgo: '2d',
      labels: { 'eks.amazonaws.com/nodegroup': nodegroup, 'topology.kubernetes.io/zone': zone },
    },
  };
}

/** One value a line: 2,000 machines stay readable, and the loader parses JSON without the YAML parser. */
function scenarioText(head: object, sections: Readonly<Record<string, readonly object[]>>, tail: object): string {
  const inner = (value: object): string => JSON.stringify(value).slice(1, -1);
  const lists = Object.entries(sections).map(
    ([key, items]) => `${JSON.stringify(key)}: [\n${items.map((i) => JSON.stringify(i)).join(',\n')}\n]`,
  );
  return `{${inner(head)},\n${lists.join(',\n')},\n${inner(tail)}}\n`;
}

export interface SpotStormOptions {
  readonly nodes: number;
  readonly warnings: number;
  /** The warnings' times fall within this many seconds of the storm's start. */
  readonly withinSeconds: number;
  readonly seed?: number;
  /**
   * Whether each warned node runs a ReplicaSet pod (grace period 5 s) to drain beside its
   * DaemonSet pod. @default true. (Short graces on purpose: the sandbox runs a worker thread, ~70 MB,
   * per concurrent Lambda environment, and a drain holds its drain-step environment while its pods
   * terminate; 30 s graces would hold some 250 of them at once.)
   */
  readonly workload?: boolean;
}

/** The warned machines' indexes and warning times (ms after the start), in time order. */
export function spotStormWarnings(options: SpotStormOptions): { index: number; atMs: number }[] {
  if (options.warnings > options.nodes) throw new Error('--warnings: at most one warning per node');
  const rand = random(options.seed ?? 16);
  const indexes = Array.from({ length: options.nodes }, (_, i) => i);
  // A partial Fisher–Yates shuffle: the first `warnings` indexes are the warned machines.
  for (let i = 0; i < options.warnings; i++) {
    const j = i + Math.floor(rand() * (options.nodes - i));
    [indexes[i], indexes[j]] = [indexes[j] ?? 0, indexes[i] ?? 0];
  }
  return indexes
    .slice(0, options.warnings)
    .map((index) => ({ index, atMs: Math.floor(rand() * options.withinSeconds) * 1000 }))
    .sort((a, b) => a.atMs - b.atMs || a.index - b.index);
}

export function spotStormScenarioText(options: SpotStormOptions): string {
  const warnings = spotStormWarnings(options);
  const warned = new Set(warnings.map((w) => w.index));
  const machines = Array.from({ length: options.nodes }, (_, i) => machine(i, { spot: true }));
  const pods = [...warned]
    .sort((a, b) => a - b)
    .flatMap((i) => [
      ...(options.workload === false
        ? []
        : [
            {
              name: `web-${i}`,
              namespace: 'shop',
              node: scaleNodeName(i, REGION),
              labels: { app: `web-${i % 50}` },
              owner: `ReplicaSet/web-${i % 50}-5ca1e`,
              terminationGracePeriodSeconds: 5,
            },
          ]),
      { name: `agent-${i}`, namespace: 'kube-system', node: scaleNodeName(i, REGION), owner: 'DaemonSet/agent' },
    ]);
  const events = warnings.map(({ index, atMs }, n) => ({
    version: '0',
    id: uuid(0x5b07, n),
    'detail-type': 'EC2 Spot Instance Interruption Warning',
    source: 'aws.ec2',
    account: ACCOUNT,
    time: iso(START_MS + 1_000 + atMs),
    region: REGION,
    resources: [`arn:aws:ec2:${REGION}:${ACCOUNT}:instance/${scaleInstanceId(index)}`],
    detail: { 'instance-id': scaleInstanceId(index), 'instance-action': 'terminate' },
  }));
  const head = {
    name: `spot-storm-${options.warnings}-of-${options.nodes}`,
    start: START,
    cluster: { name: CLUSTER, region: REGION, accountId: ACCOUNT },
    latency: STORM_LATENCY,
  };
  return scenarioText(
    head,
    { instances: machines.map((m) => m.instance), nodes: machines.map((m) => m.node), pods },
    {
      // The storm, then the two minutes its machines have, then whatever drains are left.
      steps: [{ events: { inline: events } }, { advance: '3m' }, { settle: {} }],
      expect: { deletions: 0, deadLetters: 0, drainsStarted: options.warnings },
    },
  );
}

export interface RefreshOptions {
  readonly nodes: number;
  readonly actions: number;
  readonly minutes: number;
  /** Apps, each with a PodDisruptionBudget allowing one disruption. @default 10 */
  readonly apps?: number;
  /** Each app's replicas, two of them on each refreshed node (so a drain meets its budget). @default 40 */
  readonly replicas?: number;
}

export function refreshScenarioText(options: RefreshOptions): string {
  if (options.actions > options.nodes) throw new Error('--actions: at most one lifecycle action per node');
  const apps = options.apps ?? 10;
  const replicas = options.replicas ?? 40;
  const machines = Array.from({ length: options.nodes }, (_, i) => machine(i, { spot: false, hook: HOOK }));
  // Replicas spread over the nodes the refresh replaces, two of an app on a node at most: a drain
  // evicts both at once and the budget refuses the second until the first's replacement runs.
  const pods = Array.from({ length: apps * replicas }, (_, p) => {
    const app = p % apps;
    const node = Math.floor(p / apps) * apps + app;
    return {
      name: `app-${app}-${Math.floor(p / apps)}`,
      namespace: 'shop',
      node: scaleNodeName(node % options.actions, REGION),
      labels: { app: `app-${app}` },
      owner: `ReplicaSet/app-${app}-5ca1e`,
      terminationGracePeriodSeconds: 10,
    };
  });
  const pdbs = Array.from({ length: apps }, (_, app) => ({
    name: `app-${app}`,
    namespace: 'shop',
    selector: { app: `app-${app}` },
    maxUnavailable: 1,
  }));
  const spacing = Math.floor((options.minutes * 60_000) / options.actions);
  const events = Array.from({ length: options.actions }, (_, n) => ({
    version: '0',
    id: uuid(0x2ef2, n),
    'detail-type': 'EC2 Instance-terminate Lifecycle Action',
    source: 'aws.autoscaling',
    account: ACCOUNT,
    time: iso(START_MS + 1_000 + n * spacing),
    region: REGION,
    resources: [
      `arn:aws:autoscaling:${REGION}:${ACCOUNT}:autoScalingGroup:${uuid(0x9, Math.floor(n / GROUP_SIZE))}:autoScalingGroupName/${scaleGroupName(Math.floor(n / GROUP_SIZE))}`,
    ],
    detail: {
      LifecycleActionToken: uuid(0x70ce, n),
      AutoScalingGroupName: scaleGroupName(Math.floor(n / GROUP_SIZE)),
      LifecycleHookName: HOOK,
      EC2InstanceId: scaleInstanceId(n),
      LifecycleTransition: 'autoscaling:EC2_INSTANCE_TERMINATING',
      Origin: 'AutoScalingGroup',
      Destination: 'EC2',
    },
  }));
  const head = {
    name: `instance-refresh-${options.actions}-over-${options.minutes}m`,
    start: START,
    cluster: { name: CLUSTER, region: REGION, accountId: ACCOUNT },
    latency: STORM_LATENCY,
  };
  return scenarioText(
    head,
    { instances: machines.map((m) => m.instance), nodes: machines.map((m) => m.node), pods, pdbs },
    {
      steps: [{ events: { inline: events } }, { settle: {} }],
      expect: {
        deletions: 0,
        deadLetters: 0,
        lifecycleActions: Array.from({ length: options.actions }, (_, n) => ({
          instance: scaleInstanceId(n),
          result: 'CONTINUE',
        })),
      },
    },
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      nodes: { type: 'string' },
      warnings: { type: 'string' },
      within: { type: 'string' },
      actions: { type: 'string' },
      minutes: { type: 'string' },
      out: { type: 'string' },
    },
  });
  const whole = (name: string, value: string | undefined, fallback: number): number => {
    const n = Number(value ?? fallback);
    if (!Number.isSafeInteger(n) || n < 1)
      throw new Error(`--${name}: expected a whole number ≥ 1, got ${value ?? ''}`);
    return n;
  };
  const kind = positionals[0];
  const text =
    kind === 'spot'
      ? spotStormScenarioText({
          nodes: whole('nodes', values.nodes, 2000),
          warnings: whole('warnings', values.warnings, 500),
          withinSeconds: whole('within', values.within, 60),
        })
      : kind === 'refresh'
        ? refreshScenarioText({
            nodes: whole('nodes', values.nodes, 400),
            actions: whole('actions', values.actions, 200),
            minutes: whole('minutes', values.minutes, 10),
          })
        : undefined;
  if (text === undefined) throw new Error('usage: make-storm-scenario.ts spot|refresh [options] (see the header)');
  if (values.out) {
    writeFileSync(values.out, text);
    process.stdout.write(`wrote ${values.out}\n`);
  } else process.stdout.write(text);
}
