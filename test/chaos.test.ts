// The chaos differential (issue #16): every scenario in test/scenarios/ runs in a plain world and in
// one with seeded faults on every API the deployed stack calls (packages/sandbox/src/chaos/profile.ts),
// beside the plain run of test/scenarios.test.ts. After the faults stop both worlds get the same
// tail (TAIL_SWEEPS to TAIL_MAX_SWEEPS sweeps, each TAIL_SWEEP_EVERY_MS after the last, then TAIL_QUIET_MS), and their
// end states must be identical but where the scenario marks an outcome deadline-bound
// (`chaos.deadlineBound`, docs/scenarios.md); every event not processed must be in the DLQ.
//
// Each scenario's seed is derived from its file name and printed on failure; CHAOS_SEED=N runs every
// scenario with seed N (to reproduce a failure, or to try other draws).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runDifferential, type DifferentialResult } from '@ec2-node-reconciler/sandbox/chaos/differential.js';
import { seedOf } from '@ec2-node-reconciler/sandbox/chaos/dice.js';
import { FAULT_KINDS, noFaults } from '@ec2-node-reconciler/sandbox/chaos/profile.js';
import { loadScenario } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { cliOperator } from '../cli/simulation-operator.js';

const DIR = fileURLToPath(new URL('./scenarios/', import.meta.url));
const FILES = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'))
  .sort();

/**
 * Scenarios whose end state a fault still changes, each a defect found by this test and not yet
 * fixed (docs/sandbox.md). They are expected to differ: when one stops differing the
 * test says to remove it here. Never add one to make the run pass: fix the bug, or mark a truly
 * deadline-bound outcome in the scenario.
 */
const KNOWN_DIFFERENCES: Readonly<Record<string, string>> = {};

function seedFor(file: string): number {
  const override = process.env.CHAOS_SEED;
  if (override === undefined || override === '') return seedOf(file);
  const seed = Number(override);
  if (!Number.isSafeInteger(seed) || seed < 0)
    throw new Error(`CHAOS_SEED must be a non-negative integer, not ${override}`);
  return seed;
}

function describeFailure(file: string, result: DifferentialResult): string {
  const lines = [
    `${file} (seed ${result.seed}; reproduce with CHAOS_SEED=${result.seed} npx vitest run test/chaos.test.ts -t '${file}')`,
    `  faults: ${JSON.stringify(result.injected)}`,
    ...result.differences.map((d) => `  ✗ ${d.what}\n      plain: ${d.plain}\n      chaos: ${d.chaos}`),
    ...result.problems.map((p) => `  ! ${p}`),
  ];
  return lines.join('\n');
}

const totals = noFaults();
let scenariosRun = 0;

describe('chaos differential: a fault may delay an outcome, never change it', () => {
  afterAll(() => {
    // The closing note's "faults injected", by kind, over the whole run.
    console.log(`chaos differential: ${scenariosRun} scenarios, faults injected ${JSON.stringify(totals)}`);
  });

  for (const file of FILES) {
    const known = KNOWN_DIFFERENCES[file];
    it(known === undefined ? file : `${file} (KNOWN DIFFERENCE: ${known})`, async () => {
      const loaded = await loadScenario(join(DIR, file));
      const result = await runDifferential(loaded, { operator: cliOperator, seed: seedFor(file) });
      scenariosRun += 1;
      for (const kind of FAULT_KINDS) totals[kind] += result.injected[kind];
      const failed = result.differences.length > 0 || result.problems.length > 0;
      if (known !== undefined)
        expect(failed, `${file} no longer differs under faults: remove it from KNOWN_DIFFERENCES`).toBe(true);
      else expect(failed, describeFailure(file, result)).toBe(false);
    });
  }

  // Runs last (vitest keeps a file's tests in order): the run above met every kind of fault.
  it('injected every kind of fault somewhere in the run', (context) => {
    // A filtered run (-t) proves nothing about the whole.
    if (scenariosRun < FILES.length) context.skip(`only ${scenariosRun} of ${FILES.length} scenarios ran`);
    expect(FAULT_KINDS.filter((kind) => totals[kind] === 0)).toEqual([]);
  });
});
