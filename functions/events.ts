// SQS batch of EventBridge events → the event path. The batch's instances are observed together
// (one DescribeInstances, one Node lookup pass); each record still succeeds or fails on its own
// (partial batch response): a bad record fails alone, and after the queue's retries it lands in
// the DLQ. Nothing is dropped.
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import middy from '@middy/core';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { readFunctionConfig } from '../lib/lambda/config.js';
import {
  handleEventBatch,
  settleRecord,
  type EventRecord,
  type RecordOutcome,
} from '../lib/lambda/handle-event-batch.js';
import { placeOf } from '../lib/lambda/place.js';
import { WarmRuntime } from '../lib/lambda/runtime.js';
import type { RunReport } from '../lib/report/report.js';
import {
  createTelemetry,
  recordEventProcessed,
  recordRunMetrics,
  telemetryMiddlewares,
} from '../lib/lambda/telemetry.js';
import { timeLeftIn } from '../lib/lambda/time-left.js';
import { SIGNAL_QUEUE } from '@ec2-node-reconciler/model/contract/signal-queue.js';

const config = readFunctionConfig(process.env);
const runtime = new WarmRuntime(config);
const { logger, metrics } = createTelemetry(config.clusterName);
const processor = new BatchProcessor(EventType.SQS);

const eventRecord = (record: SQSRecord): EventRecord => {
  const receiveCount = Number(record.attributes.ApproximateReceiveCount);
  return {
    messageId: record.messageId,
    body: record.body,
    receiveCount,
    // On its last delivery a record is not failed for what only waiting would fix (it would go to the DLQ): that is reported.
    lastReceive: receiveCount >= SIGNAL_QUEUE.maxReceiveCount,
  };
};

export const handler = middy(async (event: SQSEvent, context: Context) => {
  const outcomes = await handleEventBatch(
    event.Records.map(eventRecord),
    () => runtime.reconcilerDeps(config.settings, timeLeftIn(context)),
    placeOf(context, config.region),
  );
  // Events about one machine share a report: its metrics count once.
  const counted = new Set<RunReport>();
  const settle = (record: SQSRecord): void => {
    recordEventProcessed(metrics);
    const outcome: RecordOutcome | undefined = outcomes.get(record.messageId);
    // As before batching: a run's metrics count when its record is done with (a failed one comes back).
    const report = outcome?.kind === 'reconciled' ? outcome.report : undefined;
    if (report && !counted.has(report)) {
      counted.add(report);
      recordRunMetrics(metrics, report);
    }
    settleRecord(eventRecord(record), outcome, logger);
  };
  // A batch whose every record failed is answered with every record in batchItemFailures, like any
  // other, not thrown (Powertools' default): the queue redelivers the same records either way, and a
  // batch of poison messages is not a function error (EventsFunctionErrors).
  return processPartialResponse(event, settle, processor, { context, throwOnFullBatchFailure: false });
}).use(await telemetryMiddlewares({ logger, metrics }));
