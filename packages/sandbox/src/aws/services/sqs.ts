// SQS: a queue's attributes and URL. SQS speaks two protocols: awsJson 1.0 (`X-Amz-Target:
// AmazonSQS.<Operation>`, the SDKs since 2023 and AWS CLI v1 here) and the older awsquery (AWS CLI
// v2 from the Debian package), whose XML lists are flattened and whose error codes are the
// `AWS.SimpleQueueService.*` ones. Both run the same handlers.
import * as z from 'zod';
import { AwsError } from '../errors.js';
import type { QueueRecord } from '../state/queues.js';
import {
  FlattenedList,
  type AwsQueryService,
  type JsonService,
  type QueryResultValue,
  type RequestContext,
} from './types.js';
import { parseInput, queryList, smithyValidation } from './validate.js';

/** Every attribute GetQueueAttributes knows, in the order SQS lists them for `All`. */
const ATTRIBUTE_NAMES = [
  'QueueArn',
  'ApproximateNumberOfMessages',
  'ApproximateNumberOfMessagesNotVisible',
  'ApproximateNumberOfMessagesDelayed',
  'CreatedTimestamp',
  'LastModifiedTimestamp',
  'VisibilityTimeout',
  'MaximumMessageSize',
  'MessageRetentionPeriod',
  'DelaySeconds',
  'ReceiveMessageWaitTimeSeconds',
  'RedrivePolicy',
  'RedriveAllowPolicy',
  'SqsManagedSseEnabled',
  'Policy',
] as const;

/** The JSON protocol's error codes; the query protocol says them the old way. */
const QUERY_CODES: Readonly<Record<string, string>> = {
  QueueDoesNotExist: 'AWS.SimpleQueueService.NonExistentQueue',
  InvalidAttributeName: 'InvalidAttributeName',
};

const noSuchQueue = (): AwsError =>
  new AwsError('QueueDoesNotExist', 'The specified queue does not exist for this wsdl version.', 400);

function queueAt(ctx: RequestContext, url: string): QueueRecord {
  const queue = ctx.state.queues.byUrl(url);
  if (!queue) throw noSuchQueue();
  return queue;
}

function attributesOf(queue: QueueRecord, asked: readonly string[]): Record<string, string> {
  for (const name of asked)
    if (name !== 'All' && !(ATTRIBUTE_NAMES as readonly string[]).includes(name))
      throw new AwsError('InvalidAttributeName', `Unknown Attribute ${name}.`, 400);
  const counts = queue.counts();
  const all: Record<string, string | undefined> = {
    QueueArn: queue.arn,
    ApproximateNumberOfMessages: String(counts.visible),
    ApproximateNumberOfMessagesNotVisible: String(counts.notVisible),
    ApproximateNumberOfMessagesDelayed: String(counts.delayed),
    CreatedTimestamp: String(Math.floor(queue.createdAt / 1000)),
    LastModifiedTimestamp: String(Math.floor(queue.createdAt / 1000)),
    MaximumMessageSize: '262144',
    DelaySeconds: '0',
    ReceiveMessageWaitTimeSeconds: '0',
    SqsManagedSseEnabled: 'false',
    ...queue.attributes,
  };
  const wanted = asked.includes('All') ? ATTRIBUTE_NAMES : asked;
  const out: Record<string, string> = {};
  for (const name of wanted) {
    const value = all[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

const GetQueueAttributesInput = z.object({
  QueueUrl: z.string().min(1),
  AttributeNames: z.array(z.string()).optional(),
});
const GetQueueUrlInput = z.object({
  QueueName: z.string().min(1).max(80),
  QueueOwnerAWSAccountId: z.string().optional(),
});

function queueUrlOf(ctx: RequestContext, name: string): string {
  const queue = ctx.state.queues.byName(name);
  if (!queue) throw noSuchQueue();
  return queue.url;
}

const jsonInvalid = smithyValidation('InvalidParameterValue');

/** awsJson 1.0: `{ QueueUrl, AttributeNames }` → `{ Attributes }`. */
export const sqsJsonService: JsonService = {
  name: 'sqs',
  protocol: 'json',
  jsonVersion: '1.0',
  targetPrefix: 'AmazonSQS',
  queryErrorCodes: QUERY_CODES,
  throttlingError: () => new AwsError('RequestThrottled', 'Rate exceeded'),
  operations: {
    GetQueueAttributes: (params, ctx) => {
      const input = parseInput(GetQueueAttributesInput, params, jsonInvalid);
      return { Attributes: attributesOf(queueAt(ctx, input.QueueUrl), input.AttributeNames ?? []) };
    },
    GetQueueUrl: (params, ctx) => {
      const input = parseInput(GetQueueUrlInput, params, jsonInvalid);
      return { QueueUrl: queueUrlOf(ctx, input.QueueName) };
    },
  },
};

/** The query protocol's codes for an error the handlers raise in the JSON protocol's words. */
function inQueryWords(run: () => Record<string, QueryResultValue>): Record<string, QueryResultValue> {
  try {
    return run();
  } catch (error) {
    if (error instanceof AwsError && QUERY_CODES[error.code] !== undefined)
      throw new AwsError(QUERY_CODES[error.code] ?? error.code, error.message, error.status);
    throw error;
  }
}

const queryInvalid = smithyValidation('InvalidParameterValue');

/** awsquery: `AttributeName.N` in, flattened `<Attribute><Name/><Value/></Attribute>`s out. */
export const sqsQueryService: AwsQueryService = {
  name: 'sqs',
  protocol: 'query',
  xmlns: 'http://queue.amazonaws.com/doc/2012-11-05/',
  throttlingError: () => new AwsError('RequestThrottled', 'Rate exceeded'),
  operations: {
    GetQueueAttributes: (params, ctx) =>
      inQueryWords(() => {
        const input = parseInput(
          z.object({ QueueUrl: z.string().min(1), AttributeName: queryList(z.string()).optional() }),
          params,
          queryInvalid,
        );
        const attributes = attributesOf(queueAt(ctx, input.QueueUrl), input.AttributeName ?? []);
        return {
          Attribute: new FlattenedList(Object.entries(attributes).map(([Name, Value]) => ({ Name, Value }))),
        };
      }),
    GetQueueUrl: (params, ctx) =>
      inQueryWords(() => {
        const input = parseInput(GetQueueUrlInput, params, queryInvalid);
        return { QueueUrl: queueUrlOf(ctx, input.QueueName) };
      }),
  },
};
