// Lambda's SQS event source mapping, as the template configures it: batches of visible messages
// go to the function as an SQS event, at most MaximumConcurrency batches at once. A batch is
// gathered while a slot is free: it goes once it holds BatchSize messages, or once the batching
// window (MaximumBatchingWindowInSeconds) has passed since its first message was there; with no
// window, at once. So each slot starts at most one batch a window, and a storm's messages wait in
// the queue while every slot is busy, as they do in Lambda. With
// ReportBatchItemFailures the messages the function names in `batchItemFailures` stay in the queue
// and the others are deleted; a function error, a timeout or an answer that is not a valid
// partial-batch response fails the whole batch. Failed messages come back after the queue's
// visibility timeout, and go to the dead-letter queue after maxReceiveCount receives.
import { createHash } from 'node:crypto';
import type { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import type { EventSourceMappingSpec } from '../deployment/template.js';
import type { InvocationResult } from '../lambda/function-host.js';
import type { LambdaService } from './lambda-service.js';
import type { QueuedSignal, SignalQueue } from './queue.js';

/** What became of one message on one receive. */
export interface Delivery {
  readonly message: QueuedSignal;
  /** Which receive this was (1: the first). */
  readonly attempt: number;
  readonly at: number;
  /** The invocation that handled its batch (its logs tell what the function did with it). */
  readonly invocation?: InvocationResult;
  /** Whether the function took it (deleted from the queue). */
  readonly succeeded: boolean;
  /** Why the whole batch failed (function error, timeout, a bad partial-batch answer). */
  readonly batchError?: string;
  /** It moved to the dead-letter queue on this receive instead of being delivered. */
  readonly deadLettered?: boolean;
}

const SENDER_ID = 'AIDAIENQZJOLO23YVJ4VO';

export class QueuePoller {
  readonly deliveries: Delivery[] = [];
  private inFlight = 0;
  private readonly scheduled = new Set<number>();

  constructor(
    private readonly deps: {
      readonly clock: VirtualClock;
      readonly queue: SignalQueue;
      readonly mapping: EventSourceMappingSpec;
      readonly lambda: LambdaService;
      readonly region: string;
      /** Lambda's Invoke API refusing the mapping's call (an injected fault): the error, or undefined to go on. */
      readonly invokeFault?: () => string | undefined;
    },
  ) {
    deps.queue.onVisible = (at) => this.pollAt(at);
  }

  /** Whether the mapping takes messages from the queue at all (enabled, and allowed to). */
  get polling(): boolean {
    return this.deps.mapping.enabled;
  }

  /** Batches being handled now. */
  get busy(): boolean {
    return this.inFlight > 0;
  }

  /** The batch being gathered: when its window opened (its first message was visible to a free slot). */
  private gatheringSince: number | undefined;

  private pollAt(at: number): void {
    if (!this.deps.mapping.enabled || this.scheduled.has(at)) return;
    this.scheduled.add(at);
    this.deps.clock.schedule(at, () => {
      this.scheduled.delete(at);
      this.poll();
    });
  }

  private poll(): void {
    const { clock, queue, mapping } = this.deps;
    const limit = mapping.maximumConcurrency ?? Number.POSITIVE_INFINITY;
    const windowMs = mapping.batchingWindowSeconds * 1000;
    while (this.inFlight < limit) {
      const now = clock.now();
      if (queue.countsAt(now).visible === 0) {
        this.gatheringSince = undefined;
        return;
      }
      const since = (this.gatheringSince ??= now);
      const full = queue.countsAt(now).visible >= mapping.batchSize;
      if (!full && now < since + windowMs) {
        // The window closes later: come back then (a full batch, or a slot set free, comes back sooner).
        this.pollAt(since + windowMs);
        return;
      }
      this.gatheringSince = undefined;
      const dead = queue.deadLetters.length;
      const batch = queue.receive(now, mapping.batchSize);
      for (const letter of queue.deadLetters.slice(dead)) {
        this.deliveries.push({
          message: letter.message,
          attempt: letter.receives,
          at: letter.at,
          succeeded: false,
          deadLettered: true,
          ...(letter.lastError !== undefined ? { batchError: letter.lastError } : {}),
        });
      }
      if (batch.length === 0) continue;
      this.inFlight += 1;
      void this.deliver(batch).finally(() => {
        this.inFlight -= 1;
        // A slot is free: what stayed visible while every slot was taken goes now.
        this.poll();
      });
    }
  }

  private sqsEvent(batch: readonly QueuedSignal[]): unknown {
    const { queue, region } = this.deps;
    return {
      Records: batch.map((m) => ({
        messageId: m.messageId,
        receiptHandle: `${m.messageId}#${m.receives}`,
        body: m.body,
        attributes: {
          ApproximateReceiveCount: String(m.receives),
          SentTimestamp: String(m.sentAt),
          SenderId: SENDER_ID,
          ApproximateFirstReceiveTimestamp: String(m.firstReceivedAt ?? m.sentAt),
        },
        messageAttributes: {},
        md5OfBody: createHash('md5').update(m.body).digest('hex'),
        eventSource: 'aws:sqs',
        eventSourceARN: queue.arn,
        awsRegion: region,
      })),
    };
  }

  private async deliver(batch: readonly QueuedSignal[]): Promise<void> {
    const { clock, queue, mapping, lambda } = this.deps;
    const at = clock.now();
    let invocation: InvocationResult | undefined;
    let batchError: string | undefined;
    let failedIds = new Set<string>();
    try {
      const refused = this.deps.invokeFault?.();
      if (refused !== undefined) throw new Error(refused);
      invocation = await lambda.invoke(mapping.functionName, this.sqsEvent(batch));
      if (!invocation.ok) batchError = `${invocation.error.errorType}: ${invocation.error.errorMessage}`;
      else if (mapping.reportBatchItemFailures) {
        const named = partialFailures(invocation.payload, batch);
        if (named === undefined)
          batchError = 'the function answered with an invalid partial-batch response: the whole batch failed';
        else failedIds = named;
      }
    } catch (error) {
      batchError = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    }
    for (const message of batch) {
      const succeeded = batchError === undefined && !failedIds.has(message.messageId);
      if (succeeded) queue.delete(message);
      else queue.fail(message, batchError ?? 'the function reported it in batchItemFailures');
      this.deliveries.push({
        message,
        attempt: message.receives,
        at,
        succeeded,
        ...(invocation ? { invocation } : {}),
        ...(batchError !== undefined ? { batchError } : {}),
      });
    }
  }
}

/**
 * The message ids a partial-batch response names; undefined when the answer is not a valid one
 * (Lambda then fails the whole batch). An empty or absent list means every message succeeded.
 */
function partialFailures(payload: unknown, batch: readonly QueuedSignal[]): Set<string> | undefined {
  if (payload === null || payload === undefined) return new Set();
  if (typeof payload !== 'object') return undefined;
  const failures = (payload as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === undefined || failures === null) return new Set();
  if (!Array.isArray(failures)) return undefined;
  const ids = new Set<string>();
  const known = new Set(batch.map((m) => m.messageId));
  for (const failure of failures) {
    const id =
      typeof failure === 'object' && failure !== null
        ? (failure as { itemIdentifier?: unknown }).itemIdentifier
        : undefined;
    if (typeof id !== 'string' || !known.has(id)) return undefined;
    ids.add(id);
  }
  return ids;
}
