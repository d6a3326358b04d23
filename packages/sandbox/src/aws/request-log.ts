import type { ServiceName } from './services/names.js';

export interface RequestLogEntry {
  readonly seq: number;
  /** Clock time (virtual in the sandbox). */
  readonly at: number;
  readonly service: ServiceName | 'unknown';
  readonly operation: string;
  /** The decoded input: nested query parameters, the JSON body, or REST path parameters. */
  readonly params: unknown;
  readonly status: number;
  readonly errorCode?: string;
  /** From the SigV4 credential scope, when the request was signed. */
  readonly region?: string;
  readonly accessKeyId?: string;
  /** The caller's ARN (the signing key's identity), when IAM is enforced. */
  readonly principal?: string;
  /** True when IAM refused the call (AccessDenied, UnauthorizedOperation, or no signature at all). */
  readonly denied?: true;
  /** Real time spent answering, injected latency included. */
  readonly durationMs: number;
}

export interface LogFilter {
  readonly service?: ServiceName | 'unknown';
  readonly operation?: string;
  /** Only calls IAM refused (true) or let through (false). */
  readonly denied?: boolean;
}

/** Every request the emulator answered, oldest first; bounded so long benchmarks keep flat memory. */
export class RequestLog {
  private list: RequestLogEntry[] = [];
  private seq = 0;
  private readonly observers = new Set<(entry: RequestLogEntry) => void>();

  constructor(private readonly capacity = 100_000) {}

  get entries(): readonly RequestLogEntry[] {
    this.compact();
    return this.list;
  }

  add(entry: Omit<RequestLogEntry, 'seq'>): RequestLogEntry {
    const full = { ...entry, seq: ++this.seq };
    this.list.push(full);
    // Dropping the oldest one entry at a time would move the whole log on every request once it is
    // full: let it grow to twice the capacity, then drop a capacity's worth at once (amortized O(1)).
    if (this.list.length >= 2 * this.capacity) this.compact();
    for (const observer of this.observers) observer(full);
    return full;
  }

  /** Calls `observer` with every entry added from now on, however many the bounded log drops; returns a function that stops it. */
  observe(observer: (entry: RequestLogEntry) => void): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  private compact(): void {
    if (this.list.length > this.capacity) this.list = this.list.slice(this.list.length - this.capacity);
  }

  filter(filter: LogFilter = {}): readonly RequestLogEntry[] {
    return this.entries.filter(
      (e) =>
        (filter.service === undefined || e.service === filter.service) &&
        (filter.operation === undefined || e.operation === filter.operation) &&
        (filter.denied === undefined || (e.denied === true) === filter.denied),
    );
  }

  clear(): void {
    this.list = [];
  }
}
