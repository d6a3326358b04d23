// `npm run bench sweep`: the bundled sweep handler, in a process of its own (a cold container:
// init, then one sweep), against a generated cluster of N Nodes (Leases, instances tagged as EKS
// managed node groups tag them, Auto Scaling groups of 500) served by the emulators in another
// process. Wall time and RSS are medians over several runs; every API call the emulators answered
// is counted and set beside the minimum for that cluster.
import { scaleGroupCount } from '../../scripts/make-scale-scenario.js';
import { bundleHandlers, runHandler, type HandlerRun } from './support/handlers.js';
import { median, type BenchResult } from './support/results.js';
import { startWorld } from './support/world-process.js';
import type { BenchFigures, BenchOutput } from './run.js';

/** Sizes and runs: SWEEP_BENCH_SIZES=1000,10000 for a quick look. */
const SIZES = (process.env['SWEEP_BENCH_SIZES'] ?? '1000,10000,100000').split(',').map(Number);
const RUNS: Readonly<Record<number, number>> = { 1000: 5, 10000: 5, 100000: 5 };
const runsFor = (nodes: number): number => Number(process.env['SWEEP_BENCH_RUNS'] ?? RUNS[nodes] ?? 3);

/** Kubernetes list page (LIST_PAGE), DescribeInstances page, DescribeAutoScalingGroups page. */
const KUBE_PAGE = 500;
const EC2_PAGE = 1000;
const ASG_PAGE = 100;

/**
 * The fewest calls a cold sweep of N Nodes, M instances and G groups can make: Nodes and Leases in
 * pages of 500, one listing of the cluster's instances in pages of 1000, the groups' states in pages
 * of 100, one scheduled-event query, and the cluster's endpoint (DescribeCluster, once per container).
 */
export function minimumCalls(nodes: number, instances: number, groups: number): number {
  return 2 * Math.ceil(nodes / KUBE_PAGE) + Math.ceil(instances / EC2_PAGE) + Math.ceil(groups / ASG_PAGE) + 1 + 1;
}

interface SweepReport {
  readonly conditions: Record<string, number>;
  readonly apiCalls: Record<string, number>;
  readonly errors: readonly string[];
  readonly timings: Record<string, number>;
}

async function sweepAt(nodes: number, bundle: string): Promise<{ figures: BenchFigures; results: BenchResult[] }> {
  const world = await startWorld({ nodes });
  try {
    const runs: HandlerRun[] = [];
    const emulatorCpu: number[] = [];
    let counted: Record<string, number> = {};
    for (let run = 0; run < runsFor(nodes); run++) {
      await world.clearLog();
      const cpuBefore = await world.cpuMs();
      runs.push(await runHandler(bundle, world.info.env, [{ name: 'sweep', event: {} }]));
      emulatorCpu.push((await world.cpuMs()) - cpuBefore);
      counted = await world.counts();
    }
    const last = runs.at(-1)?.invocations[0];
    if (!last || last.error) throw new Error(`sweep of ${nodes} failed: ${last?.error ?? 'no run'}`);
    const report = last.result as SweepReport;
    if (report.errors.length > 0)
      throw new Error(`sweep of ${nodes} reported errors: ${report.errors.slice(0, 3).join('; ')}`);
    const inSync = report.conditions['in-sync'] ?? 0;
    if (inSync !== nodes)
      throw new Error(`sweep of ${nodes} saw ${inSync} pairs in sync: ${JSON.stringify(report.conditions)}`);

    const wall = median(runs.map((r) => (r.invocations[0]?.wallMs ?? 0) / 1000));
    const rss = median(runs.map((r) => r.maxRssMiB));
    const calls = Object.values(counted).reduce((a, b) => a + b, 0);
    const reported = Object.values(report.apiCalls).reduce((a, b) => a + b, 0);
    const minimum = minimumCalls(nodes, nodes, scaleGroupCount(nodes));
    const k = nodes >= 1000 ? `${nodes / 1000}k` : String(nodes);
    const figures: BenchFigures = {
      [`${k}.seedSeconds`]: Number(world.info.seedSeconds.toFixed(1)),
      [`${k}.runs`]: runs.length,
      [`${k}.wallSeconds`]: runs.map((r) => ((r.invocations[0]?.wallMs ?? 0) / 1000).toFixed(2)).join(' '),
      [`${k}.wallMedian`]: Number(wall.toFixed(2)),
      [`${k}.rssMiB`]: runs.map((r) => r.maxRssMiB).join(' '),
      // The sweep's own CPU (user + system) and the emulators' while it ran: what the wall time is made of on 2 cores.
      [`${k}.sweepCpuSeconds`]: runs.map((r) => ((r.invocations[0]?.cpuMs ?? 0) / 1000).toFixed(1)).join(' '),
      [`${k}.emulatorCpuSeconds`]: emulatorCpu.map((ms) => (ms / 1000).toFixed(1)).join(' '),
      [`${k}.initMs`]: Math.round(median(runs.map((r) => r.initMs))),
      [`${k}.callsAnswered`]: calls,
      [`${k}.callsReported`]: reported,
      [`${k}.callsMinimum (N=${nodes}, M=${nodes}, G=${scaleGroupCount(nodes)})`]: minimum,
      [`${k}.callsByKind`]: Object.entries(counted)
        .map(([kind, n]) => `${kind}=${n}`)
        .join(', '),
      [`${k}.reportedByKind`]: Object.entries(report.apiCalls)
        .map(([kind, n]) => `${kind}=${n}`)
        .join(', '),
      [`${k}.timings`]: JSON.stringify(report.timings),
    };
    const results: BenchResult[] = [
      { name: `sweep-${k}-wall`, unit: 's', value: round(wall, 2), goal: 20, better: 'lower' },
    ];
    if (nodes === 100_000) {
      results.push({ name: 'sweep-100k-rss', unit: 'MiB', value: Math.round(rss), goal: 1024, better: 'lower' });
      results.push({
        name: 'sweep-100k-api-calls-ratio',
        unit: 'x',
        value: round(calls / minimum, 3),
        goal: 1.05,
        better: 'lower',
      });
    }
    return { figures, results };
  } finally {
    await world.close();
  }
}

const round = (value: number, digits: number): number => Number(value.toFixed(digits));

export default async function sweepBench(): Promise<BenchOutput> {
  const bundles = await bundleHandlers();
  const figures: BenchFigures = {};
  const results: BenchResult[] = [];
  for (const nodes of SIZES) {
    const at = await sweepAt(nodes, bundles.sweep);
    Object.assign(figures, at.figures);
    results.push(...at.results);
  }
  return { figures, results };
}
