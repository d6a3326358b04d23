// fast-check generators of whole worlds: nodes, instances, Leases, signals and drain records drawn
// from a small pool of instance ids so that conflicts, duplicates and mismatches come up often.
// Besides the plain cases they draw what goes wrong in real accounts: settings at their bounds,
// heartbeats from a skewed clock (in the future), signals about an earlier life of the machine,
// lookups that failed for some instances, other clusters' instances, providerIDs in every zone
// form, in this region and in others, and (for repair) Auto Scaling groups with their health, node
// conditions with their ages, and repair drain records.
import fc from 'fast-check';
import type { InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import type {
  DrainExecutionState,
  InstanceView,
  LeaseView,
  NodeView,
  Observation,
} from '@ec2-node-reconciler/model/observation.js';
import { SIGNAL_KINDS, type Signal } from '@ec2-node-reconciler/model/signal.js';
import { INSTANCE_STATES } from '@ec2-node-reconciler/model/instance-states.js';
import {
  MIN_REPAIR_AFTER_MS,
  MONITORING_AGENT_CONDITIONS,
  REPAIR_CONDITIONS,
  type ConditionStatus,
  type NodeConditionView,
  type RepairCondition,
} from '@ec2-node-reconciler/model/node-conditions.js';
import { MAX_SETTING_DURATION_MS } from '@ec2-node-reconciler/model/contract/settings.js';
import { DEFAULT_SETTINGS, type Settings } from '@ec2-node-reconciler/model/contract/settings.js';
import { decide } from '../../lib/pipeline/decide.js';
import { CLUSTER, clockAt, HOUR, instanceId, MINUTE, NOW, REGION } from './world.js';

const POOL = 8;
/** Present one time in four: fast-check's option() is present four times in five by default. */
const rarely = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc
    .option(arb, { nil: undefined, freq: 2 })
    .chain((v) => (v === undefined ? fc.constant(undefined) : fc.option(fc.constant(v), { nil: undefined, freq: 2 })));
const ago = fc.integer({ min: 0, max: 6 * HOUR }).map((ms) => NOW - ms);
// Half the heartbeats are fresh, so live nodes (in-sync, own cordons to reverse) are common too; a
// few come from a kubelet whose clock runs ahead (a heartbeat in the future).
const heartbeat = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 90_000 }).map((ms) => NOW - ms) },
  { weight: 4, arbitrary: ago },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 10 * MINUTE }).map((ms) => NOW + ms) },
);
/** This region's zones in every form, and (rarely) other regions' and partitions'. */
const OUR_ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1-bos-1a', 'us-east-1-wl1-bos-wlz-1'] as const;
const OTHER_ZONES = ['eu-west-1a', 'us-gov-west-1a', 'cn-north-1a', 'us-west-2-lax-1a'] as const;
const ourZone = fc.oneof(
  { weight: 6, arbitrary: fc.constant('us-east-1a') },
  { weight: 3, arbitrary: fc.constantFrom(...OUR_ZONES) },
);
const anyZone = fc.oneof({ weight: 8, arbitrary: ourZone }, { weight: 2, arbitrary: fc.constantFrom(...OTHER_ZONES) });
const poolId = fc.integer({ min: 1, max: POOL }).map(instanceId);

// Usually a node claims its own instance; sometimes any instance of the pool (duplicate claims), in any zone.
const providerID = (index: number) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant(`aws:///us-east-1a/${instanceId(index)}`) },
    { weight: 3, arbitrary: fc.tuple(anyZone, poolId).map(([z, id]) => `aws:///${z}/${id}`) },
    { weight: 1, arbitrary: fc.constant('aws:///us-east-1a/0a1b2c/fargate-ip-10-0-9-9.ec2.internal') },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'aws:///us-east-1a/i-nothex',
        `aws:///us-east-1a/${instanceId(index)}/x`,
        `aws:///nowhere/${instanceId(index)}`,
      ),
    },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );

const annotations: fc.Arbitrary<Record<string, string>> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({}) },
  {
    weight: 2,
    arbitrary: ago.map((at) => ({
      'ec2-node-reconciler/cordoned-by': 'ec2-node-reconciler',
      'ec2-node-reconciler/reason': 'x',
      'ec2-node-reconciler/at': new Date(at).toISOString(),
    })),
  },
  {
    weight: 1,
    arbitrary: ago.map((at) => ({
      'ec2-node-reconciler/cordoned-by': 'ec2-node-reconciler/operator',
      'ec2-node-reconciler/reason': 'x',
      'ec2-node-reconciler/at': new Date(at).toISOString(),
    })),
  },
  { weight: 1, arbitrary: fc.constant({ 'ec2-node-reconciler/cordoned-by': 'someone-else' }) },
);

/** A record of the drain that owns the node's removal: which execution, and (rarely) a lifecycle handed to it. */
const drainRecord = (index: number): fc.Arbitrary<Record<string, string>> =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constant({}) },
    {
      weight: 1,
      arbitrary: fc
        .record({
          deadline: fc.integer({ min: -HOUR, max: HOUR }),
          lifecycle: fc.boolean(),
          at: fc.option(fc.integer({ min: 0, max: 3 * HOUR }), { nil: undefined }),
          // When its drain last renewed it: within the two minutes it lives, or long before.
          renewed: fc.option(
            fc.oneof(
              { weight: 3, arbitrary: fc.integer({ min: 0, max: 110_000 }) },
              { weight: 1, arbitrary: fc.integer({ min: 0, max: 10 * 60_000 }) },
            ),
            { nil: undefined },
          ),
          for: fc.constantFrom(undefined, 'removal', 'maintenance', 'manual', 'repair', 'repair'),
          launchedAgo: fc.option(fc.integer({ min: 0, max: 6 * HOUR }), { nil: undefined }),
          outcome: fc.constantFrom(undefined, 'done', 'incomplete', 'deadline', 'cancelled-by-uncordon'),
          local: fc.boolean(),
        })
        .map((r) => ({
          'ec2-node-reconciler/drain': `${r.local ? 'local-' : ''}drain-${index}`,
          'ec2-node-reconciler/drain-deadline': new Date(NOW + r.deadline).toISOString(),
          ...(r.lifecycle
            ? { 'ec2-node-reconciler/lifecycle': JSON.stringify({ group: 'ng-a', hook: 'drain-hook' }) }
            : {}),
          ...(r.at !== undefined ? { 'ec2-node-reconciler/drain-at': new Date(NOW - r.at).toISOString() } : {}),
          ...(r.renewed !== undefined
            ? { 'ec2-node-reconciler/drain-renewed': new Date(NOW - r.renewed).toISOString() }
            : {}),
          ...(r.for !== undefined ? { 'ec2-node-reconciler/drain-for': r.for } : {}),
          ...(r.launchedAgo !== undefined
            ? { 'ec2-node-reconciler/drain-launch': new Date(NOW - r.launchedAgo).toISOString() }
            : {}),
          ...(r.outcome !== undefined ? { 'ec2-node-reconciler/drain-outcome': r.outcome } : {}),
        })),
    },
  );

const drainState: fc.Arbitrary<DrainExecutionState> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ status: 'running' as const }) },
  { weight: 3, arbitrary: fc.constantFrom({ status: 'ended' as const }, { status: 'absent' as const }) },
  { weight: 1, arbitrary: fc.constant({ status: 'unknown' as const, error: 'ThrottlingException' }) },
);

function excludeLabel(value: string | undefined): Record<string, string> {
  return value === undefined ? {} : { 'ec2-node-reconciler/exclude': value };
}

/**
 * The conditions a repair reads: Ready's lastTransitionTime, and now and then the node monitoring
 * agent's, False (a problem) for anywhere from a minute to hours, or True, or Unknown; rarely dated
 * in the future (a skewed clock) or not dated at all.
 */
const since = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 3 * HOUR }).map((ms) => NOW - ms) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 10 * MINUTE }).map((ms) => NOW + ms) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);
const agentCondition = fc.record({
  status: fc.constantFrom('False' as const, 'False' as const, 'True' as const, 'Unknown' as const),
  since,
});
const agentConditions = fc.oneof(
  { weight: 3, arbitrary: fc.constant({}) },
  {
    weight: 2,
    arbitrary: fc
      .record({ type: fc.constantFrom(...MONITORING_AGENT_CONDITIONS), condition: agentCondition })
      .map((r) => ({ [r.type]: r.condition })),
  },
);
const dated = (c: { status: ConditionStatus; since: number | undefined }): NodeConditionView => ({
  status: c.status,
  ...(c.since !== undefined ? { since: c.since } : {}),
});

function otherOwnerLabels(
  owner: 'karpenter' | 'karpenter-disrupted' | 'auto-mode' | 'hybrid' | undefined,
): Record<string, string> {
  switch (owner) {
    case 'karpenter':
    case 'karpenter-disrupted':
      return { 'karpenter.sh/nodepool': 'default' };
    case 'auto-mode':
      return { 'eks.amazonaws.com/compute-type': 'auto', 'karpenter.sh/nodepool': 'general-purpose' };
    case 'hybrid':
      return { 'eks.amazonaws.com/compute-type': 'hybrid' };
    case undefined:
      return {};
  }
}

const node = (index: number): fc.Arbitrary<NodeView> =>
  fc
    .record({
      providerID: providerID(index),
      // Now and then a resource-based hostname (the instance id), which links a node without providerID.
      resourceName: fc.boolean().chain((b) => (b ? fc.boolean() : fc.constant(false))),
      createdAt: ago,
      ready: fc.oneof(
        { weight: 4, arbitrary: fc.constant('True' as const) },
        { weight: 1, arbitrary: fc.constantFrom('False' as const, 'Unknown' as const, undefined) },
      ),
      readyHeartbeatAt: fc.option(heartbeat, { nil: undefined }),
      unschedulable: fc.boolean(),
      // Who wrote spec.unschedulable (managedFields): unknown (no managed fields), us, or an operator's kubectl.
      cordonWriters: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(undefined, ['ec2-node-reconciler']) },
        {
          weight: 1,
          arbitrary: fc.constantFrom(['kubectl'], [] as string[], ['ancient-changes'], ['ec2-node-reconciler', 'flux']),
        },
      ),
      excluded: fc.constantFrom(undefined, 'true', 'false'),
      annotations,
      drain: drainRecord(index),
      shutdownTaint: fc.boolean(),
      readySince: since,
      agent: agentConditions,
      // Now and then another system's Node (docs/design.md §1c): Karpenter's, one Karpenter is disrupting, EKS Auto Mode's, a hybrid node.
      otherOwner: fc.oneof(
        { weight: 12, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constantFrom('karpenter', 'karpenter-disrupted', 'auto-mode', 'hybrid') },
      ),
    })
    .map((r) => ({
      // Node names are unique (as in Kubernetes); node k is named like instance k's private DNS
      // name, so that a node without providerID can match an instance.
      name: r.resourceName ? `${instanceId(index)}.ec2.internal` : `ip-10-0-0-${index}.ec2.internal`,
      uid: `uid-${index}`,
      resourceVersion: String(index),
      ...(r.otherOwner === 'hybrid'
        ? { providerID: `eks-hybrid:///us-east-1/${CLUSTER}/mi-0123456789abcde${index}` }
        : r.providerID !== undefined
          ? { providerID: r.providerID }
          : {}),
      createdAt: r.createdAt,
      ...(r.ready !== undefined ? { ready: r.ready } : {}),
      ...(r.readyHeartbeatAt !== undefined ? { readyHeartbeatAt: r.readyHeartbeatAt } : {}),
      unschedulable: r.unschedulable,
      ...(r.cordonWriters !== undefined ? { cordonWriters: r.cordonWriters } : {}),
      labels: { ...excludeLabel(r.excluded), ...otherOwnerLabels(r.otherOwner) },
      annotations: { ...r.annotations, ...r.drain },
      taints: [
        ...(r.shutdownTaint
          ? [{ key: 'node.cloudprovider.kubernetes.io/shutdown', effect: 'NoSchedule' as const }]
          : []),
        ...(r.otherOwner === 'karpenter-disrupted'
          ? [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' as const }]
          : []),
      ],
      conditions: {
        ...(r.ready !== undefined ? { Ready: dated({ status: r.ready, since: r.readySince }) } : {}),
        ...Object.fromEntries(Object.entries(r.agent).map(([type, c]) => [type, dated(c)])),
      },
    }));

/** Whose the instance is: mostly this cluster's, sometimes another cluster's, sometimes nobody's. */
const OWNER_TAGS: readonly Record<string, string>[] = [
  ...Array.from({ length: 6 }, () => ({ 'eks:cluster-name': CLUSTER })),
  { [`kubernetes.io/cluster/${CLUSTER}`]: 'owned' },
  { 'eks:cluster-name': 'other' },
  { 'kubernetes.io/cluster/other': 'owned' },
  {},
  {},
];
const ownerTags: fc.Arbitrary<Record<string, string>> = fc.constantFrom(...OWNER_TAGS);

const instance = (n: number): fc.Arbitrary<InstanceView> =>
  fc
    .record({
      // Mostly running, as in a real cluster; every other state still comes up.
      state: fc.oneof(
        { weight: 6, arbitrary: fc.constant('running' as const) },
        { weight: 5, arbitrary: fc.constantFrom(...INSTANCE_STATES) },
      ),
      zone: ourZone,
      launchedAt: ago,
      owner: ownerTags,
      decommission: fc.boolean().chain((b) => (b ? fc.boolean() : fc.constant(false))),
      excluded: fc.boolean().chain((b) => (b ? fc.boolean() : fc.constant(false))),
      // Now and then a machine Karpenter launched (its NodePool tag), whatever its Node says.
      karpenter: fc.integer({ min: 0, max: 19 }).map((n) => n === 0),
      // A warm pool's member too: resting in the pool, or terminated out of it (issue #27).
      asg: rarely(
        fc.constantFrom('InService', 'Terminating:Wait', 'Warmed:Stopped', 'Warmed:Running', 'Warmed:Terminating:Wait'),
      ),
      // Most machines are in one of two Auto Scaling groups, mostly InService and Healthy.
      group: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom('ng-a', 'ng-b') },
        { weight: 1, arbitrary: fc.constant(undefined) },
      ),
      unhealthyInGroup: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
      standby: fc.integer({ min: 0, max: 19 }).map((n) => n === 0),
      scheduled: rarely(
        fc.record({
          code: fc.constantFrom(
            'instance-retirement' as const,
            'instance-stop' as const,
            'instance-reboot' as const,
            'system-maintenance' as const,
          ),
          at: fc.integer({ min: -HOUR, max: 48 * HOUR }),
        }),
      ),
      enrichmentFailed: rarely(
        fc.constantFrom(
          'describing Auto Scaling instances: Throttling',
          'describing scheduled events: RequestLimitExceeded',
        ),
      ),
    })
    .map((r) => ({
      id: instanceId(n),
      state: r.state,
      zone: r.zone,
      ...(r.state !== 'terminated' ? { privateDnsName: `ip-10-0-0-${n}.ec2.internal` } : {}),
      launchedAt: r.launchedAt,
      tags: {
        ...r.owner,
        ...(r.decommission ? { 'ec2-node-reconciler/decommission': 'true' } : {}),
        ...(r.excluded ? { 'ec2-node-reconciler/exclude': 'true' } : {}),
        ...(r.karpenter ? { 'karpenter.sh/nodepool': 'default' } : {}),
      },
      spot: false,
      ...(r.asg !== undefined || r.group !== undefined
        ? {
            autoScaling: {
              group: r.group ?? 'ng-a',
              lifecycleState: r.asg ?? (r.standby ? 'Standby' : 'InService'),
              terminateHook: 'drain-hook',
              healthStatus: r.unhealthyInGroup ? ('Unhealthy' as const) : ('Healthy' as const),
            },
          }
        : {}),
      scheduledEvents:
        r.scheduled !== undefined
          ? [{ code: r.scheduled.code, notBefore: NOW + r.scheduled.at, notAfter: NOW + r.scheduled.at + HOUR }]
          : [],
      ...(r.enrichmentFailed !== undefined ? { enrichmentErrors: [r.enrichmentFailed] } : {}),
    }));

const signal: fc.Arbitrary<Signal> = fc
  .record({
    kind: fc.constantFrom(...SIGNAL_KINDS),
    id: poolId,
    state: fc.constantFrom(...INSTANCE_STATES),
    deadline: fc.option(fc.integer({ min: -MINUTE, max: HOUR }), { nil: undefined }),
    // Mostly just now; sometimes hours old, i.e. possibly before the instance was last launched.
    age: fc.oneof(
      { weight: 3, arbitrary: fc.constant(0) },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: 8 * HOUR }) },
    ),
    change: fc.constantFrom('removal' as const, 'maintenance' as const),
    windowEnd: fc.integer({ min: -HOUR, max: 4 * HOUR }),
  })
  .map((r) => ({
    kind: r.kind,
    instanceId: r.id,
    observedAt: NOW - r.age,
    eventId: `evt-${r.kind}`,
    description: r.kind,
    ...(r.kind === 'state-change' ? { state: r.state } : {}),
    ...(r.deadline !== undefined ? { deadline: NOW + r.deadline } : {}),
    ...(r.kind === 'asg-terminate-lifecycle-action'
      ? { lifecycle: { group: 'ng-a', hook: 'drain-hook', token: 't' } }
      : {}),
    ...(r.kind === 'scheduled-change'
      ? { scheduled: { change: r.change, code: 'AWS_EC2_X', start: NOW + (r.deadline ?? 0), end: NOW + r.windowEnd } }
      : {}),
  }));

/** A duration setting anywhere in its range, its bounds (and zero where allowed) coming up often. */
const duration = (min: number, typical: number) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant(typical) },
    { weight: 1, arbitrary: fc.constantFrom(min, MAX_SETTING_DURATION_MS) },
    { weight: 2, arbitrary: fc.integer({ min, max: 2 * HOUR }) },
    { weight: 1, arbitrary: fc.integer({ min, max: MAX_SETTING_DURATION_MS }) },
  );

export const settingsArb: fc.Arbitrary<Settings> = fc
  .record({
    dryRun: fc.boolean(),
    rebalance: fc.constantFrom('cordon' as const, 'drain' as const, 'ignore' as const),
    maintenance: fc.constantFrom('cordon' as const, 'drain' as const, 'ignore' as const),
    maxDeletions: fc.integer({ min: 0, max: 10 }),
    maxDeletionPercent: fc.integer({ min: 0, max: 100 }),
    markUnregisteredUnhealthy: fc.boolean(),
    includeKarpenterNodes: fc.boolean(),
    heartbeatGrace: duration(40_000, DEFAULT_SETTINGS.heartbeatGrace),
    notFoundGrace: duration(0, DEFAULT_SETTINGS.notFoundGrace),
    minNodeAge: duration(0, DEFAULT_SETTINGS.minNodeAge),
    uncordonAfter: duration(0, DEFAULT_SETTINGS.uncordonAfter),
    drainTimeout: duration(0, DEFAULT_SETTINGS.drainTimeout),
    registrationGrace: duration(0, DEFAULT_SETTINGS.registrationGrace),
    repair: fc.record({
      enabled: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
      after: fc.record(
        Object.fromEntries(
          REPAIR_CONDITIONS.map((c) => [c, duration(MIN_REPAIR_AFTER_MS, DEFAULT_SETTINGS.repair.after[c])]),
        ) as Record<RepairCondition, fc.Arbitrary<number>>,
      ),
      maxUnhealthyPercent: fc.oneof(
        { weight: 3, arbitrary: fc.constant(20) },
        { weight: 4, arbitrary: fc.constant(50) },
        { weight: 1, arbitrary: fc.constant(0) },
        { weight: 2, arbitrary: fc.integer({ min: 0, max: 50 }) },
      ),
      maxParallel: fc.oneof(
        { weight: 4, arbitrary: fc.integer({ min: 1, max: 3 }) },
        { weight: 1, arbitrary: fc.constant(10) },
      ),
      drainTimeout: duration(60_000, DEFAULT_SETTINGS.repair.drainTimeout),
      maxFailedReplacements: fc.integer({ min: 1, max: 10 }),
      failureWindow: duration(HOUR, DEFAULT_SETTINGS.repair.failureWindow),
    }),
  })
  .map((over) => ({ ...DEFAULT_SETTINGS, ...over }));

export interface World {
  readonly observation: Observation;
  readonly signals: readonly Signal[];
  readonly settings: Settings;
}

/** A generated world decided as a run decides it (lib/pipeline/decide.ts): at NOW, in the test cluster and region. */
export function decideWorld({ observation, signals, settings }: World) {
  const { pairs, plan: planned } = decide(observation, signals, {
    settings,
    clock: clockAt(),
    clusterName: CLUSTER,
    region: REGION,
  });
  return { pairs, planned };
}

export const worldArb: fc.Arbitrary<World> = fc
  .record({
    nodeCount: fc.integer({ min: 0, max: 8 }),
    instancesPresent: fc.subarray(Array.from({ length: POOL }, (_, i) => i + 1)),
    erroredIds: fc.subarray(
      Array.from({ length: POOL }, (_, i) => i + 1),
      { maxLength: 2 },
    ),
    leaseAges: fc.array(fc.option(heartbeat, { nil: undefined }), { minLength: 8, maxLength: 8 }),
    signals: fc.array(signal, { maxLength: 4 }),
    settings: settingsArb,
    scope: fc.constantFrom('sweep' as const, 'event' as const),
    drainStates: fc.array(drainState, { minLength: 8, maxLength: 8 }),
  })
  .chain((r) =>
    fc
      .tuple(
        fc.tuple(...Array.from({ length: r.nodeCount }, (_, i) => node(i + 1))),
        fc.tuple(...r.instancesPresent.filter((n) => !r.erroredIds.includes(n)).map(instance)),
      )
      .map(([nodes, instances]) => {
        const leases: LeaseView[] = nodes.flatMap((n, i) => {
          const renewTime = r.leaseAges[i];
          return renewTime === undefined ? [] : [{ nodeName: n.name, renewTime }];
        });
        const present = new Set<InstanceId>(instances.map((i) => i.id));
        const errored = new Set(r.erroredIds.map(instanceId));
        const notFound = new Set(
          Array.from({ length: POOL }, (_, i) => instanceId(i + 1)).filter(
            (id) => !present.has(id) && !errored.has(id),
          ),
        );
        const drains = new Map<string, DrainExecutionState>();
        nodes.forEach((n, i) => {
          const execution = n.annotations['ec2-node-reconciler/drain'];
          const state = r.drainStates[i];
          if (execution !== undefined && state !== undefined) drains.set(execution, state);
        });
        const observation: Observation = {
          scope: r.scope,
          nodes,
          leases: new Map(leases.map((l) => [l.nodeName, l])),
          instances,
          notFound,
          lookupErrors: new Map([...errored].map((id) => [id, 'RequestLimitExceeded'])),
          clusterInstancesComplete: r.scope === 'sweep',
          ...(r.scope === 'sweep' ? { clusterNodeCount: nodes.length } : {}),
          drains,
          // The lifecycle signals' group, whose only terminate hook is ours (test/properties/hooks… varies it).
          terminateHooks: new Map([['ng-a', { kind: 'ours', hook: 'drain-hook' }]]),
        };
        return { observation, signals: r.signals, settings: r.settings };
      }),
  );

// ---------- worlds around Auto Scaling groups, for repair (docs/design.md §1b) ----------

/** Most groups in these worlds; their machines run Nodes that name them. */
const GROUP_SIZE = 10;

/**
 * One machine of a group and its Node: mostly healthy, some unresponsive (a silent kubelet, Ready not
 * True, an agent condition False) for anywhere from a minute to hours, some already being repaired or
 * drained; now and then excluded, another cluster's (or nobody's), out of service, Unhealthy in the
 * group, with a lookup that failed, or named by its Node by private DNS name only.
 */
const groupMember = (
  index: number,
): fc.Arbitrary<{ node: NodeView; instance: InstanceView; lease?: LeaseView; lookupFailed: boolean }> =>
  fc
    .record({
      group: fc.constantFrom('ng-a', 'ng-a', 'ng-b'),
      health: fc.oneof(
        { weight: 5, arbitrary: fc.constant('healthy' as const) },
        { weight: 2, arbitrary: fc.constant('silent' as const) },
        { weight: 1, arbitrary: fc.constant('not-ready' as const) },
        { weight: 1, arbitrary: fc.constant('agent' as const) },
      ),
      badFor: fc.oneof(
        { weight: 3, arbitrary: fc.integer({ min: 20 * MINUTE, max: 3 * HOUR }) },
        { weight: 1, arbitrary: fc.integer({ min: -5 * MINUTE, max: 20 * MINUTE }) },
      ),
      agentType: fc.constantFrom(...MONITORING_AGENT_CONDITIONS),
      drain: drainRecord(index),
      unschedulable: fc.boolean(),
      // A node with a drain record is mostly still cordoned; now and then someone uncordoned it.
      stillCordoned: fc.integer({ min: 0, max: 4 }).map((n) => n > 0),
      lifecycleState: fc.oneof(
        { weight: 12, arbitrary: fc.constant('InService') },
        { weight: 1, arbitrary: fc.constantFrom('Standby', 'Terminating:Wait', 'Pending') },
      ),
      unhealthyInGroup: fc.integer({ min: 0, max: 14 }).map((n) => n === 0),
      owner: fc.oneof(
        { weight: 12, arbitrary: fc.constant({ 'eks:cluster-name': CLUSTER }) },
        { weight: 1, arbitrary: ownerTags },
      ),
      state: fc.oneof(
        { weight: 14, arbitrary: fc.constant('running' as const) },
        { weight: 1, arbitrary: fc.constantFrom(...INSTANCE_STATES) },
      ),
      excludeLabel: fc.integer({ min: 0, max: 19 }).map((n) => n === 0),
      excludeTag: fc.integer({ min: 0, max: 19 }).map((n) => n === 0),
      enrichmentFailed: fc.integer({ min: 0, max: 19 }).map((n) => n === 0),
      lookupFailed: fc.integer({ min: 0, max: 24 }).map((n) => n === 0),
      // Now and then a Node without a providerID, linked to its machine by the private DNS name only.
      nameOnly: fc.integer({ min: 0, max: 14 }).map((n) => n === 0),
    })
    .map((r) => {
      const id = instanceId(index);
      const name = `ip-10-0-0-${index}.ec2.internal`;
      const badSince = NOW - r.badFor;
      const fresh = NOW - 5_000;
      const silent = r.health === 'silent';
      const ready =
        r.health === 'silent'
          ? ('Unknown' as const)
          : r.health === 'not-ready'
            ? ('False' as const)
            : ('True' as const);
      const node: NodeView = {
        name,
        uid: `uid-${index}`,
        resourceVersion: String(index),
        ...(r.nameOnly ? {} : { providerID: `aws:///us-east-1a/${id}` }),
        createdAt: NOW - 9 * HOUR,
        ready,
        readyHeartbeatAt: silent ? badSince : fresh,
        unschedulable: r.unschedulable || (r.drain['ec2-node-reconciler/drain'] !== undefined && r.stillCordoned),
        labels: excludeLabel(r.excludeLabel ? 'true' : undefined),
        annotations: r.drain,
        taints: [],
        conditions: {
          Ready: { status: ready, since: ready === 'True' ? NOW - 9 * HOUR : badSince },
          ...(r.health === 'agent' ? { [r.agentType]: { status: 'False' as const, since: badSince } } : {}),
        },
      };
      const instance: InstanceView = {
        id,
        state: r.state,
        zone: 'us-east-1a',
        privateDnsName: name,
        launchedAt: NOW - 9 * HOUR,
        tags: { ...r.owner, ...(r.excludeTag ? { 'ec2-node-reconciler/exclude': 'true' } : {}) },
        spot: false,
        autoScaling: {
          group: r.group,
          lifecycleState: r.lifecycleState,
          terminateHook: 'drain-hook',
          healthStatus: r.unhealthyInGroup ? 'Unhealthy' : 'Healthy',
        },
        scheduledEvents: [],
        ...(r.enrichmentFailed ? { enrichmentErrors: ['describing scheduled events: RequestLimitExceeded'] } : {}),
      };
      return {
        node,
        instance,
        lease: { nodeName: name, renewTime: silent ? badSince : fresh },
        lookupFailed: r.lookupFailed,
      };
    });

/** Settings for these worlds: repair on (mostly), with its bounds and the usual values coming up often. */
const repairSettingsArb: fc.Arbitrary<Settings> = fc
  .tuple(
    settingsArb,
    fc.oneof({ weight: 9, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  )
  .map(([settings, enabled]) => ({ ...settings, repair: { ...settings.repair, enabled } }));

/** A group's suspended processes: mostly none. */
const suspendedProcessesArb: fc.Arbitrary<readonly string[]> = fc.oneof(
  { weight: 8, arbitrary: fc.constant([]) },
  {
    weight: 1,
    arbitrary: fc.subarray(
      [
        'AZRebalance',
        'AlarmNotification',
        'HealthCheck',
        'Launch',
        'ReplaceUnhealthy',
        'ScheduledActions',
        'Terminate',
      ],
      { minLength: 1 },
    ),
  },
);

/** Worlds of one or two Auto Scaling groups (up to GROUP_SIZE machines), mostly seen by a sweep; now and then a lookup failed. */
export const groupWorldArb: fc.Arbitrary<World> = fc
  .record({
    size: fc.integer({ min: 1, max: GROUP_SIZE }),
    settings: repairSettingsArb,
    scope: fc.oneof(
      { weight: 9, arbitrary: fc.constant('sweep' as const) },
      { weight: 1, arbitrary: fc.constant('event' as const) },
    ),
    drainStates: fc.array(drainState, { minLength: GROUP_SIZE, maxLength: GROUP_SIZE }),
    // Now and then a group has processes suspended (SuspendProcesses), some of which a replacement needs.
    suspended: fc.record({ 'ng-a': suspendedProcessesArb, 'ng-b': suspendedProcessesArb }),
  })
  .chain((r) =>
    fc.tuple(...Array.from({ length: r.size }, (_, i) => groupMember(i + 1))).map((generated) => {
      // A group's suspended processes are the group's: every member says the same.
      const members = generated.map((m) => {
        const asg = m.instance.autoScaling;
        const processes = asg ? r.suspended[asg.group as 'ng-a' | 'ng-b'] : [];
        return asg && processes.length > 0
          ? { ...m, instance: { ...m.instance, autoScaling: { ...asg, suspendedProcesses: processes } } }
          : m;
      });
      const drains = new Map<string, DrainExecutionState>();
      members.forEach(({ node }, i) => {
        const execution = node.annotations['ec2-node-reconciler/drain'];
        const state = r.drainStates[i];
        if (execution !== undefined && state !== undefined) drains.set(execution, state);
      });
      const observation: Observation = {
        scope: r.scope,
        nodes: members.map((m) => m.node),
        leases: new Map(members.flatMap((m) => (m.lease ? [[m.node.name, m.lease] as const] : []))),
        // A machine whose lookup failed this run is not among the instances EC2 returned.
        instances: members.flatMap((m) => (m.lookupFailed ? [] : [m.instance])),
        notFound: new Set(),
        lookupErrors: new Map(
          members.flatMap((m) => (m.lookupFailed ? [[m.instance.id, 'RequestLimitExceeded'] as const] : [])),
        ),
        clusterInstancesComplete: r.scope === 'sweep',
        ...(r.scope === 'sweep' ? { clusterNodeCount: members.length } : {}),
        drains,
      };
      return { observation, signals: [], settings: r.settings };
    }),
  );

/**
 * The oracles' own reading of docs/design.md §5 (never the code under test): a record that says how its drain
 * ended has ended; one renewed (else made) less than two minutes ago is alive; a CLI's record that is
 * not is dead (absent: the next removal takes over), and a live one runs until its deadline; a
 * workflow's runs while the workflow says so, else it is what the workflow says.
 */
export function recordStatus(
  annotations: Readonly<Record<string, string>>,
  workflow: DrainExecutionState | undefined,
  now: number,
): DrainExecutionState['status'] {
  if (annotations['ec2-node-reconciler/drain-outcome'] !== undefined) return 'ended';
  const renewedAt = Date.parse(
    annotations['ec2-node-reconciler/drain-renewed'] ?? annotations['ec2-node-reconciler/drain-at'] ?? '',
  );
  const renewed = !Number.isNaN(renewedAt) && now - renewedAt < 2 * 60_000;
  if ((annotations['ec2-node-reconciler/drain'] ?? '').startsWith('local-')) {
    if (!renewed) return 'absent';
    return Date.parse(annotations['ec2-node-reconciler/drain-deadline'] ?? '') > now ? 'running' : 'ended';
  }
  if (workflow?.status === 'running' || renewed) return 'running';
  return workflow?.status ?? 'unknown';
}
