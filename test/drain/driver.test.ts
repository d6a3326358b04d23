import { describe, expect, it } from 'vitest';
import { runDrain } from '../../cli/drain/driver.js';
import type { DrainStepResult } from '../../lib/drain/step-result.js';
import { pod } from './support/fake-api.js';
import { harness, START } from './support/scenario.js';

describe('runDrain', () => {
  it('should loop steps, reporting each, until the drain ends', async () => {
    const { cluster, deps, request } = harness();
    cluster.addPod(pod('web', { owner: ['ReplicaSet', 'web'], grace: 30 }));
    const steps: [number, DrainStepResult['status']][] = [];

    const result = await runDrain(deps, request, { stepBudgetMs: 10_000, onStep: (r, n) => steps.push([n, r.status]) });

    expect(result.status).toBe('drained');
    expect(steps.map(([n]) => n)).toEqual([1, 2, 3, 4]);
    expect(steps.at(-1)).toEqual([4, 'drained']);
  });

  it('should drain 110 pods in about one grace period of clock time', async () => {
    const { cluster, clock, deps, request } = harness();
    for (let i = 0; i < 110; i++) cluster.addPod(pod(`web-${i}`, { owner: ['ReplicaSet', 'web'], grace: 30 }));

    const result = await runDrain(deps, request);

    expect(result.counts).toMatchObject({ evicted: 110, left: 0 });
    expect(clock.now() - START).toBeLessThanOrEqual(30_000 + deps.settings.pollIntervalMs);
  });
});
