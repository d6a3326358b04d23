import * as z from 'zod';
import { AwsError } from '../errors.js';
import { epochSeconds } from '../protocol/json.js';
import type { HistoryEvent } from '../../sfn/history.js';
import type { ExecutionRecord, StateMachineRecord } from '../state/step-functions.js';
import { paginate } from './pagination.js';
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
/** 0 or none: the default page of 100. */
const MaxResults = z.number().int().min(0).max(1000).optional();
const NextToken = z.string().min(1).max(3096).optional();
const ListExecutionsInput = z.object({
  stateMachineArn: z.string().min(1).max(256).optional(),
  mapRunArn: z.string().min(1).max(2000).optional(),
  statusFilter: z.enum(['RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED', 'PENDING_REDRIVE']).optional(),
  maxResults: MaxResults,
  nextToken: NextToken,
  redriveFilter: z.enum(['REDRIVEN', 'NOT_REDRIVEN']).optional(),
});
const GetExecutionHistoryInput = z.object({
  executionArn: z.string().min(1).max(256),
  maxResults: MaxResults,
  reverseOrder: z.boolean().optional(),
  nextToken: NextToken,
  includeExecutionData: z.boolean().optional(),
});
const DEFAULT_PAGE = 100;
const pageSize = (maxResults: number | undefined): number =>
  maxResults === undefined || maxResults === 0 ? DEFAULT_PAGE : maxResults;
const invalidToken = (token: string) => new AwsError('InvalidToken', `Invalid Token: '${token}'`);

/** The state machine an ARN names, or the error Step Functions answers for it. */
function stateMachineOf(arn: string, ctx: RequestContext): StateMachineRecord {
  if (!STATE_MACHINE_ARN.test(arn)) throw new AwsError('InvalidArn', `Invalid State Machine Arn: '${arn}'`);
  const machine = ctx.state.stepFunctions.stateMachine(arn);
  if (!machine) throw new AwsError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${arn}'`);
  return machine;
}

/** The execution an ARN names, or the error Step Functions answers for it. */
function executionOf(arn: string, ctx: RequestContext): ExecutionRecord {
  if (!EXECUTION_ARN.test(arn)) throw new AwsError('InvalidArn', `Invalid Arn: '${arn}'`);
  const execution = ctx.state.stepFunctions.execution(arn);
  if (!execution) throw new AwsError('ExecutionDoesNotExist', `Execution Does Not Exist: '${arn}'`);
  return execution;
}

/**
 * StartExecution is idempotent for a STANDARD workflow: the same name and input while the first
 * run is still RUNNING returns it again; a different input, or a run that has ended, is
 * ExecutionAlreadyExists. The reconciler relies on this to never start a second drain.
 */
function startExecution(params: unknown, ctx: RequestContext): unknown {
  const input = parseInput(StartExecutionInput, params, invalid);
  const machine = stateMachineOf(input.stateMachineArn, ctx);
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
  const e = executionOf(input.executionArn, ctx);
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

/** A state machine's executions, the most recent first (as Step Functions lists them), a page at a time. */
function listExecutions(params: unknown, ctx: RequestContext): unknown {
  const input = parseInput(ListExecutionsInput, params, invalid);
  // No Map states run here, so there are no Map Runs to list.
  if (input.mapRunArn !== undefined) throw new AwsError('ResourceNotFound', `Resource not found: '${input.mapRunArn}'`);
  if (input.stateMachineArn === undefined)
    throw new AwsError('ValidationException', 'Must provide a StateMachine ARN or MapRun ARN');
  const machine = stateMachineOf(input.stateMachineArn, ctx);
  // Nothing is redriven here: every execution is NOT_REDRIVEN, none PENDING_REDRIVE.
  const status = input.statusFilter;
  const matching =
    input.redriveFilter === 'REDRIVEN' || status === 'PENDING_REDRIVE'
      ? []
      : ctx.state.stepFunctions.executions({ stateMachineArn: machine.arn, ...(status ? { status } : {}) });
  // Started later first; of two started at once, the one started second.
  const newestFirst = matching
    .map((e, order) => ({ e, order }))
    .sort((a, b) => b.e.startDate - a.e.startDate || b.order - a.order);
  const page = paginate(
    newestFirst.map(({ e }) => e),
    { size: pageSize(input.maxResults), token: input.nextToken, kind: 'ListExecutions' },
    invalidToken,
  );
  return {
    executions: page.items.map((e) => ({
      executionArn: e.arn,
      stateMachineArn: e.stateMachineArn,
      name: e.name,
      status: e.status,
      startDate: epochSeconds(e.startDate),
      ...(e.stopDate !== undefined ? { stopDate: epochSeconds(e.stopDate) } : {}),
    })),
    ...(page.nextToken !== undefined ? { nextToken: page.nextToken } : {}),
  };
}

/** `arn:aws:states:::aws-sdk:autoscaling:completeLifecycleAction` → resource type `aws-sdk:autoscaling`, resource `completeLifecycleAction`. */
function taskResource(arn: string | undefined): { resourceType: string; resource: string } {
  const integration = /^arn:[\w-]+:states:::(.+):([^:]+)$/.exec(arn ?? '');
  if (integration?.[1] !== undefined && integration[2] !== undefined)
    return { resourceType: integration[1], resource: integration[2] };
  return { resourceType: 'lambda', resource: arn ?? '' };
}

/** One history event in the API's shape: its details under `<type>EventDetails`, data as JSON text. */
function historyEvent(event: HistoryEvent, withData: boolean, region: string): Record<string, unknown> {
  const data = (key: 'input' | 'output', value: unknown): Record<string, unknown> =>
    withData ? { [key]: JSON.stringify(value ?? null), [`${key}Details`]: { truncated: false } } : {};
  const failure = {
    ...(event.error !== undefined ? { error: event.error } : {}),
    ...(event.cause !== undefined ? { cause: event.cause } : {}),
  };
  const details = ((): [string, Record<string, unknown>] | undefined => {
    switch (event.type) {
      case 'ExecutionStarted':
        return ['executionStartedEventDetails', data('input', event.input)];
      case 'ExecutionSucceeded':
        return ['executionSucceededEventDetails', data('output', event.output)];
      case 'ExecutionFailed':
        return ['executionFailedEventDetails', failure];
      case 'ExecutionAborted':
        return ['executionAbortedEventDetails', failure];
      case 'ExecutionTimedOut':
        return ['executionTimedOutEventDetails', failure];
      case 'TaskScheduled':
        return [
          'taskScheduledEventDetails',
          { ...taskResource(event.resource), region, parameters: JSON.stringify(event.parameters ?? {}) },
        ];
      case 'TaskStarted':
        return ['taskStartedEventDetails', taskResource(event.resource)];
      case 'TaskSucceeded':
        return ['taskSucceededEventDetails', { ...taskResource(event.resource), ...data('output', event.output) }];
      case 'TaskFailed':
        return ['taskFailedEventDetails', { ...taskResource(event.resource), ...failure }];
      case 'TaskTimedOut':
        return ['taskTimedOutEventDetails', { ...taskResource(event.resource), ...failure }];
      default:
        if (event.type.endsWith('StateEntered'))
          return ['stateEnteredEventDetails', { name: event.stateName ?? '', ...data('input', event.input) }];
        if (event.type.endsWith('StateExited'))
          return ['stateExitedEventDetails', { name: event.stateName ?? '', ...data('output', event.output) }];
        return undefined;
    }
  })();
  return {
    timestamp: epochSeconds(event.timestamp),
    type: event.type,
    id: event.id,
    // Without Parallel or Map states, each event follows from the one before it.
    previousEventId: event.id - 1,
    ...(details ? { [details[0]]: details[1] } : {}),
  };
}

/**
 * An execution's history, oldest first or (reverseOrder) newest first, a page at a time. The token
 * names the next event by id, so a history that grows between pages neither repeats nor skips one.
 */
function getExecutionHistory(params: unknown, ctx: RequestContext): unknown {
  const input = parseInput(GetExecutionHistoryInput, params, invalid);
  const execution = executionOf(input.executionArn, ctx);
  const events = ctx.state.stepFunctions.history(execution.arn);
  const ordered = input.reverseOrder === true ? [...events].reverse() : events;
  let from = 0;
  if (input.nextToken !== undefined) {
    const id = Number(
      /^GetExecutionHistory:(\d+)$/.exec(Buffer.from(input.nextToken, 'base64url').toString('utf8'))?.[1],
    );
    from = ordered.findIndex((e) => e.id === id);
    if (from < 0) throw invalidToken(input.nextToken);
  }
  const size = pageSize(input.maxResults);
  const page = ordered.slice(from, from + size);
  const next = ordered[from + size];
  const withData = input.includeExecutionData !== false;
  return {
    events: page.map((e) => historyEvent(e, withData, ctx.state.region)),
    ...(next !== undefined
      ? { nextToken: Buffer.from(`GetExecutionHistory:${next.id}`, 'utf8').toString('base64url') }
      : {}),
  };
}

export const stepFunctionsService: JsonService = {
  name: 'states',
  protocol: 'json',
  jsonVersion: '1.0',
  targetPrefix: 'AWSStepFunctions',
  throttlingError: () => new AwsError('ThrottlingException', 'Rate exceeded'),
  operations: {
    StartExecution: startExecution,
    DescribeExecution: describeExecution,
    ListExecutions: listExecutions,
    GetExecutionHistory: getExecutionHistory,
  },
};
