import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { MiddlewareObj } from '@middy/core';
import type { RunReport } from '../report/report.js';

export const SERVICE = 'ec2-node-reconciler';
export const METRICS_NAMESPACE = 'Ec2NodeReconciler';

/** Powertools instances: created once per container, as Powertools intends. */
export function createTelemetry(clusterName: string): { logger: Logger; metrics: Metrics } {
  return {
    logger: new Logger({ serviceName: SERVICE, persistentKeys: { cluster: clusterName } }),
    metrics: new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE, defaultDimensions: { ClusterName: clusterName } }),
  };
}

/** Powertools' switch, which the stack sets to `false` unless the functions have active tracing (infra/functions.ts). */
export const tracingEnabled = (env: Readonly<Record<string, string | undefined>>): boolean => env['POWERTOOLS_TRACE_ENABLED']?.toLowerCase() !== 'false';

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
    const [{ Tracer }, { captureLambdaHandler }] = await Promise.all([import('@aws-lambda-powertools/tracer'), import('@aws-lambda-powertools/tracer/middleware')]);
    tracing.push(captureLambdaHandler(new Tracer({ serviceName: SERVICE })));
  }
  return [...tracing, injectLambdaContext(logger), logMetrics(metrics)];
}

/** The metrics of one reconcile run (the dashboard and alarms read these names). */
export function recordRunMetrics(metrics: Metrics, report: RunReport): void {
  const done = (kind: string) => report.actions.filter((a) => a.kind === kind && a.outcome === 'done').length;
  metrics.addMetric('NodesDeleted', MetricUnit.Count, done('delete'));
  metrics.addMetric('NodesCordoned', MetricUnit.Count, done('cordon'));
  metrics.addMetric('DrainsStarted', MetricUnit.Count, report.actions.filter((a) => a.kind === 'drain' && a.outcome === 'started').length);
  metrics.addMetric('ActionsFailed', MetricUnit.Count, report.actions.filter((a) => a.outcome === 'failed').length);
  metrics.addMetric('BreakerTripped', MetricUnit.Count, report.breaker ? 1 : 0);
  const repaired = (step: string, outcome: string) => report.actions.filter((a) => a.kind === 'repair' && a.step === step && a.outcome === outcome).length;
  metrics.addMetric('RepairsStarted', MetricUnit.Count, repaired('drain', 'started'));
  metrics.addMetric('NodesRepaired', MetricUnit.Count, repaired('replace', 'done'));
  metrics.addMetric('RepairsCancelled', MetricUnit.Count, repaired('cancel', 'done'));
  metrics.addMetric('RepairsBlocked', MetricUnit.Count, report.skipped.filter((s) => s.kind === 'repair' && s.standDown !== undefined).length);
  if (report.kind === 'sweep') metrics.addMetric('SweepDurationMs', MetricUnit.Milliseconds, report.durationMs);
  const divergences = new Map<string, number>();
  for (const action of report.actions) {
    if (action.kind === 'report' && action.condition) divergences.set(action.condition, (divergences.get(action.condition) ?? 0) + 1);
  }
  for (const [condition, count] of divergences) {
    // One metric per condition needs its own dimension set: a single-metric EMF blob.
    const single = metrics.singleMetric();
    single.addDimension('Condition', condition);
    single.addMetric('Divergences', MetricUnit.Count, count);
  }
}
