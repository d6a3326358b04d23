// `npm run bench roundtrip`: the what-if round trip (test/support/round-trip.ts) at full size — a
// served world of 1,000 nodes snapshotted by the real binary, a generated month of events (10,000 and
// more) replayed on the world and on the snapshot — and whether the two runs took the same actions per
// node and kind. The results: that they did (1 or 0; the goal is 1), and the round trip's wall time,
// whose goal is replay-30d-1k-nodes's (60 s) for each of the two replays, which run at once on the
// machine's 2 cores, and the time to serve and snapshot the world within it.
import { actionKinds, roundTrip } from '../support/round-trip.js';
import type { BenchResult } from './support/results.js';
import type { BenchOutput } from './run.js';

const NODES = Number(process.env['ROUNDTRIP_BENCH_NODES'] ?? 1000);
const DAYS = Number(process.env['ROUNDTRIP_BENCH_DAYS'] ?? 30);

export default async function roundTripMonth(): Promise<BenchOutput> {
  const started = performance.now();
  const trip = await roundTrip({ nodes: NODES, days: DAYS });
  const wall = Number(((performance.now() - started) / 1000).toFixed(1));
  const equal = trip.diff.length === 0;
  const results: BenchResult[] =
    NODES === 1000 && DAYS === 30
      ? [
          { name: 'roundtrip-30d-1k-nodes-equal', unit: 'count', value: equal ? 1 : 0, goal: 1, better: 'higher' },
          { name: 'roundtrip-30d-1k-nodes-wall', unit: 's', value: wall, goal: 120, better: 'lower' },
        ]
      : [];
  return {
    figures: {
      events: trip.history.length,
      snapshot: trip.snapshotLine,
      routed: trip.original.routed,
      sweeps: trip.original.sweeps,
      actions: actionKinds(trip.original),
      actionsFromSnapshot: actionKinds(trip.fromSnapshot),
      nodesDiffering: trip.diff.length,
      diff: JSON.stringify(trip.diff.slice(0, 10)),
      serveSeconds: trip.seconds.serve,
      snapshotSeconds: trip.seconds.snapshot,
      replaySeconds: `${trip.original.seconds} (world) ${trip.fromSnapshot.seconds} (snapshot), ${trip.seconds.replays} both at once`,
      wallSeconds: wall,
    },
    results,
  };
}
