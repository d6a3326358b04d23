// Both emulators on one VirtualClock, wired the way the Lambda functions wire themselves:
// DescribeCluster → endpoint, an EKS token that the Kubernetes emulator accepts only after the STS
// emulator has verified its signature, and the shipped RBAC manifest deciding every request.
// Builders seed one (node, instance) pair per condition of docs/design.md §1.
import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, expect } from 'vitest';
import { rbacManifests, RECONCILER_GROUP } from '@ec2-node-reconciler/model/contract/rbac.js';
import type { DrainLauncher, LaunchOutcome } from '../../lib/aws/drain-launcher.js';
import type { AwsClientOptions } from '../../lib/aws/clients.js';
import type { FunctionConfig } from '../../lib/lambda/config.js';
import { WarmRuntime } from '../../lib/lambda/runtime.js';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { CONDITIONS, type Condition } from '@ec2-node-reconciler/model/condition.js';
import type { InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import type { ReconcilerDeps } from '../../lib/pipeline/deps.js';
import { runSignals, runSweep } from '../../lib/pipeline/run.js';
import type { RunReport } from '../../lib/report/report.js';
import { DEFAULT_SETTINGS, type Settings } from '@ec2-node-reconciler/model/contract/settings.js';
import { parseEvent } from '../../lib/signals/index.js';
import { startAwsEmulator, type AwsEmulator, type SeedInstance } from '@ec2-node-reconciler/sandbox/aws/index.js';
import {
  startKubeEmulator,
  type KubeEmulator,
  type NodeSeed,
  type UserInfo,
} from '@ec2-node-reconciler/sandbox/kube/index.js';
import type { DrainExecutionState } from '@ec2-node-reconciler/model/observation.js';
import { executionOf, type DrainWorkflowInput } from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import { instanceId } from './world.js';

export { instanceId };

export const CLUSTER = 'demo';
export const REGION = 'us-east-1';
export const ZONE = 'us-east-1a';
export const OTHER_ZONE = 'us-east-1b';
export const START = Date.parse('2026-11-29T12:00:00Z');
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const OUTPUT_BUS = 'ec2-node-reconciler';
export const STATE_MACHINE = 'ec2-node-reconciler-drain';
export const ASG = 'eks-workers';
export const TERMINATE_HOOK = 'ec2-node-reconciler-drain';
/** The Kubernetes user an EKS token verified by the STS emulator maps to (the access entry's). */
export const RECONCILER_USER = 'ec2-node-reconciler';

/** `ip-10-0-<n / 250>-<n % 250>.ec2.internal`: the node of instance n, named after its private DNS name. */
export const nodeName = (n: number): string => `ip-10-0-${Math.floor(n / 250)}-${n % 250}.ec2.internal`;

/** The uid of node n as the world holds it now: part of a drain's execution name (drainExecutionName). */
export const nodeUidOf = (
  world: { kube: { store: { getNode(name: string): { metadata?: { uid?: string } } | undefined } } },
  n: number,
): string => {
  const uid = world.kube.store.getNode(nodeName(n))?.metadata?.uid;
  if (uid === undefined) throw new Error(`node ${nodeName(n)} has no uid`);
  return uid;
};

/** A DrainLauncher that only records what it was asked to start (for tests that are not about Step Functions). */
export class RecordingDrainLauncher implements DrainLauncher {
  readonly launched: DrainWorkflowInput[] = [];

  launch(input: DrainWorkflowInput): Promise<LaunchOutcome> {
    this.launched.push(input);
    return Promise.resolve('started');
  }

  /** Drains it was asked to start count as running (they never end); any other name as never started. */
  status(executions: readonly string[]): Promise<Map<string, DrainExecutionState>> {
    const started = new Set(this.launched.map((i) => executionOf(i)));
    return Promise.resolve(
      new Map(
        executions.map((name): [string, DrainExecutionState] => [
          name,
          { status: started.has(name) ? 'running' : 'absent' },
        ]),
      ),
    );
  }
}

export interface DepsOptions {
  readonly settings?: Partial<Settings>;
  /** Default: the real StepFunctionsDrainLauncher against the emulator's state machine. */
  readonly drains?: DrainLauncher;
  /** Default: the world's warm runtime (one per world, like one warm Lambda container). */
  readonly runtime?: WarmRuntime;
  /** Wraps the wired deps (e.g. to interleave a re-registration between observe and act). */
  readonly wrap?: (deps: ReconcilerDeps) => ReconcilerDeps;
}

export interface PipelineWorld {
  readonly clock: VirtualClock;
  readonly kube: KubeEmulator;
  readonly aws: AwsEmulator;
  readonly config: FunctionConfig;
  readonly stateMachineArn: string;
  /** The warm Lambda container: clients, cluster endpoint and token cached across runs. */
  readonly runtime: WarmRuntime;
  /** Kubernetes users the authenticator resolved, in order (one entry per request that carried a token). */
  readonly authenticated: readonly (UserInfo | null)[];
  /** Another warm container (e.g. with fewer SDK attempts, or other credentials); closed with the world. */
  newRuntime(aws?: Omit<AwsClientOptions, 'region' | 'endpoint'>): WarmRuntime;
  /** Fresh per-run deps, the way a Lambda invocation gets them. */
  deps(options?: DepsOptions): Promise<ReconcilerDeps>;
  sweep(options?: DepsOptions): Promise<RunReport>;
  /** Parses an EventBridge event and runs the event path on its signals; undefined when the event is ignored. */
  event(event: unknown, options?: DepsOptions): Promise<RunReport | undefined>;

  seedInstance(n: number, over?: Partial<SeedInstance>): InstanceId;
  seedNode(n: number, over?: Partial<NodeSeed>): string;
  /** Clears both request logs (after seeding, before the run under test). */
  clearLogs(): void;
  close(): Promise<void>;
}

/** The reconciler's settings for these tests: the defaults, opt-ins given per test. */
export function testSettings(over: Partial<Settings> = {}): Settings {
  return { ...DEFAULT_SETTINGS, ...over };
}

export async function startPipelineWorld(options: { start?: number } = {}): Promise<PipelineWorld> {
  const clock = new VirtualClock(options.start ?? START);
  const aws = await startAwsEmulator({ clock, region: REGION });
  const authenticated: (UserInfo | null)[] = [];
  const kube = await startKubeEmulator({
    clock,
    uids: 'sequential',
    rbac: rbacManifests(),
    auth: {
      // Token mode: only an EKS token whose presigned GetCallerIdentity the STS emulator verifies
      // (signature, cluster header, 15-minute expiry) is a user; that user is in the access entry's group.
      authenticate: async (token) => {
        const verdict = await aws.verifyEksToken(token, CLUSTER);
        const user = verdict.ok ? { name: RECONCILER_USER, groups: [RECONCILER_GROUP] } : null;
        authenticated.push(user);
        return user;
      },
      anonymous: false,
    },
  });
  aws.state.seedCluster({ name: CLUSTER, endpoint: kube.url });
  const stateMachineArn = aws.state.seedStateMachine({ name: STATE_MACHINE }).arn;
  aws.state.createEventBus(OUTPUT_BUS);

  const config: FunctionConfig = {
    clusterName: CLUSTER,
    region: REGION,
    settings: testSettings(),
    drainStateMachineArn: stateMachineArn,
    outputEventBusName: OUTPUT_BUS,
  };
  const { endpoint, credentials } = aws.clientConfig();
  const runtimes: WarmRuntime[] = [];
  const newRuntime = (extra: Omit<AwsClientOptions, 'region' | 'endpoint'> = {}): WarmRuntime => {
    const runtime = new WarmRuntime(config, clock, { endpoint, credentials, ...extra });
    runtimes.push(runtime);
    return runtime;
  };
  const runtime = newRuntime();

  const deps = async (opts: DepsOptions = {}): Promise<ReconcilerDeps> => {
    const { drains } = opts;
    const wired = await (opts.runtime ?? runtime).reconcilerDeps(
      testSettings(opts.settings),
      drains ? { drains: () => drains } : {},
    );
    return opts.wrap ? opts.wrap(wired) : wired;
  };

  return {
    clock,
    kube,
    aws,
    config,
    stateMachineArn,
    runtime,
    authenticated,
    newRuntime,
    deps,
    sweep: async (opts) => runSweep(await deps(opts), { region: REGION, accountId: aws.accountId }),
    event: async (event, opts) => {
      const parsed = parseEvent(event);
      if (parsed.outcome === 'ignored') return undefined;
      return runSignals(await deps(opts), parsed.signals, { region: REGION, accountId: aws.accountId });
    },
    seedInstance: (n, over = {}) => {
      const id = instanceId(n);
      aws.state.seedInstance({
        id,
        state: 'running',
        zone: ZONE,
        privateDnsName: nodeName(n),
        launchedAgo: '2h',
        tags: { 'eks:cluster-name': CLUSTER },
        ...over,
      });
      return id;
    },
    seedNode: (n, over = {}) => {
      const name = over.name ?? nodeName(n);
      kube.store.seedNode({ name, instanceId: instanceId(n), zone: ZONE, createdAt: clock.now() - 2 * HOUR, ...over });
      return name;
    },
    clearLogs: () => {
      kube.requestLog.clear();
      aws.requestLog.clear();
    },
    close: async () => {
      // A client never asked for is made here only to be destroyed: it has no sockets yet.
      await Promise.all(
        runtimes.flatMap(({ aws: c }) =>
          [c.ec2, c.autoScaling, c.eks, c.eventBridge, c.sfn].map(async (client) => (await client()).destroy()),
        ),
      );
      await Promise.all([kube.close(), aws.close()]);
    },
  };
}

// ---------- one (node, instance) pair per condition of docs/design.md §1 ----------

/** What the kubelet of a machine that went away left behind: no heartbeat for an hour. */
export const silentKubelet = (world: PipelineWorld, agoMs = HOUR): Partial<NodeSeed> => ({
  heartbeating: false,
  lastHeartbeat: world.clock.now() - agoMs,
  readyHeartbeat: world.clock.now() - agoMs,
});

export const pairs = {
  /** Running instance, Ready node heartbeating. */
  inSync(
    world: PipelineWorld,
    n: number,
    over: { instance?: Partial<SeedInstance>; node?: Partial<NodeSeed> } = {},
  ): void {
    world.seedInstance(n, over.instance);
    world.seedNode(n, over.node);
  },
  /** Terminated instance, node silent for an hour. */
  staleTerminated(world: PipelineWorld, n: number, over: { node?: Partial<NodeSeed> } = {}): void {
    world.seedInstance(n, { state: 'terminated', tags: { 'eks:cluster-name': CLUSTER } });
    world.seedNode(n, { ...silentKubelet(world), ...over.node });
  },
  /** EC2 does not know the instance (long gone), node silent for an hour. */
  staleUnknownToEc2(world: PipelineWorld, n: number): void {
    world.seedNode(n, silentKubelet(world));
  },
  /** Auto Scaling is terminating the instance and waits on our hook. */
  asgTerminatingWait(world: PipelineWorld, n: number, token?: string): void {
    world.seedInstance(n, {
      autoScaling: {
        group: ASG,
        lifecycleState: 'Terminating:Wait',
        hook: TERMINATE_HOOK,
        ...(token ? { token } : {}),
      },
    });
    world.seedNode(n);
  },
  decommissionTagged(world: PipelineWorld, n: number): void {
    world.seedInstance(n, {
      tags: { 'eks:cluster-name': CLUSTER, 'ec2-node-reconciler/decommission': 'replace disk' },
    });
    world.seedNode(n);
  },
  /** A scheduled instance-retirement in 2 hours. */
  retiring(world: PipelineWorld, n: number): void {
    world.seedInstance(n, { scheduledEvents: [{ code: 'instance-retirement', notBefore: '2h' }] });
    world.seedNode(n);
  },
  shuttingDown(world: PipelineWorld, n: number): void {
    world.seedInstance(n, { state: 'shutting-down' });
    world.seedNode(n);
  },
  /** Stopped instance; its kubelet stopped with it 10 minutes ago. */
  stopped(world: PipelineWorld, n: number, over: { node?: Partial<NodeSeed> } = {}): void {
    world.seedInstance(n, { state: 'stopped' });
    world.seedNode(n, { ...silentKubelet(world, 10 * MINUTE), ...over.node });
  },
  /** Running instance whose kubelet has been silent for 10 minutes. */
  unresponsive(world: PipelineWorld, n: number): void {
    world.seedInstance(n);
    world.seedNode(n, { ...silentKubelet(world, 10 * MINUTE), ready: 'Unknown' });
  },
  /** Running, cluster-tagged, in an Auto Scaling group for 2 hours, and no Node. */
  unregistered(world: PipelineWorld, n: number): void {
    world.seedInstance(n, { autoScaling: { group: ASG } });
  },
  /** The node's providerID names another zone than the instance's. */
  zoneMismatch(world: PipelineWorld, n: number): void {
    world.seedInstance(n);
    world.seedNode(n, { zone: OTHER_ZONE });
  },
  /** Two nodes claim the same instance. */
  twoNodesOneInstance(world: PipelineWorld, n: number): string[] {
    world.seedInstance(n);
    return [world.seedNode(n), world.seedNode(n, { name: `${nodeName(n)}-twin` })];
  },
  /** EC2 says terminated, yet the node's Lease is fresh. */
  terminatedFreshLease(world: PipelineWorld, n: number): void {
    world.seedInstance(n, { state: 'terminated' });
    world.seedNode(n);
  },
  /** A Fargate node: never looked up in EC2. */
  fargate(world: PipelineWorld, name = 'fargate-ip-10-0-9-9.ec2.internal'): string {
    world.kube.store.seedNode({
      name,
      providerID: `aws:///${ZONE}/0a1b2c3d4e/${name}`,
      createdAt: world.clock.now() - 2 * HOUR,
      labels: { 'eks.amazonaws.com/compute-type': 'fargate' },
    });
    return name;
  },
  /** A node whose providerID is not a valid EC2 one. */
  malformedProviderId(world: PipelineWorld, name = 'ip-10-0-9-8.ec2.internal'): string {
    world.kube.store.seedNode({ name, providerID: `aws:///${ZONE}/i-nothex`, createdAt: world.clock.now() - 2 * HOUR });
    return name;
  },
};

// ---------- reading back what a run did ----------

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

export interface RecordedNodeEvent {
  /** When it was recorded (epoch ms, second precision, as the API server stores it). */
  readonly at: number;
  readonly node: string;
  readonly uid: string;
  readonly reason: string;
  readonly type: string;
  readonly message: string;
  readonly component: string;
}

/**
 * The Kubernetes Events on Nodes, as `kubectl describe node` would show them: by time, then by
 * reason and node (the store lists by key, and generated names are random).
 */
export function nodeEvents(world: PipelineWorld): RecordedNodeEvent[] {
  const { store } = world.kube;
  const events = store.list(store.resource('events', ''), { namespace: 'default' }).items.flatMap((event) => {
    const involved = event['involvedObject'];
    if (!isRecord(involved) || involved['kind'] !== 'Node') return [];
    const source = event['source'];
    return [
      {
        at: Date.parse(text(event['firstTimestamp']) || text(event.metadata.creationTimestamp)),
        node: text(involved['name']),
        uid: text(involved['uid']),
        reason: text(event['reason']),
        type: text(event['type']),
        message: text(event['message']),
        component: isRecord(source) ? text(source['component']) : '',
      },
    ];
  });
  return events.sort((a, b) => a.at - b.at || a.reason.localeCompare(b.reason) || a.node.localeCompare(b.node));
}

/** `reason node` of every Node Event, in the order recorded. */
export const eventReasons = (world: PipelineWorld): string[] => nodeEvents(world).map((e) => `${e.reason} ${e.node}`);

/** What the reconciler put on its own bus. */
export const outputEvents = (
  world: PipelineWorld,
): { detailType: string; detail: Readonly<Record<string, unknown>>; resources: readonly string[] }[] =>
  world.aws.state.eventBus
    .on(OUTPUT_BUS)
    .map((e) => ({ detailType: e.detailType, detail: e.detail, resources: e.resources }));

/** Every write the Kubernetes emulator answered (`patch nodes/x`, `create events`, …). */
export const kubeWrites = (world: PipelineWorld): string[] =>
  world.kube.requestLog.entries
    .filter((e) => ['create', 'update', 'patch', 'delete', 'deletecollection'].includes(e.verb))
    .map((e) => `${e.verb} ${e.resource}${e.subresource ? `/${e.subresource}` : ''}${e.name ? `/${e.name}` : ''}`);

/** `METHOD resource` of every Kubernetes request, in order (`GET nodes/x`, `LIST nodes`). */
export const kubeRequests = (world: PipelineWorld): string[] =>
  world.kube.requestLog.entries.map(
    (e) => `${e.verb === 'list' ? 'LIST' : e.method} ${e.resource}${e.name ? `/${e.name}` : ''}`,
  );

const AWS_WRITES = new Set([
  'StartExecution',
  'CompleteLifecycleAction',
  'RecordLifecycleActionHeartbeat',
  'SetInstanceHealth',
  'PutEvents',
  'CreateTags',
  'DeleteTags',
  'TerminateInstances',
]);

/** Every AWS request the emulator answered, `service Operation status`. */
export const awsRequests = (world: PipelineWorld): string[] =>
  world.aws.requestLog.entries.map((e) => `${e.service} ${e.operation} ${e.status}`);

/** Every AWS write the emulator answered (`states StartExecution`, …). */
export const awsWrites = (world: PipelineWorld): string[] =>
  world.aws.requestLog.entries.filter((e) => AWS_WRITES.has(e.operation)).map((e) => `${e.service} ${e.operation}`);

/**
 * Kubernetes requests that were not made as the reconciler's EKS identity or that the shipped RBAC
 * refused: every integration test of the pipeline must leave this empty.
 */
export const rbacViolations = (world: PipelineWorld): string[] =>
  world.kube.requestLog.entries
    .filter((e) => e.user !== RECONCILER_USER || e.status === 401 || e.status === 403)
    .map((e) => `${e.method} ${e.path} → ${e.status} as ${e.user || '(nobody)'}`);

/** The drains started in the emulator's Step Functions: execution name and parsed input. */
export function drainExecutions(world: PipelineWorld): { name: string; input: Record<string, unknown> }[] {
  return world.aws.state.stepFunctions.executions({ stateMachineArn: world.stateMachineArn }).map((e) => {
    const input: unknown = JSON.parse(e.input);
    return { name: e.name, input: isRecord(input) ? input : {} };
  });
}

// ---------- real EventBridge events, adjusted to the seeded world ----------

const FIXTURES = new URL('../fixtures/events/', import.meta.url);

/**
 * A fixture from test/fixtures/events with its instance ids replaced by `instanceId`, its time set
 * to the clock's now (or `time`), and its region and account set to the emulator's.
 */
export async function fixtureEvent(
  world: PipelineWorld,
  name: string,
  options: { instanceId: InstanceId; time?: number; detail?: Record<string, unknown> },
): Promise<Record<string, unknown>> {
  const raw = await readFile(new URL(`${name}.json`, FIXTURES), 'utf8');
  const parsed: unknown = JSON.parse(raw.replace(/i-[0-9a-f]{8}(?:[0-9a-f]{9})?\b/g, options.instanceId));
  if (!isRecord(parsed)) throw new Error(`fixture ${name} is not a JSON object`);
  const detail = isRecord(parsed['detail']) ? parsed['detail'] : {};
  return {
    ...parsed,
    time: new Date(options.time ?? world.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: REGION,
    account: world.aws.accountId,
    detail: { ...detail, ...options.detail },
  };
}

/**
 * A fresh world for each test, closed after it; every test also proves that all its Kubernetes
 * requests came from the reconciler's identity and passed the shipped RBAC.
 */
export function usePipelineWorld(
  set: (world: PipelineWorld) => void,
  options: { checkRbac?: boolean; warm?: boolean } = {},
): void {
  let current: PipelineWorld | undefined;
  beforeEach(async () => {
    current = await startPipelineWorld();
    // A warm container: cluster endpoint and token already there, so the logs show only the run's own work.
    if (options.warm) await current.runtime.kubeConnection();
    set(current);
  });
  afterEach(async () => {
    try {
      if (current && options.checkRbac !== false) expect(rbacViolations(current)).toEqual([]);
    } finally {
      await current?.close();
    }
  });
}

/** Counts for every condition: the given ones, zero for the rest. */
export function conditionCounts(over: Partial<Record<Condition, number>>): Record<Condition, number> {
  return { ...(Object.fromEntries(CONDITIONS.map((c) => [c, 0])) as Record<Condition, number>), ...over };
}

export const iso = (ms: number): string => new Date(ms).toISOString();

/** `kind target outcome` per action, for compact assertions. */
export const actionsOf = (report: RunReport | undefined): string[] =>
  (report?.actions ?? []).map((a) => `${a.kind} ${a.node ?? a.instanceId ?? ''} ${a.outcome}`);
