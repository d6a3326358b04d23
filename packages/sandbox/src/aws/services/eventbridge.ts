import * as z from 'zod';
import { AwsError } from '../errors.js';
import type { RuleRecord } from '../state/event-bus.js';
import type { JsonService, RequestContext } from './types.js';
import { parseInput, smithyValidation } from './validate.js';

const invalid = smithyValidation('ValidationException');

const Entry = z.object({
  // SDKs send epoch seconds; accept an ISO string too, as hand-written JSON does.
  Time: z.union([z.number(), z.iso.datetime({ offset: true })]).optional(),
  Source: z.string().optional(),
  Resources: z.array(z.string()).optional(),
  DetailType: z.string().optional(),
  Detail: z.string().optional(),
  EventBusName: z.string().min(1).max(1600).optional(),
  TraceHeader: z.string().min(1).max(500).optional(),
});
const PutEventsInput = z.object({
  Entries: z.array(Entry).min(1).max(10),
  EndpointId: z.string().min(1).max(50).optional(),
});

type EntryResult = { EventId: string } | { ErrorCode: string; ErrorMessage: string };

const MAX_REQUEST_BYTES = 256 * 1024;

/** `arn:aws:events:<region>:<account>:event-bus/<name>` or a bare name; absent means `default`. */
function busName(value: string | undefined): string {
  if (value === undefined) return 'default';
  const arn = /^arn:aws[\w-]*:events:[a-z0-9-]+:\d{12}:event-bus\/(.+)$/.exec(value);
  return arn?.[1] ?? value;
}

function entryProblem(entry: z.infer<typeof Entry>): EntryResult | undefined {
  const required = (name: string): EntryResult => ({
    ErrorCode: 'InvalidArgument',
    ErrorMessage: `Parameter ${name} is not valid. Reason: ${name} is a required argument.`,
  });
  if (!entry.Source) return required('Source');
  if (!entry.DetailType) return required('DetailType');
  if (!entry.Detail) return required('Detail');
  try {
    JSON.parse(entry.Detail);
  } catch {
    return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
  }
  return undefined;
}

/** EventBridge accepts a Detail that is JSON but not an object, gives it an EventId, and drops it. */
function detailObject(detail: string | undefined): Record<string, unknown> | undefined {
  const parsed: unknown = JSON.parse(detail ?? '{}');
  return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : undefined;
}

/**
 * PutEvents: each entry succeeds or fails on its own (FailedEntryCount), as on EventBridge;
 * an unknown bus or a malformed request fails the whole call.
 */
function putEvents(params: unknown, ctx: RequestContext): unknown {
  const input = parseInput(PutEventsInput, params, invalid);
  if (Buffer.byteLength(JSON.stringify(input.Entries)) > MAX_REQUEST_BYTES) {
    throw new AwsError('ValidationException', 'Total size of the entries in the request is over the limit.');
  }
  const problems = input.Entries.map(entryProblem);
  input.Entries.forEach((entry, index) => {
    const bus = busName(entry.EventBusName);
    if (!problems[index] && !ctx.state.eventBus.hasBus(bus))
      throw new AwsError('ResourceNotFoundException', `Event bus ${bus} does not exist.`);
  });
  const now = ctx.state.now();
  const results = input.Entries.map((entry, index): EntryResult => {
    const problem = problems[index];
    if (problem) return problem;
    const view = { source: entry.Source, detailType: entry.DetailType, eventBusName: busName(entry.EventBusName) };
    const injected = ctx.faults.entryFailure(view);
    if (injected) return { ErrorCode: injected.errorCode, ErrorMessage: injected.errorMessage };
    const eventId = ctx.state.ids.uuid();
    const detail = detailObject(entry.Detail);
    if (detail === undefined) return { EventId: eventId };
    const time =
      entry.Time === undefined ? now : typeof entry.Time === 'number' ? entry.Time * 1000 : Date.parse(entry.Time);
    ctx.state.eventBus.record({
      eventId,
      receivedAt: now,
      time,
      eventBusName: view.eventBusName,
      source: entry.Source ?? '',
      detailType: entry.DetailType ?? '',
      detail,
      resources: entry.Resources ?? [],
      traceHeader: entry.TraceHeader,
    });
    return { EventId: eventId };
  });
  return { FailedEntryCount: results.filter((r) => 'ErrorCode' in r).length, Entries: results };
}

const RuleInput = z.object({ Name: z.string().min(1).max(64), EventBusName: z.string().min(1).max(1600).optional() });

function ruleNamed(ctx: RequestContext, name: string, bus: string | undefined): RuleRecord {
  const rule = ctx.state.eventBus.rule(name, busName(bus));
  if (!rule)
    throw new AwsError('ResourceNotFoundException', `Rule ${name} does not exist on EventBus ${busName(bus)}.`);
  return rule;
}

/** DescribeRule: the pattern as the rule holds it (JSON text), its state, targets not included. */
function describeRule(params: unknown, ctx: RequestContext): unknown {
  const input = parseInput(RuleInput, params, invalid);
  const rule = ruleNamed(ctx, input.Name, input.EventBusName);
  return {
    Name: rule.name,
    Arn: rule.arn,
    ...(rule.eventPattern !== undefined ? { EventPattern: rule.eventPattern } : {}),
    ...(rule.scheduleExpression !== undefined ? { ScheduleExpression: rule.scheduleExpression } : {}),
    State: rule.state,
    ...(rule.description !== undefined ? { Description: rule.description } : {}),
    EventBusName: rule.eventBusName,
    CreatedBy: ctx.state.accountId,
  };
}

function listTargetsByRule(params: unknown, ctx: RequestContext): unknown {
  const input = parseInput(
    z.object({
      Rule: z.string().min(1).max(64),
      EventBusName: z.string().min(1).max(1600).optional(),
      NextToken: z.string().optional(),
      Limit: z.number().int().min(1).max(100).optional(),
    }),
    params,
    invalid,
  );
  const rule = ruleNamed(ctx, input.Rule, input.EventBusName);
  return {
    Targets: rule.targets.map((t) => ({
      Id: t.id,
      Arn: t.arn,
      ...(t.roleArn !== undefined ? { RoleArn: t.roleArn } : {}),
      ...(t.input !== undefined ? { Input: t.input } : {}),
      ...(t.deadLetterArn !== undefined ? { DeadLetterConfig: { Arn: t.deadLetterArn } } : {}),
      ...(t.maximumRetryAttempts !== undefined || t.maximumEventAgeSeconds !== undefined
        ? {
            RetryPolicy: {
              ...(t.maximumRetryAttempts !== undefined ? { MaximumRetryAttempts: t.maximumRetryAttempts } : {}),
              ...(t.maximumEventAgeSeconds !== undefined ? { MaximumEventAgeInSeconds: t.maximumEventAgeSeconds } : {}),
            },
          }
        : {}),
    })),
  };
}

/** The names of the bus's rules with a target of that ARN. */
function listRuleNamesByTarget(params: unknown, ctx: RequestContext): unknown {
  const input = parseInput(
    z.object({
      TargetArn: z.string().min(1).max(1600),
      EventBusName: z.string().min(1).max(1600).optional(),
      NextToken: z.string().optional(),
      Limit: z.number().int().min(1).max(100).optional(),
    }),
    params,
    invalid,
  );
  return {
    RuleNames: ctx.state.eventBus
      .rules(busName(input.EventBusName))
      .filter((rule) => rule.targets.some((t) => t.arn === input.TargetArn))
      .map((rule) => rule.name),
  };
}

const setRuleState =
  (state: RuleRecord['state']) =>
  (params: unknown, ctx: RequestContext): unknown => {
    const input = parseInput(RuleInput, params, invalid);
    ruleNamed(ctx, input.Name, input.EventBusName).state = state;
    return {};
  };

export const eventBridgeService: JsonService = {
  name: 'events',
  protocol: 'json',
  jsonVersion: '1.1',
  targetPrefix: 'AWSEvents',
  throttlingError: () => new AwsError('ThrottlingException', 'Rate exceeded'),
  operations: {
    PutEvents: putEvents,
    DescribeRule: describeRule,
    ListTargetsByRule: listTargetsByRule,
    ListRuleNamesByTarget: listRuleNamesByTarget,
    EnableRule: setRuleState('ENABLED'),
    DisableRule: setRuleState('DISABLED'),
  },
};
