// Runs a scenario's steps through the same code the Lambdas run: events through the signal queue
// into the events function's record handler, sweeps through the sweep path, drains through the same
// drain step the workflow loops.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { runOperatorDrain } from '../../drain/operator-drain.js';
import { EventRecordFailure, handleEventRecord } from '../../lambda/handle-event-record.js';
import { errorText } from '../../pipeline/errors.js';
import { runSweep } from '../../pipeline/run.js';
import type { RunReport } from '../../report/report.js';
import { parseEvent, SignalRejection } from '../../signals/index.js';
import type { LoadedScenario } from '../scenario/load.js';
import type { ScenarioStep } from '../scenario/schema.js';
import { applyEventEffects } from './event-effects.js';
import { checkExpectations, type ExpectationResult } from './expect.js';
import type { DrainRun, LifecycleOutcome } from './local-drains.js';
import type { QueuedSignal } from './signal-queue.js';
import { startSandbox, type Sandbox } from './world.js';

export type StepRecord =
  | { readonly step: number; readonly at: number; readonly kind: 'sweep'; readonly report: RunReport }
  | {
      readonly step: number;
      readonly at: number;
      readonly kind: 'event';
      readonly detailType: string;
      /** Which receive of the record this was (1 = first delivery; more after failures). */
      readonly attempt: number;
      readonly report?: RunReport;
      readonly ignored?: string;
      /** A poison event: the record fails on every receive and ends in the dead-letter queue. */
      readonly rejected?: string;
      /** The record failed this time and comes back after the visibility timeout. */
      readonly failed?: string;
      /** The record moved to the dead-letter queue. */
      readonly deadLettered?: boolean;
    }
  | { readonly step: number; readonly at: number; readonly kind: 'advance'; readonly ms: number }
  | { readonly step: number; readonly at: number; readonly kind: 'settle' }
  | { readonly step: number; readonly at: number; readonly kind: 'drain'; readonly node: string; readonly status: string; readonly message?: string }
  | { readonly step: number; readonly at: number; readonly kind: 'cordon' | 'uncordon'; readonly node: string };

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

const place = (sandbox: Sandbox) => ({ region: sandbox.scenario.cluster.region, accountId: sandbox.scenario.cluster.accountId });

/** The events function's logger, quiet: the timeline says what happened. */
const quietLogger = { info: () => undefined, appendKeys: () => undefined, removeKeys: () => undefined };

/** One receive of one record by the events function (the same code the Lambda runs). */
async function deliver(sandbox: Sandbox, record: QueuedSignal, step: number): Promise<StepRecord> {
  const base = { step, at: sandbox.clock.now(), kind: 'event' as const, detailType: record.detailType, attempt: record.receives };
  try {
    const parsed = parseEvent(record.event);
    if (parsed.outcome === 'ignored') {
      sandbox.queue.delete(record);
      return { ...base, ignored: parsed.reason };
    }
    const lastReceive = record.receives >= sandbox.queue.maxReceiveCount;
    const report = await handleEventRecord(JSON.stringify(record.event), () => sandbox.deps(), quietLogger, place(sandbox), { lastReceive });
    sandbox.queue.delete(record);
    return { ...base, ...(report ? { report } : {}) };
  } catch (error) {
    sandbox.queue.fail(record, errorText(error));
    if (error instanceof SignalRejection) return { ...base, rejected: error.message };
    return { ...base, failed: errorText(error), ...(error instanceof EventRecordFailure ? { report: error.report } : {}) };
  }
}

/** Receives what the queue holds now: redeliveries, and records moving to the dead-letter queue. */
async function drainQueue(sandbox: Sandbox, step: number): Promise<StepRecord[]> {
  const dead = sandbox.queue.deadLetters.length;
  const received = sandbox.queue.receive(sandbox.clock.now());
  const records: StepRecord[] = sandbox.queue.deadLetters.slice(dead).map((d) => ({
    step,
    at: d.at,
    kind: 'event' as const,
    detailType: d.detailType,
    attempt: d.receives,
    deadLettered: true,
    ...(d.lastError !== undefined ? { failed: d.lastError } : {}),
  }));
  for (const record of received) records.push(await deliver(sandbox, record, step));
  return records;
}

/** Moves the world to `until`: drains step, the queue redelivers, in time order. */
async function advanceTo(sandbox: Sandbox, until: number, step: number): Promise<StepRecord[]> {
  const records: StepRecord[] = [];
  for (let next = sandbox.queue.nextVisibleAt(); next !== undefined && next <= until; next = sandbox.queue.nextVisibleAt()) {
    await sandbox.drains.runUntil(Math.max(next, sandbox.clock.now()));
    records.push(...(await drainQueue(sandbox, step)));
  }
  await sandbox.drains.runUntil(until);
  return records;
}

/** Runs every drain to its end and lets the queue deliver or dead-letter every record. */
async function settle(sandbox: Sandbox, step: number): Promise<StepRecord[]> {
  const records: StepRecord[] = [];
  for (let guard = 0; guard < 1_000; guard++) {
    await sandbox.drains.settle();
    const next = sandbox.queue.nextVisibleAt();
    if (next === undefined) return records;
    records.push(...(await advanceTo(sandbox, Math.max(next, sandbox.clock.now()), step)));
  }
  throw new Error('settling: the signal queue never emptied');
}

async function runStep(sandbox: Sandbox, step: ScenarioStep, index: number, baseDir: string): Promise<StepRecord[]> {
  const at = sandbox.clock.now();
  if ('sweep' in step) return [{ step: index, at, kind: 'sweep', report: await runSweep(await sandbox.deps(), place(sandbox)) }];
  if ('advance' in step) return [{ step: index, at, kind: 'advance', ms: step.advance }, ...(await advanceTo(sandbox, at + step.advance, index))];
  if ('settle' in step) return [{ step: index, at, kind: 'settle' }, ...(await settle(sandbox, index))];
  if ('drain' in step) {
    // The CLI's drain: the operator's cordon, then kubectl drain semantics until done or drainTimeout.
    const result = await runOperatorDrain(await sandbox.drainDeps(), { node: step.drain.node, reason: step.drain.reason ?? 'manual drain', timeoutMs: sandbox.settings.drainTimeout });
    return [{ step: index, at, kind: 'drain', node: step.drain.node, status: result.status, ...(result.message ? { message: result.message } : {}) }];
  }
  if ('cordon' in step || 'uncordon' in step) {
    // kubectl cordon / uncordon: spec.unschedulable and nothing else.
    const node = 'cordon' in step ? step.cordon : step.uncordon;
    const store = sandbox.kube.store;
    store.patch(store.resource('nodes'), undefined, node, 'application/strategic-merge-patch+json', { spec: { unschedulable: 'cordon' in step ? true : null } });
    return [{ step: index, at, kind: 'cordon' in step ? 'cordon' : 'uncordon', node }];
  }
  const event = await readEvent(step, baseDir);
  const detailType = typeof event === 'object' && event !== null && 'detail-type' in event ? String(event['detail-type']) : '(unknown)';
  try {
    parseEvent(event);
    // The event reports what AWS did (or will do): EC2 must agree before the reconciler looks.
    applyEventEffects(sandbox, event);
  } catch (error) {
    if (!(error instanceof SignalRejection)) throw error;
  }
  // The rule puts it on the queue; the events function takes it from there (and gets it again after a failure).
  sandbox.queue.send(event, detailType, at);
  return drainQueue(sandbox, index);
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

/** Wall milliseconds of a simulation's phases: seeding the emulators, then the sweeps and steps. */
export interface SimulationTimings {
  readonly seedMs: number;
  readonly runMs: number;
}

export async function simulate(loaded: LoadedScenario, options: SimulateOptions = {}): Promise<{ simulation: Simulation; sandbox: Sandbox; timings: SimulationTimings }> {
  const seedStart = performance.now();
  const sandbox = await startSandbox(loaded.scenario, { tls: options.keepOpen === true });
  const seedMs = performance.now() - seedStart;
  try {
    const before = await snapshot(sandbox);
    const steps: StepRecord[] = [];
    for (const [index, step] of loaded.scenario.steps.entries()) {
      steps.push(...(await runStep(sandbox, step, index + 1, loaded.baseDir)));
    }
    const after = await snapshot(sandbox);
    const drains = [...sandbox.drains.runs.values()].map((run) => drainRecord(run, run.launchedAt));
    const expectations = loaded.scenario.expect ? checkExpectations(sandbox, loaded.scenario.expect, steps) : undefined;
    return {
      simulation: { name: loaded.scenario.name, start: sandbox.start, before, after, steps, drains, ...(expectations ? { expectations } : {}) },
      sandbox,
      timings: { seedMs, runMs: performance.now() - seedStart - seedMs },
    };
  } finally {
    if (!options.keepOpen) await sandbox.close();
  }
}
