import { act } from '../act/act.js';
import { classify } from '../classify/classify.js';
import { LOCAL_DRAIN_PREFIX } from '../contract/labels.js';
import type { Observation } from '../model/observation.js';
import type { Signal } from '../model/signal.js';
import { observeSignals, type ObserveSignalsOptions } from '../observe/event.js';
import { observeSweep } from '../observe/sweep.js';
import { plan } from '../plan/plan.js';
import { startNotifying } from '../report/notify.js';
import { countConditions, toReportActions, toRows, type RunReport } from '../report/report.js';
import type { ReconcilerDeps } from './deps.js';

export interface RunOptions {
  /** The AWS region and account, for instance ARNs in output events. */
  readonly region?: string;
  readonly accountId?: string;
}

/**
 * observe → classify → plan → act → report, for either scope: the sweep observes everything, an
 * event only its instances. Only observation differs; the decision and its execution are shared.
 */
async function reconcile(
  kind: RunReport['kind'],
  deps: ReconcilerDeps,
  observe: () => Promise<{ observation: Observation; errors: readonly string[]; reported?: readonly string[] }>,
  signals: readonly Signal[],
  options: RunOptions,
): Promise<RunReport> {
  const wallStart = performance.now();
  const startedAt = new Date(deps.clock.now()).toISOString();
  const { observation, errors: observeErrors, reported = [] } = await observe();
  const observed = performance.now();

  const ctx = { settings: deps.settings, clock: deps.clock, clusterName: deps.clusterName, region: deps.region, ...(deps.ownGroups ? { ownGroups: deps.ownGroups } : {}) };
  const pairs = classify(observation, signals, ctx);
  const planned = plan(pairs, {
    ...ctx,
    scope: observation.scope,
    drains: observation.drains,
    ...(deps.drains.local ? { executionPrefix: LOCAL_DRAIN_PREFIX } : {}),
    ...(observation.clusterNodeCount !== undefined ? { clusterNodeCount: observation.clusterNodeCount } : {}),
  });
  const decided = performance.now();

  // Each outcome's notifications go out as it comes, beside the actions still running.
  const notifier = planned.dryRun ? undefined : startNotifying(deps, options, planned);
  const outcomes = await act(planned, deps, observation.nodes, notifier ? (outcome, index) => notifier.add(outcome, index) : undefined);
  const notifyErrors = notifier ? await notifier.done() : [];
  const done = performance.now();

  return {
    kind,
    cluster: deps.clusterName,
    startedAt,
    durationMs: Math.round(done - wallStart),
    dryRun: planned.dryRun,
    conditions: countConditions(pairs),
    rows: toRows(pairs),
    actions: toReportActions(outcomes),
    skipped: planned.skipped,
    ...(planned.breaker ? { breaker: planned.breaker } : {}),
    incomplete: [...observeErrors],
    errors: [
      ...observeErrors,
      ...reported,
      ...outcomes.filter((o) => o.outcome === 'failed').map((o) => `${o.action.kind}${'node' in o.action && o.action.node ? ` ${o.action.node}` : ''}: ${o.detail ?? ''}`),
      ...notifyErrors,
    ],
    timings: { observeMs: Math.round(observed - wallStart), decideMs: Math.round(decided - observed), actMs: Math.round(done - decided) },
    apiCalls: deps.apiCalls?.snapshot() ?? {},
  };
}

/** A scheduled or manual sweep over the whole cluster. */
export async function runSweep(deps: ReconcilerDeps, options: RunOptions = {}): Promise<RunReport> {
  return reconcile('sweep', deps, () => observeSweep(deps), [], options);
}

/** One event's signals (a Health event may carry several instances). */
export async function runSignals(deps: ReconcilerDeps, signals: readonly Signal[], options: RunOptions & ObserveSignalsOptions = {}): Promise<RunReport> {
  // A failed lookup leaves no pair to classify (the node is not looked for without EC2's answer):
  // observeSignals says so, and the event is not passed off as handled.
  return reconcile('event', deps, () => observeSignals(deps, signals, options), signals, options);
}

