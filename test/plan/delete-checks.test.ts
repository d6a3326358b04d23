// The delete's rails (lib/plan/delete-checks.ts, docs/design.md §4) as an ordered list: each refuses for its
// own reason, and the first in the documented order is the one reported.
import { describe, expect, it } from 'vitest';
import type { ClassifiedPair } from '@ec2-node-reconciler/model/condition.js';
import { firstRefusal } from '../../lib/plan/check.js';
import { DELETE_CHECKS, deleteRefusal, type DeleteSubject } from '../../lib/plan/delete-checks.js';
import { aNode, anInstance, HOUR, instanceId, MINUTE, NOW } from '../support/world.js';

const SETTINGS = { heartbeatGrace: 5 * MINUTE, minNodeAge: 10 * MINUTE, notFoundGrace: 30 * MINUTE };

/** A Node that fails every rail at once: its machine running, its heartbeat fresh, the Node a minute old, excluded. */
function failingEverything(): DeleteSubject {
  const pair: ClassifiedPair = {
    condition: 'stale-object',
    reason: 'test',
    signals: [],
    instanceId: instanceId(1),
    instance: anInstance(1, { state: 'running' }),
    heartbeatAt: NOW - MINUTE,
  };
  return {
    pair,
    node: aNode(1, { createdAt: NOW - MINUTE }),
    now: NOW,
    settings: SETTINGS,
    excluded: 'node label ec2-node-reconciler/exclude=true',
  };
}

describe('the delete checks (DELETE_CHECKS)', () => {
  it('should refuse in the documented order, each rail for its own reason, until none is left', () => {
    // Prepare: each step names the rail that must refuse, then mends it.
    const steps: [string, RegExp, (s: DeleteSubject) => DeleteSubject][] = [
      [
        'not-terminated',
        /^instance is running, not terminated$/,
        (s) => {
          const { instance: _gone, ...unknownToEc2 } = s.pair;
          return { ...s, pair: unknownToEc2 };
        },
      ],
      [
        'heartbeat',
        /^heartbeat is younger than heartbeatGrace \(5m\)$/,
        (s) => ({ ...s, pair: { ...s.pair, heartbeatAt: NOW - HOUR } }),
      ],
      [
        'node-age',
        /^node is younger than minNodeAge \(10m\)$/,
        (s) => ({ ...s, node: { ...s.node, createdAt: NOW - 20 * MINUTE } }),
      ],
      [
        'not-found-grace',
        /^instance unknown to EC2 for less than notFoundGrace \(30m\)$/,
        (s) => ({ ...s, node: { ...s.node, createdAt: NOW - HOUR } }),
      ],
      [
        'excluded',
        /^excluded by node label ec2-node-reconciler\/exclude=true$/,
        (s) => ({ ...s, excluded: undefined }),
      ],
    ];
    let subject = failingEverything();
    for (const [code, reason, mend] of steps) {
      // Act
      const refusal = firstRefusal(DELETE_CHECKS, subject);
      // Assess
      expect(refusal?.code).toBe(code);
      expect(refusal?.reason).toMatch(reason);
      expect(deleteRefusal(subject)).toBe(refusal?.reason);
      subject = mend(subject);
    }
    expect(deleteRefusal(subject)).toBeUndefined();
  });

  it('should let a terminated machine whose kubelet has long been silent be deleted', () => {
    const subject: DeleteSubject = {
      ...failingEverything(),
      pair: { ...failingEverything().pair, instance: anInstance(1, { state: 'terminated' }), heartbeatAt: NOW - HOUR },
      node: aNode(1, { createdAt: NOW - 2 * HOUR }),
      excluded: undefined,
    };
    expect(deleteRefusal(subject)).toBeUndefined();
  });

  it('should have one rail for each of the documented delete rules', () => {
    expect(DELETE_CHECKS).toHaveLength(5);
  });
});
