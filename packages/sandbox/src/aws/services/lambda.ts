import { AwsError } from '../errors.js';
import type { EventSourceMappingRecord, FunctionRecord, FunctionStore, InvocationRecord } from '../state/functions.js';
import type { RestJsonService } from './types.js';

/** The function a name or ARN names, or Lambda's 404 naming its ARN. */
function functionNamed(functions: FunctionStore, nameOrArn: string): FunctionRecord {
  const fn = functions.find(nameOrArn);
  if (!fn) throw new AwsError('ResourceNotFoundException', `Function not found: ${functions.arnOf(nameOrArn)}`, 404);
  return fn;
}

/** Lambda's LastModified: ISO 8601 with milliseconds and a `+0000` offset. */
const lastModified = (ms: number): string => new Date(ms).toISOString().replace('Z', '+0000');

/** GetFunctionConfiguration's answer: the template's properties, and a function that is Active and up to date. */
function configurationJson(fn: FunctionRecord): Record<string, unknown> {
  const c = fn.configuration;
  return {
    FunctionName: fn.name,
    FunctionArn: fn.arn,
    ...(c.runtime !== undefined ? { Runtime: c.runtime } : {}),
    ...(c.role !== undefined ? { Role: c.role } : {}),
    ...(c.handler !== undefined ? { Handler: c.handler } : {}),
    ...(c.description !== undefined ? { Description: c.description } : {}),
    Timeout: c.timeoutSeconds ?? 3,
    MemorySize: c.memoryMb ?? 128,
    LastModified: lastModified(fn.lastModified),
    Version: '$LATEST',
    ...(c.environment !== undefined ? { Environment: { Variables: c.environment } } : {}),
    ...(c.vpc !== undefined
      ? {
          VpcConfig: {
            SubnetIds: c.vpc.subnetIds,
            SecurityGroupIds: c.vpc.securityGroupIds,
            ...(c.vpc.vpcId !== undefined ? { VpcId: c.vpc.vpcId } : {}),
          },
        }
      : {}),
    TracingConfig: { Mode: 'PassThrough' },
    State: 'Active',
    LastUpdateStatus: 'Successful',
    PackageType: 'Zip',
    Architectures: c.architectures ?? ['x86_64'],
    EphemeralStorage: { Size: 512 },
    LoggingConfig: { LogFormat: 'Text', LogGroup: c.logGroup ?? `/aws/lambda/${fn.name}` },
  };
}

function mappingJson(m: EventSourceMappingRecord): Record<string, unknown> {
  return {
    UUID: m.uuid,
    BatchSize: m.batchSize,
    MaximumBatchingWindowInSeconds: m.batchingWindowSeconds,
    EventSourceArn: m.eventSourceArn,
    FunctionArn: m.functionArn,
    LastModified: m.lastModified / 1000,
    State: m.state,
    StateTransitionReason: 'USER_INITIATED',
    FunctionResponseTypes: m.functionResponseTypes,
    ...(m.maximumConcurrency !== undefined ? { ScalingConfig: { MaximumConcurrency: m.maximumConcurrency } } : {}),
  };
}

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

/** Lambda Invoke (restJson, API version 2015-03-31), running the registered function's code in process, and the configuration reads doctor makes. */
export const lambdaService: RestJsonService = {
  name: 'lambda',
  protocol: 'rest-json',
  throttlingError: () => new AwsError('TooManyRequestsException', 'Rate Exceeded.', 429),
  routes: [
    {
      method: 'GET',
      pattern: /^\/2015-03-31\/functions\/([^/]+)\/configuration$/,
      operation: 'GetFunctionConfiguration',
      handle([name = ''], ctx) {
        const fn = functionNamed(ctx.state.functions, name);
        return { body: configurationJson(fn) };
      },
    },
    {
      method: 'GET',
      pattern: /^\/2019-09-30\/functions\/([^/]+)\/concurrency$/,
      operation: 'GetFunctionConcurrency',
      handle([name = ''], ctx) {
        const reserved = functionNamed(ctx.state.functions, name).configuration.reservedConcurrency;
        return { body: reserved === undefined ? {} : { ReservedConcurrentExecutions: reserved } };
      },
    },
    {
      method: 'GET',
      pattern: /^\/2016-08-19\/account-settings\/?$/,
      operation: 'GetAccountSettings',
      handle(_params, ctx) {
        const functions = ctx.state.functions;
        return {
          body: {
            AccountLimit: {
              TotalCodeSize: 80_530_636_800,
              CodeSizeUnzipped: 262_144_000,
              CodeSizeZipped: 52_428_800,
              ConcurrentExecutions: functions.concurrencyLimit,
              UnreservedConcurrentExecutions: functions.unreservedConcurrency(),
            },
            AccountUsage: { TotalCodeSize: 0, FunctionCount: functions.all().length },
          },
        };
      },
    },
    {
      method: 'GET',
      pattern: /^\/2015-03-31\/event-source-mappings\/?$/,
      operation: 'ListEventSourceMappings',
      handle(_params, ctx) {
        const source = ctx.request.query.get('EventSourceArn') ?? undefined;
        const functionName = ctx.request.query.get('FunctionName') ?? undefined;
        const fn = functionName === undefined ? undefined : functionNamed(ctx.state.functions, functionName);
        const mappings = ctx.state.functions.eventSourceMappings.filter(
          (m) =>
            (source === undefined || m.eventSourceArn === source) && (fn === undefined || m.functionArn === fn.arn),
        );
        return { body: { EventSourceMappings: mappings.map(mappingJson) } };
      },
    },
    {
      method: 'POST',
      pattern: /^\/2015-03-31\/functions\/([^/]+)\/invocations$/,
      operation: 'Invoke',
      async handle([name = ''], ctx) {
        const fn = functionNamed(ctx.state.functions, name);
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
