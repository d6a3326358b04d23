// doctor's Lambda concurrency check (issue #28, 3): whether the account can hold the sweep's
// reserved concurrency, before the first deploy as after.
import { describe, expect, it } from 'vitest';
import { readFailed, readOk } from '../../cli/doctor/check.js';
import { checkConcurrency } from '../../cli/doctor/concurrency.js';

const REGION = 'eu-west-1';

describe('checkConcurrency', () => {
  it('should fail before a first deploy in an account whose quota is 10, with the two ways out', () => {
    // Prepare: a new account, nothing reserved, no stack yet
    const account = readOk({ limit: 10, unreserved: 10 });
    // Act
    const check = checkConcurrency({ region: REGION, account });
    // Assess
    expect(check.status).toBe('fail');
    expect(check.detail).toBe(
      "a deploy would be refused: reserving the sweep's 1 concurrent execution would leave 9 unreserved, under Lambda's 10 (the account's quota is 10, 10 unreserved)",
    );
    expect(check.fix).toContain('--service-code lambda --quota-code L-B99A9384');
    expect(check.fix).toContain('-c reserveSweepConcurrency=false');
  });

  it('should fail when other functions reserved what is left, whatever the quota', () => {
    expect(checkConcurrency({ region: REGION, account: readOk({ limit: 1000, unreserved: 10 }) }).status).toBe('fail');
    expect(checkConcurrency({ region: REGION, account: readOk({ limit: 1000, unreserved: 11 }) }).status).toBe('pass');
  });

  it('should pass a deployed sweep holding its reservation, though only 10 are left unreserved', () => {
    const check = checkConcurrency({
      region: REGION,
      account: readOk({ limit: 11, unreserved: 10 }),
      sweepReserved: readOk(1),
    });
    expect(check.status).toBe('pass');
    expect(check.detail).toContain('the sweep reserves 1 of');
  });

  it('should pass a sweep deployed without a reservation, saying why', () => {
    const tight = checkConcurrency({
      region: REGION,
      account: readOk({ limit: 10, unreserved: 10 }),
      sweepReserved: readOk(undefined),
    });
    expect(tight).toMatchObject({ status: 'pass', detail: expect.stringContaining('as it must here') as unknown });
    const roomy = checkConcurrency({
      region: REGION,
      account: readOk({ limit: 1000, unreserved: 1000 }),
      sweepReserved: readOk(undefined),
    });
    expect(roomy).toMatchObject({
      status: 'pass',
      detail: expect.stringContaining('reserveSweepConcurrency=false') as unknown,
    });
  });

  it('should say what doctor needs when a read is denied', () => {
    const denied = checkConcurrency({ region: REGION, account: readFailed('AccessDeniedException: no') });
    expect(denied).toMatchObject({ status: 'unknown', fix: 'doctor needs lambda:GetAccountSettings' });
    const sweepDenied = checkConcurrency({
      region: REGION,
      account: readOk({ limit: 1000, unreserved: 999 }),
      sweepReserved: readFailed('AccessDeniedException: no'),
    });
    expect(sweepDenied).toMatchObject({ status: 'unknown', fix: 'doctor needs lambda:GetFunctionConcurrency' });
  });
});
