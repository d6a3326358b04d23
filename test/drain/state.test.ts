import { describe, expect, it } from 'vitest';
import { initialDrainState, readDrainState } from '../../lib/drain/state.js';

describe('drain state', () => {
  it('should read back a state that went through JSON', () => {
    const state = initialDrainState('node-a', 1);
    state.removing.push({ ns: 'default', name: 'web', uid: 'u1', at: 2, via: 'evict' });
    expect(readDrainState(JSON.parse(JSON.stringify(state)), 'node-a')).toEqual(state);
  });

  it('should drop a state that is damaged or belongs to another node', () => {
    expect(readDrainState(initialDrainState('node-b', 1), 'node-a')).toBeUndefined();
    expect(readDrainState({ v: 2 }, 'node-a')).toBeUndefined();
    expect(readDrainState('{}', 'node-a')).toBeUndefined();
    expect(readDrainState(undefined, 'node-a')).toBeUndefined();
  });

  it('should stay far below the Step Functions limit for a full node', () => {
    const state = initialDrainState('ip-10-0-0-1.eu-west-1.compute.internal', 1);
    for (let i = 0; i < 250; i++) {
      const record = { ns: 'some-namespace', name: `some-deployment-7d9f8b6c5d-${i}abcd`, uid: crypto.randomUUID(), at: Date.now() };
      state.gone.push({ ...record, how: 'evicted' });
      state.retry.push({ ...record, status: 'blocked-by-pdb', reason: 'blocked by PodDisruptionBudget some-namespace/a-pdb: Cannot evict pod as it would violate the pod\'s disruption budget.', attempts: 3, pdb: 'some-namespace/a-pdb' });
    }
    expect(JSON.stringify(state).length).toBeLessThan(256 * 1024 / 2);
  });
});
