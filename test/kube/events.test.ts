// Kubernetes Events aggregated as the kubelet's are: one object per (node, uid, reporter, type,
// reason), its count and lastTimestamp bumped by each repeat. Against the emulator in RBAC mode
// with the shipped manifest, so the verbs the recorder uses are the ones the manifest grants.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KubeClient } from '../../lib/kube/client.js';
import { EVENT_UPDATE_ATTEMPTS, eventName, NodeEventRecorder, type NodeEvent } from '../../lib/kube/events.js';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import type { KubeEmulator, KubeObject } from '@ec2-node-reconciler/sandbox/kube/index.js';
import { startRbacCluster } from '../support/kube-world.js';
import { NOW } from '../support/world.js';

const NODE = 'ip-10-0-1-1.ec2.internal';

let clock: VirtualClock;
let kube: KubeEmulator;
let client: KubeClient;

beforeEach(async () => {
  clock = new VirtualClock(NOW);
  ({ kube, client } = await startRbacCluster(clock));
});
afterEach(async () => {
  await kube.close();
});

const unresponsive = (over: Partial<NodeEvent> = {}): NodeEvent => ({
  node: NODE,
  uid: 'uid-1',
  reason: 'UnresponsiveMachine',
  message: 'i-1 is running but the kubelet is silent (last heartbeat 23m ago)',
  type: 'Warning',
  ...over,
});

const storedEvents = (): KubeObject[] =>
  kube.store.list(kube.store.resource('events', ''), { namespace: 'default' }).items;

/** What `kubectl describe node` reads of an Event. */
const described = (event: KubeObject) => {
  const e = event as Record<string, unknown>;
  return {
    name: event.metadata.name,
    reason: e['reason'],
    type: e['type'],
    count: e['count'],
    firstTimestamp: e['firstTimestamp'],
    lastTimestamp: e['lastTimestamp'],
    message: e['message'],
  };
};

const writes = (): string[] => kube.requestLog.filter({ resource: 'events' }).map((r) => `${r.verb} ${r.status}`);

describe('NodeEventRecorder: aggregation', () => {
  it('should create the first occurrence under its deterministic name with count 1', async () => {
    const recorder = new NodeEventRecorder(client, clock);

    await recorder.record(unresponsive());

    expect(storedEvents().map(described)).toEqual([
      {
        name: eventName(unresponsive()),
        reason: 'UnresponsiveMachine',
        type: 'Warning',
        count: 1,
        firstTimestamp: '2026-11-29T12:00:00Z',
        lastTimestamp: '2026-11-29T12:00:00Z',
        message: unresponsive().message,
      },
    ]);
    expect(eventName(unresponsive())).toMatch(/^ip-10-0-1-1\.ec2\.internal\.[0-9a-f]{16}$/);
    expect(writes()).toEqual(['create 201']);
  });

  it('should count a repeat on the one Event: count, lastTimestamp and the latest message, firstTimestamp kept', async () => {
    const recorder = new NodeEventRecorder(client, clock);
    await recorder.record(unresponsive());
    clock.advance(10 * 60_000);
    const later = unresponsive({ message: 'i-1 is running but the kubelet is silent (last heartbeat 33m ago)' });

    await recorder.record(later);
    clock.advance(10 * 60_000);
    await new NodeEventRecorder(client, clock).record(later);

    expect(storedEvents().map(described)).toEqual([
      expect.objectContaining({
        count: 3,
        firstTimestamp: '2026-11-29T12:00:00Z',
        lastTimestamp: '2026-11-29T12:20:00Z',
        message: later.message,
      }),
    ]);
    // A repeat: the create is refused (AlreadyExists), then the Event is read and patched.
    expect(writes()).toEqual([
      'create 201',
      'create 409',
      'get 200',
      'patch 200',
      'create 409',
      'get 200',
      'patch 200',
    ]);
  });

  it('should make an Event told once only the first time: a repeat finds it and leaves it as it is', async () => {
    const otherOwner = unresponsive({
      reason: 'OtherOwner',
      type: 'Normal',
      message: 'Karpenter manages this node (label karpenter.sh/nodepool=default): left to it',
      once: true,
    });
    await new NodeEventRecorder(client, clock).record(otherOwner);
    clock.advance(10 * 60_000);

    await new NodeEventRecorder(client, clock).record(otherOwner);

    expect(storedEvents().map(described)).toEqual([
      expect.objectContaining({ count: 1, lastTimestamp: '2026-11-29T12:00:00Z' }),
    ]);
    expect(writes()).toEqual(['create 201', 'create 409']);
  });

  it('should keep apart what is not a repeat: another reason, type, node or Node incarnation', async () => {
    const recorder = new NodeEventRecorder(client, clock);

    for (const event of [
      unresponsive(),
      unresponsive({ reason: 'IdentityConflict' }),
      unresponsive({ type: 'Normal' }),
      unresponsive({ node: 'ip-10-0-1-2.ec2.internal' }),
      unresponsive({ uid: 'uid-2' }),
    ])
      await recorder.record(event);

    expect(storedEvents().map((e) => described(e).count)).toEqual([1, 1, 1, 1, 1]);
    expect(new Set(storedEvents().map((e) => e.metadata.name)).size).toBe(5);
  });

  it('should count every one of repeats recorded at once (the loser of a race reads again)', async () => {
    const recorder = new NodeEventRecorder(client, clock);
    await recorder.record(unresponsive());

    // As many at once as a recorder has updates: even the last to win its patch counts.
    const racers = Array.from({ length: EVENT_UPDATE_ATTEMPTS }, () => new NodeEventRecorder(client, clock));
    await Promise.all(racers.map((racer) => racer.record(unresponsive())));

    expect(storedEvents().map((e) => described(e).count)).toEqual([1 + EVENT_UPDATE_ATTEMPTS]);
  });

  it('should read again when its patch meets a changed Event (409), and count once', async () => {
    const recorder = new NodeEventRecorder(client, clock);
    await recorder.record(unresponsive());
    kube.faults.add({ verb: 'patch', resource: 'events', effect: { status: 409, reason: 'Conflict' }, times: 1 });

    await recorder.record(unresponsive());

    expect(storedEvents().map((e) => described(e).count)).toEqual([2]);
    expect(writes().slice(1)).toEqual(['create 409', 'get 200', 'patch 409', 'get 200', 'patch 200']);
  });

  it('should create the Event afresh when it expired between the refused create and the read', async () => {
    const recorder = new NodeEventRecorder(client, clock);
    await recorder.record(unresponsive());
    const events = kube.store.resource('events', '');
    kube.faults.add({ verb: 'get', resource: 'events', effect: { status: 404 }, times: 1 });
    // The event TTL takes it while the repeat is on its way.
    const expire = kube.faults.add({
      verb: 'create',
      resource: 'events',
      effect: { status: 409, reason: 'AlreadyExists' },
      times: 1,
    });
    kube.store.delete(events, 'default', eventName(unresponsive()));

    await recorder.record(unresponsive());
    expire();

    expect(storedEvents().map((e) => described(e).count)).toEqual([1]);
    expect(writes().slice(1)).toEqual(['create 409', 'get 404', 'create 201']);
  });

  it(`should give up, saying so, when the Event changes under each of ${EVENT_UPDATE_ATTEMPTS} updates`, async () => {
    const recorder = new NodeEventRecorder(client, clock);
    await recorder.record(unresponsive());
    kube.faults.add({ verb: 'patch', resource: 'events', effect: { status: 409, reason: 'Conflict' } });

    await expect(recorder.record(unresponsive())).rejects.toThrow(
      /^recording event UnresponsiveMachine on ip-10-0-1-1\.ec2\.internal: .* changed under every one of 3 updates$/,
    );
    expect(storedEvents().map((e) => described(e).count)).toEqual([1]);
  });

  it('should pass on any other refusal of the create (not a repeat: nothing to count)', async () => {
    kube.faults.add({ verb: 'create', resource: 'events', effect: { status: 500 }, times: 1 });

    await expect(new NodeEventRecorder(client, clock).record(unresponsive())).rejects.toThrow(/HTTP 500/);
    expect(storedEvents()).toEqual([]);
  });
});

describe('eventName', () => {
  it('should fit a DNS subdomain of at most 253 characters whatever the node name', () => {
    const long = `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(59)}-x.example`;
    const name = eventName(unresponsive({ node: long }));
    expect(name.length).toBeLessThanOrEqual(253);
    expect(name).toMatch(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/);
    expect(name).not.toMatch(/[.-]\./);
  });

  it('should differ for events that are not repeats of one another, and not for messages', () => {
    expect(eventName(unresponsive({ message: 'another message' }))).toBe(eventName(unresponsive()));
    expect(eventName(unresponsive({ reason: 'NodeCordoned' }))).not.toBe(eventName(unresponsive()));
  });
});
