// The signal queue, as SQS runs it for the deployed events function: a record the function fails
// is invisible for the visibility timeout, then received again; once it has been received
// maxReceiveCount times and failed each time, it moves to the dead-letter queue instead of coming
// back. Nothing is lost and nothing is retried forever.
import { SIGNAL_QUEUE } from '../../workflow/contract.js';

export interface QueuedSignal {
  /** The EventBridge event as the rule delivered it (the record's body, parsed). */
  readonly event: unknown;
  readonly detailType: string;
  /** How many times it has been received. */
  receives: number;
  /** When it can be received (again). */
  visibleAt: number;
  /** Why its last receive failed. */
  lastError?: string;
}

export interface DeadLetter {
  readonly event: unknown;
  readonly detailType: string;
  readonly at: number;
  readonly receives: number;
  readonly lastError?: string;
}

export class SignalQueue {
  private readonly inFlight: QueuedSignal[] = [];
  readonly deadLetters: DeadLetter[] = [];

  constructor(
    private readonly visibilityTimeoutMs: number = SIGNAL_QUEUE.visibilityTimeoutSeconds * 1000,
    readonly maxReceiveCount: number = SIGNAL_QUEUE.maxReceiveCount,
  ) {}

  send(event: unknown, detailType: string, now: number): void {
    this.inFlight.push({ event, detailType, receives: 0, visibleAt: now });
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
  receive(now: number): QueuedSignal[] {
    const due = this.inFlight.filter((r) => r.visibleAt <= now).sort((a, b) => a.visibleAt - b.visibleAt);
    const received: QueuedSignal[] = [];
    for (const record of due) {
      if (record.receives >= this.maxReceiveCount) {
        this.remove(record);
        this.deadLetters.push({
          event: record.event,
          detailType: record.detailType,
          at: now,
          receives: record.receives,
          ...(record.lastError !== undefined ? { lastError: record.lastError } : {}),
        });
        continue;
      }
      record.receives += 1;
      record.visibleAt = now + this.visibilityTimeoutMs;
      received.push(record);
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
