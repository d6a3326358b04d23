// Whose machines the event path touches, and what an event about someone else's costs (docs/design.md §1a).
import { describe, expect, it } from 'vitest';
import { runSignals } from '../../lib/pipeline/run.js';
import { parseEvent } from '../../lib/signals/index.js';
import {
  actionsOf,
  awsRequests,
  fixtureEvent,
  instanceId,
  kubeRequests,
  kubeWrites,
  nodeName,
  usePipelineWorld,
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

  it('should look for an untagged instance’s Node as a sweep links it: by name, then one list for its providerID', async () => {
    world.seedInstance(2, { tags: {} });

    const report = await stateChange(2, 'stopping');

    expect(kubeRequests(world).slice(0, 2)).toEqual([`GET nodes/${nodeName(2)}`, `GET leases/${nodeName(2)}`]);
    expect(world.kube.requestLog.filter({ verb: 'list', resource: 'nodes' })).toHaveLength(1);
    expect(actionsOf(report)).toEqual([]);
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
