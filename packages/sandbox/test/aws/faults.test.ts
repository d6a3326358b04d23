import { describe, expect, it } from 'vitest';
import { Faults, type FaultOptions } from '../../src/aws/faults.js';

/** Which of 40 calls the faults throttle, asking the delay first as the server does for each call. */
const throttledCalls = (options: FaultOptions): number[] => {
  const faults = new Faults(options);
  const throttled: number[] = [];
  for (let call = 0; call < 40; call++) {
    faults.delayFor('sts', 'GetCallerIdentity');
    if (faults.decide('sts', 'GetCallerIdentity')?.kind === 'throttle') throttled.push(call);
  }
  return throttled;
};

describe('Faults at a seeded rate', () => {
  it('should throttle the same calls whether or not a latency rule with jitter is added (one draw stream each)', () => {
    const throttle = [{ service: 'sts' as const, rate: 0.5 }];
    const alone = throttledCalls({ seed: 7, throttle });
    const withJitter = throttledCalls({ seed: 7, throttle, latency: [{ service: 'sts', ms: 0, jitterMs: 1 }] });

    expect(alone.length).toBeGreaterThan(0);
    expect(alone.length).toBeLessThan(40);
    expect(withJitter).toEqual(alone);
  });
});

describe('Faults.suspend', () => {
  it('should leave every call alone while suspended, use up no counted rule, and arm again when resumed', () => {
    const faults = new Faults({
      failures: [{ service: 'ec2', operation: 'DescribeInstances', code: 'InternalError', status: 500, count: 1 }],
      latency: [{ service: 'ec2', ms: 5 }],
      entryFailures: [{ errorCode: 'InternalFailure', count: 1 }],
    });
    const resume = faults.suspend();
    expect(faults.armed).toBe(false);
    expect(faults.delayFor('ec2', 'DescribeInstances')).toBe(0);
    expect(faults.decide('ec2', 'DescribeInstances')).toBeUndefined();
    expect(faults.entryFailure({})).toBeUndefined();

    resume();
    resume(); // a second call changes nothing
    expect(faults.armed).toBe(true);
    expect(faults.delayFor('ec2', 'DescribeInstances')).toBe(5);
    expect(faults.decide('ec2', 'DescribeInstances')).toMatchObject({ kind: 'fail', code: 'InternalError' });
    expect(faults.entryFailure({})).toMatchObject({ errorCode: 'InternalFailure' });
  });
});
