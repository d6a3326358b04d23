import type { Context } from 'aws-lambda';
import type { RunPlace } from '../report/notify.js';

/** Region and account of this invocation: the account is the fifth field of the function's ARN. */
export function placeOf(context: Pick<Context, 'invokedFunctionArn'> | undefined, region: string): RunPlace {
  const accountId = context?.invokedFunctionArn.split(':')[4];
  return { region, ...(accountId && /^\d{12}$/.test(accountId) ? { accountId } : {}) };
}
