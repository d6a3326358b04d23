// The event path's cost in sequential round trips (docs/design.md §3, issue #17), measured the way a network
// would make it felt: every answer of both emulators is delayed, each request is stamped with the wall
// clock when it arrived and when it was answered, and the longest chain of requests each started
// after the previous one was answered, up to the cordon PATCH, is the number of round trips.
import { describe, expect, it } from 'vitest';
import {
  fixtureEvent,
  instanceId,
  nodeName,
  pairs,
  usePipelineWorld,
  type PipelineWorld,
} from '../support/pipeline-world.js';
import { recordSpans as recordWorldSpans, roundTripsUntil } from '../support/round-trips.js';

let world: PipelineWorld;
usePipelineWorld((w) => (world = w));

const recordSpans = () => recordWorldSpans(world);

async function spotWarning(n: number) {
  return fixtureEvent(world, 'spot-interruption', { instanceId: instanceId(n) });
}

describe('event path: round trips to the cordon', () => {
  it('should cordon in 3 round trips from a cold container: DescribeCluster ∥ DescribeInstances, GET node ∥ GET lease, PATCH', async () => {
    pairs.inSync(world, 1, { instance: { spot: true } });
    const event = await spotWarning(1);
    const spans = recordSpans();

    const report = await world.event(event);

    expect(report?.errors).toEqual([]);
    expect(roundTripsUntil(spans, 'kube PATCH nodes')).toHaveLength(3);
    expect(roundTripsUntil(spans, 'ec2 DescribeInstances')).toEqual(['ec2 DescribeInstances']);
    expect(roundTripsUntil(spans, 'eks DescribeCluster')).toEqual(['eks DescribeCluster']);
  });

  it('should cordon in 2 round trips when the warm container remembers the Node: GET node ∥ GET lease ∥ DescribeInstances, PATCH', async () => {
    pairs.inSync(world, 2, { instance: { spot: true } });
    // An earlier event about the machine linked it to its Node; since then its drain and cordon are long over.
    await world.event(
      await fixtureEvent(world, 'state-change-shutting-down', {
        instanceId: instanceId(2),
        detail: { 'instance-id': instanceId(2), state: 'stopping' },
      }),
    );
    const store = world.kube.store;
    const ours = Object.keys(store.getNode(nodeName(2))?.metadata.annotations ?? {}).filter((key) =>
      key.startsWith('ec2-node-reconciler/'),
    );
    store.patch(store.resource('nodes'), undefined, nodeName(2), 'application/merge-patch+json', {
      metadata: { annotations: Object.fromEntries(ours.map((key) => [key, null])) },
      spec: { unschedulable: null },
    });
    const event = await spotWarning(2);
    const spans = recordSpans();

    const report = await world.event(event);

    expect(report?.errors).toEqual([]);
    expect(world.kube.store.getNode(nodeName(2))?.spec?.unschedulable).toBe(true);
    expect(roundTripsUntil(spans, 'kube PATCH nodes')).toHaveLength(2);
    // The Node and Lease reads went out with DescribeInstances, not after it.
    expect(roundTripsUntil(spans, 'kube GET nodes')).toEqual(['kube GET nodes']);
    expect(roundTripsUntil(spans, 'kube GET leases')).toEqual(['kube GET leases']);
  });

  it('should send the follow-ups together: StartExecution beside the cordon’s Event', async () => {
    pairs.inSync(world, 3, { instance: { spot: true } });
    const event = await spotWarning(3);
    const spans = recordSpans();

    await world.event(event);

    const afterPatch = roundTripsUntil(spans, 'kube PATCH nodes').length;
    expect(roundTripsUntil(spans, 'states StartExecution')).toHaveLength(afterPatch + 1);
    expect(roundTripsUntil(spans, 'kube POST events')).toHaveLength(afterPatch + 1);
  });
});
