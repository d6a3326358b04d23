// SQS batch of EventBridge events → the event path. A bad record fails alone (partial batch
// response); after the queue's retries it lands in the DLQ. Nothing is dropped.
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import middy from '@middy/core';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { readFunctionConfig } from '../lib/lambda/config.js';
import { handleEventRecord } from '../lib/lambda/handle-event-record.js';
import { placeOf } from '../lib/lambda/place.js';
import { WarmRuntime } from '../lib/lambda/runtime.js';
import {
  createTelemetry,
  recordEventProcessed,
  recordRunMetrics,
  telemetryMiddlewares,
} from '../lib/lambda/telemetry.js';
import { timeLeftIn } from '../lib/lambda/time-left.js';
import { SIGNAL_QUEUE } from '../lib/contract/signal-queue.js';
import { EVENT_RECORD_LOG } from '../lib/contract/function-logs.js';

const config = readFunctionConfig(process.env);
const runtime = new WarmRuntime(config);
const { logger, metrics } = createTelemetry(config.clusterName);
const processor = new BatchProcessor(EventType.SQS);

async function recordHandler(record: SQSRecord, context?: Context): Promise<void> {
  recordEventProcessed(metrics);
  // Every line about a record names its message, so a record that keeps failing can be followed to the
  // DLQ. The processor handles a batch's records concurrently: keys appended to the one logger would be
  // another record's by the time a line is written, so each record logs through a child of its own.
  const recordLogger = logger.createChild({
    persistentKeys: { messageId: record.messageId, receiveCount: record.attributes.ApproximateReceiveCount },
  });
  try {
    // On its last delivery a record is not failed for what only waiting would fix (it would go to the DLQ): that is reported.
    const lastReceive = Number(record.attributes.ApproximateReceiveCount) >= SIGNAL_QUEUE.maxReceiveCount;
    const report = await handleEventRecord(
      record.body,
      () => runtime.reconcilerDeps(config.settings, timeLeftIn(context)),
      recordLogger,
      placeOf(context, config.region),
      { lastReceive },
    );
    if (report) recordRunMetrics(metrics, report);
  } catch (error) {
    // The batch response names only the message: why it failed is said here, once.
    recordLogger.warn(EVENT_RECORD_LOG.failed, { error: error instanceof Error ? error : new Error(String(error)) });
    throw error;
  }
}

// A batch whose every record failed is answered with every record in batchItemFailures, like any
// other, not thrown (Powertools' default): the queue redelivers the same records either way, and a
// batch of poison messages is not a function error (EventsFunctionErrors).
export const handler = middy((event: SQSEvent, context: Context) =>
  processPartialResponse(event, recordHandler, processor, { context, throwOnFullBatchFailure: false }),
).use(await telemetryMiddlewares({ logger, metrics }));
