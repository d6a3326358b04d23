// An SQS queue as the deployed signal queue behaves (its visibility timeout and redrive policy come
// from the template): a message the consumer fails is invisible for the visibility timeout, then
// received again; once it has been received maxReceiveCount times and failed each time, it moves to
// the dead-letter queue instead of coming back. Nothing is lost and nothing is retried forever.
import { createHash } from 'node:crypto';

export interface QueuedSignal {
  readonly messageId: string;
  /** The message body: the EventBridge event as the rule delivered it. */
  readonly body: string;
  /** The event, parsed. */
  readonly event: unknown;
  readonly detailType: string;
  readonly sentAt: number;
  firstReceivedAt?: number;
  /** How many times it has been received. */
  receives: number;
  /** When it can be received (again). */
  visibleAt: number;
  /** Why its last receive failed. */
  lastError?: string;
}

export interface DeadLetter {
  readonly message: QueuedSignal;
  readonly event: unknown;
  readonly detailType: string;
  readonly at: number;
  readonly receives: number;
  readonly lastError?: string;
}

export class SignalQueue {
  private readonly inFlight: QueuedSignal[] = [];
  readonly deadLetters: DeadLetter[] = [];
  private sent = 0;
  /** Called whenever a message becomes receivable at a known time (sent, or failed and hidden). */
  onVisible?: (at: number) => void;

  constructor(
    readonly arn: string,
    private readonly visibilityTimeoutMs: number,
    /** Receives before a message moves to the dead-letter queue; none: it is never moved. */
    readonly maxReceiveCount: number = Number.POSITIVE_INFINITY,
  ) {}

  send(event: unknown, detailType: string, now: number): QueuedSignal {
    const body = JSON.stringify(event);
    // Message ids are UUID-shaped and stable for a scenario: a digest of the queue, the count and the body.
    const hex = createHash('sha256').update(`${this.arn}\0${++this.sent}\0${body}`).digest('hex');
    const messageId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
    const message: QueuedSignal = { messageId, body, event, detailType, sentAt: now, receives: 0, visibleAt: now };
    this.inFlight.push(message);
    this.onVisible?.(now);
    return message;
  }

  /** Messages in the queue (visible or not). */
  get size(): number {
    return this.inFlight.length;
  }

  /** Messages receivable at `now`, and those hidden (in flight, or back after their visibility timeout). */
  countsAt(now: number): { readonly visible: number; readonly notVisible: number } {
    const visible = this.inFlight.filter((r) => r.visibleAt <= now).length;
    return { visible, notVisible: this.inFlight.length - visible };
  }

  /** When the next record becomes receivable (a failed one coming back, or one moving to the DLQ). */
  nextVisibleAt(): number | undefined {
    return this.inFlight.length === 0 ? undefined : Math.min(...this.inFlight.map((r) => r.visibleAt));
  }

  /**
   * Records receivable at `now`, in the order they became visible; each counts a receive and is
   * hidden for the visibility timeout. Records already received maxReceiveCount times move to the
   * dead-letter queue instead.
   */
  receive(now: number, max = Number.POSITIVE_INFINITY): QueuedSignal[] {
    const due = this.inFlight.filter((r) => r.visibleAt <= now).sort((a, b) => a.visibleAt - b.visibleAt);
    const received: QueuedSignal[] = [];
    for (const record of due) {
      if (received.length >= max) break;
      if (record.receives >= this.maxReceiveCount) {
        this.remove(record);
        this.deadLetters.push({
          message: record,
          event: record.event,
          detailType: record.detailType,
          at: now,
          receives: record.receives,
          ...(record.lastError !== undefined ? { lastError: record.lastError } : {}),
        });
        continue;
      }
      record.receives += 1;
      record.firstReceivedAt ??= now;
      record.visibleAt = now + this.visibilityTimeoutMs;
      received.push(record);
      this.onVisible?.(record.visibleAt);
    }
    return received;
  }

  /** The function succeeded with it: deleted from the queue. */
  delete(record: QueuedSignal): void {
    this.remove(record);
  }

  /** The function failed it: it comes back when its visibility timeout ends. */
  fail(record: QueuedSignal, error: string): void {
    record.lastError = error;
  }

  private remove(record: QueuedSignal): void {
    const at = this.inFlight.indexOf(record);
    if (at >= 0) this.inFlight.splice(at, 1);
  }
}
