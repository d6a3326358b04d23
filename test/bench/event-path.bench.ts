// `npm run bench event-path`: sequential round trips from a spot interruption warning to the cordon
// PATCH, every answer of both emulators delayed (test/support/round-trips.ts), in a cold container
// and in a warm one that remembers the machine's Node. The pipeline tests hold the same counts.
import {
  fixtureEvent,
  instanceId,
  nodeName,
  pairs,
  startPipelineWorld,
  type PipelineWorld,
} from '../support/pipeline-world.js';
import { recordSpans, roundTripsUntil } from '../support/round-trips.js';
import type { BenchResult } from './support/results.js';
import type { BenchOutput } from './run.js';

async function withWorld<T>(body: (world: PipelineWorld) => Promise<T>): Promise<T> {
  const world = await startPipelineWorld();
  try {
    return await body(world);
  } finally {
    await world.close();
  }
}

/** The chain of round trips up to the cordon PATCH of a spot warning about instance `n`. */
async function chainToCordon(world: PipelineWorld, n: number): Promise<string[]> {
  const event = await fixtureEvent(world, 'spot-interruption', { instanceId: instanceId(n) });
  const spans = recordSpans(world);
  const report = await world.event(event);
  if (!report || report.errors.length > 0) throw new Error(`event run failed: ${JSON.stringify(report?.errors)}`);
  if (world.kube.store.getNode(nodeName(n))?.spec?.unschedulable !== true)
    throw new Error(`node ${nodeName(n)} was not cordoned`);
  return roundTripsUntil(spans, 'kube PATCH nodes');
}

export default async function eventPath(): Promise<BenchOutput> {
  const cold = await withWorld(async (world) => {
    pairs.inSync(world, 1, { instance: { spot: true } });
    return chainToCordon(world, 1);
  });
  const warm = await withWorld(async (world) => {
    pairs.inSync(world, 2, { instance: { spot: true } });
    // An earlier event about the machine linked it to its Node; its cordon is long over since.
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
    return chainToCordon(world, 2);
  });
  const results: BenchResult[] = [
    { name: 'event-cordon-round-trips-warm', unit: 'count', value: warm.length, goal: 2, better: 'lower' },
    { name: 'event-cordon-round-trips-cold', unit: 'count', value: cold.length, goal: 3, better: 'lower' },
  ];
  return { figures: { cold: cold.join(' -> '), warm: warm.join(' -> ') }, results };
}
