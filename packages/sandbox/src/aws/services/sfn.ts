import * as z from 'zod';
import { AwsError } from '../errors.js';
import { epochSeconds } from '../protocol/json.js';
import type { ExecutionRecord } from '../state/step-functions.js';
import type { JsonService, RequestContext } from './types.js';
import { parseInput, smithyValidation } from './validate.js';

const invalid = smithyValidation('ValidationException');

const STATE_MACHINE_ARN = /^arn:aws[\w-]*:states:[a-z0-9-]+:\d{12}:stateMachine:([A-Za-z0-9_-]{1,80})$/;
const EXECUTION_ARN = /^arn:aws[\w-]*:states:[a-z0-9-]+:\d{12}:execution:[A-Za-z0-9_-]{1,80}:[^:]{1,80}$/;
/** Step Functions refuses whitespace, wildcard and control characters, and a few punctuation marks, in names. */
const INVALID_NAME_CHARS = /[\s<>{}[\]?*"#%\\^|~`$&,;:/]/u;
const hasControlCharacter = (name: string): boolean =>
  [...name].some((c) => {
    const code = c.codePointAt(0) ?? 0;
    return code < 0x20 || (code >= 0x7f && code <= 0x9f);
  });

const StartExecutionInput = z.object({
  stateMachineArn: z.string().min(1).max(256),
  name: z.string().min(1).max(80).optional(),
  input: z.string().max(262_144).optional(),
  traceHeader: z.string().max(256).optional(),
});
const DescribeExecutionInput = z.object({
  executionArn: z.string().min(1).max(256),
  includedData: z.enum(['ALL_DATA', 'METADATA_ONLY']).optional(),
});

/**
 * StartExecution is idempotent for a STANDARD workflow: the same name and input while the first
 * run is still RUNNING returns it again; a different input, or a run that has ended, is
 * ExecutionAlreadyExists. The reconciler relies on this to never start a second drain.
 */
function startExecution(params: unknown, ctx: RequestContext): unknown {
  const input = parseInput(StartExecutionInput, params, invalid);
  const machineName = STATE_MACHINE_ARN.exec(input.stateMachineArn)?.[1];
  if (machineName === undefined)
    throw new AwsError('InvalidArn', `Invalid State Machine Arn: '${input.stateMachineArn}'`);
  const machine = ctx.state.stepFunctions.stateMachine(input.stateMachineArn);
  if (!machine)
    throw new AwsError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${input.stateMachineArn}'`);
  const name = input.name ?? ctx.state.ids.uuid();
  if (INVALID_NAME_CHARS.test(name) || hasControlCharacter(name))
    throw new AwsError('InvalidName', `Invalid Name: '${name}'`);
  const executionInput = input.input ?? '{}';
  try {
    JSON.parse(executionInput);
  } catch {
    throw new AwsError(
      'InvalidExecutionInput',
      `Invalid State Machine Execution Input: '${executionInput.slice(0, 200)}'`,
    );
  }
  const arn = machine.arn.replace(':stateMachine:', ':execution:') + `:${name}`;
  const existing = ctx.state.stepFunctions.execution(arn);
  if (existing) {
    if (existing.status === 'RUNNING' && existing.input === executionInput) {
      return { executionArn: existing.arn, startDate: epochSeconds(existing.startDate) };
    }
    throw new AwsError('ExecutionAlreadyExists', `Execution Already Exists: '${arn}'`);
  }
  const execution: ExecutionRecord = {
    arn,
    stateMachineArn: machine.arn,
    name,
    input: executionInput,
    startDate: ctx.state.now(),
    status: 'RUNNING',
  };
  ctx.state.stepFunctions.addExecution(execution);
  return { executionArn: arn, startDate: epochSeconds(execution.startDate) };
}

function describeExecution(params: unknown, ctx: RequestContext): unknown {
  const input = parseInput(DescribeExecutionInput, params, invalid);
  if (!EXECUTION_ARN.test(input.executionArn)) throw new AwsError('InvalidArn', `Invalid Arn: '${input.executionArn}'`);
  const e = ctx.state.stepFunctions.execution(input.executionArn);
  if (!e) throw new AwsError('ExecutionDoesNotExist', `Execution Does Not Exist: '${input.executionArn}'`);
  const withData = input.includedData !== 'METADATA_ONLY';
  return {
    executionArn: e.arn,
    stateMachineArn: e.stateMachineArn,
    name: e.name,
    status: e.status,
    startDate: epochSeconds(e.startDate),
    stopDate: e.stopDate === undefined ? undefined : epochSeconds(e.stopDate),
    input: withData ? e.input : undefined,
    inputDetails: { included: withData },
    output: withData ? e.output : undefined,
    outputDetails: e.output === undefined ? undefined : { included: withData },
    error: e.error,
    cause: e.cause,
    redriveCount: 0,
    redriveStatus: 'NOT_REDRIVABLE',
  };
}

export const stepFunctionsService: JsonService = {
  name: 'states',
  protocol: 'json',
  jsonVersion: '1.0',
  targetPrefix: 'AWSStepFunctions',
  throttlingError: () => new AwsError('ThrottlingException', 'Rate exceeded'),
  operations: { StartExecution: startExecution, DescribeExecution: describeExecution },
};
