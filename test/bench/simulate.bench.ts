// `npm run bench simulate`: `simulate` of a generated 100,000-node scenario through the CLI as a user
// runs it (scripts/make-scale-scenario.ts, then `simulate FILE --check --timings`). The seeding time
// is what --timings reports; the run's sweep must complete (the scenario's expectations hold).
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../infra/functions.js';
import { scaleScenarioText } from '../../scripts/make-scale-scenario.js';
import { median, type BenchResult } from './support/results.js';
import type { BenchFigures, BenchOutput } from './run.js';

const NODES = Number(process.env['SIMULATE_BENCH_NODES'] ?? 100_000);
const RUNS = Number(process.env['SIMULATE_BENCH_RUNS'] ?? 3);
const run = promisify(execFile);

export default async function simulateAtScale(): Promise<BenchOutput> {
  const dir = await mkdtemp(join(tmpdir(), 'simulate-bench-'));
  const figures: BenchFigures = {};
  try {
    const file = join(dir, `scale-${NODES}.json`);
    await writeFile(file, scaleScenarioText({ nodes: NODES }));
    const seeds: number[] = [];
    const walls: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      const { stdout, stderr } = await run(
        process.execPath,
        [join(PROJECT_ROOT, 'bin', 'ec2-node-reconciler.mjs'), 'simulate', file, '--check', '--timings'],
        {
          cwd: PROJECT_ROOT,
          maxBuffer: 64 * 1024 * 1024,
        },
      );
      walls.push((performance.now() - started) / 1000);
      const timings = /timings: load ([\d.]+) s, seed ([\d.]+) s, run ([\d.]+) s/.exec(stderr);
      if (!timings) throw new Error(`simulate printed no timings: ${stderr.slice(-500)}`);
      if (!/all \d+ expectation\(s\) hold|no expectations/.test(stdout))
        throw new Error(`simulate of ${NODES} nodes: ${stdout.slice(-1000)}`);
      seeds.push(Number(timings[2]));
      figures[`run${i + 1}`] = `${timings[0]}; ${stdout.trim().split('\n').at(-1) ?? ''}`;
    }
    figures['seedSeconds'] = median(seeds);
    figures['wallSeconds'] = Number(median(walls).toFixed(1));
    const results: BenchResult[] =
      NODES === 100_000
        ? [
            {
              name: 'simulate-100k-seed',
              unit: 's',
              value: Number(median(seeds).toFixed(2)),
              goal: 30,
              better: 'lower',
            },
          ]
        : [];
    return { figures, results };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
