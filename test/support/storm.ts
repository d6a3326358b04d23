// Runs a storm scenario (scripts/make-storm-scenario.ts) in the deployed-world sandbox, as
// `simulate` does, and measures it from the sandbox's own records
// (packages/sandbox/src/simulate/storm-measures.ts). Shared by the storm integration test and the
// storm benchmark.
import { parseScenario } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { simulate, type Simulation } from '@ec2-node-reconciler/sandbox/simulate/run.js';
import {
  measureStorm,
  spotWarningsOf,
  watchCordons,
  type CordonRecord,
  type StormMeasures,
} from '@ec2-node-reconciler/sandbox/simulate/storm-measures.js';
import { cliOperator } from '../../cli/simulation-operator.js';
import type { RunReport } from '../../lib/report/report.js';

/** How many invocations a function had, and the most that overlapped on the virtual clock. */
export interface FunctionLoad {
  readonly invocations: number;
  readonly maxConcurrent: number;
}

export interface StormRun {
  readonly measures: StormMeasures;
  readonly simulation: Simulation<RunReport>;
  /** Per deployed function (events, sweep, drainStep). */
  readonly functions: Readonly<Record<string, FunctionLoad>>;
  /** Virtual seconds from the scenario's start to its end. */
  readonly virtualSeconds: number;
  readonly seedMs: number;
  readonly runMs: number;
}

function loadOf(invocations: readonly { readonly startedAt: number; readonly endedAt?: number }[]): FunctionLoad {
  const edges = invocations.flatMap((i) => [
    { at: i.startedAt, delta: 1 },
    { at: i.endedAt ?? Number.POSITIVE_INFINITY, delta: -1 },
  ]);
  // Ends before starts at one instant: an environment set free is taken again.
  edges.sort((a, b) => a.at - b.at || a.delta - b.delta);
  let now = 0;
  let most = 0;
  for (const edge of edges) most = Math.max(most, (now += edge.delta));
  return { invocations: invocations.length, maxConcurrent: most };
}

export async function runStorm(text: string, file = 'storm.json'): Promise<StormRun> {
  const scenario = parseScenario(text, file);
  let cordons: () => CordonRecord[] = () => [];
  const { simulation, sandbox, timings } = await simulate(
    { scenario, baseDir: '.', file },
    {
      operator: cliOperator,
      keepOpen: true,
      sandbox: { tls: false },
      prepare: (world) => {
        cordons = watchCordons(world, spotWarningsOf(scenario));
      },
    },
  );
  try {
    const measures = measureStorm(sandbox, cordons());
    const functions = Object.fromEntries(
      (['events', 'sweep', 'drainStep'] as const).map((kind) => [
        kind,
        loadOf(sandbox.lambda.host(sandbox.functions[kind])?.invocations ?? []),
      ]),
    );
    return {
      measures,
      simulation,
      functions,
      virtualSeconds: (sandbox.clock.now() - sandbox.start) / 1000,
      seedMs: timings.seedMs,
      runMs: timings.runMs,
    };
  } finally {
    await sandbox.close();
  }
}
