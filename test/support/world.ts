// Typed builders for observations: tests say only what matters to them.
import type { TerminateHookChoice } from '@ec2-node-reconciler/model/terminate-hook.js';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { toInstanceId, type InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import type {
  DrainExecutionState,
  InstanceView,
  LeaseView,
  NodeView,
  Observation,
} from '@ec2-node-reconciler/model/observation.js';
import type { Signal, SignalKind } from '@ec2-node-reconciler/model/signal.js';
import { DEFAULT_SETTINGS, type Settings } from '@ec2-node-reconciler/model/contract/settings.js';
import type { DrainSummary } from '@ec2-node-reconciler/model/contract/drain-workflow.js';

export const NOW = Date.parse('2026-11-29T12:00:00Z');
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const CLUSTER = 'demo';
export const REGION = 'us-east-1';

export const clockAt = (now = NOW): VirtualClock => new VirtualClock(now);

export function instanceId(n: number): InstanceId {
  return toInstanceId(`i-${n.toString(16).padStart(17, '0')}`);
}

export function anInstance(n: number, over: Partial<InstanceView> = {}): InstanceView {
  return {
    id: instanceId(n),
    state: 'running',
    zone: 'us-east-1a',
    privateDnsName: `ip-10-0-0-${n}.ec2.internal`,
    launchedAt: NOW - 2 * HOUR,
    tags: { 'eks:cluster-name': CLUSTER },
    spot: false,
    scheduledEvents: [],
    ...over,
  };
}

export function aNode(n: number, over: Partial<NodeView> = {}): NodeView {
  return {
    name: `ip-10-0-0-${n}.ec2.internal`,
    uid: `uid-${n}`,
    resourceVersion: String(100 + n),
    providerID: `aws:///us-east-1a/${instanceId(n)}`,
    createdAt: NOW - 2 * HOUR,
    ready: 'True',
    readyHeartbeatAt: NOW - 5_000,
    unschedulable: false,
    labels: {},
    annotations: {},
    taints: [],
    ...over,
  };
}

export function aSignal(kind: SignalKind, n: number, over: Partial<Signal> = {}): Signal {
  return {
    kind,
    instanceId: instanceId(n),
    observedAt: NOW,
    eventId: `evt-${kind}-${n}`,
    description: `${kind} for ${instanceId(n)}`,
    ...over,
  };
}

export interface WorldSpec {
  nodes?: NodeView[];
  instances?: InstanceView[];
  leases?: LeaseView[];
  notFound?: InstanceId[];
  lookupErrors?: [InstanceId, string][];
  scope?: Observation['scope'];
  drains?: [string, DrainExecutionState][];
  /** Which terminate hook of each group is ours (event path); default: ng-a's drain-hook. */
  terminateHooks?: [string, TerminateHookChoice][];
}

/** An observation; by default every node's instance that is not among `instances` is reported not found. */
export function anObservation(spec: WorldSpec): Observation {
  const nodes = spec.nodes ?? [];
  const instances = spec.instances ?? [];
  const leases = spec.leases ?? nodes.map((n) => ({ nodeName: n.name, renewTime: NOW - 5_000 }));
  const known = new Set(instances.map((i) => i.id));
  const errored = new Set((spec.lookupErrors ?? []).map(([id]) => id));
  const claimed = nodes
    .map((n) => /\/(i-[0-9a-f]+)$/.exec(n.providerID ?? '')?.[1])
    .filter((id): id is string => id !== undefined)
    .map((id) => toInstanceId(id))
    .filter((id) => !known.has(id) && !errored.has(id));
  return {
    scope: spec.scope ?? 'sweep',
    nodes,
    leases: new Map(leases.map((l) => [l.nodeName, l])),
    instances,
    notFound: new Set(spec.notFound ?? claimed),
    lookupErrors: new Map(spec.lookupErrors ?? []),
    clusterInstancesComplete: (spec.scope ?? 'sweep') === 'sweep',
    clusterNodeCount: (spec.scope ?? 'sweep') === 'sweep' ? nodes.length : undefined,
    drains: new Map(spec.drains ?? []),
    terminateHooks: new Map(spec.terminateHooks ?? [['ng-a', { kind: 'ours', hook: 'drain-hook' }]]),
  };
}

export function settings(over: Partial<Settings> = {}): Settings {
  return { ...DEFAULT_SETTINGS, ...over };
}

/** A drain step's pod summary: nothing evicted, terminating, gone, left or skipped, unless `over` says. */
export function aDrainSummary(over: Partial<DrainSummary> = {}): DrainSummary {
  return {
    evicted: 0,
    terminating: 0,
    gone: 0,
    left: 0,
    skipped: 0,
    leftByReason: {},
    blockingPdbs: [],
    examples: [],
    graceShortened: { pods: 0, examples: [] },
    ...over,
  };
}
