/**
 * Runs `task` over `items` with at most `limit` in flight, and resolves with the results in item
 * order. Every item is attempted: a task that throws does not stop the others, and the first error
 * is rethrown once all have settled (callers that must aggregate catch inside `task`).
 *
 * Why bounded: the APIs we call throttle per account (EC2 Describe* refills 20 tokens a second,
 * Kubernetes API Priority and Fairness gives a client ~49 seats), so a thousand calls at once only
 * buy throttling; one at a time buys latency. A few in flight gets both.
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < items.length; i = next++) {
      try {
        results[i] = await task(items[i] as T, i);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure) throw failure.error;
  return results;
}

/**
 * At most `limit` tasks running at once, the others waiting their turn in order: the requests of
 * one client, however many callers share it (an SQS batch's lookups, a drain's evictions).
 */
export class Slots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`slots: limit must be a whole number ≥ 1, got ${limit}`);
  }

  /** Tasks running now. */
  get busy(): number {
    return this.running;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      return await task();
    } finally {
      // The slot passes straight to the next in line (running stays counted), or is given back.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}
