// CloudWatch Logs (awsJson 1.1): DescribeLogStreams and FilterLogEvents over what the deployed
// world's functions wrote. Filter patterns: terms and quoted phrases, all of which an event must
// contain (`"sweep reconciled"`, `ERROR timeout`); `?term` alternatives, `-term` exclusions, JSON
// (`{ $.x = … }`) and space-delimited (`[a, b]`) patterns are refused, naming the pattern.
import * as z from 'zod';
import { AwsError } from '../errors.js';
import type { LogEventRecord, LogGroupRecord, LogStreamRecord } from '../state/logs.js';
import type { JsonService, RequestContext } from './types.js';
import { parseInput, smithyValidation } from './validate.js';
import { partitionOf } from '../partitions.js';

const invalid = smithyValidation('InvalidParameterException');

function groupOf(ctx: RequestContext, name: string | undefined): LogGroupRecord {
  const group =
    name === undefined
      ? undefined
      : ctx.state.logs.group(name.replace(/^arn:[^:]+:logs:[^:]+:\d{12}:log-group:/, '').replace(/:\*$/, ''));
  if (!group) throw new AwsError('ResourceNotFoundException', 'The specified log group does not exist.', 400);
  return group;
}

/** The terms of a filter pattern, each of which an event must contain. */
export function filterTerms(pattern: string): string[] {
  const trimmed = pattern.trim();
  if (trimmed === '') return [];
  if (/^[{[]/.test(trimmed) || /(^|\s)[?-]/.test(trimmed))
    throw new AwsError(
      'InvalidParameterException',
      `filter pattern ${pattern}: this emulator matches terms and quoted phrases only (no ?, -, JSON or space-delimited patterns)`,
    );
  const terms: string[] = [];
  for (const match of trimmed.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g))
    terms.push((match[1] ?? match[2] ?? '').replace(/\\"/g, '"'));
  return terms;
}

const lastEvent = (stream: LogStreamRecord): LogEventRecord | undefined => stream.events.at(-1);

const DescribeLogStreamsInput = z.object({
  logGroupName: z.string().min(1).max(512).optional(),
  logGroupIdentifier: z.string().min(1).max(2048).optional(),
  logStreamNamePrefix: z.string().optional(),
  orderBy: z.enum(['LogStreamName', 'LastEventTime']).optional(),
  descending: z.boolean().optional(),
  limit: z.number().int().min(1).max(50).optional(),
  nextToken: z.string().optional(),
});

function describeLogStreams(params: unknown, ctx: RequestContext): unknown {
  const input = parseInput(DescribeLogStreamsInput, params, invalid);
  const group = groupOf(ctx, input.logGroupName ?? input.logGroupIdentifier);
  const prefix = input.logStreamNamePrefix ?? '';
  const streams = [...group.streams.values()].filter((s) => s.name.startsWith(prefix));
  const byTime = input.orderBy === 'LastEventTime';
  streams.sort((a, b) =>
    byTime
      ? (lastEvent(a)?.timestamp ?? a.createdAt) - (lastEvent(b)?.timestamp ?? b.createdAt)
      : a.name.localeCompare(b.name),
  );
  if (input.descending === true) streams.reverse();
  const start = input.nextToken === undefined ? 0 : Number(input.nextToken);
  const limit = input.limit ?? 50;
  const page = streams.slice(start, start + limit);
  const region = ctx.state.region;
  return {
    logStreams: page.map((s) => ({
      logStreamName: s.name,
      creationTime: s.createdAt,
      ...(s.events[0] ? { firstEventTimestamp: s.events[0].timestamp } : {}),
      ...(lastEvent(s)
        ? { lastEventTimestamp: lastEvent(s)?.timestamp, lastIngestionTime: lastEvent(s)?.ingestionTime }
        : {}),
      arn: `arn:${partitionOf(region)}:logs:${region}:${ctx.state.accountId}:log-group:${group.name}:log-stream:${s.name}`,
      storedBytes: 0,
    })),
    ...(start + limit < streams.length ? { nextToken: String(start + limit) } : {}),
  };
}

const FilterLogEventsInput = z.object({
  logGroupName: z.string().min(1).max(512).optional(),
  logGroupIdentifier: z.string().min(1).max(2048).optional(),
  logStreamNames: z.array(z.string()).min(1).max(100).optional(),
  logStreamNamePrefix: z.string().optional(),
  startTime: z.number().int().min(0).optional(),
  endTime: z.number().int().min(0).optional(),
  filterPattern: z.string().max(1024).optional(),
  limit: z.number().int().min(1).max(10_000).optional(),
  nextToken: z.string().optional(),
  interleaved: z.boolean().optional(),
  unmask: z.boolean().optional(),
});

/** Events in time order across the group's streams (those named, or with the prefix), matching the pattern. */
function filterLogEvents(params: unknown, ctx: RequestContext): unknown {
  const input = parseInput(FilterLogEventsInput, params, invalid);
  const group = groupOf(ctx, input.logGroupName ?? input.logGroupIdentifier);
  const terms = filterTerms(input.filterPattern ?? '');
  const streams = [...group.streams.values()].filter(
    (s) =>
      (input.logStreamNames === undefined || input.logStreamNames.includes(s.name)) &&
      s.name.startsWith(input.logStreamNamePrefix ?? ''),
  );
  const events = streams
    .flatMap((s) => s.events.map((event) => ({ stream: s.name, event })))
    .filter(
      ({ event }) =>
        (input.startTime === undefined || event.timestamp >= input.startTime) &&
        (input.endTime === undefined || event.timestamp <= input.endTime) &&
        terms.every((term) => event.message.includes(term)),
    )
    .sort((a, b) => a.event.timestamp - b.event.timestamp || a.event.eventId.localeCompare(b.event.eventId));
  const start = input.nextToken === undefined ? 0 : Number(input.nextToken);
  const limit = input.limit ?? 10_000;
  return {
    events: events.slice(start, start + limit).map(({ stream, event }) => ({
      logStreamName: stream,
      timestamp: event.timestamp,
      message: event.message,
      ingestionTime: event.ingestionTime,
      eventId: event.eventId,
    })),
    ...(start + limit < events.length ? { nextToken: String(start + limit) } : {}),
  };
}

export const logsService: JsonService = {
  name: 'logs',
  protocol: 'json',
  jsonVersion: '1.1',
  targetPrefix: 'Logs_20140328',
  throttlingError: () => new AwsError('ThrottlingException', 'Rate exceeded'),
  operations: { DescribeLogStreams: describeLogStreams, FilterLogEvents: filterLogEvents },
};
