import type { DrainApi } from '../../../lib/drain/api.js';

/**
 * The client dies with the process: the `after`-th eviction reaches the server but its answer is
 * lost, and every later call fails — the worst moment for a Lambda to time out.
 */
export function dyingAfter(api: DrainApi, after: number): DrainApi {
  let evictions = 0;
  let dead = false;
  const guard =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (dead) throw new Error('killed');
      return fn(...args);
    };
  return {
    getNode: guard((name) => api.getNode(name)),
    patchNode: guard((name, patch) => api.patchNode(name, patch)),
    listPodsOnNode: guard((node) => api.listPodsOnNode(node)),
    daemonSetExists: guard((ns, name) => api.daemonSetExists(ns, name)),
    evictPod: guard(async (ref, options) => {
      const outcome = await api.evictPod(ref, options);
      if (++evictions >= after) {
        dead = true;
        throw new Error('killed');
      }
      return outcome;
    }),
  };
}
