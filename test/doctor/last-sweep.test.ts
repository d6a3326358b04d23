import { describe, expect, it } from 'vitest';
import { readOk } from '../../cli/doctor/check.js';
import { checkLastSweep, lookbackMs, scheduleIntervalMs } from '../../cli/doctor/last-sweep.js';

const NOW = Date.parse('2026-11-29T12:30:00Z');
const line = (agoMs: number, report: Record<string, unknown>, prefix = '') => ({
  timestamp: NOW - agoMs,
  message: `${prefix}${JSON.stringify({ level: 'INFO', message: 'sweep reconciled', report: { startedAt: '2026-11-29T12:00:00Z', errors: [], incomplete: [], rows: [{}, {}], ...report } })}`,
});
const check = (lines: ReturnType<typeof line>[]) =>
  checkLastSweep({
    sweepFunction: 'sweep',
    logGroup: '/aws/lambda/sweep',
    lines: readOk(lines),
    now: NOW,
    lookbackMs: lookbackMs('rate(10 minutes)'),
    scheduleExpression: 'rate(10 minutes)',
  });

describe('scheduleIntervalMs', () => {
  it('should read rate expressions, and leave cron to a day of logs', () => {
    expect(scheduleIntervalMs('rate(10 minutes)')).toBe(600_000);
    expect(scheduleIntervalMs('rate(1 hour)')).toBe(3_600_000);
    expect(scheduleIntervalMs('cron(0 * * * ? *)')).toBeUndefined();
    expect(lookbackMs('rate(10 minutes)')).toBe(3_600_000);
    expect(lookbackMs('rate(2 hours)')).toBe(21_600_000);
    expect(lookbackMs('cron(0 * * * ? *)')).toBe(86_400_000);
  });
});

describe('checkLastSweep', () => {
  it('should pass the newest report without errors, whatever prefix the runtime gave its line', () => {
    const result = check([
      line(1_200_000, { errors: ['old'] }),
      line(180_000, {}, '2026-11-29T12:27:00Z\tabc\tINFO\t'),
    ]);

    expect(result).toMatchObject({ status: 'pass', detail: '3m ago, 2 machine/node pair(s), no errors' });
  });

  it('should fail the newest report’s errors, incompleteness and tripped breaker', () => {
    expect(check([line(60_000, { errors: ['listing nodes: 401'] })])).toMatchObject({
      status: 'fail',
      detail: '60s ago: 1 error(s): listing nodes: 401',
    });
    expect(check([line(60_000, { incomplete: ['i-1'] })]).detail).toBe('60s ago: incomplete: i-1');
    expect(
      check([line(60_000, { breaker: { wouldDelete: 9, allowed: 3, reason: 'circuit breaker: 9 deletions' } })]).detail,
    ).toBe('60s ago: circuit breaker: 9 deletions');
  });

  it('should count the pairs and errors of the sweep’s bounded summary, not the rows and errors it kept', () => {
    const summary = {
      conditions: { 'in-sync': 39_990, 'stale-object': 10 },
      rows: [{}],
      omitted: { rows: 39_999 },
    };
    expect(check([line(60_000, summary)]).detail).toBe('60s ago, 40000 machine/node pair(s), no errors');
    const failing = check([line(60_000, { ...summary, errors: ['a', 'b', 'c', 'd'], omitted: { errors: 196 } })]);
    expect(failing.detail).toBe('60s ago: 200 error(s): a; b; c; and 197 more');
  });

  it('should fail when no sweep reported, or the newest is older than the schedule allows', () => {
    expect(check([])).toMatchObject({ status: 'fail', detail: 'no sweep reported in the last 60m' });
    const stale = check([line(1_800_000, {})]);
    expect(stale.status).toBe('fail');
    expect(stale.detail).toContain('ran 30m ago, but the schedule says rate(10 minutes)');
  });
});
