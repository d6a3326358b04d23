// fast-check generators of whole worlds: nodes, instances, Leases and signals drawn from a small
// pool of instance ids so that conflicts, duplicates and mismatches come up often.
import fc from 'fast-check';
import type { InstanceId } from '../../lib/model/instance-id.js';
import type { InstanceView, LeaseView, NodeView, Observation } from '../../lib/model/observation.js';
import { INSTANCE_STATES, SIGNAL_KINDS, type Signal } from '../../lib/model/signal.js';
import { DEFAULT_SETTINGS, type Settings } from '../../lib/settings.js';
import { CLUSTER, HOUR, instanceId, MINUTE, NOW } from './world.js';

const POOL = 8;
/** Present one time in four: fast-check's option() is present four times in five by default. */
const rarely = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arb, { nil: undefined, freq: 2 }).chain((v) => (v === undefined ? fc.constant(undefined) : fc.option(fc.constant(v), { nil: undefined, freq: 2 })));
const ago = fc.integer({ min: 0, max: 6 * HOUR }).map((ms) => NOW - ms);
// Half the heartbeats are fresh, so live nodes (in-sync, own cordons to reverse) are common too.
const heartbeat = fc.oneof(fc.integer({ min: 0, max: 90_000 }).map((ms) => NOW - ms), ago);
// Mostly the zone nodes name, sometimes another: zone mismatches are identity conflicts.
const zone = fc.oneof({ weight: 5, arbitrary: fc.constant('us-east-1a') }, { weight: 1, arbitrary: fc.constant('us-east-1b') });
const poolId = fc.integer({ min: 1, max: POOL }).map(instanceId);

// Usually a node claims its own instance; sometimes any instance of the pool (duplicate claims).
const providerID = (index: number) => fc.oneof(
  { weight: 6, arbitrary: fc.constant(`aws:///us-east-1a/${instanceId(index)}`) },
  { weight: 2, arbitrary: fc.tuple(zone, poolId).map(([z, id]) => `aws:///${z}/${id}`) },
  { weight: 1, arbitrary: fc.constant('aws:///us-east-1a/0a1b2c/fargate-ip-10-0-9-9.ec2.internal') },
  { weight: 1, arbitrary: fc.constant('aws:///us-east-1a/i-nothex') },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

const annotations: fc.Arbitrary<Record<string, string>> = fc.oneof(
  fc.constant({}),
  ago.map((at) => ({ 'ec2-node-reconciler/cordoned-by': 'ec2-node-reconciler', 'ec2-node-reconciler/reason': 'x', 'ec2-node-reconciler/at': new Date(at).toISOString() })),
  fc.constant({ 'ec2-node-reconciler/cordoned-by': 'someone-else' }),
);

function excludeLabel(value: string | undefined): Record<string, string> {
  return value === undefined ? {} : { 'ec2-node-reconciler/exclude': value };
}

const node = (index: number): fc.Arbitrary<NodeView> =>
  fc
    .record({
      providerID: providerID(index),
      createdAt: ago,
      ready: fc.oneof({ weight: 4, arbitrary: fc.constant('True' as const) }, { weight: 1, arbitrary: fc.constantFrom('False' as const, 'Unknown' as const, undefined) }),
      readyHeartbeatAt: fc.option(heartbeat, { nil: undefined }),
      unschedulable: fc.boolean(),
      excluded: fc.constantFrom(undefined, 'true', 'false'),
      annotations,
      shutdownTaint: fc.boolean(),
    })
    .map((r) => ({
      // Node names are unique (as in Kubernetes); node k is named like instance k's private DNS
      // name, so that a node without providerID can match an instance.
      name: `ip-10-0-0-${index}.ec2.internal`,
      uid: `uid-${index}`,
      resourceVersion: String(index),
      ...(r.providerID !== undefined ? { providerID: r.providerID } : {}),
      createdAt: r.createdAt,
      ...(r.ready !== undefined ? { ready: r.ready } : {}),
      ...(r.readyHeartbeatAt !== undefined ? { readyHeartbeatAt: r.readyHeartbeatAt } : {}),
      unschedulable: r.unschedulable,
      labels: excludeLabel(r.excluded),
      annotations: r.annotations,
      taints: r.shutdownTaint ? [{ key: 'node.cloudprovider.kubernetes.io/shutdown', effect: 'NoSchedule' as const }] : [],
    }));

const instance = (n: number): fc.Arbitrary<InstanceView> =>
  fc
    .record({
      // Mostly running, as in a real cluster; every other state still comes up.
      state: fc.oneof({ weight: 6, arbitrary: fc.constant('running' as const) }, { weight: 5, arbitrary: fc.constantFrom(...INSTANCE_STATES) }),
      zone,
      launchedAt: ago,
      clusterTag: fc.boolean(),
      decommission: fc.boolean().chain((b) => (b ? fc.boolean() : fc.constant(false))),
      excluded: fc.boolean().chain((b) => (b ? fc.boolean() : fc.constant(false))),
      asg: rarely(fc.constantFrom('InService', 'Terminating:Wait')),
      retirement: rarely(fc.integer({ min: -HOUR, max: 48 * HOUR })),
    })
    .map((r) => ({
      id: instanceId(n),
      state: r.state,
      zone: r.zone,
      ...(r.state !== 'terminated' ? { privateDnsName: `ip-10-0-0-${n}.ec2.internal` } : {}),
      launchedAt: r.launchedAt,
      tags: {
        ...(r.clusterTag ? { 'eks:cluster-name': CLUSTER } : {}),
        ...(r.decommission ? { 'ec2-node-reconciler/decommission': 'true' } : {}),
        ...(r.excluded ? { 'ec2-node-reconciler/exclude': 'true' } : {}),
      },
      spot: false,
      ...(r.asg !== undefined ? { autoScaling: { group: 'ng-a', lifecycleState: r.asg, terminateHook: 'drain-hook' } } : {}),
      scheduledEvents: r.retirement !== undefined ? [{ code: 'instance-retirement' as const, notBefore: NOW + r.retirement }] : [],
    }));

const signal: fc.Arbitrary<Signal> = fc
  .record({
    kind: fc.constantFrom(...SIGNAL_KINDS),
    id: poolId,
    state: fc.constantFrom(...INSTANCE_STATES),
    deadline: fc.option(fc.integer({ min: -MINUTE, max: HOUR }), { nil: undefined }),
  })
  .map((r) => ({
    kind: r.kind,
    instanceId: r.id,
    observedAt: NOW,
    eventId: `evt-${r.kind}`,
    description: r.kind,
    ...(r.kind === 'state-change' ? { state: r.state } : {}),
    ...(r.deadline !== undefined ? { deadline: NOW + r.deadline } : {}),
    ...(r.kind === 'asg-terminate-lifecycle-action' ? { lifecycle: { group: 'ng-a', hook: 'drain-hook', token: 't' } } : {}),
  }));

export const settingsArb: fc.Arbitrary<Settings> = fc
  .record({
    dryRun: fc.boolean(),
    rebalance: fc.constantFrom('cordon' as const, 'drain' as const, 'ignore' as const),
    maxDeletions: fc.integer({ min: 0, max: 10 }),
    maxDeletionPercent: fc.integer({ min: 0, max: 100 }),
    markUnregisteredUnhealthy: fc.boolean(),
  })
  .map((over) => ({ ...DEFAULT_SETTINGS, ...over }));

export interface World {
  readonly observation: Observation;
  readonly signals: readonly Signal[];
  readonly settings: Settings;
}

export const worldArb: fc.Arbitrary<World> = fc
  .record({
    nodeCount: fc.integer({ min: 0, max: 8 }),
    instancesPresent: fc.subarray(Array.from({ length: POOL }, (_, i) => i + 1)),
    erroredIds: fc.subarray(Array.from({ length: POOL }, (_, i) => i + 1), { maxLength: 2 }),
    leaseAges: fc.array(fc.option(heartbeat, { nil: undefined }), { minLength: 8, maxLength: 8 }),
    signals: fc.array(signal, { maxLength: 4 }),
    settings: settingsArb,
    scope: fc.constantFrom('sweep' as const, 'event' as const),
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
          Array.from({ length: POOL }, (_, i) => instanceId(i + 1)).filter((id) => !present.has(id) && !errored.has(id)),
        );
        const observation: Observation = {
          scope: r.scope,
          nodes,
          leases: new Map(leases.map((l) => [l.nodeName, l])),
          instances,
          notFound,
          lookupErrors: new Map([...errored].map((id) => [id, 'RequestLimitExceeded'])),
          clusterInstancesComplete: r.scope === 'sweep',
          ...(r.scope === 'sweep' ? { clusterNodeCount: nodes.length } : {}),
        };
        return { observation, signals: r.signals, settings: r.settings };
      }),
  );
