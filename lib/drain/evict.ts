import { errorText } from '../support/errors.js';
import { podKey, type DrainApi, type PodRef, type RemovalOptions, type RemovalOutcome } from './api.js';

export type RemovalVia = 'evict' | 'delete';

export interface Removal {
  readonly pod: PodRef;
  readonly via: RemovalVia;
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
 * Sends the evictions (policy/v1) and deletes concurrently, at most `concurrency` at a time.
 * Every pod gets a result; failures are aggregated, never first-error-wins.
 */
export async function removePods(
  api: DrainApi,
  removals: readonly Removal[],
  options: { readonly concurrency: number; readonly canStart?: () => boolean },
): Promise<RemovalResult[]> {
  const settled = await settleBounded(removals, options.concurrency, async (removal): Promise<RemovalResult['outcome']> => {
    if (options.canStart && !options.canStart()) return { kind: 'not-attempted' };
    return removal.via === 'evict' ? api.evictPod(removal.pod, removal.options) : api.deletePod(removal.pod, removal.options);
  });
  return removals.map((removal, index) => {
    const result = settled[index];
    if (result?.status === 'fulfilled') return { ...removal, outcome: result.value };
    const cause: unknown = result?.reason;
    const action = removal.via === 'evict' ? 'evicting' : 'deleting';
    return { ...removal, outcome: { kind: 'error', message: `${action} pod ${podKey(removal.pod)}: ${errorText(cause)}`, cause } };
  });
}

/** One line per kind of failure, naming its pods: what a log line or Event says about a round of evictions. */
export function summarizeFailures(results: readonly RemovalResult[]): string[] {
  const groups = new Map<string, string[]>();
  for (const { pod, outcome } of results) {
    let label: string | undefined;
    switch (outcome.kind) {
      case 'accepted':
      case 'not-found':
      case 'replaced':
      case 'not-attempted':
        break;
      case 'too-many-requests':
        label = outcome.pdb ? `blocked by PodDisruptionBudget ${outcome.pdb}` : `too many requests: ${outcome.message}`;
        break;
      case 'multiple-pdbs':
        label = 'covered by more than one PodDisruptionBudget';
        break;
      case 'failed':
        label = `failed (${outcome.status}): ${outcome.message}`;
        break;
      case 'error':
        label = `no answer: ${errorText(outcome.cause)}`;
        break;
    }
    if (label !== undefined) groups.set(label, [...(groups.get(label) ?? []), podKey(pod)]);
  }
  return [...groups].map(([label, pods]) => `${label}: ${pods.join(', ')}`);
}
