// The replay's test of a quiet sweep (lib/pipeline/quiet-sweep.ts): the kept observation with the
// heartbeats read again, and whether a decision on it does anything.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Observation } from '@ec2-node-reconciler/model/observation.js';
import { retimed, withMachines, withObjects, writesNothing, type Heartbeats } from '../../lib/pipeline/quiet-sweep.js';
import type { Plan } from '@ec2-node-reconciler/model/action.js';
import { DRAIN_ANNOTATION } from '@ec2-node-reconciler/model/contract/labels.js';
import { decide } from '../../lib/pipeline/decide.js';
import {
  aNode,
  anInstance,
  anObservation,
  clockAt,
  CLUSTER,
  HOUR,
  instanceId,
  NOW,
  REGION,
  settings,
} from '../support/world.js';

/** The heartbeats as the API would serve those of `observation`, moved on by `laterMs` where kubelets heartbeat. */
function heartbeatsOf(observation: Observation, laterMs = 0, silent: ReadonlySet<string> = new Set()): Heartbeats {
  const move = (name: string, at: number | undefined) =>
    at === undefined ? undefined : silent.has(name) ? at : at + laterMs;
  return {
    leases: new Map([...observation.leases].map(([name, lease]) => [name, move(name, lease.renewTime)])),
    nodes: new Map(
      observation.nodes.map((n) => {
        const at = move(n.name, n.readyHeartbeatAt);
        return [n.name, { resourceVersion: n.resourceVersion, ...(at !== undefined ? { readyHeartbeatAt: at } : {}) }];
      }),
    ),
  };
}

const world = (count: number): Observation =>
  anObservation({
    nodes: Array.from({ length: count }, (_, n) => aNode(n + 1)),
    instances: Array.from({ length: count }, (_, n) => anInstance(n + 1)),
  });

const decisionAt = (observation: Observation, at: number) =>
  decide(observation, [], {
    settings: settings(),
    clock: clockAt(at),
    clusterName: CLUSTER,
    region: REGION,
  });

describe('retimed', () => {
  it('should give back the same observation for the heartbeats it was made with', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 6 }), (count) => {
        const observation = world(count);
        expect(retimed(observation, heartbeatsOf(observation))).toEqual(observation);
      }),
    );
  });

  it('should take the heartbeats read now, and only them', () => {
    const observation = world(3);
    const later = retimed(observation, heartbeatsOf(observation, HOUR));
    expect(later?.nodes.map((n) => n.readyHeartbeatAt)).toEqual(
      observation.nodes.map((n) => (n.readyHeartbeatAt ?? 0) + HOUR),
    );
    expect([...(later?.leases.values() ?? [])].map((l) => l.renewTime)).toEqual(
      [...observation.leases.values()].map((l) => (l.renewTime ?? 0) + HOUR),
    );
    expect(later?.instances).toBe(observation.instances);
  });

  it('should refuse to tell when a Node or a Lease came or went since (only a whole observation tells)', () => {
    const observation = world(3);
    const heartbeats = heartbeatsOf(observation);
    const [first] = observation.nodes;
    const withoutNode = new Map(heartbeats.nodes);
    withoutNode.delete(first?.name ?? '');
    expect(retimed(observation, { ...heartbeats, nodes: withoutNode })).toBeUndefined();
    const withoutLease = new Map(heartbeats.leases);
    withoutLease.delete(first?.name ?? '');
    expect(retimed(observation, { ...heartbeats, leases: withoutLease })).toBeUndefined();
    const extra = new Map(heartbeats.nodes).set('ip-10-9-9-9.ec2.internal', { resourceVersion: '1' });
    expect(retimed(observation, { ...heartbeats, nodes: extra })).toBeUndefined();
  });
});

describe('writesNothing on a kept observation planned again later', () => {
  it('should find nothing to do in a healthy world whose kubelets kept heartbeating, however long after', () => {
    const observation = world(4);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 30 * 24 }), (hours) => {
        const later = retimed(observation, heartbeatsOf(observation, hours * HOUR));
        expect(later).toBeDefined();
        if (later) expect(writesNothing(later, [], decisionAt(later, NOW + hours * HOUR).plan)).toBe(true);
      }),
    );
  });

  it('should see a kubelet that went silent as time passes with the world unchanged (a time-based rule)', () => {
    const observation = world(2);
    const silent = new Set([observation.nodes[0]?.name ?? '']);
    expect(writesNothing(observation, [], decisionAt(observation, NOW).plan)).toBe(true);
    const later = retimed(observation, heartbeatsOf(observation, 2 * HOUR, silent));
    expect(later).toBeDefined();
    if (later) expect(writesNothing(later, [], decisionAt(later, NOW + 2 * HOUR).plan)).toBe(false);
  });

  it('should not call a sweep quiet when a lookup failed or the observation was partial', () => {
    const observation = world(2);
    const { plan } = decisionAt(observation, NOW);
    expect(writesNothing(observation, [], plan)).toBe(true);
    expect(writesNothing(observation, ['DescribeAutoScalingGroups: throttled'], plan)).toBe(false);
    const enrichment = {
      ...observation,
      instances: observation.instances.map((i) => ({ ...i, enrichmentErrors: ['DescribeInstanceStatus: timeout'] })),
    };
    expect(writesNothing(enrichment, [], plan)).toBe(false);
    const lookup = { ...observation, lookupErrors: new Map([[instanceId(9), 'throttled']]) };
    expect(writesNothing(lookup, [], plan)).toBe(false);
  });
});

describe('writesNothing on what a plan refused', () => {
  const observation = world(2);
  const nothing: Plan = { dryRun: false, actions: [], skipped: [] };
  const standDown = {
    scope: 'group',
    group: 'ng-a',
    unhealthy: 3,
    members: 4,
    allowed: 1,
    maxUnhealthyPercent: 25,
  } as const;

  it('should leave out a sweep whose refusals are only said in its report (a cordon held for its window)', () => {
    const held: Plan = {
      ...nothing,
      skipped: [{ kind: 'cordon', node: observation.nodes[0]?.name ?? '', reason: 'maintenance starts in 3 days' }],
    };
    expect(writesNothing(observation, [], held)).toBe(true);
  });

  it('should run a sweep whose refusal is told (a repair stood down or backed off) or whose breaker held deletes', () => {
    const told: Plan = {
      ...nothing,
      skipped: [{ kind: 'repair', node: observation.nodes[0]?.name ?? '', reason: 'stood down', standDown }],
    };
    expect(writesNothing(observation, [], told)).toBe(false);
    const breaker: Plan = { ...nothing, breaker: { wouldDelete: 5, allowed: 1, reason: 'too many' } };
    expect(writesNothing(observation, [], breaker)).toBe(false);
  });
});

describe('withObjects', () => {
  const cluster = { name: CLUSTER, region: REGION };
  const observation = world(3);
  const [first, second] = observation.nodes;
  const name = first?.name ?? '';
  const none = new Map();

  it('should put a Node read again in its place, the others as they were', () => {
    const cordoned = first && { ...first, unschedulable: true, resourceVersion: '900' };
    const next = withObjects(observation, { nodes: new Map([[name, cordoned]]), leases: none }, cluster);
    expect(next?.observation.nodes.map((n) => n.unschedulable)).toEqual([true, false, false]);
    expect(next?.observation.nodes[1]).toBe(second);
    expect(next?.recordsChanged).toBe(false);
  });

  it('should say when a drain record came or went, for the drains to be asked about again', () => {
    const recorded = first && { ...first, annotations: { [DRAIN_ANNOTATION]: 'drain-exec-1' } };
    const withRecord = withObjects(observation, { nodes: new Map([[name, recorded]]), leases: none }, cluster);
    expect(withRecord?.recordsChanged).toBe(true);
    // The Node that recorded it deleted: its drain is no longer one the Nodes name.
    const deleted =
      withRecord && withObjects(withRecord.observation, { nodes: new Map([[name, undefined]]), leases: none }, cluster);
    expect(deleted?.recordsChanged).toBe(true);
  });

  it('should put a Lease read again in its place', () => {
    const lease = { nodeName: name, renewTime: NOW + HOUR };
    const next = withObjects(observation, { nodes: none, leases: new Map([[name, lease]]) }, cluster);
    expect(next?.observation.leases.get(name)).toEqual(lease);
  });

  it('should hold what a whole sweep holds after a Node and its Lease are deleted: the cluster machine stays, unpaired', () => {
    const next = withObjects(
      observation,
      { nodes: new Map([[name, undefined]]), leases: new Map([[name, undefined]]) },
      cluster,
    );
    expect(next?.observation).toEqual(
      anObservation({ nodes: observation.nodes.slice(1), instances: [...observation.instances] }),
    );
  });

  it("should no longer hold the machine only a deleted Node named, when it is not the cluster's (the sweep looks it up by id no more)", () => {
    const untagged = anObservation({
      nodes: [aNode(1), aNode(2), aNode(3), aNode(4)],
      instances: [anInstance(1), anInstance(2), anInstance(3, { tags: {} })],
    });
    // 3 is an untagged machine a Node names; 4 is a machine EC2 does not return.
    expect([...untagged.notFound]).toEqual([instanceId(4)]);
    const gone = new Map([
      [aNode(3).name, undefined],
      [aNode(4).name, undefined],
    ]);
    const next = withObjects(untagged, { nodes: gone, leases: none }, cluster);
    expect(next?.observation).toEqual(
      anObservation({
        nodes: [aNode(1), aNode(2)],
        instances: [anInstance(1), anInstance(2)],
        leases: [aNode(1), aNode(2), aNode(3), aNode(4)].map((n) => ({ nodeName: n.name, renewTime: NOW - 5_000 })),
      }),
    );
    // A machine another Node still names stays held.
    const twice = anObservation({
      nodes: [aNode(1), aNode(2), aNode(5, { providerID: aNode(3).providerID }), aNode(3)],
      instances: [anInstance(1), anInstance(2), anInstance(3, { tags: {} })],
    });
    expect(
      withObjects(twice, { nodes: new Map([[aNode(3).name, undefined]]), leases: none }, cluster)?.observation
        .instances,
    ).toEqual(twice.instances);
  });

  it('should not tell when an object the sweep did not hold appeared, a Node names another machine, or a Node paired by DNS name went', () => {
    const stranger = aNode(9);
    expect(
      withObjects(observation, { nodes: new Map([[stranger.name, stranger]]), leases: none }, cluster),
    ).toBeUndefined();
    expect(
      withObjects(
        observation,
        { nodes: none, leases: new Map([[stranger.name, { nodeName: stranger.name }]]) },
        cluster,
      ),
    ).toBeUndefined();
    const moved = first && { ...first, providerID: `aws:///us-east-1a/${instanceId(8)}` };
    expect(withObjects(observation, { nodes: new Map([[name, moved]]), leases: none }, cluster)).toBeUndefined();
    const unnamed = anObservation({ nodes: [aNode(1, { providerID: undefined })], instances: [anInstance(1)] });
    expect(
      withObjects(unnamed, { nodes: new Map([[aNode(1).name, undefined]]), leases: none }, cluster),
    ).toBeUndefined();
    // A Node with a providerID goes while another is paired by DNS name: the machine only the gone one
    // named may be the one the other answers to, which a sweep would then look up by that name.
    const pairedByName = anObservation({
      nodes: [aNode(1, { name: 'custom-1' }), aNode(5, { name: anInstance(1).privateDnsName, providerID: undefined })],
      instances: [anInstance(1, { tags: {} })],
    });
    expect(
      withObjects(pairedByName, { nodes: new Map([['custom-1', undefined]]), leases: none }, cluster),
    ).toBeUndefined();
  });
});

describe('withMachines', () => {
  const cluster = { name: CLUSTER, region: REGION };
  const observation = world(3);

  it('should put a held machine described again in its place (a tag of another key changed)', () => {
    const retagged = anInstance(2, { tags: { 'eks:cluster-name': CLUSTER, team: 'payments' } });
    const next = withMachines(observation, { found: [retagged], notFound: [] }, cluster);
    expect(next?.instances.map((i) => i.tags['team'])).toEqual([undefined, 'payments', undefined]);
    expect(next?.nodes).toBe(observation.nodes);
  });

  it('should leave out a machine of the account the sweep never holds (untagged, no Node names it)', () => {
    const foreign = anInstance(77, { tags: {} });
    const next = withMachines(observation, { found: [foreign], notFound: [instanceId(78)] }, cluster);
    expect(next?.instances).toEqual(observation.instances);
    expect(next?.notFound).toEqual(observation.notFound);
  });

  it('should hold what a whole sweep would: a machine joining the listing, one leaving it, one a Node names going or coming back', () => {
    // Joined: launched with the cluster's tags, no Node yet (an unregistered-machine candidate).
    const joined = anInstance(77);
    expect(withMachines(observation, { found: [joined], notFound: [] }, cluster)?.instances.map((i) => i.id)).toEqual([
      instanceId(1),
      instanceId(2),
      instanceId(3),
      instanceId(77),
    ]);
    // Left: a machine no Node names lost the cluster's tags, so the listing no longer returns it.
    const unregistered = { ...observation, instances: [...observation.instances, anInstance(50)] };
    const left = anInstance(50, { tags: { team: 'payments' } });
    expect(withMachines(unregistered, { found: [left], notFound: [] }, cluster)?.instances).toEqual(
      observation.instances,
    );
    // Untagged, but a Node names it: the sweep looks it up by id and holds it.
    const untaggedButNamed = anInstance(2, { tags: {} });
    expect(withMachines(observation, { found: [untaggedButNamed], notFound: [] }, cluster)?.instances[1]).toBe(
      untaggedButNamed,
    );
    // Gone from EC2's answers while a Node names it: not found, as the sweep's lookup by id says.
    const gone = withMachines(observation, { found: [], notFound: [instanceId(2)] }, cluster);
    expect(gone?.instances.map((i) => i.id)).toEqual([instanceId(1), instanceId(3)]);
    expect([...(gone?.notFound ?? [])]).toEqual([instanceId(2)]);
    // Returned again (EC2's reads are eventually consistent): held, no longer not found.
    const back = gone && withMachines(gone, { found: [anInstance(2)], notFound: [] }, cluster);
    expect(back?.instances.map((i) => i.id).sort()).toEqual([instanceId(1), instanceId(2), instanceId(3)]);
    expect(back?.notFound.size).toBe(0);
    // Gone from EC2's answers with no Node naming it: simply no longer held.
    const goneUnnamed = withMachines(unregistered, { found: [], notFound: [instanceId(50)] }, cluster);
    expect(goneUnnamed?.instances).toEqual(observation.instances);
    expect(goneUnnamed?.notFound.size).toBe(0);
  });

  it('should refuse to tell when Nodes are paired by DNS name (a Node without a providerID)', () => {
    const unnamed = { ...observation, nodes: [aNode(9, { providerID: undefined }), ...observation.nodes] };
    expect(withMachines(unnamed, { found: [], notFound: [] }, cluster)).toBeUndefined();
  });
});
