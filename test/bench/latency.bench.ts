// `npm run bench latency`: the bundled sweep handler against a 100k-node cluster whose API
// servers answer every request 50 ms late (EKS and EC2 in another Region, or a busy control plane):
// each listing's pages come one after another, so the sweep lasts at least its longest chain of
// pages (200 of Nodes, 200 of Leases) times the latency; the cluster's instances are read as
// disjoint listings at once (lib/aws/id-partitions.ts), so theirs is shorter. Wall time of a cold
// container (init, one sweep); every answer is counted and set beside the minimum, as in
// sweep.bench.ts. The emulators' instance answers are rendered before the run, as the runs after
// the first of sweep.bench.ts find them (WorldOptions.warmInstanceAnswers): on 2 shared cores the
// emulators' own CPU, not the latency, is what bounds the pages' chains.
import { scaleGroupCount } from '../../scripts/make-scale-scenario.js';
import { bundleHandlers, runHandler, type HandlerRun } from './support/handlers.js';
import { median, type BenchResult } from './support/results.js';
import { startWorld } from './support/world-process.js';
import type { BenchOutput } from './run.js';
import { minimumCalls } from './sweep.bench.js';

/** SWEEP_LATENCY_NODES=10000 for a quick look (the named result is the 100k one's). */
const NODES = Number(process.env['SWEEP_LATENCY_NODES'] ?? 100_000);
const LATENCY_MS = 50;
/** SWEEP_LATENCY_RUNS=N for a median of more. */
const RUNS = Number(process.env['SWEEP_LATENCY_RUNS'] ?? 1);

interface SweepAnswer {
  readonly conditions: Record<string, number>;
  readonly errors: readonly string[];
  readonly timings: Record<string, number>;
}

export default async function sweepLatencyBench(): Promise<BenchOutput> {
  const bundles = await bundleHandlers();
  const world = await startWorld({ nodes: NODES, warmInstanceAnswers: true });
  try {
    await world.latency(LATENCY_MS);
    const runs: HandlerRun[] = [];
    let counted: Record<string, number> = {};
    for (let run = 0; run < RUNS; run++) {
      await world.clearLog();
      runs.push(await runHandler(bundles.sweep, world.info.env, [{ name: 'sweep', event: {} }]));
      counted = await world.counts();
    }
    const last = runs.at(-1)?.invocations[0];
    if (!last || last.error) throw new Error(`sweep of ${NODES} failed: ${last?.error ?? 'no run'}`);
    const answer = last.result as SweepAnswer;
    if (answer.errors.length > 0) throw new Error(`sweep reported errors: ${answer.errors.slice(0, 3).join('; ')}`);
    if ((answer.conditions['in-sync'] ?? 0) !== NODES)
      throw new Error(`sweep saw ${JSON.stringify(answer.conditions)}, not ${NODES} pairs in sync`);
    const wall = median(runs.map((r) => (r.invocations[0]?.wallMs ?? 0) / 1000));
    // The world counts what it answered since the last clear: the last run's calls.
    const calls = Object.values(counted).reduce((a, b) => a + b, 0);
    const minimum = minimumCalls(NODES, NODES, scaleGroupCount(NODES));
    const results: BenchResult[] =
      NODES === 100_000
        ? [{ name: 'sweep-100k-wall-latency50', unit: 's', value: Number(wall.toFixed(2)), goal: 60, better: 'lower' }]
        : [];
    return {
      figures: {
        latencyMs: LATENCY_MS,
        seedSeconds: Number(world.info.seedSeconds.toFixed(1)),
        wallSeconds: runs.map((r) => ((r.invocations[0]?.wallMs ?? 0) / 1000).toFixed(2)).join(' '),
        sweepCpuSeconds: runs.map((r) => ((r.invocations[0]?.cpuMs ?? 0) / 1000).toFixed(1)).join(' '),
        rssMiB: runs.map((r) => r.maxRssMiB).join(' '),
        calls,
        callsRatio: Number((calls / minimum).toFixed(3)),
        timings: JSON.stringify(answer.timings),
      },
      results,
    };
  } finally {
    await world.close();
  }
}
