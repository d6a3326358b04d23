// EventBridge Scheduler and manual invocations (`{ dryRun?, settings? }`) → a sweep of the whole
// cluster; logs and returns the run report's bounded summary (its counts whole, its lists cut).
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { SWEEP_RUN_LOG } from '@ec2-node-reconciler/model/contract/function-logs.js';
import { readFunctionConfig } from '../lib/lambda/config.js';
import { placeOf } from '../lib/lambda/place.js';
import { WarmRuntime } from '../lib/lambda/runtime.js';
import { sweepSettings } from '../lib/lambda/sweep-payload.js';
import { createTelemetry, recordRunMetrics, telemetryMiddlewares } from '../lib/lambda/telemetry.js';
import { timeLeftIn } from '../lib/lambda/time-left.js';
import { runSweep } from '../lib/pipeline/run.js';
import { summarizeReport, type ReportSummary } from '../lib/report/summary.js';

const config = readFunctionConfig(process.env);
const runtime = new WarmRuntime(config);
const { logger, metrics } = createTelemetry(config.clusterName);

async function sweep(payload: unknown, context: Context): Promise<ReportSummary> {
  const settings = sweepSettings(config.settings, payload);
  const report = await runSweep(
    await runtime.reconcilerDeps(settings, timeLeftIn(context)),
    placeOf(context, config.region),
  );
  recordRunMetrics(metrics, report);
  // The whole report grows ~173 bytes a node: past a few thousand the log line is cut, past ~36k the
  // response exceeds Lambda's 6 MB. Every action also goes out as an output event.
  const summary = summarizeReport(report);
  logger.info(SWEEP_RUN_LOG, { report: summary });
  return summary;
}

export const handler = middy(sweep).use(await telemetryMiddlewares({ logger, metrics }));
