// Every request the emulator answered, for tests that assert on what a client did
// ("exactly one DELETE, with preconditions", "no PATCH during a dry run").

export type RequestLogEntry = {
  /** The emulator clock when the request arrived (epoch ms). */
  readonly at: number;
  readonly method: string;
  /** Path without the query. */
  readonly path: string;
  readonly query: string;
  /** Kubernetes verb: get, list, watch, create, update, patch, delete, deletecollection, or the lowercase method for non-resource paths. */
  readonly verb: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  readonly user: string;
  /** HTTP status, or 0 when the connection was reset. */
  readonly status: number;
  /** Wall-clock time spent answering (ms), including injected latency. */
  readonly latencyMs: number;
  /** An injected fault decided the answer (a failure, a reset, or an answer lost after the change was made). */
  readonly injected?: true;
  /** The request body for writes (parsed JSON), to check patches and delete options. */
  readonly body?: unknown;
};

export class RequestLog {
  private items: RequestLogEntry[] = [];

  /** @param capacity oldest entries are dropped beyond this (benchmarks make millions of requests). */
  constructor(private readonly capacity = 100_000) {}

  add(entry: RequestLogEntry): void {
    this.items.push(entry);
    // Dropping the oldest one entry at a time would move the whole log on every request once it is
    // full: let it grow to twice the capacity, then drop a capacity's worth at once (amortized O(1)).
    if (this.items.length >= 2 * this.capacity) this.compact();
  }

  get entries(): readonly RequestLogEntry[] {
    this.compact();
    return this.items;
  }

  private compact(): void {
    if (this.items.length > this.capacity) this.items = this.items.slice(this.items.length - this.capacity);
  }

  filter(
    match: Partial<
      Pick<RequestLogEntry, 'method' | 'verb' | 'resource' | 'subresource' | 'namespace' | 'name' | 'status' | 'user'>
    >,
  ): RequestLogEntry[] {
    return this.entries.filter((e) => Object.entries(match).every(([k, v]) => e[k as keyof RequestLogEntry] === v));
  }

  count(match: Parameters<RequestLog['filter']>[0] = {}): number {
    return this.filter(match).length;
  }

  clear(): void {
    this.items = [];
  }
}
