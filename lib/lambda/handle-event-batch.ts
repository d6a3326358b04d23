import type { Logger } from '@aws-lambda-powertools/logger';
import type { InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import type { ReconcilerDeps } from '../pipeline/deps.js';
import { runSignalBatch, type SignalGroup } from '../pipeline/run.js';
import type { RunPlace } from '../report/notify.js';
import type { RunReport } from '../report/report.js';
import { parseEvent, type EventHeader } from '../signals/index.js';
import type { Signal } from '@ec2-node-reconciler/model/signal.js';
import { EVENT_RECORD_LOG } from '@ec2-node-reconciler/model/contract/function-logs.js';

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

/** One SQS record as the events function takes it: its body is one EventBridge event. */
export interface EventRecord {
  readonly messageId: string;
  readonly body: string;
  /** How many times SQS has delivered it (this delivery included). */
  readonly receiveCount: number;
  /** The queue will not deliver it again: what only waiting would fix is reported, not retried. */
  readonly lastReceive: boolean;
}

/** What became of one record: it succeeds (ignored, reconciled) or fails (the batch response names it). */
export type RecordOutcome =
  | { readonly kind: 'ignored'; readonly header: EventHeader; readonly reason: string }
  | {
      readonly kind: 'reconciled';
      readonly header: EventHeader;
      readonly skipped: readonly string[];
      readonly report: RunReport;
    }
  | { readonly kind: 'failed'; readonly error: Error; readonly header?: EventHeader; readonly report?: RunReport };

type Parsed =
  | { readonly record: EventRecord; readonly outcome: RecordOutcome }
  | {
      readonly record: EventRecord;
      readonly header: EventHeader;
      readonly signals: readonly Signal[];
      readonly skipped: readonly string[];
    };

/** Parses one record; a poison event fails it alone, with a SignalRejection naming the field. */
function parseRecord(record: EventRecord): Parsed {
  let event: unknown;
  try {
    event = JSON.parse(record.body);
  } catch (cause) {
    const error = new Error('record body: not JSON (expected an EventBridge event)', { cause });
    return { record, outcome: { kind: 'failed', error } };
  }
  try {
    const parsed = parseEvent(event);
    if (parsed.outcome === 'ignored')
      return { record, outcome: { kind: 'ignored', header: parsed.header, reason: parsed.reason } };
    return { record, header: parsed.header, signals: parsed.signals, skipped: parsed.skipped };
  } catch (error) {
    return { record, outcome: { kind: 'failed', error: asError(error) } };
  }
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

type ToReconcile = Extract<Parsed, { signals: unknown }>;

/**
 * Events about the same machines, together: two events of one batch about one instance (a
 * rebalance recommendation and the spot warning after it, a duplicate delivery) are decided in one
 * plan, so no two plans race for one Node. Events about distinct machines stay apart.
 */
function groupByInstances(items: readonly ToReconcile[]): ToReconcile[][] {
  const parent = items.map((_, i) => i);
  const root = (i: number): number => {
    let r = i;
    while (parent[r] !== r) r = parent[r] ?? r;
    parent[i] = r;
    return r;
  };
  const owner = new Map<InstanceId, number>();
  items.forEach((item, i) => {
    for (const { instanceId } of item.signals) {
      const seen = owner.get(instanceId);
      if (seen === undefined) owner.set(instanceId, i);
      else parent[root(i)] = root(seen);
    }
  });
  const groups = new Map<number, ToReconcile[]>();
  items.forEach((item, i) => {
    const r = root(i);
    groups.set(r, [...(groups.get(r) ?? []), item]);
  });
  return [...groups.values()];
}

/** Why a group's run must be tried again, or undefined when it did all it had to. */
function failureOf(ids: readonly string[], report: RunReport): EventRecordFailure | undefined {
  const events = ids.length === 1 ? `event ${ids[0] ?? ''}` : `events ${ids.join(', ')}`;
  if (report.incomplete.length > 0) {
    // Nothing was decided for what could not be observed: retry the record rather than lose the event.
    return new EventRecordFailure(`${events}: not fully observed: ${report.incomplete.join('; ')}`, report);
  }
  const failed = report.actions.filter((a) => a.outcome === 'failed');
  if (failed.length === 0) return undefined;
  return new EventRecordFailure(
    `${events}: ${failed.length} action(s) failed: ${failed.map((a) => `${a.kind} ${a.node ?? a.instanceId ?? ''}: ${a.detail ?? ''}`).join('; ')}`,
    report,
  );
}

/**
 * One SQS batch of EventBridge events (docs/design.md §3): every record is parsed on its own (a poison
 * event fails alone, naming the field, and costs no API call); the signals of all the others are
 * observed in one pass (runSignalBatch: one DescribeInstances for up to 200 instances, one search
 * for each Node) and decided per event, or per group of events about the same machines. Each
 * record gets its own outcome: a lookup that failed for one instance fails only the records about
 * it, and the queue delivers them again (after maxReceiveCount receives, to the dead-letter queue).
 */
export async function handleEventBatch(
  records: readonly EventRecord[],
  deps: () => Promise<ReconcilerDeps>,
  place: RunPlace,
): Promise<ReadonlyMap<string, RecordOutcome>> {
  const outcomes = new Map<string, RecordOutcome>();
  const toReconcile: ToReconcile[] = [];
  for (const parsed of records.map(parseRecord)) {
    if ('outcome' in parsed) outcomes.set(parsed.record.messageId, parsed.outcome);
    else toReconcile.push(parsed);
  }
  if (toReconcile.length === 0) return outcomes;

  const groups = groupByInstances(toReconcile);
  const signalGroups: SignalGroup[] = groups.map((items) => ({
    signals: items.flatMap((item) => item.signals),
    // What only waiting would fix is reported when any of the group's records will not come back.
    delivery: { lastReceive: items.some((item) => item.record.lastReceive) },
  }));
  let reports: RunReport[];
  try {
    reports = await runSignalBatch(await deps(), signalGroups, place);
  } catch (error) {
    for (const item of toReconcile)
      outcomes.set(item.record.messageId, { kind: 'failed', error: asError(error), header: item.header });
    return outcomes;
  }
  groups.forEach((items, index) => {
    const report = reports[index];
    if (report === undefined) return;
    const failure = failureOf(
      items.map((item) => item.header.id),
      report,
    );
    for (const item of items)
      outcomes.set(
        item.record.messageId,
        failure
          ? { kind: 'failed', error: failure, header: item.header, report }
          : { kind: 'reconciled', header: item.header, skipped: item.skipped, report },
      );
  });
  return outcomes;
}

/**
 * Says what became of a record, in one log line naming its message (so a record that keeps
 * failing can be followed to the DLQ) and its event, and throws for a failed one: the batch
 * response names it.
 */
export function settleRecord(
  record: Pick<EventRecord, 'messageId' | 'receiveCount'>,
  outcome: RecordOutcome | undefined,
  logger: Pick<Logger, 'info' | 'warn'>,
): void {
  const keys = {
    messageId: record.messageId,
    receiveCount: String(record.receiveCount),
    ...(outcome && 'header' in outcome && outcome.header ? { correlationId: outcome.header.id } : {}),
  };
  if (outcome === undefined) {
    const error = new Error(`record ${record.messageId}: not handled (a defect: every record has an outcome)`);
    logger.warn(EVENT_RECORD_LOG.failed, { ...keys, error });
    throw error;
  }
  switch (outcome.kind) {
    case 'ignored':
      logger.info(EVENT_RECORD_LOG.ignored, { ...keys, reason: outcome.reason, detailType: outcome.header.detailType });
      return;
    case 'reconciled':
      logger.info(EVENT_RECORD_LOG.reconciled, {
        ...keys,
        detailType: outcome.header.detailType,
        skipped: outcome.skipped,
        report: outcome.report,
      });
      return;
    case 'failed':
      if (outcome.report)
        logger.info(EVENT_RECORD_LOG.reconciled, {
          ...keys,
          ...(outcome.header ? { detailType: outcome.header.detailType } : {}),
          report: outcome.report,
        });
      // The batch response names only the message: why it failed is said here, once.
      logger.warn(EVENT_RECORD_LOG.failed, { ...keys, error: outcome.error });
      throw outcome.error;
    default: {
      const unhandled: never = outcome;
      throw new Error(`no settlement for ${String(unhandled)}`);
    }
  }
}
