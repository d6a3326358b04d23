// CloudFormation (awsquery): DescribeStacks, for the stacks the deployed world stands for — what
// an operator reads the stack's outputs with.
import * as z from 'zod';
import { AwsError } from '../errors.js';
import type { StackRecord } from '../state/stacks.js';
import type { AwsQueryService, QueryResultValue, RequestContext } from './types.js';
import { parseInput, smithyValidation } from './validate.js';

const invalid = smithyValidation('ValidationError');

function stackJson(stack: StackRecord): QueryResultValue {
  return {
    StackId: stack.id,
    StackName: stack.name,
    ...(stack.description !== undefined ? { Description: stack.description } : {}),
    CreationTime: new Date(stack.createdAt),
    StackStatus: stack.status,
    DisableRollback: false,
    NotificationARNs: [],
    Capabilities: ['CAPABILITY_IAM'],
    Outputs: stack.outputs.map((o) => ({
      OutputKey: o.key,
      OutputValue: o.value,
      ...(o.description !== undefined ? { Description: o.description } : {}),
    })),
    Tags: [],
    EnableTerminationProtection: false,
    DriftInformation: { StackDriftStatus: 'NOT_CHECKED' },
  };
}

/** One stack by name or id, or every stack; a name nobody deployed is a ValidationError, as on AWS. */
function describeStacks(params: unknown, ctx: RequestContext): Record<string, QueryResultValue> {
  const input = parseInput(
    z.object({ StackName: z.string().min(1).optional(), NextToken: z.string().optional() }),
    params,
    invalid,
  );
  if (input.StackName === undefined) return { Stacks: ctx.state.stacks.all().map(stackJson) };
  const stack = ctx.state.stacks.get(input.StackName);
  if (!stack) throw new AwsError('ValidationError', `Stack with id ${input.StackName} does not exist`, 400);
  return { Stacks: [stackJson(stack)] };
}

export const cloudFormationService: AwsQueryService = {
  name: 'cloudformation',
  protocol: 'query',
  xmlns: 'http://cloudformation.amazonaws.com/doc/2010-05-15/',
  throttlingError: () => new AwsError('Throttling', 'Rate exceeded'),
  operations: { DescribeStacks: describeStacks },
};
