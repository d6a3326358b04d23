import type { Logger } from '@aws-lambda-powertools/logger';
import type { ReconcilerDeps } from '../pipeline/deps.js';
import { runSignals } from '../pipeline/run.js';
import type { RunPlace } from '../report/notify.js';
import type { RunReport } from '../report/report.js';
import { parseEvent } from '../signals/index.js';
import { EVENT_RECORD_LOG } from '../contract/function-logs.js';

/** A record that was reconciled but must be tried again (something could not be observed, or an action failed). */
export class EventRecordFailure extends Error {
  override readonly name = 'EventRecordFailure';

  constructor(
    message: string,
    /** What the run saw and did before it failed. */
    readonly report: RunReport,
  ) {
    super(message);
  }
}

/**
 * One SQS record holding one EventBridge event. Throws to fail the record (the batch reports it;
 * after the queue's retries it lands in the DLQ): a poison event (SignalRejection naming the
 * field), or an action that failed and should be tried again. Ignored events succeed.
 */
export async function handleEventRecord(
  body: string,
  deps: () => Promise<ReconcilerDeps>,
  logger: Pick<Logger, 'info' | 'appendKeys' | 'removeKeys'>,
  place: RunPlace,
  delivery: { readonly lastReceive?: boolean } = {},
): Promise<RunReport | undefined> {
  let event: unknown;
  try {
    event = JSON.parse(body);
  } catch (cause) {
    throw new Error('record body: not JSON (expected an EventBridge event)', { cause });
  }
  const parsed = parseEvent(event);
  logger.appendKeys({ correlationId: parsed.header.id });
  try {
    if (parsed.outcome === 'ignored') {
      logger.info(EVENT_RECORD_LOG.ignored, { reason: parsed.reason, detailType: parsed.header.detailType });
      return undefined;
    }
    const report = await runSignals(await deps(), parsed.signals, { ...place, ...delivery });
    logger.info(EVENT_RECORD_LOG.reconciled, { detailType: parsed.header.detailType, skipped: parsed.skipped, report });
    if (report.incomplete.length > 0) {
      // Nothing was decided for what could not be observed: retry the record rather than lose the event.
      throw new EventRecordFailure(
        `event ${parsed.header.id}: not fully observed: ${report.incomplete.join('; ')}`,
        report,
      );
    }
    const failed = report.actions.filter((a) => a.outcome === 'failed');
    if (failed.length > 0) {
      throw new EventRecordFailure(
        `event ${parsed.header.id}: ${failed.length} action(s) failed: ${failed.map((a) => `${a.kind} ${a.node ?? a.instanceId ?? ''}: ${a.detail ?? ''}`).join('; ')}`,
        report,
      );
    }
    return report;
  } finally {
    logger.removeKeys(['correlationId']);
  }
}
