// `npm run bench replay`: `simulate --replay` of a generated month of events (scripts/make-replay-history.ts:
// 10,000 and more over 1,000 nodes) through the CLI as a user runs it. The result is the command's
// wall time; the replay must have fed every event and fired the deployed schedule's sweeps throughout
// (those that provably change nothing are counted, not run: docs/what-if.md).
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../infra/functions.js';
import { replayHistoryText, replayWorldText } from '../../scripts/make-replay-history.js';
import type { BenchResult } from './support/results.js';
import type { BenchFigures, BenchOutput } from './run.js';

const NODES = Number(process.env['REPLAY_BENCH_NODES'] ?? 1000);
const DAYS = Number(process.env['REPLAY_BENCH_DAYS'] ?? 30);
const run = promisify(execFile);

export default async function replayMonth(): Promise<BenchOutput> {
  const dir = await mkdtemp(join(tmpdir(), 'replay-bench-'));
  const figures: BenchFigures = {};
  try {
    const world = join(dir, 'world.json');
    const history = join(dir, 'history.jsonl');
    const text = replayHistoryText({ nodes: NODES, days: DAYS });
    await Promise.all([writeFile(world, replayWorldText({ nodes: NODES })), writeFile(history, text)]);
    const events = text.split('\n').filter((line) => line !== '').length;
    const started = performance.now();
    const { stdout, stderr } = await run(
      process.execPath,
      [join(PROJECT_ROOT, 'bin', 'ec2-node-reconciler.mjs'), 'simulate', world, '--replay', history, '--timings'],
      { cwd: PROJECT_ROOT, maxBuffer: 256 * 1024 * 1024 },
    );
    const wall = (performance.now() - started) / 1000;
    const fed = /events +(\d+) fed, (\d+) matched a rule/.exec(stdout);
    const sweeps = /; (\d+) sweep\(s\), one every (\d+) min/.exec(stdout);
    if (!fed || Number(fed[1]) !== events || !sweeps)
      throw new Error(`the replay of ${events} events did not feed them all: ${stdout.slice(-2000)}`);
    figures['events'] = events;
    figures['matched'] = Number(fed[2]);
    figures['sweeps'] = `${sweeps[1] ?? ''} (every ${sweeps[2] ?? ''} min)`;
    // How many ran through the deployed stack; the rest provably changed nothing (sweep-skip.ts).
    figures['sweepsRun'] = /^ {2}sweeps +(\d+ run, \d+ skipped)/m.exec(stdout)?.[1] ?? '';
    figures['timings'] = /timings: (.*)/.exec(stderr)?.[1] ?? '';
    figures['actions'] = /^ {2}actions +(.*)$/m.exec(stdout)?.[1] ?? '';
    figures['wallSeconds'] = Number(wall.toFixed(1));
    const results: BenchResult[] =
      NODES === 1000 && DAYS === 30
        ? [{ name: 'replay-30d-1k-nodes', unit: 's', value: Number(wall.toFixed(1)), goal: 60, better: 'lower' }]
        : [];
    return { figures, results };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
