import { describe, expect, it } from 'vitest';
import { pairGroups } from '../../lib/act/act.js';
import type { Action } from '@ec2-node-reconciler/model/action.js';
import type { InstanceId } from '@ec2-node-reconciler/model/instance-id.js';

const id = (n: number) => `i-0${String(n).padStart(16, '0')}` as InstanceId;
const target = (n: number) => ({ node: `node-${n}`, uid: `uid-${n}`, resourceVersion: '1' });

describe('pairGroups: which actions run in order, and which may run at once', () => {
  it('should keep every action of one pair in one group, in plan order, and give other pairs groups of their own', () => {
    const actions: Action[] = [
      { kind: 'cordon', ...target(1), instanceId: id(1), reason: 'spot' },
      { kind: 'delete', ...target(2), reason: 'stale' },
      {
        kind: 'drain',
        ...target(1),
        instanceId: id(1),
        reason: 'spot',
        deadline: 0,
        cause: 'e',
        execution: 'x',
        mode: 'start',
        for: 'removal',
      },
      // The lifecycle action of node-1's machine names only the instance: still node-1's pair, after its drain.
      {
        kind: 'complete-lifecycle',
        instanceId: id(1),
        lifecycle: { group: 'g', hook: 'h' },
        result: 'CONTINUE',
        reason: 'done',
      },
      { kind: 'mark-unhealthy', instanceId: id(3), group: 'g', reason: 'never registered' },
      { kind: 'report', condition: 'identity-conflict', reason: 'two nodes' },
    ];

    expect(pairGroups(actions)).toEqual([[0, 2, 3], [1], [4], [5]]);
  });

  it('should join two pairs that share a machine (two Nodes claiming one instance) into one group', () => {
    const actions: Action[] = [
      { kind: 'report', condition: 'identity-conflict', node: 'node-1', instanceId: id(1), reason: 'conflict' },
      { kind: 'report', condition: 'identity-conflict', node: 'node-2', instanceId: id(2), reason: 'conflict' },
      { kind: 'report', condition: 'identity-conflict', node: 'node-3', instanceId: id(1), reason: 'conflict' },
      { kind: 'uncordon-own', ...target(2), reason: 'over' },
    ];

    expect(pairGroups(actions)).toEqual([
      [0, 2],
      [1, 3],
    ]);
  });
});
