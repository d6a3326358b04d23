// EventBridge Scheduler and manual invocations (`{ dryRun?, settings? }`) → a sweep of the whole
// cluster; returns the run report.
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { SWEEP_RUN_LOG } from '../lib/contract/function-logs.js';
import { readFunctionConfig } from '../lib/lambda/config.js';
import { placeOf } from '../lib/lambda/place.js';
import { WarmRuntime } from '../lib/lambda/runtime.js';
import { sweepSettings } from '../lib/lambda/sweep-payload.js';
import { createTelemetry, recordRunMetrics, telemetryMiddlewares } from '../lib/lambda/telemetry.js';
import { timeLeftIn } from '../lib/lambda/time-left.js';
import { runSweep } from '../lib/pipeline/run.js';
import type { RunReport } from '../lib/report/report.js';

const config = readFunctionConfig(process.env);
const runtime = new WarmRuntime(config);
const { logger, metrics } = createTelemetry(config.clusterName);

async function sweep(payload: unknown, context: Context): Promise<RunReport> {
  const settings = sweepSettings(config.settings, payload);
  const report = await runSweep(
    await runtime.reconcilerDeps(settings, timeLeftIn(context)),
    placeOf(context, config.region),
  );
  recordRunMetrics(metrics, report);
  logger.info(SWEEP_RUN_LOG, { report });
  return report;
}

export const handler = middy(sweep).use(await telemetryMiddlewares({ logger, metrics }));
