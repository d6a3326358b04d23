// Whether the account's Lambda concurrency can hold the sweep's reservation (issue #28, 3). Lambda
// refuses any reserved concurrency that would leave the account fewer than 10 unreserved concurrent
// executions, so in an account whose quota is 10 (a new account) the first deploy fails on the
// sweep's reservation of 1. Checked before a deploy (no stack yet) as after one.
import { LAMBDA_CONCURRENCY } from '@ec2-node-reconciler/model/contract/api-budgets.js';
import { couldNotRead, failed, passed, type Check, type Read } from './check.js';

const { minUnreserved: LAMBDA_MIN_UNRESERVED, sweepReserved: SWEEP_RESERVATION, quotaCode } = LAMBDA_CONCURRENCY;

export interface AccountConcurrency {
  /** AccountLimit.ConcurrentExecutions: the quota. */
  readonly limit: number;
  /** AccountLimit.UnreservedConcurrentExecutions: the quota less every function's reservation. */
  readonly unreserved: number;
}

export function checkConcurrency(input: {
  readonly region: string;
  readonly account: Read<AccountConcurrency>;
  /** The sweep function's reserved concurrency: undefined when it reserves none; the whole read undefined when the function is not deployed. */
  readonly sweepReserved?: Read<number | undefined>;
}): Check {
  const subject = `account (${input.region})`;
  const { account, sweepReserved } = input;
  if (!account.ok) return couldNotRead('lambda concurrency', subject, account.error, 'lambda:GetAccountSettings');
  if (sweepReserved !== undefined && !sweepReserved.ok)
    return couldNotRead('lambda concurrency', subject, sweepReserved.error, 'lambda:GetFunctionConcurrency');
  const { limit, unreserved } = account.value;
  const reserved = sweepReserved?.value;
  if (reserved !== undefined && reserved > 0)
    return passed(
      'lambda concurrency',
      subject,
      `the sweep reserves ${reserved} of the account's ${limit} concurrent executions (${unreserved} unreserved)`,
    );
  const left = unreserved - SWEEP_RESERVATION;
  if (left >= LAMBDA_MIN_UNRESERVED) {
    const deployed =
      sweepReserved === undefined
        ? 'a deploy can reserve'
        : 'the sweep reserves none (reserveSweepConcurrency=false), though the account could reserve';
    return passed(
      'lambda concurrency',
      subject,
      `${deployed} the sweep's ${SWEEP_RESERVATION} of ${limit} concurrent executions (${unreserved} unreserved)`,
    );
  }
  const detail = `reserving the sweep's ${SWEEP_RESERVATION} concurrent execution would leave ${left} unreserved, under Lambda's ${LAMBDA_MIN_UNRESERVED} (the account's quota is ${limit}, ${unreserved} unreserved)`;
  if (sweepReserved !== undefined)
    // Deployed without the reservation, as this account needs: it runs; sweeps may overlap.
    return passed('lambda concurrency', subject, `the sweep reserves none, as it must here: ${detail}`);
  return failed(
    'lambda concurrency',
    subject,
    `a deploy would be refused: ${detail}`,
    `raise the quota (aws service-quotas request-service-quota-increase --service-code lambda --quota-code ${quotaCode} --desired-value 1000), or deploy with -c reserveSweepConcurrency=false until it is raised`,
  );
}
