// `npm run bench drain-parity`: kubectl drain and lib/drain on two identical emulated clusters,
// run one after the other (not concurrently) so that wall times are not shared.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectlDrainArgs, runParity, type DrainFigures, type ParityScenario } from '../drain/support/parity.js';
import type { BenchResult } from './support/results.js';
import type { BenchFigures, BenchOutput } from './run.js';

const SCENARIOS: Record<string, ParityScenario> = {
  drainable: { blockingPdb: false, timeoutSeconds: 30, graceSeconds: 1 },
  'pdb-blocked': { blockingPdb: true, timeoutSeconds: 6, graceSeconds: 1 },
  // 100 more pods: a full node (110 pods) with the same mix.
  'full-node': { blockingPdb: false, timeoutSeconds: 60, graceSeconds: 2, extraPods: 100 },
};

const breakdown = (f: DrainFigures): string =>
  Object.entries(f.byKind)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([kind, n]) => `${kind}=${n}`)
    .join(', ');

export default async function drainParity(): Promise<BenchOutput> {
  const dir = await mkdtemp(join(tmpdir(), 'drain-parity-bench-'));
  const out: BenchFigures = { command: `kubectl ${kubectlDrainArgs(30).join(' ')}` };
  const results: BenchResult[] = [];
  try {
    for (const [name, scenario] of Object.entries(SCENARIOS)) {
      const { kubectl, ours } = await runParity(scenario, dir);
      out[`${name}.sameEndState`] = JSON.stringify(kubectl.endState) === JSON.stringify(ours.endState);
      out[`${name}.kubectl.wallMs`] = kubectl.wallMs;
      out[`${name}.ours.wallMs`] = ours.wallMs;
      out[`${name}.kubectl.requests`] = kubectl.requests;
      out[`${name}.ours.requests`] = ours.requests;
      out[`${name}.kubectl.byKind`] = breakdown(kubectl);
      out[`${name}.ours.byKind`] = breakdown(ours);
      out[`${name}.kubectl.exitCode`] = kubectl.exitCode;
      out[`${name}.ours.status`] = ours.result.status;
      if (name === 'full-node') {
        // Side by side in this one run: a full node's drain, ours against kubectl's.
        if (JSON.stringify(kubectl.endState) !== JSON.stringify(ours.endState))
          throw new Error('full-node: the two drains ended differently');
        const ratio = (a: number, b: number): number => Number((a / b).toFixed(2));
        results.push(
          {
            name: 'drain-110-pods-wall-ratio-vs-kubectl',
            unit: 'x',
            value: ratio(ours.wallMs, kubectl.wallMs),
            goal: 1.0,
            better: 'lower',
          },
          {
            name: 'drain-110-pods-requests-ratio-vs-kubectl',
            unit: 'x',
            value: ratio(ours.requests, kubectl.requests),
            goal: 1.0,
            better: 'lower',
          },
        );
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return { figures: out, results };
}
