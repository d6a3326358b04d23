// Whose machines the event path touches, and what an event about someone else's costs (docs/design.md §1a).
import { describe, expect, it } from 'vitest';
import { runSignals } from '../../lib/pipeline/run.js';
import { parseEvent } from '../../lib/signals/index.js';
import { ZONE_LABEL } from '@ec2-node-reconciler/model/contract/labels.js';
import {
  actionsOf,
  CLUSTER,
  awsRequests,
  fixtureEvent,
  instanceId,
  kubeRequests,
  kubeWrites,
  nodeName,
  OTHER_ZONE,
  usePipelineWorld,
  ZONE,
  type PipelineWorld,
} from '../support/pipeline-world.js';

let world: PipelineWorld;
usePipelineWorld((w) => (world = w), { warm: true });

async function stateChange(n: number, state: string) {
  const event = await fixtureEvent(world, 'state-change-shutting-down', {
    instanceId: instanceId(n),
    detail: { 'instance-id': instanceId(n), state },
  });
  world.clearLogs();
  return world.event(event);
}

/** The label selector of each list of Nodes made (null: every Node). */
const nodeListSelectors = (): (string | null)[] =>
  world.kube.requestLog
    .filter({ verb: 'list', resource: 'nodes' })
    .map((l) => new URLSearchParams(l.query).get('labelSelector'));

/** A Node with a custom hostname naming instance n by providerID, its zone label naming another zone than its machine's. */
const seedMislabelledNode = (n: number) =>
  world.kube.store.seedNode({
    name: `custom-${n}`,
    instanceId: instanceId(n),
    zone: ZONE,
    labels: { [ZONE_LABEL]: OTHER_ZONE },
  });

describe('event path: ownership', () => {
  it("should spend no Kubernetes request on another cluster's instance (one DescribeInstances, nothing else)", async () => {
    world.seedInstance(1, { tags: { 'eks:cluster-name': 'other' } });
    // A node of ours happens to carry the name its private DNS name has (overlapping CIDRs).
    world.kube.store.seedNode({ name: nodeName(1), createdAt: world.clock.now() - 3_600_000 });

    const report = await stateChange(1, 'stopping');

    expect(awsRequests(world)).toEqual(['ec2 DescribeInstances 200']);
    expect(kubeRequests(world)).toEqual([]);
    expect(actionsOf(report)).toEqual([]);
    expect(world.kube.store.getNode(nodeName(1))?.spec?.unschedulable).not.toBe(true);
  });

  it('should look for an untagged instance’s Node as a sweep links it: by name, then a list of the Nodes its zone allows', async () => {
    world.seedInstance(2, { tags: {} });
    // Nodes in other zones (most of a cluster over three zones) are not read for it.
    for (const n of [20, 21, 22]) world.seedNode(n, { zone: OTHER_ZONE });

    const report = await stateChange(2, 'stopping');

    expect(kubeRequests(world).slice(0, 2)).toEqual([`GET nodes/${nodeName(2)}`, `GET leases/${nodeName(2)}`]);
    // Labelled with its zone, or with none (a Node no cloud provider labelled): never every Node.
    expect(nodeListSelectors().sort()).toEqual(['!topology.kubernetes.io/zone', `topology.kubernetes.io/zone=${ZONE}`]);
    expect(actionsOf(report)).toEqual([]);
  });

  it("should list every Node for an instance of this cluster's whose Node is not named after it (a custom hostname)", async () => {
    world.seedInstance(9, { tags: { 'eks:cluster-name': CLUSTER } });
    seedMislabelledNode(9);

    const report = await stateChange(9, 'stopping');

    // Ours: a Node whose zone label lies is still found (a lifecycle action must not be completed undrained).
    expect(nodeListSelectors()).toEqual([null]);
    expect(actionsOf(report)).toEqual(['cordon custom-9 done', 'drain custom-9 started']);
  });

  it('should drain the Node of an untagged instance when its Node has no zone label (a hand-made Node naming it by providerID)', async () => {
    world.seedInstance(10, { tags: {} });
    const node = world.kube.store.seedNode({ name: 'custom-10', instanceId: instanceId(10), zone: ZONE });
    const { [ZONE_LABEL]: _zone, ...labels } = node.metadata.labels ?? {};
    world.kube.store.update(world.kube.store.resource('nodes'), undefined, 'custom-10', {
      ...node,
      metadata: { ...node.metadata, labels },
    });

    const report = await stateChange(10, 'stopping');

    expect(actionsOf(report)).toEqual(['cordon custom-10 done', 'drain custom-10 started']);
  });

  it("should leave to the sweep an untagged instance's Node whose zone label names another zone: the event path does not find it", async () => {
    // The label is the cloud provider's, from the Node's own machine: one that names another zone is taken
    // at its word. What the event path misses, the next sweep links by providerID (it lists every Node).
    world.seedInstance(11, { tags: {} });
    seedMislabelledNode(11);

    const report = await stateChange(11, 'stopping');

    expect(actionsOf(report)).toEqual([]);
    expect(kubeWrites(world)).toEqual([]);
  });

  it('should drain the Node of an untagged instance with a custom hostname that names it by providerID (issue #27, 4)', async () => {
    world.seedInstance(8, { tags: {} });
    world.kube.store.seedNode({
      name: 'custom-8',
      instanceId: instanceId(8),
      zone: 'us-east-1a',
      createdAt: world.clock.now() - 3_600_000,
    });

    const report = await stateChange(8, 'stopping');

    expect(actionsOf(report)).toEqual(['cordon custom-8 done', 'drain custom-8 started']);
  });

  it("should drain a Node whose providerID names an untagged instance: the Node proves it is this cluster's", async () => {
    world.seedInstance(3, { tags: {} });
    world.seedNode(3);

    const report = await stateChange(3, 'stopping');

    expect(actionsOf(report)).toEqual([`cordon ${nodeName(3)} done`, `drain ${nodeName(3)} started`]);
  });

  it('should cordon nothing for a Node linked to an untagged instance by its DNS name alone, and say why', async () => {
    world.seedInstance(4, { tags: {} });
    world.kube.store.seedNode({ name: nodeName(4), createdAt: world.clock.now() - 3_600_000 });

    const report = await stateChange(4, 'stopping');

    expect(kubeWrites(world).filter((w) => w.startsWith('patch'))).toEqual([]);
    expect(report?.skipped).toContainEqual(
      expect.objectContaining({
        kind: 'drain',
        reason: expect.stringMatching(/not this cluster's instance/) as unknown,
      }),
    );
  });

  it('should list every Node for an instance of this cluster whose Node is not named after it', async () => {
    world.seedInstance(5);
    world.kube.store.seedNode({
      name: 'custom-5',
      instanceId: instanceId(5),
      zone: 'us-east-1a',
      createdAt: world.clock.now() - 3_600_000,
    });

    const report = await stateChange(5, 'stopping');

    expect(world.kube.requestLog.filter({ verb: 'list', resource: 'nodes' })).toHaveLength(1);
    expect(actionsOf(report)).toEqual(['cordon custom-5 done', 'drain custom-5 started']);
  });
});

describe('event path: an instance EC2 does not return yet', () => {
  it('should fail the record (SQS retries it) while the event is younger than notFoundGrace, then report it', async () => {
    const event = await fixtureEvent(world, 'spot-interruption', { instanceId: instanceId(6) });
    world.clearLogs();

    const young = await world.event(event);
    expect(young?.incomplete).toEqual([
      expect.stringMatching(new RegExp(`^EC2 does not return ${instanceId(6)} .*: trying again$`)),
    ]);

    world.clock.advance(11 * 60_000);
    const old = await world.event(event);
    expect(old?.incomplete).toEqual([]);
    expect(old?.errors).toEqual([
      expect.stringMatching(new RegExp(`^EC2 does not return ${instanceId(6)} .*: nothing done for it$`)),
    ]);
  });

  it('should report, not retry, on the record’s last receive, so that the event is not dead-lettered for it', async () => {
    const event = await fixtureEvent(world, 'spot-interruption', { instanceId: instanceId(6) });
    world.clearLogs();
    const parsed = parseEvent(event);
    if (parsed.outcome !== 'signals') throw new Error('expected signals');

    const report = await runSignals(await world.deps(), parsed.signals, { lastReceive: true });

    expect(report.incomplete).toEqual([]);
    expect(report.errors).toEqual([expect.stringMatching(/: nothing done for it$/)]);
  });
});

describe('event path: one removal, one drain', () => {
  it('should start one drain for two events about the same machine handled at once (the Node claim is guarded)', async () => {
    world.seedInstance(7, { spot: true });
    world.seedNode(7);
    const spot = await fixtureEvent(world, 'spot-interruption', { instanceId: instanceId(7) });
    const again = { ...spot, id: '00000000-0000-4000-8000-000000000007' };
    world.clearLogs();

    const reports = await Promise.all([world.event(spot), world.event(again)]);

    expect(world.aws.requestLog.entries.filter((e) => e.operation === 'StartExecution')).toHaveLength(1);
    const outcomes = reports
      .flatMap((r) => (r?.actions ?? []).filter((a) => a.kind === 'drain').map((a) => a.outcome))
      .sort();
    expect(outcomes).toEqual(['already-running', 'started']);
    expect(world.kube.store.getNode(nodeName(7))?.metadata.annotations?.['ec2-node-reconciler/drain']).toBeDefined();
  });

  it('should hand a lifecycle action that arrives while the drain runs to that drain, with the earlier deadline', async () => {
    world.seedInstance(8, { spot: true, autoScaling: { group: 'eks-workers', hook: 'ec2-node-reconciler-drain' } });
    world.seedNode(8);
    const spot = await fixtureEvent(world, 'spot-interruption', { instanceId: instanceId(8) });
    await world.event(spot);
    const lifecycle = await fixtureEvent(world, 'asg-terminate-lifecycle-action', { instanceId: instanceId(8) });
    world.clearLogs();

    const report = await world.event(lifecycle);

    expect(actionsOf(report)).toEqual([`drain ${nodeName(8)} already-running`]);
    const annotations = world.kube.store.getNode(nodeName(8))?.metadata.annotations ?? {};
    expect(JSON.parse(annotations['ec2-node-reconciler/lifecycle'] ?? '{}')).toEqual(
      expect.objectContaining({ group: 'eks-workers', hook: 'ec2-node-reconciler-drain' }),
    );
    expect(world.aws.requestLog.entries.filter((e) => e.operation === 'StartExecution')).toEqual([]);
  });
});
