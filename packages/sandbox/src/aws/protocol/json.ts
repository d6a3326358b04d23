import { AwsError } from '../errors.js';
import type { BoundCall, HttpReply, IncomingRequest, JsonService, RestJsonService } from '../services/types.js';

/** awsJson/restJson timestamps are epoch seconds (fractions allowed). */
export const epochSeconds = (ms: number): number => ms / 1000;

function parseBody(body: string): unknown {
  if (body.trim() === '') return {};
  try {
    return JSON.parse(body) as unknown;
  } catch {
    throw new AwsError('SerializationException', 'Start of structure or map found where not expected.');
  }
}

/** awsJson 1.0/1.1: POST /, `X-Amz-Target: <prefix>.<Operation>`, errors as `{"__type", "message"}`. */
export function bindAwsJson(service: JsonService, request: IncomingRequest): BoundCall {
  const target = String(request.headers['x-amz-target'] ?? '');
  const operation = target.startsWith(`${service.targetPrefix}.`) ? target.slice(service.targetPrefix.length + 1) : '';
  const contentType = `application/x-amz-json-${service.jsonVersion}`;
  let input: unknown = {};
  let decodeError: AwsError | undefined;
  try {
    input = parseBody(request.body);
  } catch (error) {
    decodeError = error instanceof AwsError ? error : undefined;
  }
  return {
    service,
    operation: operation || target,
    params: input,
    async invoke(ctx) {
      if (decodeError) throw decodeError;
      const handler =
        operation && Object.hasOwn(service.operations, operation) ? service.operations[operation] : undefined;
      if (!handler)
        throw new AwsError('UnknownOperationException', `Unknown operation ${target || '(no X-Amz-Target)'}`);
      const output: unknown = await handler(input, ctx);
      return {
        status: 200,
        headers: { 'content-type': contentType, 'x-amzn-requestid': ctx.requestId },
        body: JSON.stringify(output),
      };
    },
    renderError(error, requestId): HttpReply {
      const queryCode = service.queryErrorCodes?.[error.code];
      return {
        status: error.status,
        headers: {
          'content-type': contentType,
          'x-amzn-requestid': requestId,
          ...(queryCode !== undefined ? { 'x-amzn-query-error': `${queryCode};${error.fault}` } : {}),
        },
        body: JSON.stringify({ __type: error.code, message: error.message }),
      };
    },
  };
}

/** restJson (EKS, Lambda): routes by method and path; errors name their type in `x-amzn-ErrorType`. */
export function bindRestJson(service: RestJsonService, request: IncomingRequest): BoundCall {
  let params: string[] = [];
  const route = service.routes.find((r) => {
    if (r.method !== request.method) return false;
    const match = r.pattern.exec(request.path);
    if (!match) return false;
    params = match.slice(1).map((p) => decodeURIComponent(p));
    return true;
  });
  return {
    service,
    operation: route?.operation ?? `${request.method} ${request.path}`,
    params: route ? { path: params, query: Object.fromEntries(request.query) } : {},
    async invoke(ctx) {
      if (!route)
        throw new AwsError('UnknownOperationException', `No operation at ${request.method} ${request.path}`, 404);
      const { status, headers, body } = await route.handle(params, ctx);
      return {
        status: status ?? 200,
        headers: { 'content-type': 'application/json', 'x-amzn-requestid': ctx.requestId, ...headers },
        body: body === undefined ? '' : JSON.stringify(body),
      };
    },
    renderError(error, requestId): HttpReply {
      return {
        status: error.status,
        headers: { 'content-type': 'application/json', 'x-amzn-errortype': error.code, 'x-amzn-requestid': requestId },
        body: JSON.stringify({ message: error.message }),
      };
    },
  };
}
