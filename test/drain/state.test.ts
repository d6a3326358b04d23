import { describe, expect, it } from 'vitest';
import {
  initialDrainState,
  packState,
  readDrainState,
  type PodRecord,
  type WorkingState,
} from '../../lib/drain/state.js';

const START = Date.UTC(2026, 0, 1, 12);

function stateWith(records: PodRecord[], node = 'node-a'): WorkingState {
  const state = initialDrainState(node, START);
  Object.assign(state, {
    nodeUid: 'node-uid',
    cordoned: true,
    deadline: START + 120_000,
    lifecycle: { group: 'ng', hook: 'h' },
  });
  for (const record of records) state.pods.set(`${record.namespace}/${record.name}`, record);
  return state;
}

describe('drain state', () => {
  it('should read back every kind of record after a trip through JSON', () => {
    const state = stateWith([
      { namespace: 'default', name: 'web', uid: 'u1', stage: 'evicting', grace: { pod: 300, given: 115 } },
      {
        namespace: 'default',
        name: 'db-0',
        uid: 'u2',
        stage: 'blocked-by-pdb',
        attempts: 3,
        retryAt: START + 15_000,
        pdb: 'default/db',
      },
      { namespace: 'default', name: 'bare', uid: 'u3', stage: 'refused', refusal: 'unreplicated' },
      { namespace: 'kube-system', name: 'agent', uid: 'u4', stage: 'skipped-daemonset' },
      { namespace: 'kube-system', name: 'old', uid: 'u5', stage: 'terminated' },
      { namespace: 'other', name: 'api', uid: 'u6', stage: 'throttled', attempts: 1, retryAt: START + 5_000 },
    ]);

    const back = readDrainState(JSON.parse(JSON.stringify(packState(state))), 'node-a');

    expect(back).toEqual(state);
  });

  it('should drop a state that is damaged or belongs to another node', () => {
    const packed = packState(
      stateWith([
        {
          namespace: 'default',
          name: 'web',
          uid: 'u1',
          stage: 'blocked-by-pdb',
          attempts: 1,
          retryAt: START,
          pdb: 'default/x',
        },
      ]),
    );
    expect(readDrainState(packState(initialDrainState('node-b', 1)), 'node-a')).toBeUndefined();
    expect(readDrainState({ v: 1, node: 'node-a' }, 'node-a')).toBeUndefined();
    expect(
      readDrainState({ ...packed, pods: { default: { web: ['u1', 'no-such-stage'] } } }, 'node-a'),
    ).toBeUndefined();
    // A PDB index that points nowhere.
    expect(readDrainState({ ...packed, pdbs: [] }, 'node-a')).toBeUndefined();
    expect(readDrainState('{}', 'node-a')).toBeUndefined();
    expect(readDrainState(undefined, 'node-a')).toBeUndefined();
  });

  it('should hold ids, codes and PDB names only: a blocked pod costs under 100 bytes with long names', () => {
    const records: PodRecord[] = [];
    for (let i = 0; i < 737; i++) {
      records.push({
        namespace: 'some-namespace',
        name: `some-deployment-7d9f8b6c5d-${String(i).padStart(5, 'x')}`,
        uid: crypto.randomUUID(),
        stage: 'blocked-by-pdb',
        attempts: 30,
        retryAt: START + 600_000,
        pdb: 'some-namespace/a-pdb',
      });
    }
    const json = JSON.stringify(packState(stateWith(records, 'ip-10-0-0-1.eu-west-1.compute.internal')));
    expect(json.length / 737).toBeLessThan(100);
    expect(json).not.toContain('disruption budget');
  });
});
