import { AwsError } from '../errors.js';
import type { InvocationRecord } from '../state/functions.js';
import type { RestJsonService } from './types.js';

const INVOCATION_TYPES = ['RequestResponse', 'Event', 'DryRun'] as const;
type InvocationType = InvocationRecord['type'];
const isInvocationType = (value: string): value is InvocationType =>
  (INVOCATION_TYPES as readonly string[]).includes(value);

/** What Lambda answers for a function that threw: the payload carries the error, the status stays 200. */
function functionError(error: unknown): { errorType: string; errorMessage: string; trace: string[] } {
  // The Node.js runtime's shape: the stack's lines as they are, the `Error: message` line first.
  if (error instanceof Error)
    return { errorType: error.name, errorMessage: error.message, trace: (error.stack ?? '').split('\n') };
  return { errorType: 'Error', errorMessage: String(error), trace: [] };
}

/** Lambda Invoke (restJson, API version 2015-03-31), running the registered function's code in process. */
export const lambdaService: RestJsonService = {
  name: 'lambda',
  protocol: 'rest-json',
  throttlingError: () => new AwsError('TooManyRequestsException', 'Rate Exceeded.', 429),
  routes: [
    {
      method: 'POST',
      pattern: /^\/2015-03-31\/functions\/([^/]+)\/invocations$/,
      operation: 'Invoke',
      async handle([name = ''], ctx) {
        const fn = ctx.state.functions.find(name);
        if (!fn)
          throw new AwsError(
            'ResourceNotFoundException',
            `Function not found: ${ctx.state.functions.arnOf(name)}`,
            404,
          );
        const type = String(ctx.request.headers['x-amz-invocation-type'] ?? 'RequestResponse');
        if (!isInvocationType(type))
          throw new AwsError('InvalidParameterValueException', `Unsupported invocation type: ${type}`);
        const text = ctx.request.body;
        let payload: unknown = {};
        if (text.trim() !== '') {
          try {
            payload = JSON.parse(text);
          } catch (error) {
            throw new AwsError(
              'InvalidRequestContentException',
              `Could not parse request body into json: ${error instanceof Error ? error.message : String(error)}`,
            );
          }
        }
        const record: InvocationRecord = { functionName: fn.name, type, payload: text };
        ctx.state.functions.invocations.push(record);
        const headers = { 'x-amz-executed-version': '$LATEST' };
        if (type === 'DryRun') return { status: 204, headers, body: undefined };
        const context = { functionName: fn.name, invokedFunctionArn: fn.arn, awsRequestId: ctx.requestId };
        if (type === 'Event' && fn.enqueue) {
          fn.enqueue(payload, context);
          return { status: 202, headers, body: undefined };
        }
        const run = fn.handler(payload, context);
        if (type === 'Event') {
          run.catch((error: unknown) => {
            const e = functionError(error);
            record.error = `${e.errorType}: ${e.errorMessage}`;
          });
          return { status: 202, headers, body: undefined };
        }
        try {
          const result = await run;
          return { status: 200, headers, body: result ?? null };
        } catch (error) {
          // The service refused the invocation (throttled): an API error, not the function's.
          if (error instanceof AwsError) throw error;
          const e = functionError(error);
          record.error = `${e.errorType}: ${e.errorMessage}`;
          return { status: 200, headers: { ...headers, 'x-amz-function-error': 'Unhandled' }, body: e };
        }
      },
    },
  ],
};
