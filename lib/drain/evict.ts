import { errorText } from '@ec2-node-reconciler/model/error-text.js';
import { podKey, type DrainApi, type PodRef, type RemovalOptions, type RemovalOutcome } from './api.js';

export interface Removal {
  readonly pod: PodRef;
  readonly options?: RemovalOptions;
}

export type RemovalResult = Removal & {
  readonly outcome:
    | RemovalOutcome
    /** No HTTP answer (network, timeout, a client that threw). */
    | { readonly kind: 'error'; readonly message: string; readonly cause: unknown }
    /** Not sent: `canStart` said no (deadline or budget reached). */
    | { readonly kind: 'not-attempted' };
};

/**
 * Runs `fn` over `items` with at most `limit` calls in flight; a rejection is kept as that item's
 * result and never stops the others. Results come back in the order of `items`.
 */
export async function settleBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  const results: PromiseSettledResult<R>[] = [];
  const queue = items.entries();
  const worker = async (): Promise<void> => {
    for (let next = queue.next(); !next.done; next = queue.next()) {
      const [index, item] = next.value;
      const [settled] = await Promise.allSettled([fn(item)]);
      if (settled) results[index] = settled;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

/**
 * Sends the evictions (policy/v1) concurrently, at most `concurrency` at a time.
 * Every pod gets a result; failures are aggregated, never first-error-wins.
 */
export async function removePods(
  api: DrainApi,
  removals: readonly Removal[],
  options: { readonly concurrency: number; readonly canStart?: () => boolean },
): Promise<RemovalResult[]> {
  const settled = await settleBounded(
    removals,
    options.concurrency,
    async (removal): Promise<RemovalResult['outcome']> => {
      if (options.canStart && !options.canStart()) return { kind: 'not-attempted' };
      return api.evictPod(removal.pod, removal.options);
    },
  );
  return removals.map((removal, index) => {
    const result = settled[index];
    if (result?.status === 'fulfilled') return { ...removal, outcome: result.value };
    const cause: unknown = result?.reason;
    return {
      ...removal,
      outcome: { kind: 'error', message: `evicting pod ${podKey(removal.pod)}: ${errorText(cause)}`, cause },
    };
  });
}
