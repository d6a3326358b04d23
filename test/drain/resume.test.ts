import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { podKey } from '../../lib/drain/api.js';
import { runDrain } from '../../cli/drain/driver.js';
import { drainStep } from '../../lib/drain/step.js';
import type { FakeCluster } from './support/fake-api.js';
import { pod } from './support/fake-api.js';
import { dyingAfter } from './support/dying.js';
import { harness, seedMixedNode, type Harness } from './support/scenario.js';

function seed(h: Harness): void {
  seedMixedNode(h.cluster);
  for (let i = 0; i < 12; i++) h.cluster.addPod(pod(`api-${i}`, { owner: ['ReplicaSet', 'api'], grace: 5 + i }));
  h.cluster.pdbs.push({ namespace: 'default', name: 'api', covers: (p) => p.name.startsWith('api-'), allowed: 3 });
}

const endState = (cluster: FakeCluster): string[] =>
  [...cluster.pods.values()].map((p) => `${podKey(p)}@${p.node}`).sort();

describe('resuming a drain', () => {
  it.each([1, 4, 9])(
    'should end as an uninterrupted drain when killed after %i evictions and restarted with no state',
    async (after) => {
      const reference = harness();
      seed(reference);
      const referenceResult = await runDrain(reference.deps, reference.request);

      const h = harness();
      seed(h);
      await expect(
        drainStep({ ...h.deps, api: dyingAfter(h.cluster, after) }, h.request, undefined, 60_000),
      ).rejects.toMatchObject({ cause: { message: 'killed' } });
      const acceptedBeforeCrash = [...h.cluster.accepted];
      const result = await runDrain(h.deps, h.request);

      expect(acceptedBeforeCrash.length).toBeGreaterThanOrEqual(Math.min(after, 1));
      expect(result.status).toBe('drained');
      expect(endState(h.cluster)).toEqual(endState(reference.cluster));
      // Each pod was accepted for eviction once: the restarted step saw it terminating and waited.
      expect(new Set(h.cluster.accepted).size).toBe(h.cluster.accepted.length);
      expect([...h.cluster.accepted].sort()).toEqual([...reference.cluster.accepted].sort());
      expect(h.cluster.redundant).toEqual([]);
      expect(result.remaining).toEqual(referenceResult.remaining);
    },
  );

  it('should never evict a pod twice wherever the crash falls', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 16 }), fc.integer({ min: 0, max: 3 }), async (after, budgetSteps) => {
        const h = harness();
        seed(h);
        const budget = budgetSteps * 5_000;
        await drainStep({ ...h.deps, api: dyingAfter(h.cluster, after) }, h.request, undefined, budget).catch(
          () => undefined,
        );
        const result = await runDrain(h.deps, h.request, { stepBudgetMs: budget });
        expect(result.status).toBe('drained');
        expect(new Set(h.cluster.accepted).size).toBe(h.cluster.accepted.length);
        expect(h.cluster.redundant).toEqual([]);
      }),
      { numRuns: 40 },
    );
  });
});
