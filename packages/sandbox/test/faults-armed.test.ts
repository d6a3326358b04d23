// Whether an emulator's faults may change an answer now: a replay runs every sweep while one may
// (src/simulate/sweep-skip.ts), since the planner's reads would not meet it as the sweep does.
import { describe, expect, it } from 'vitest';
import { Faults as AwsFaults } from '../src/aws/faults.js';
import { Faults as KubeFaults } from '../src/kube/faults.js';

describe('Faults.armed', () => {
  it('should be armed by an AWS failure until its count is used up, and by a throttle or decider until removed', () => {
    const faults = new AwsFaults();
    expect(faults.armed).toBe(false);
    faults.latency({ ms: 5 });
    expect(faults.armed).toBe(false);
    faults.fail({ service: 'ec2', operation: 'DescribeInstances', code: 'InternalError', count: 1 });
    expect(faults.armed).toBe(true);
    expect(faults.decide('ec2', 'DescribeInstances')).toMatchObject({ kind: 'fail' });
    expect(faults.armed).toBe(false);
    const stop = faults.throttle({ service: 'ec2', count: 1 });
    expect(faults.armed).toBe(true);
    stop();
    const stopDecider = faults.addDecider(() => undefined);
    expect(faults.armed).toBe(true);
    stopDecider();
    expect(faults.armed).toBe(false);
  });

  it('should be armed by a Kubernetes rule until its times are used up or it is removed', () => {
    const faults = new KubeFaults();
    expect(faults.armed).toBe(false);
    const stop = faults.errorRate(0.5, { verb: ['list'] });
    expect(faults.armed).toBe(true);
    stop();
    expect(faults.armed).toBe(false);
    faults.addDecider(() => undefined);
    expect(faults.armed).toBe(true);
  });
});
