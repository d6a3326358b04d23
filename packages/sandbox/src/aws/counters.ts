import type { RequestLogEntry } from './request-log.js';

export interface OperationCount {
  requests: number;
  /** Answers with an error status (throttles included). */
  errors: number;
  /** Answers with the service's throttling error, injected or not. */
  throttled: number;
}

const THROTTLE_CODES = new Set(['RequestLimitExceeded', 'Throttling', 'ThrottlingException']);

/** Request counts per `service:Operation`, kept apart from the log so clearing one keeps the other. */
export class Counters {
  private counts = new Map<string, OperationCount>();
  // Apart from OperationCount, whose shape callers compare whole.
  private refusals = new Map<string, number>();

  record(entry: Pick<RequestLogEntry, 'service' | 'operation' | 'status' | 'errorCode' | 'denied'>): void {
    const key = `${entry.service}:${entry.operation}`;
    if (entry.denied === true) this.refusals.set(key, (this.refusals.get(key) ?? 0) + 1);
    const count = this.counts.get(key) ?? { requests: 0, errors: 0, throttled: 0 };
    count.requests++;
    if (entry.status >= 400) count.errors++;
    if (entry.errorCode !== undefined && THROTTLE_CODES.has(entry.errorCode)) count.throttled++;
    this.counts.set(key, count);
  }

  /** Counts for one operation, or summed over a service when the operation is omitted. */
  get(service: string, operation?: string): OperationCount {
    const total = { requests: 0, errors: 0, throttled: 0 };
    for (const [key, count] of this.counts) {
      const [s, op] = key.split(':');
      if (s !== service || (operation !== undefined && op !== operation)) continue;
      total.requests += count.requests;
      total.errors += count.errors;
      total.throttled += count.throttled;
    }
    return total;
  }

  /** Calls IAM refused: for one operation, a service, or all (`denied()`); never cleared with the log. */
  denied(service?: string, operation?: string): number {
    let sum = 0;
    for (const [key, count] of this.refusals) {
      const [s, op] = key.split(':');
      if ((service === undefined || s === service) && (operation === undefined || op === operation)) sum += count;
    }
    return sum;
  }

  get total(): number {
    let sum = 0;
    for (const count of this.counts.values()) sum += count.requests;
    return sum;
  }

  /** `{ 'ec2:DescribeInstances': { requests, errors, throttled }, … }` */
  snapshot(): Record<string, OperationCount> {
    return Object.fromEntries([...this.counts].map(([k, v]) => [k, { ...v }]));
  }

  reset(): void {
    this.counts = new Map();
    this.refusals = new Map();
  }
}
