// Runs a scenario's steps against the deployed stack (sandbox.ts): an `event` goes on the bus and the
// stack's rules, queue and events function take it from there; a `sweep` is the schedule firing;
// `advance` and `settle` move the clock while the functions, the queue and the drain workflow do
// what they do; `drain`, `cordon` and `uncordon` are an operator at the keyboard.
import { denialsOf } from './denials.js';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { EVENT_RECORD_LOG, SIGNAL_REJECTION_NAME } from '@ec2-node-reconciler/model/contract/function-logs.js';
import type { AsyncInvocation } from '../deployed/lambda-service.js';
import type { Delivery } from '../deployed/queue-poller.js';
import type { LoadedScenario } from '../scenario/load.js';
import type { ScenarioStep } from '../scenario/schema.js';
import { errorText } from '@ec2-node-reconciler/model/error-text.js';
import { StatusError } from '../kube/errors.js';
import { drainRecords } from './drain-records.js';
import { applyEventEffects } from './event-effects.js';
import { checkExpectations } from './expect.js';
import { functionLogLines } from './function-logs.js';
import { postCondition } from './node-health.js';
import type { Operator, ReportView } from './operator.js';
import { startSandbox, type Sandbox, type SandboxOptions } from './sandbox.js';
import type { History } from './replay-events.js';
import { replayScenario, runReplay } from './replay.js';

export type { DrainRecord } from './drain-records.js';
import type { ReplaySummary, Simulation, StepRecord } from './records.js';

export type { ReplaySummary, Simulation, StepRecord };

async function readEvent(step: Extract<ScenarioStep, { event: unknown }>, baseDir: string): Promise<unknown> {
  if ('inline' in step.event) return step.event.inline;
  const path = resolve(baseDir, step.event.file);
  return JSON.parse(await readFile(path, 'utf8')) as unknown;
}

/** An `events` step's events: inline, or a file holding a JSON array of them. */
async function readEvents(step: Extract<ScenarioStep, { events: unknown }>, baseDir: string): Promise<unknown[]> {
  if ('inline' in step.events) return step.events.inline;
  const path = resolve(baseDir, step.events.file);
  const events = JSON.parse(await readFile(path, 'utf8')) as unknown;
  if (!Array.isArray(events)) throw new Error(`${step.events.file}: expected a JSON array of EventBridge events`);
  return events as unknown[];
}

const detailTypeOf = (event: unknown): string =>
  isRecord(event) && typeof event['detail-type'] === 'string' ? event['detail-type'] : '(unknown)';

/**
 * Puts events on the bus each at its own `time` (now, when that has passed or cannot be read), as
 * EC2 sends a storm of them, applying what each stands for then; the step lasts until every copy
 * the rules queued has been delivered once. Events no rule matches are recorded as dropped.
 */
async function runEvents<Report extends ReportView>(
  sandbox: Sandbox,
  events: readonly unknown[],
  index: number,
): Promise<StepRecord<Report>[]> {
  const { clock, driver, queue, poller } = sandbox;
  const deliveredFrom = poller.deliveries.length;
  const dropped: StepRecord<Report>[] = [];
  let sent = 0;
  let waiting = events.length;
  const put = (event: unknown): void => {
    waiting -= 1;
    applyEventEffects(sandbox, event);
    const before = queue.size;
    if (sandbox.putEvent(event).length === 0)
      dropped.push({
        step: index,
        at: clock.now(),
        kind: 'event',
        detailType: detailTypeOf(event),
        attempt: 0,
        ignored: 'no rule of the stack matches it: EventBridge drops it',
      });
    sent += queue.size - before;
  };
  for (const event of events) {
    const at = isRecord(event) && typeof event['time'] === 'string' ? Date.parse(event['time']) : Number.NaN;
    if (Number.isFinite(at) && at > clock.now()) clock.schedule(at, () => put(event));
    else put(event);
  }
  if (!poller.polling) {
    await driver.runUntil(() => waiting === 0, 'putting the events on the bus');
    return dropped;
  }
  await driver.runUntil(
    () => waiting === 0 && poller.deliveries.slice(deliveredFrom).filter((d) => d.attempt === 1).length >= sent,
    'delivering the events',
  );
  return dropped;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** What the events function did with one message on one receive, read from its log lines. */
/** Instance ids wherever an event names them (resources' ARNs, detail's instance-id or EC2InstanceId). */
const INSTANCE_IDS = /\bi-(?:[0-9a-f]{17}|[0-9a-f]{8})\b/g;

function deliveryRecord<Report extends ReportView>(
  delivery: Delivery,
  step: number,
  operator: Operator<Report>,
): StepRecord<Report> {
  const event = isRecord(delivery.message.event) ? delivery.message.event : {};
  const instanceIds = [...new Set(delivery.message.body.match(INSTANCE_IDS) ?? [])];
  const base = {
    step,
    at: delivery.at,
    kind: 'event' as const,
    detailType: delivery.message.detailType,
    ...(typeof event.id === 'string' ? { eventId: event.id } : {}),
    ...(instanceIds.length > 0 ? { instanceIds } : {}),
    attempt: delivery.attempt,
  };
  if (delivery.deadLettered)
    return {
      ...base,
      deadLettered: true,
      ...(delivery.batchError !== undefined ? { failed: delivery.batchError } : {}),
    };
  const lines = delivery.invocation
    ? functionLogLines(delivery.invocation.logs).filter((line) => line.messageId === delivery.message.messageId)
    : [];
  const ignored = lines.find((line) => line.message === EVENT_RECORD_LOG.ignored);
  const reconciled = lines.find((line) => line.message === EVENT_RECORD_LOG.reconciled);
  const failure = lines.find((line) => line.message === EVENT_RECORD_LOG.failed);
  const report = operator.readReport(reconciled?.report);
  const error = isRecord(failure?.error) ? failure.error : undefined;
  const loggedError = error
    ? `${typeof error.name === 'string' ? error.name : 'Error'}: ${typeof error.message === 'string' ? error.message : ''}`
    : undefined;
  if (delivery.succeeded)
    return {
      ...base,
      ...(report ? { report } : {}),
      ...(ignored ? { ignored: typeof ignored.reason === 'string' ? ignored.reason : 'ignored' } : {}),
    };
  if (error?.name === SIGNAL_REJECTION_NAME)
    return { ...base, rejected: typeof error.message === 'string' ? error.message : String(loggedError) };
  return { ...base, failed: loggedError ?? delivery.batchError ?? 'failed', ...(report ? { report } : {}) };
}

/** The operator's drains running in the background (`drain: { background: true }`), per sandbox. */
const backgroundDrains = new WeakMap<Sandbox, number>();

/** Whether anything is still going on that only time will finish: a drain, a queued message, an asynchronous invocation. */
export const pending = (sandbox: Sandbox): boolean =>
  (backgroundDrains.get(sandbox) ?? 0) > 0 ||
  sandbox.stepFunctions.running > 0 ||
  sandbox.lambda.asyncPending > 0 ||
  (sandbox.poller.polling && sandbox.queue.size > 0);

/** What a killed operator's waits end with: the process is gone, nothing it had yet to do is done. */
class OperatorKilled extends Error {
  override readonly name = 'OperatorKilled';
}

type DrainStep = Extract<ScenarioStep, { drain: unknown }>['drain'];

/**
 * The CLI's drain, as the operator runs it: the operator's cordon, then kubectl drain semantics until
 * done or drainTimeout. Its waits are on the virtual clock: in the foreground they move it (the step
 * lasts as long as the drain); in the background they wait for the later steps to move it, and the
 * sandbox counts the drain as running work whenever it is not waiting. With `killAfter`, the wait that
 * would end at or past that moment ends it there by killing the process, as a Ctrl-C would: nothing
 * after it runs, and what the drain wrote on the Node stays as it was.
 */
async function runOperatorDrainStep<Report extends ReportView>(
  sandbox: Sandbox,
  operator: Operator<Report>,
  drain: DrainStep,
  index: number,
): Promise<StepRecord<Report>[]> {
  const { clock, driver, activity } = sandbox;
  const at = clock.now();
  const killAt = drain.killAfter !== undefined ? at + drain.killAfter : undefined;
  const background = drain.background === true;
  const waitUntil = (until: number): Promise<void> =>
    background
      ? new Promise<void>((resolve) => {
          activity.release();
          clock.schedule(until, () => {
            activity.acquire();
            resolve();
          });
        })
      : driver.advanceTo(until);
  const sleep = async (ms: number): Promise<void> => {
    const until = clock.now() + ms;
    if (killAt !== undefined && until >= killAt) {
      await waitUntil(killAt);
      throw new OperatorKilled(`the operator's drain of ${drain.node} was killed at ${new Date(killAt).toISOString()}`);
    }
    await waitUntil(until);
  };
  const run = async (): Promise<{ status: string; message?: string }> => {
    try {
      return await operator.drain(
        { ...sandbox.operatorAccess(), sleep },
        { node: drain.node, reason: drain.reason ?? 'manual drain', timeoutMs: sandbox.settings.drainTimeout },
      );
    } catch (error) {
      if (error instanceof OperatorKilled) return { status: 'killed', message: error.message };
      // What the CLI would print before exiting with an error (an API call refused or failed): the
      // operator's command failed, and the world goes on.
      return { status: 'failed', message: errorText(error) };
    }
  };
  const record = (result: { status: string; message?: string }): StepRecord<Report>[] => [
    {
      step: index,
      at,
      kind: 'drain',
      node: drain.node,
      status: result.status,
      ...(result.message ? { message: result.message } : {}),
    },
  ];
  if (!background) return record(await run());
  backgroundDrains.set(sandbox, (backgroundDrains.get(sandbox) ?? 0) + 1);
  activity.acquire();
  void run()
    .catch(() => undefined)
    .finally(() => {
      activity.release();
      backgroundDrains.set(sandbox, (backgroundDrains.get(sandbox) ?? 1) - 1);
    });
  await driver.quiesce();
  return record({ status: 'running in the background' });
}

/** Runs one step (the chaos differential runs a scenario's steps and its own tail through here). */
export async function runStep<Report extends ReportView>(
  sandbox: Sandbox,
  operator: Operator<Report>,
  step: ScenarioStep,
  index: number,
  baseDir: string,
): Promise<StepRecord<Report>[]> {
  const { driver, clock } = sandbox;
  const at = clock.now();
  if ('sweep' in step) {
    const invocation = sandbox.scheduledSweep();
    await driver.runUntil(() => invocation.results.length > 0 || invocation.status !== 'queued', 'the scheduled sweep');
    return [{ step: index, at, kind: 'sweep', ...sweepOutcome(invocation, operator) }];
  }
  if ('advance' in step) {
    await driver.advanceTo(at + step.advance);
    return [{ step: index, at, kind: 'advance', ms: step.advance }];
  }
  if ('settle' in step) {
    await driver.runUntil(() => !pending(sandbox), 'settling');
    return [{ step: index, at, kind: 'settle' }];
  }
  if ('drain' in step) return runOperatorDrainStep(sandbox, operator, step.drain, index);
  if ('cordon' in step || 'uncordon' in step) {
    // kubectl cordon / uncordon: spec.unschedulable and nothing else.
    const node = 'cordon' in step ? step.cordon : step.uncordon;
    const store = sandbox.kube.store;
    const kind = 'cordon' in step ? 'cordon' : 'uncordon';
    try {
      // kubectl sends no fieldManager: the server names the writer after its User-Agent, `kubectl`.
      store.patch(
        store.resource('nodes'),
        undefined,
        node,
        'application/strategic-merge-patch+json',
        { spec: { unschedulable: 'cordon' in step ? true : null } },
        { manager: 'kubectl' },
      );
    } catch (error) {
      // The API refused it (a Node deleted by now): kubectl says so and exits 1; the world goes on.
      if (!(error instanceof StatusError)) throw error;
      return [
        { step: index, at, kind, node, failed: `Error from server (${error.reason ?? error.code}): ${error.message}` },
      ];
    }
    await driver.quiesce();
    return [{ step: index, at, kind, node }];
  }
  if ('condition' in step) {
    postCondition(sandbox, step.condition);
    return [{ step: index, at, kind: 'condition', ...step.condition }];
  }
  if ('events' in step) return runEvents(sandbox, await readEvents(step, baseDir), index);
  const event = await readEvent(step, baseDir);
  // The event reports what AWS did (or will do): EC2 must agree before the reconciler looks.
  applyEventEffects(sandbox, event);
  const before = sandbox.queue.size;
  const matched = sandbox.putEvent(event);
  if (matched.length === 0) {
    const detailType = isRecord(event) && typeof event['detail-type'] === 'string' ? event['detail-type'] : '(unknown)';
    return [
      {
        step: index,
        at,
        kind: 'event',
        detailType,
        attempt: 0,
        ignored: 'no rule of the stack matches it: EventBridge drops it',
      },
    ];
  }
  // The step lasts until the events function has had each copy once.
  const sent = sandbox.queue.size - before;
  const deliveredFrom = sandbox.poller.deliveries.length;
  const detailType = isRecord(event) && typeof event['detail-type'] === 'string' ? event['detail-type'] : '(unknown)';
  if (!sandbox.poller.polling)
    return [
      {
        step: index,
        at,
        kind: 'event',
        detailType,
        attempt: 0,
        ignored: 'queued, but the event source mapping does not poll the queue (see DENIED)',
      },
    ];
  await driver.runUntil(
    () => sandbox.poller.deliveries.slice(deliveredFrom).filter((d) => d.attempt === 1).length >= sent,
    'delivering the event',
  );
  return [];
}

/**
 * Replays a history (replay.ts) and records it as steps, in time order: each sweep the schedule fired
 * (step 0: a replay has no scenario steps) and each delivery of the queue. The summary counts what the
 * events function ignored or rejected (on its first receive) with what the bus did not route.
 */
async function replayRecords<Report extends ReportView>(
  sandbox: Sandbox,
  operator: Operator<Report>,
  history: History,
  everySweep: boolean,
): Promise<{ steps: StepRecord<Report>[]; summary: ReplaySummary }> {
  const planner = everySweep ? undefined : operator.sweepPlanner?.(sandbox.plannerAccess(), sweepEnvironment(sandbox));
  const { sweeps, summary } = await runReplay(sandbox, history.events, pending, history.replayNamesStripped, planner);
  const trim = (report: Report | undefined): Report | undefined =>
    report && operator.trim ? operator.trim(report) : report;
  const sweepRecords = sweeps.map(({ at, invocation }): StepRecord<Report> => {
    const { report, ...failed } = sweepOutcome(invocation, operator);
    const trimmed = trim(report);
    return { step: 0, at, kind: 'sweep', ...(trimmed ? { report: trimmed } : {}), ...failed };
  });
  const deliveries = sandbox.poller.deliveries.map((d) => {
    const record = deliveryRecord(d, 0, operator);
    return record.kind === 'event' && record.report ? { ...record, report: trim(record.report) } : record;
  });
  const ignored: Record<string, number> = { ...summary.ignored };
  for (const record of deliveries) {
    if (record.kind !== 'event' || record.attempt !== 1) continue;
    const reason =
      record.ignored !== undefined
        ? `the events function ignored it: ${record.ignored}`
        : record.rejected !== undefined
          ? 'the events function rejected it (malformed: retried, then dead-lettered)'
          : undefined;
    if (reason !== undefined) ignored[reason] = (ignored[reason] ?? 0) + 1;
  }

  const steps = [...sweepRecords, ...deliveries].sort((a, b) => a.at - b.at);
  return { steps, summary: { ...summary, ignored } };
}

/** The deployed sweep function's environment: the configuration the product's planner decides with. */
function sweepEnvironment(sandbox: Sandbox): Readonly<Record<string, string>> {
  const host = sandbox.lambda.host(sandbox.functions.sweep);
  if (!host) throw new Error(`the sweep function ${sandbox.functions.sweep} is not deployed`);
  return host.fn.environment;
}

/** A dry-run sweep: what the reconciler sees, without acting on it. */
/** What a scheduled sweep's invocation left: its report, or why there is none (it failed, or never ran). */
function sweepOutcome<Report extends ReportView>(
  invocation: AsyncInvocation,
  operator: Operator<Report>,
): { report?: Report; failed?: string } {
  const first = invocation.results[0];
  if (!first) return { failed: `the invocation did not run (${invocation.status})` };
  if (!first.ok) return { failed: `${first.error.errorType}: ${first.error.errorMessage}` };
  const report = operator.readReport(first.payload);
  return report ? { report } : {};
}

/**
 * The operator's picture of the world (BEFORE, AFTER): a dry-run sweep. Its calls are not the world's,
 * so the scenario's faults leave them alone: a fault is meant for the deployed system, and one counted
 * (`times: 2`) or armed for the whole scenario must not be used up, or fail the run, before a step.
 */
async function snapshot<Report extends ReportView>(sandbox: Sandbox, operator: Operator<Report>): Promise<Report> {
  const resume = [sandbox.aws.faults.suspend(), sandbox.kube.faults.suspend()];
  try {
    return await operator.snapshot(sandbox.operatorAccess({ ...sandbox.settings, dryRun: true }));
  } finally {
    for (const resumeOne of resume) resumeOne();
  }
}

export interface SimulateOptions<Report extends ReportView> {
  /** The product's commands the scenario's operator runs (snapshots, drain steps). */
  readonly operator: Operator<Report>;
  /** Keep the emulators running (the caller closes the returned sandbox). */
  readonly keepOpen?: boolean;
  /** How the sandbox is built (tests: an altered deployment). */
  readonly sandbox?: SandboxOptions;
  /** Changes the seeded world before the first step (tests: what the format cannot say, such as a group's suspended processes). */
  readonly prepare?: (sandbox: Sandbox) => void | Promise<void>;
  /**
   * A recorded history to feed instead of the scenario's steps (replay.ts): each event at its own
   * time, the sweep schedule firing at the deployed rate. The world starts before the first event.
   */
  readonly replay?: History;
  /**
   * With `replay`: run every scheduled sweep through the deployed path, instead of leaving out those
   * that provably change nothing (sweep-skip.ts). @default false
   */
  readonly everySweep?: boolean;
}

/** Wall milliseconds of a simulation's phases: seeding the emulators, then the sweeps and steps. */
export interface SimulationTimings {
  readonly seedMs: number;
  readonly runMs: number;
}

export async function simulate<Report extends ReportView>(
  loaded: LoadedScenario,
  options: SimulateOptions<Report>,
): Promise<{ simulation: Simulation<Report>; sandbox: Sandbox; timings: SimulationTimings }> {
  const { operator } = options;
  const seedStart = performance.now();
  const scenario = options.replay ? replayScenario(loaded.scenario, options.replay.events) : loaded.scenario;
  const sandbox = await startSandbox(scenario, { tls: options.keepOpen === true, ...options.sandbox });
  const seedMs = performance.now() - seedStart;
  try {
    await options.prepare?.(sandbox);
    const before = await snapshot(sandbox, operator);
    const steps: StepRecord<Report>[] = [];
    let delivered = 0;
    let replay: ReplaySummary | undefined;
    if (options.replay) {
      const replayed = await replayRecords(sandbox, operator, options.replay, options.everySweep === true);
      steps.push(...replayed.steps);
      replay = replayed.summary;
    }
    for (const [index, step] of (options.replay ? [] : loaded.scenario.steps).entries()) {
      const records = await runStep(sandbox, operator, step, index + 1, loaded.baseDir);
      // The step's own record first, then what the queue delivered meanwhile, in time order.
      const deliveries = sandbox.poller.deliveries.slice(delivered).map((d) => deliveryRecord(d, index + 1, operator));
      delivered = sandbox.poller.deliveries.length;
      steps.push(...records, ...deliveries);
    }
    await sandbox.driver.quiesce();
    const after = await snapshot(sandbox, operator);
    const drains = drainRecords(sandbox);
    const expectations = loaded.scenario.expect ? checkExpectations(sandbox, loaded.scenario.expect, steps) : undefined;
    const denied = denialsOf(sandbox);
    return {
      simulation: {
        name: loaded.scenario.name,
        start: sandbox.start,
        before,
        after,
        steps,
        drains,
        denied,
        ...(expectations ? { expectations } : {}),
        ...(replay ? { replay } : {}),
      },
      sandbox,
      timings: { seedMs, runMs: performance.now() - seedStart - seedMs },
    };
  } finally {
    if (!options.keepOpen) await sandbox.close();
  }
}
