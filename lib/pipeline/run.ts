import { act } from '../act/act.js';
import { LOCAL_DRAIN_PREFIX } from '@ec2-node-reconciler/model/contract/labels.js';
import type { Observation } from '@ec2-node-reconciler/model/observation.js';
import type { Signal } from '@ec2-node-reconciler/model/signal.js';
import { observationFor, observeSignalBatch, observeSignals, type ObserveSignalsOptions } from '../observe/signals.js';
import { observeSweep } from '../observe/sweep.js';
import { startNotifying } from '../report/notify.js';
import { runReport, type RunReport } from '../report/report.js';
import { decide, type DecideContext } from './decide.js';
import type { ReconcilerDeps } from './deps.js';

export interface RunOptions {
  /** The AWS region and account, for instance ARNs in output events. */
  readonly region?: string;
  readonly accountId?: string;
}

/** The deployment's side of a decision (lib/pipeline/decide.ts): its settings, clock, cluster and groups. */
export function decisionContext(
  deps: Pick<ReconcilerDeps, 'settings' | 'clock' | 'clusterName' | 'region' | 'ownGroups'> & {
    readonly drains: Pick<ReconcilerDeps['drains'], 'local'>;
  },
): DecideContext {
  return {
    settings: deps.settings,
    clock: deps.clock,
    clusterName: deps.clusterName,
    region: deps.region,
    ...(deps.ownGroups ? { ownGroups: deps.ownGroups } : {}),
    ...(deps.drains.local ? { executionPrefix: LOCAL_DRAIN_PREFIX } : {}),
  };
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
  const start = performance.now();
  const startedAt = deps.clock.now();
  const { observation, errors: incomplete, reported = [] } = await observe();
  const observed = performance.now();

  const { pairs, plan: planned } = decide(observation, signals, decisionContext(deps));
  const decided = performance.now();

  // Each outcome's notifications go out as it comes, beside the actions still running.
  const notifier = planned.dryRun ? undefined : startNotifying(deps, options, planned);
  const outcomes = await act(
    planned,
    deps,
    observation.nodes,
    notifier ? (outcome, index) => notifier.add(outcome, index) : undefined,
  );
  const notifyErrors = notifier ? await notifier.done() : [];
  const done = performance.now();

  return runReport({
    kind,
    cluster: deps.clusterName,
    startedAt,
    pairs,
    plan: planned,
    outcomes,
    incomplete,
    reported,
    notifyErrors,
    marks: { start, observed, decided, done },
    apiCalls: deps.apiCalls?.snapshot() ?? {},
  });
}

/** A scheduled or manual sweep over the whole cluster. */
export async function runSweep(deps: ReconcilerDeps, options: RunOptions = {}): Promise<RunReport> {
  return reconcile('sweep', deps, () => observeSweep(deps), [], options);
}

/** One event's signals (a Health event may carry several instances). */
export async function runSignals(
  deps: ReconcilerDeps,
  signals: readonly Signal[],
  options: RunOptions & ObserveSignalsOptions = {},
): Promise<RunReport> {
  // A failed lookup leaves no pair to classify (the node is not looked for without EC2's answer):
  // observeSignals says so, and the event is not passed off as handled.
  return reconcile('event', deps, () => observeSignals(deps, signals, options), signals, options);
}

/** The signals of one or more events decided together (events about the same machines), and how their records are delivered. */
export interface SignalGroup {
  readonly signals: readonly Signal[];
  readonly delivery?: ObserveSignalsOptions;
}

/**
 * Several events' signals (an SQS batch), observed in one pass (observeSignalBatch: one
 * DescribeInstances per 200 instances, one search per Node) and then decided and acted on group by
 * group, each with its own report, as if it had come alone: a group's failure is its own. Groups
 * must not share instances (the caller puts events about one machine in one group), so no two
 * plans act on one Node. One group is exactly `runSignals`.
 */
export async function runSignalBatch(
  deps: ReconcilerDeps,
  groups: readonly SignalGroup[],
  options: RunOptions = {},
): Promise<RunReport[]> {
  if (groups.length === 0) return [];
  const observed = observeSignalBatch(
    deps,
    groups.flatMap((g) => g.signals),
  );
  // An observation that failed as a whole (wiring, a bug) fails every group with it.
  return Promise.all(
    groups.map((group) =>
      reconcile(
        'event',
        deps,
        async () => observationFor(await observed, group.signals, deps, group.delivery),
        group.signals,
        options,
      ),
    ),
  );
}
