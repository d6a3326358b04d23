// When a replay may plan a kept observation again instead of observing the world anew (sweep-skip.ts):
// a whole observation when nothing is kept, a Node or node Lease it does not hold was written, or an AWS call wrote
// whose reach is not known (whatAWriteChanges); the kept one planned again when every counter is as
// kept, no answer of EC2 changed by time alone and no drain moved; otherwise what changed is read again.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { AwsState } from '@ec2-node-reconciler/sandbox/aws/state/index.js';
import {
  machinesAnsweredDifferently,
  sameVersion,
  skipStep,
  whatAWriteChanges,
  type WorldVersion,
} from '@ec2-node-reconciler/sandbox/simulate/sweep-skip.js';

const version = fc.record({
  kube: fc.integer({ min: 0, max: 5 }),
  awsChanges: fc.integer({ min: 0, max: 3 }),
  machines: fc.integer({ min: 0, max: 3 }),
  awsWrite: fc.integer({ min: 0, max: 3 }),
});

describe('skipStep', () => {
  it('should observe, read again or plan again by what changed', () => {
    fc.assert(
      fc.property(
        version,
        version,
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        (kept, now, machinesToReread, drainsToReread, came) => {
          const step = skipStep({ version: kept }, { version: now, machinesToReread, drainsToReread }, came);
          const observe = came || kept.awsWrite !== now.awsWrite;
          const reread = !sameVersion(kept, now) || machinesToReread || drainsToReread;
          expect(step === 'observe').toBe(observe);
          expect(step === 'replan').toBe(!observe && !reread);
          expect(step === 'reread').toBe(!observe && reread);
        },
      ),
    );
  });

  it('should observe anew when nothing was kept', () => {
    fc.assert(
      fc.property(version, fc.boolean(), fc.boolean(), (now, machinesToReread, drainsToReread) => {
        expect(skipStep(undefined, { version: now, machinesToReread, drainsToReread }, false)).toBe('observe');
      }),
    );
  });

  it('should tell every counter apart: a change to any one of them is a change of the world', () => {
    const base: WorldVersion = { kube: 7, awsChanges: 1, machines: 2, awsWrite: 3 };
    const kept = { version: base };
    const quiet = { machinesToReread: false, drainsToReread: false };
    expect(skipStep(kept, { ...quiet, version: { ...base, awsWrite: 4 } }, false)).toBe('observe');
    for (const now of [
      { ...base, kube: 8 },
      { ...base, awsChanges: 2 },
      { ...base, machines: 3 },
    ])
      expect(skipStep(kept, { ...quiet, version: now }, false)).toBe('reread');
    expect(skipStep(kept, { ...quiet, version: base, machinesToReread: true }, false)).toBe('reread');
    expect(skipStep(kept, { ...quiet, version: base, drainsToReread: true }, false)).toBe('reread');
    expect(skipStep(kept, { ...quiet, version: { ...base } }, false)).toBe('replan');
    expect(skipStep(kept, { ...quiet, version: { ...base, kube: 8 } }, true)).toBe('observe');
  });
});

describe('whatAWriteChanges', () => {
  it('should read the drains again after a write that starts, stops or moves an execution', () => {
    for (const operation of [
      'StartExecution',
      'StopExecution',
      'SendTaskSuccess',
      'SendTaskFailure',
      'SendTaskHeartbeat',
    ])
      expect(whatAWriteChanges({ service: 'states', operation, params: {} })).toBe('drains');
  });

  it('should read one machine again after a write about it (its lifecycle action, its health)', () => {
    for (const operation of ['CompleteLifecycleAction', 'RecordLifecycleActionHeartbeat', 'SetInstanceHealth'])
      expect(
        whatAWriteChanges({ service: 'autoscaling', operation, params: { InstanceId: 'i-0000000000000000a' } }),
      ).toEqual({ machine: 'i-0000000000000000a' });
  });

  it('should read again the machine whose lifecycle action a heartbeat named by its token alone, as Auto Scaling finds it', () => {
    const heartbeat = {
      service: 'autoscaling' as const,
      operation: 'RecordLifecycleActionHeartbeat',
      params: { AutoScalingGroupName: 'g', LifecycleHookName: 'h', LifecycleActionToken: 't' },
    };
    const asked: unknown[] = [];
    const machineOfAction = (selector: { group: string; hook: string; token: string }) => {
      asked.push(selector);
      return selector.token === 't' ? 'i-0000000000000000b' : undefined;
    };
    expect(whatAWriteChanges(heartbeat, machineOfAction)).toEqual({ machine: 'i-0000000000000000b' });
    expect(asked).toEqual([{ group: 'g', hook: 'h', token: 't' }]);
    // No action holds the token any more: which machine it was, only a whole observation tells.
    expect(
      whatAWriteChanges({ ...heartbeat, params: { ...heartbeat.params, LifecycleActionToken: 'u' } }, machineOfAction),
    ).toBeUndefined();
    // A completion by token: its action is gone once the call is logged.
    expect(whatAWriteChanges({ ...heartbeat, operation: 'CompleteLifecycleAction' }, machineOfAction)).toBeUndefined();
  });

  it('should observe the whole world after any other write, or one whose machine is not named', () => {
    for (const entry of [
      // A lifecycle action named by its token alone.
      { service: 'autoscaling', operation: 'CompleteLifecycleAction', params: { LifecycleActionToken: 't' } },
      { service: 'autoscaling', operation: 'SetInstanceHealth', params: { InstanceId: 7 } },
      { service: 'autoscaling', operation: 'UpdateAutoScalingGroup', params: { AutoScalingGroupName: 'g' } },
      { service: 'autoscaling', operation: 'CreateOrUpdateTags', params: {} },
      { service: 'states', operation: 'UpdateStateMachine', params: {} },
      { service: 'ec2', operation: 'TerminateInstances', params: { InstanceId: ['i-0000000000000000a'] } },
      { service: 'ec2', operation: 'CreateTags', params: {} },
    ] as const)
      expect(whatAWriteChanges(entry)).toBeUndefined();
  });
});

describe('machinesAnsweredDifferently', () => {
  const START = Date.parse('2026-11-01T00:00:00Z');
  const MIN = 60_000;
  const account = () => {
    const state = new AwsState({ clock: new VirtualClock(START), region: 'us-east-1', accountId: '111122223333' });
    state.seed({
      instances: [
        { id: 'i-0000000000000000a', state: 'running', zone: 'us-east-1a', visibleAfter: '10m' },
        {
          id: 'i-0000000000000000b',
          state: 'running',
          zone: 'us-east-1a',
          scheduledEvents: [{ code: 'system-maintenance', notBefore: '5m', notAfter: '20m' }],
        },
      ],
    });
    return state;
  };

  it('should name a machine becoming visible from visibleAfter on, and not again', () => {
    const state = account();
    expect(machinesAnsweredDifferently(state, START, START + 10 * MIN)).toContain('i-0000000000000000a');
    expect(machinesAnsweredDifferently(state, START + 10 * MIN, START + 20 * MIN)).not.toContain('i-0000000000000000a');
  });

  it("should name a scheduled event's machine in the tick after notAfter, when EC2 first answers it completed", () => {
    const state = account();
    // EC2 answers the event completed only once notAfter has passed (strictly): at notAfter it is still listed.
    expect(machinesAnsweredDifferently(state, START + 10 * MIN, START + 20 * MIN)).not.toContain('i-0000000000000000b');
    expect(machinesAnsweredDifferently(state, START + 20 * MIN, START + 30 * MIN)).toContain('i-0000000000000000b');
    expect(machinesAnsweredDifferently(state, START + 15 * MIN, START + 25 * MIN)).toContain('i-0000000000000000b');
  });
});
