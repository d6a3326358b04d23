// Runs a scenario's steps through the same code the Lambdas run: events through the event path,
// sweeps through the sweep path, drains through the same drain step the workflow loops.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { runSignals, runSweep } from '../../pipeline/run.js';
import type { RunReport } from '../../report/report.js';
import { parseEvent, SignalRejection } from '../../signals/index.js';
import type { LoadedScenario } from '../scenario/load.js';
import type { ScenarioStep } from '../scenario/schema.js';
import { applyEventEffects } from './event-effects.js';
import { checkExpectations, type ExpectationResult } from './expect.js';
import type { DrainRun, LifecycleOutcome } from './local-drains.js';
import { startSandbox, type Sandbox } from './world.js';

export type StepRecord =
  | { readonly step: number; readonly at: number; readonly kind: 'sweep'; readonly report: RunReport }
  | { readonly step: number; readonly at: number; readonly kind: 'event'; readonly detailType: string; readonly report?: RunReport; readonly ignored?: string; readonly rejected?: string }
  | { readonly step: number; readonly at: number; readonly kind: 'advance'; readonly ms: number }
  | { readonly step: number; readonly at: number; readonly kind: 'settle' };

export interface DrainRecord {
  readonly node: string;
  readonly instanceId?: string;
  readonly status: DrainRun['status'];
  readonly startedAt: number;
  readonly finishedAt?: number;
  readonly steps: number;
  /** Pods this drain evicted (or deleted), terminating ones included. */
  readonly evicted: number;
  /** Of those, still terminating when the drain ended. */
  readonly terminating: number;
  /** Pods left on the node that the drain had to remove: refused, blocked, not yet evicted. */
  readonly left: number;
  /** The pods left, by reason code. */
  readonly leftByReason: Readonly<Record<string, number>>;
  /** Every pod left that waiting could not help, with why. */
  readonly blocked: readonly string[];
  /** Every pod evicted with a grace period shortened to fit the deadline: `namespace/name 300s→115s`. */
  readonly graceShortened: readonly string[];
  readonly lifecycle?: LifecycleOutcome;
  readonly error?: string;
}

export interface Simulation {
  readonly name: string;
  readonly start: number;
  /** Classification before the first step and after the last (dry-run sweeps: nothing mutated). */
  readonly before: RunReport;
  readonly after: RunReport;
  readonly steps: readonly StepRecord[];
  readonly drains: readonly DrainRecord[];
  readonly expectations?: ExpectationResult;
}

async function readEvent(step: Extract<ScenarioStep, { event: unknown }>, baseDir: string): Promise<unknown> {
  if ('inline' in step.event) return step.event.inline;
  const path = resolve(baseDir, step.event.file);
  return JSON.parse(await readFile(path, 'utf8')) as unknown;
}

async function runStep(sandbox: Sandbox, step: ScenarioStep, index: number, baseDir: string): Promise<StepRecord> {
  const at = sandbox.clock.now();
  if ('sweep' in step) return { step: index, at, kind: 'sweep', report: await runSweep(await sandbox.deps(), { region: sandbox.scenario.cluster.region, accountId: sandbox.scenario.cluster.accountId }) };
  if ('advance' in step) {
    await sandbox.drains.runUntil(at + step.advance);
    return { step: index, at, kind: 'advance', ms: step.advance };
  }
  if ('settle' in step) {
    await sandbox.drains.settle();
    return { step: index, at, kind: 'settle' };
  }
  const event = await readEvent(step, baseDir);
  const detailType = typeof event === 'object' && event !== null && 'detail-type' in event ? String(event['detail-type']) : '(unknown)';
  try {
    const parsed = parseEvent(event);
    // The event reports what AWS did (or will do): EC2 must agree before the reconciler looks.
    applyEventEffects(sandbox, event);
    if (parsed.outcome === 'ignored') return { step: index, at, kind: 'event', detailType, ignored: parsed.reason };
    return { step: index, at, kind: 'event', detailType, report: await runSignals(await sandbox.deps(), parsed.signals, { region: sandbox.scenario.cluster.region, accountId: sandbox.scenario.cluster.accountId }) };
  } catch (error) {
    // A rejected event would be a failed SQS record (→ DLQ); the scenario goes on, as the queue does.
    if (error instanceof SignalRejection) return { step: index, at, kind: 'event', detailType, rejected: error.message };
    throw error;
  }
}

function drainRecord(run: DrainRun, startedAt: number): DrainRecord {
  const counts = run.last?.counts;
  return {
    node: run.input.node,
    ...(run.input.instanceId ? { instanceId: run.input.instanceId } : {}),
    status: run.status,
    startedAt,
    ...(run.finishedAt !== undefined ? { finishedAt: run.finishedAt } : {}),
    steps: run.steps,
    evicted: (counts?.evicted ?? 0) + (counts?.deleted ?? 0),
    terminating: (run.last?.pods ?? []).filter((p) => p.status === 'terminating' && p.removal !== undefined).length,
    left: counts?.left ?? 0,
    leftByReason: run.output?.summary.leftByReason ?? {},
    blocked: (run.last?.blocked ?? []).map((b) => `${b.pod.namespace}/${b.pod.name}: ${b.reason}`),
    graceShortened: (run.last?.pods ?? []).flatMap((p) => (p.grace ? [`${p.pod.namespace}/${p.pod.name} ${p.grace.pod}s→${p.grace.given}s`] : [])),
    ...(run.lifecycle ? { lifecycle: run.lifecycle } : {}),
    ...(run.error ? { error: run.error } : {}),
  };
}

/** A dry-run sweep: what the reconciler sees, without acting on it. */
async function snapshot(sandbox: Sandbox): Promise<RunReport> {
  return runSweep(await sandbox.deps({ ...sandbox.settings, dryRun: true }), { region: sandbox.scenario.cluster.region, accountId: sandbox.scenario.cluster.accountId });
}

export interface SimulateOptions {
  /** Keep the emulators running (the caller closes the returned sandbox). */
  readonly keepOpen?: boolean;
}

export async function simulate(loaded: LoadedScenario, options: SimulateOptions = {}): Promise<{ simulation: Simulation; sandbox: Sandbox }> {
  const sandbox = await startSandbox(loaded.scenario, { tls: options.keepOpen === true });
  try {
    const launchedAt = new Map<string, number>();
    const before = await snapshot(sandbox);
    const steps: StepRecord[] = [];
    for (const [index, step] of loaded.scenario.steps.entries()) {
      const known = new Set(sandbox.drains.runs.keys());
      steps.push(await runStep(sandbox, step, index + 1, loaded.baseDir));
      for (const name of sandbox.drains.runs.keys()) if (!known.has(name)) launchedAt.set(name, steps.at(-1)?.at ?? sandbox.clock.now());
    }
    const after = await snapshot(sandbox);
    const drains = [...sandbox.drains.runs.values()].map((run) => drainRecord(run, launchedAt.get(run.name) ?? sandbox.start));
    const expectations = loaded.scenario.expect ? checkExpectations(sandbox, loaded.scenario.expect, steps) : undefined;
    return { simulation: { name: loaded.scenario.name, start: sandbox.start, before, after, steps, drains, ...(expectations ? { expectations } : {}) }, sandbox };
  } finally {
    if (!options.keepOpen) await sandbox.close();
  }
}
