// The chaos differential (issue #16): a scenario runs in two worlds at once, one plain and one with
// seeded faults on every API the stack calls and killed Lambda invocations. The worlds take the
// scenario's steps in lockstep: each step starts at the same moment in both (the world behind moves
// its clock up first), and a `settle` lasts as long in the faulted world as it took the plain one,
// so the inputs (events, sweeps, an operator's commands) come at the same moments in both, as the
// world outside does not wait for a struggling reconciler. When the steps are done the faults stop,
// and both worlds get the same tail: a settle, then rounds of (TAIL_SWEEP_EVERY_MS, sweep, settle),
// each sweep at the same moment in both — at least TAIL_SWEEPS, and more while a round changed
// either world, up to TAIL_MAX_SWEEPS — and a quiet TAIL_QUIET_MS. Then their end states must be
// identical, but where the scenario marks an outcome deadline-bound; and in each world every event
// must end once, taken or dead-lettered.
import type { LoadedScenario } from '../scenario/load.js';
import type { ScenarioStep } from '../scenario/schema.js';
import type { Operator, ReportView } from '../simulate/operator.js';
import { runStep } from '../simulate/run.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../simulate/sandbox.js';
import { accountDeadLetters } from './dead-letters.js';
import { Dice } from './dice.js';
import {
  compareEndStates,
  deadlineBoundSet,
  endState,
  seededIdentity,
  type Difference,
  type EndState,
  type SeededIdentity,
} from './end-state.js';
import { armChaos } from './inject.js';
import { ISSUE_16_CHAOS, type ChaosProfile, type FaultCounts } from './profile.js';

/** The sweeps (each followed by a settle) both worlds get after the faults stop, at least. */
export const TAIL_SWEEPS = 2;
/**
 * And at most: rounds go on while the last one changed either world's end state. An outcome that
 * takes a chain of sweeps (a repair: drain, mark Unhealthy, complete the hook, delete the Node —
 * one a sweep) and that faults set back by a sweep or two still ends, in both worlds; so does a
 * chain queued behind another (repair.maxParallel 1 with two machines to repair: two chains of
 * three sweeps one after the other, the first set back by two — six rounds that change the world,
 * and a seventh to see it quiet). A world still changing after this many is a problem of the run:
 * it never settled.
 */
export const TAIL_MAX_SWEEPS = 10;
/**
 * The time before each of them: the deployed schedule's rate (rate(10 minutes)), so that what a
 * late drain set going (a machine's shutdown after its lifecycle action completed) is over when
 * the sweep looks.
 */
export const TAIL_SWEEP_EVERY_MS = 600_000;
/**
 * Then both worlds wait this long with nothing but the cluster's own machinery at work (the pod GC
 * after 40 s, a kubelet re-registering within 10 s, a group's replacement running 30 s after
 * launch), so that what the last settle set going has happened in both.
 */
export const TAIL_QUIET_MS = 120_000;

export interface DifferentialOptions<Report extends ReportView> {
  readonly operator: Operator<Report>;
  readonly seed: number;
  /** @default ISSUE_16_CHAOS */
  readonly profile?: ChaosProfile;
  /** How both worlds are built (tests: an altered deployment). */
  readonly sandbox?: SandboxOptions;
  /** Looks at both worlds at the end, before they close (tests, and finding out why they differ). */
  readonly inspect?: (worlds: { readonly plain: Sandbox; readonly chaos: Sandbox }) => void | Promise<void>;
}

export interface DifferentialResult {
  readonly seed: number;
  /** Faults the chaos world met, by kind. */
  readonly injected: FaultCounts;
  readonly plain: EndState;
  readonly chaos: EndState;
  /** Differences no deadline-bound mark excuses: each one is a fault that changed an outcome. */
  readonly differences: readonly Difference[];
  /** Differences the scenario's deadline-bound marks excuse. */
  readonly excused: readonly Difference[];
  /** Events in each world's dead-letter queue (EventBridge ids). */
  readonly deadLetters: { readonly plain: readonly string[]; readonly chaos: readonly string[] };
  /** Broken event accounting in either world, or a poison event that faults made disappear. */
  readonly problems: readonly string[];
}

interface World {
  readonly sandbox: Sandbox;
  readonly seeded: SeededIdentity;
}

async function openWorlds(loaded: LoadedScenario, options: SandboxOptions | undefined): Promise<[World, World]> {
  const opened = await Promise.allSettled([
    startSandbox(loaded.scenario, options),
    startSandbox(loaded.scenario, options),
  ]);
  const [plain, chaos] = opened;
  if (plain.status === 'rejected' || chaos.status === 'rejected') {
    await Promise.all(opened.map((o) => (o.status === 'fulfilled' ? o.value.close() : Promise.resolve())));
    throw plain.status === 'rejected' ? plain.reason : chaos.status === 'rejected' ? chaos.reason : undefined;
  }
  return [
    { sandbox: plain.value, seeded: seededIdentity(plain.value) },
    { sandbox: chaos.value, seeded: seededIdentity(chaos.value) },
  ];
}

export async function runDifferential<Report extends ReportView>(
  loaded: LoadedScenario,
  options: DifferentialOptions<Report>,
): Promise<DifferentialResult> {
  const { operator, seed } = options;
  const worlds = await openWorlds(loaded, options.sandbox);
  const [plain, chaos] = worlds;
  try {
    const armed = armChaos(chaos.sandbox, options.profile ?? ISSUE_16_CHAOS, new Dice(seed));
    const step = (world: World, s: ScenarioStep, index: number) =>
      runStep(world.sandbox, operator, s, index, loaded.baseDir);
    const both = (s: ScenarioStep, index: number) => Promise.all(worlds.map((w) => step(w, s, index)));
    // The worlds go through the steps in lockstep, so every input comes at the same moment in both.
    for (const [index, s] of loaded.scenario.steps.entries()) {
      await align(worlds);
      if ('settle' in s) {
        // The world without faults says how long settling takes; the faulted one gets that long,
        // and whatever it has not finished goes on while the next steps come.
        await step(plain, s, index + 1);
        await chaos.sandbox.driver.advanceTo(plain.sandbox.clock.now());
      } else await both(s, index + 1);
    }
    armed.disarm();

    const tail = loaded.scenario.steps.length + 1;
    await both({ settle: {} }, tail);
    const unchanged = (world: World, before: EndState, after: EndState) =>
      compareEndStates(before, after, world.seeded, deadlineBoundSet([], world.seeded)).length === 0;
    let before = worlds.map((w) => endState(w.sandbox, w.seeded));
    let settled = false;
    for (let round = 1; round <= TAIL_MAX_SWEEPS && !settled; round++) {
      await align(worlds);
      await both({ advance: TAIL_SWEEP_EVERY_MS }, tail);
      await both({ sweep: {} }, tail);
      await both({ settle: {} }, tail);
      const after = worlds.map((w) => endState(w.sandbox, w.seeded));
      const quiet = worlds.every((w, i) => {
        const [was, is] = [before[i], after[i]];
        return was !== undefined && is !== undefined && unchanged(w, was, is);
      });
      before = after;
      settled = round >= TAIL_SWEEPS && quiet;
    }
    await align(worlds);
    await both({ advance: TAIL_QUIET_MS }, tail);

    const ends = { plain: endState(plain.sandbox, plain.seeded), chaos: endState(chaos.sandbox, chaos.seeded) };
    const all = compareEndStates(
      ends.plain,
      ends.chaos,
      plain.seeded,
      deadlineBoundSet(loaded.scenario.chaos?.deadlineBound ?? [], plain.seeded),
    );
    await options.inspect?.({ plain: plain.sandbox, chaos: chaos.sandbox });
    const letters = { plain: accountDeadLetters(plain.sandbox), chaos: accountDeadLetters(chaos.sandbox) };
    const vanished = letters.plain.deadLettered.filter((id) => !letters.chaos.deadLettered.includes(id));
    return {
      seed,
      injected: armed.injected,
      ...ends,
      differences: all.filter((d) => d.excusedBy === undefined),
      excused: all.filter((d) => d.excusedBy !== undefined),
      deadLetters: { plain: letters.plain.deadLettered, chaos: letters.chaos.deadLettered },
      problems: [
        // A world that still changes after the last round is not an end state: comparing it proves nothing.
        ...(settled ? [] : [`a world still changed in the last of ${TAIL_MAX_SWEEPS} tail rounds: it never settled`]),
        ...letters.plain.problems.map((p) => `plain: ${p}`),
        ...letters.chaos.problems.map((p) => `chaos: ${p}`),
        ...vanished.map((id) => `event ${id} is dead-lettered without faults but not with them`),
      ],
    };
  } finally {
    await Promise.all(worlds.map((w) => w.sandbox.close()));
  }
}

/** Moves the world that is behind up to the other's time. */
async function align(worlds: readonly World[]): Promise<void> {
  const at = Math.max(...worlds.map((w) => w.sandbox.clock.now()));
  await Promise.all(worlds.map((w) => w.sandbox.driver.advanceTo(at)));
}
