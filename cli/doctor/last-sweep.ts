// The newest sweep's outcome, from the sweep function's log line (`sweep reconciled`, its run report):
// recent enough for the schedule, without errors, nothing incomplete, the circuit breaker not tripped.
import * as z from 'zod';
import { humanDuration } from '@ec2-node-reconciler/model/duration.js';
import { couldNotRead, failed, passed, type Check, type Read } from './check.js';

export interface LogLine {
  readonly timestamp: number;
  readonly message: string;
}

/** How often a schedule fires: `rate(10 minutes)`; undefined for cron and at() expressions. */
export function scheduleIntervalMs(expression: string): number | undefined {
  const rate = /^rate\((\d+)\s+(minute|minutes|hour|hours|day|days)\)$/.exec(expression.trim());
  if (!rate) return undefined;
  const unit = { minute: 60_000, hour: 3_600_000, day: 86_400_000 }[
    (rate[2] ?? 'minute').replace(/s$/, '') as 'minute' | 'hour' | 'day'
  ];
  return Number(rate[1]) * unit;
}

/** How far back to read the sweep's logs: three periods of the schedule, an hour at least, a day for cron. */
export function lookbackMs(expression: string | undefined): number {
  const interval = expression === undefined ? undefined : scheduleIntervalMs(expression);
  return interval === undefined ? 86_400_000 : Math.max(3 * interval, 3_600_000);
}

const ReportLine = z
  .object({
    report: z
      .object({
        startedAt: z.string(),
        dryRun: z.boolean().optional(),
        errors: z.array(z.string()).default([]),
        incomplete: z.array(z.string()).default([]),
        breaker: z.object({ reason: z.string() }).loose().optional(),
        rows: z.array(z.unknown()).optional(),
        /** Pairs by condition: the pair count, whatever rows the summary kept. */
        conditions: z.record(z.string(), z.number()).optional(),
        /** What the sweep's bounded summary left out of its lists. */
        omitted: z.object({ errors: z.number().optional(), incomplete: z.number().optional() }).loose().optional(),
      })
      .loose(),
  })
  .loose();

/** The report a log line carries: Powertools writes JSON, which a runtime may prefix (time, request id, level). */
function reportOf(message: string): z.output<typeof ReportLine>['report'] | undefined {
  const start = message.indexOf('{');
  if (start < 0) return undefined;
  try {
    const parsed = ReportLine.safeParse(JSON.parse(message.slice(start)));
    return parsed.success ? parsed.data.report : undefined;
  } catch {
    return undefined;
  }
}

/** The first `max` items, and how many more there are (`total`: beyond those listed, a summary's omitted ones). */
const listed = (items: readonly string[], total = items.length, max = 3): string =>
  `${items.slice(0, max).join('; ')}${total > max ? `; and ${total - Math.min(max, items.length)} more` : ''}`;

export function checkLastSweep(input: {
  readonly sweepFunction: string;
  readonly logGroup: string;
  /** The sweep's `sweep reconciled` lines of the lookback window. */
  readonly lines: Read<readonly LogLine[]>;
  readonly now: number;
  readonly lookbackMs: number;
  /** The schedule's expression, for how fresh the newest sweep must be. */
  readonly scheduleExpression?: string;
}): Check {
  const subject = 'sweep function';
  const { lines } = input;
  if (!lines.ok) return couldNotRead('last sweep', subject, lines.error, `logs:FilterLogEvents on ${input.logGroup}`);
  const tail = `aws logs tail ${input.logGroup} --since 1h`;
  const runOne = `npx ec2-node-reconciler invoke --function ${input.sweepFunction} --dry-run`;
  const reports = lines.value
    .map((line) => ({ at: line.timestamp, report: reportOf(line.message) }))
    .filter((r) => r.report !== undefined)
    .sort((a, b) => b.at - a.at);
  const newest = reports[0];
  if (newest?.report === undefined)
    return failed(
      'last sweep',
      subject,
      `no sweep reported in the last ${humanDuration(input.lookbackMs)}`,
      `see what the function did: ${tail}; run one: ${runOne}`,
    );
  const { report } = newest;
  const ago = `${humanDuration(Math.max(0, input.now - newest.at))} ago`;
  const interval = input.scheduleExpression === undefined ? undefined : scheduleIntervalMs(input.scheduleExpression);
  if (interval !== undefined && input.now - newest.at > 2 * interval + 300_000)
    return failed(
      'last sweep',
      subject,
      `the newest sweep ran ${ago}, but the schedule says ${input.scheduleExpression ?? ''}`,
      `see why the later ones did not report: ${tail}`,
    );
  if (report.breaker !== undefined)
    return failed('last sweep', subject, `${ago}: ${report.breaker.reason}`, `read the report: ${runOne}`);
  const errorCount = report.errors.length + (report.omitted?.errors ?? 0);
  if (report.errors.length > 0)
    return failed(
      'last sweep',
      subject,
      `${ago}: ${errorCount} error(s): ${listed(report.errors, errorCount)}`,
      `read the report: ${runOne}; the logs: ${tail}`,
    );
  if (report.incomplete.length > 0)
    return failed(
      'last sweep',
      subject,
      `${ago}: incomplete: ${listed(report.incomplete, report.incomplete.length + (report.omitted?.incomplete ?? 0))}`,
      `read the report: ${runOne}; the logs: ${tail}`,
    );
  const pairCount =
    report.conditions !== undefined ? Object.values(report.conditions).reduce((a, b) => a + b, 0) : report.rows?.length;
  const pairs = pairCount === undefined ? '' : `, ${pairCount} machine/node pair(s)`;
  return passed(
    'last sweep',
    subject,
    `${ago}${pairs}, no errors${report.dryRun === true ? ' (dry run: it changes nothing)' : ''}`,
  );
}
