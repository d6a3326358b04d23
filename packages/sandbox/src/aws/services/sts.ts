import { AwsError } from '../errors.js';
import { identityOf, verifyPresignedCallerIdentity } from '../sigv4.js';
import type { AwsQueryService, QueryResultValue, RequestContext } from './types.js';

function headerValues(ctx: RequestContext): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(ctx.request.headers)) {
    if (typeof value === 'string') out[name.toLowerCase()] = value;
    else if (Array.isArray(value)) out[name.toLowerCase()] = value.join(',');
  }
  return out;
}

/**
 * GetCallerIdentity. A presigned GET (an EKS token's URL, fetched the way aws-iam-authenticator
 * fetches it) is verified for real: signature, expiry, known key. An ordinary signed call is not —
 * the SDK and CLI sign with dummy keys — and reports the identity of its access key.
 */
async function getCallerIdentity(_params: unknown, ctx: RequestContext): Promise<Record<string, QueryResultValue>> {
  const { state } = ctx;
  if (ctx.request.query.has('X-Amz-Signature')) {
    const headers = headerValues(ctx);
    const url = new URL(`http://${headers.host ?? 'localhost'}${ctx.request.path}`);
    url.search = ctx.request.query.toString();
    const verdict = await verifyPresignedCallerIdentity({
      url,
      headers,
      now: state.now(),
      credentials: ctx.credentials,
      accountId: state.accountId,
    });
    if (!verdict.ok) throw new AwsError(verdict.code, verdict.reason, 403);
    const { arn, userId, accountId } = verdict.identity;
    return { UserId: userId, Account: accountId, Arn: arn };
  }
  if (ctx.accessKeyId === undefined)
    throw new AwsError('MissingAuthenticationToken', 'Request is missing Authentication Token', 403);
  const identity = identityOf(ctx.accessKeyId, ctx.credentials, state.accountId);
  return { UserId: identity.userId, Account: identity.accountId, Arn: identity.arn };
}

export const stsService: AwsQueryService = {
  name: 'sts',
  protocol: 'query',
  xmlns: 'https://sts.amazonaws.com/doc/2011-06-15/',
  throttlingError: () => new AwsError('Throttling', 'Rate exceeded'),
  operations: { GetCallerIdentity: getCallerIdentity },
};
