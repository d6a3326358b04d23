// The replay's skipped sweeps (packages/sandbox/src/simulate/sweep-skip.ts) change nothing: a generated
// history dense with every kind of episode (spot interruptions, scale-ins through the terminate hook,
// decommissions, stops and starts, maintenance notices, rebalance recommendations, and the noise around
// them) replayed with every sweep run and with the quiet ones left out gives the same actions on every
// node, the same drains and the same report, but for the count of sweeps left out.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenario } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { readHistory } from '@ec2-node-reconciler/sandbox/simulate/replay-events.js';
import { simulate, type Simulation } from '@ec2-node-reconciler/sandbox/simulate/run.js';
import { SKIPPED_NOTHING_CHANGED } from '@ec2-node-reconciler/sandbox/simulate/sweep-skip.js';
import { actionCounts } from '../../cli/format/replay.js';
import { formatSimulation } from '../../cli/format/simulation.js';
import { cliOperator } from '../../cli/simulation-operator.js';
import type { RunReport } from '../../lib/report/report.js';
import { replayHistoryText, replayWorldText } from '../../scripts/make-replay-history.js';

const NODES = 60;
const DAYS = 1;
/** Per node and month: with 60 nodes over a day, 4 spot interruptions, 4 scale-ins, 4 rebalance recommendations, 2 of each rarer kind. */
const RATES = { spot: 2, scaleIn: 2, rebalance: 2, decommission: 1, stopStart: 1, maintenance: 1 };

let dir: string;
let everySweep: Simulation<RunReport>;
let skipping: Simulation<RunReport>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replay-skip-'));
  await writeFile(join(dir, 'world.json'), replayWorldText({ nodes: NODES }));
  await writeFile(join(dir, 'history.jsonl'), replayHistoryText({ nodes: NODES, days: DAYS, rates: RATES }));
  const loaded = await loadScenario(join(dir, 'world.json'));
  const history = await readHistory(join(dir, 'history.jsonl'));
  const run = async (every: boolean) =>
    (await simulate(loaded, { operator: cliOperator, replay: history, everySweep: every })).simulation;
  everySweep = await run(true);
  skipping = await run(false);
}, 300_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const perNode = (sim: Simulation<RunReport>): Record<string, Record<string, number>> =>
  Object.fromEntries(
    [...actionCounts(sim)].map(([node, actions]) => [node, Object.fromEntries([...actions].sort())] as const).sort(),
  );
/** A drain as another run of the same world records it: its execution name ends in a hash of the Node's uid, which each world draws anew. */
const sameRun = (drain: Simulation<RunReport>['drains'][number]) => ({
  ...drain,
  execution: drain.execution.replace(/-[0-9a-f]{16}$/, ''),
});
/** The report as printed, the count of sweeps left out set aside. */
const printed = (sim: Simulation<RunReport>): string =>
  formatSimulation(sim.replay ? { ...sim, replay: { ...sim.replay, sweepsSkipped: {} } } : sim);

describe('a replay leaving out the sweeps that change nothing', () => {
  it('should leave out sweeps of a quiet world, and run those that act', () => {
    const replay = skipping.replay;
    expect(everySweep.replay?.sweepsSkipped).toEqual({});
    expect(replay?.sweeps).toBe(everySweep.replay?.sweeps);
    const skipped = replay?.sweepsSkipped[SKIPPED_NOTHING_CHANGED] ?? 0;
    expect(skipped).toBeGreaterThan(0);
    // Sweeps acted in this history (deletes of terminated machines' Nodes, own cordons undone): they ran.
    const sweepActions = (sim: Simulation<RunReport>) =>
      sim.steps.filter((s) => s.kind === 'sweep' && (s.report?.actions.length ?? 0) > 0).length;
    expect(sweepActions(everySweep)).toBeGreaterThan(0);
    expect(sweepActions(skipping)).toBe(sweepActions(everySweep));
  });

  it('should leave out sweeps whose plan only refuses without telling anyone (a delete waiting out its grace)', () => {
    const refusingOnly = (sim: Simulation<RunReport>) =>
      sim.steps.filter(
        (s) => s.kind === 'sweep' && s.report?.actions.length === 0 && (s.report.skipped.length ?? 0) > 0,
      ).length;
    expect(refusingOnly(everySweep)).toBeGreaterThan(0);
    expect(refusingOnly(skipping)).toBeLessThan(refusingOnly(everySweep));
  });

  it('should take the same actions on every node, episodes of every kind among them', () => {
    const actions = perNode(everySweep);
    const labels = new Set(Object.values(actions).flatMap((a) => Object.keys(a)));
    expect([...labels].sort()).toEqual(expect.arrayContaining(['cordon', 'delete', 'drain']));
    expect(perNode(skipping)).toEqual(actions);
  });

  it('should drain the same nodes the same way and end in the same world', () => {
    expect(skipping.drains.map(sameRun)).toEqual(everySweep.drains.map(sameRun));
    expect(skipping.after.rows).toEqual(everySweep.after.rows);
    expect(skipping.after.conditions).toEqual(everySweep.after.conditions);
  });

  it('should print the same report but for the sweeps it left out', () => {
    expect(printed(skipping)).toBe(printed(everySweep));
  });
});
