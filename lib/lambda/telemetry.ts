import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { MiddlewareObj } from '@middy/core';
import type { DrainStepOutput } from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import {
  CLUSTER_DIMENSION,
  CONDITION_DIMENSION,
  METRIC_NAMES,
  METRIC_NAMESPACE,
  SERVICE_NAME,
  type MetricName,
} from '@ec2-node-reconciler/model/contract/metrics.js';
import type { RunReport } from '../report/report.js';
import type { RepairCompletion } from './repair-completion.js';

/** Powertools instances: created once per container, as Powertools intends. */
export function createTelemetry(clusterName: string): { logger: Logger; metrics: Metrics } {
  return {
    logger: new Logger({ serviceName: SERVICE_NAME, persistentKeys: { cluster: clusterName } }),
    metrics: new Metrics({
      namespace: METRIC_NAMESPACE,
      serviceName: SERVICE_NAME,
      defaultDimensions: { [CLUSTER_DIMENSION]: clusterName },
    }),
  };
}

/** Powertools' switch, which the stack sets to `false` unless the functions have active tracing (infra/functions.ts). */
export const tracingEnabled = (env: Readonly<Record<string, string | undefined>>): boolean =>
  env['POWERTOOLS_TRACE_ENABLED']?.toLowerCase() !== 'false';

/**
 * The handler's middlewares: X-Ray tracing first when it is on, then the logger's Lambda context and
 * the metrics flush. The Tracer (and the X-Ray SDK under it, a good part of a cold start) is loaded
 * only when tracing is on.
 */
export async function telemetryMiddlewares(
  { logger, metrics }: { logger: Logger; metrics: Metrics },
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<MiddlewareObj[]> {
  const tracing: MiddlewareObj[] = [];
  if (tracingEnabled(env)) {
    const [{ Tracer }, { captureLambdaHandler }] = await Promise.all([
      import('@aws-lambda-powertools/tracer'),
      import('@aws-lambda-powertools/tracer/middleware'),
    ]);
    tracing.push(captureLambdaHandler(new Tracer({ serviceName: SERVICE_NAME })));
  }
  return [...tracing, injectLambdaContext(logger), logMetrics(metrics)];
}

/**
 * Every metric is added through here: only a name of METRIC_NAMES compiles, so the dashboard and
 * alarms (infra/observability.ts) read what the functions write.
 */
function count(metrics: Metrics, name: MetricName, value: number): void {
  metrics.addMetric(name, MetricUnit.Count, value);
}

/** One EventBridge event taken off the queue (a signal or not). */
export function recordEventProcessed(metrics: Metrics): void {
  count(metrics, METRIC_NAMES.eventsProcessed, 1);
}

/** The metrics of one reconcile run (the dashboard and alarms read these names). */
export function recordRunMetrics(metrics: Metrics, report: RunReport): void {
  const done = (kind: string) => report.actions.filter((a) => a.kind === kind && a.outcome === 'done').length;
  count(metrics, METRIC_NAMES.nodesDeleted, done('delete'));
  count(metrics, METRIC_NAMES.nodesCordoned, done('cordon'));
  count(
    metrics,
    METRIC_NAMES.drainsStarted,
    report.actions.filter((a) => a.kind === 'drain' && a.outcome === 'started').length,
  );
  count(metrics, METRIC_NAMES.actionsFailed, report.actions.filter((a) => a.outcome === 'failed').length);
  count(metrics, METRIC_NAMES.breakerTripped, report.breaker ? 1 : 0);
  const repaired = (step: string, outcome: string) =>
    report.actions.filter((a) => a.kind === 'repair' && a.step === step && a.outcome === outcome).length;
  count(metrics, METRIC_NAMES.repairsStarted, repaired('drain', 'started'));
  count(metrics, METRIC_NAMES.nodesRepaired, repaired('replace', 'done'));
  count(metrics, METRIC_NAMES.repairsCancelled, repaired('cancel', 'done'));
  count(
    metrics,
    METRIC_NAMES.repairsBlocked,
    report.skipped.filter((s) => s.kind === 'repair' && (s.standDown !== undefined || s.backOff !== undefined)).length,
  );
  if (report.kind === 'sweep')
    metrics.addMetric(METRIC_NAMES.sweepDurationMs, MetricUnit.Milliseconds, report.durationMs);
  const divergences = new Map<string, number>();
  for (const action of report.actions) {
    if (action.kind === 'report' && action.condition)
      divergences.set(action.condition, (divergences.get(action.condition) ?? 0) + 1);
  }
  for (const [condition, value] of divergences) {
    // One metric per condition needs its own dimension set: a single-metric EMF blob.
    const single = metrics.singleMetric();
    single.addDimension(CONDITION_DIMENSION, condition);
    count(single, METRIC_NAMES.divergences, value);
  }
}

/** The metrics of one drain step: how a drain ended, and the pods it left blocked. */
export function recordDrainStepMetrics(metrics: Metrics, output: DrainStepOutput): void {
  if (output.outcome === 'done') count(metrics, METRIC_NAMES.drainsCompleted, 1);
  if (output.outcome === 'deadline') count(metrics, METRIC_NAMES.drainsTimedOut, 1);
  if (output.outcome === 'incomplete') count(metrics, METRIC_NAMES.drainsIncomplete, 1);
  // Pods still waiting for their turn or their eviction are not blocked.
  const blocked = Object.entries(output.summary.leftByReason).reduce(
    (sum, [reason, pods]) => (reason === 'pending' || reason === 'waiting' ? sum : sum + pods),
    0,
  );
  count(metrics, METRIC_NAMES.evictionsBlocked, blocked);
}

/** The metrics of a repair the drain step completed (repair-completion.ts): the machine marked, or the repair blocked. */
export function recordRepairCompletionMetrics(metrics: Metrics, completion: RepairCompletion): void {
  if (completion.kind === 'replaced') count(metrics, METRIC_NAMES.nodesRepaired, 1);
  if (completion.kind === 'blocked') count(metrics, METRIC_NAMES.repairsBlocked, 1);
}
