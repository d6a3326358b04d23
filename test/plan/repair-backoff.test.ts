// The repair back-off's record and rule (lib/plan/repair/backoff.ts): what the group's tag holds, when
// the back-off holds, and what ends it.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, type RepairSettings } from '@ec2-node-reconciler/model/contract/settings.js';
import {
  backOffOf,
  formatFailures,
  isFailedReplacement,
  parseFailures,
  withFailure,
} from '../../lib/plan/repair/backoff.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const T0 = Date.parse('2026-11-29T12:00:00Z');
const REPAIR: RepairSettings = {
  ...DEFAULT_SETTINGS.repair,
  enabled: true,
  maxFailedReplacements: 3,
  failureWindow: 6 * HOUR,
};

describe('repair back-off: the record', () => {
  it('should write the failures to the minute, oldest first, and read them back, ignoring what it cannot read', () => {
    const text = formatFailures([T0, T0 + 45 * MINUTE]);

    expect(text).toBe('2026-11-29T12:00Z 2026-11-29T12:45Z');
    expect(parseFailures(`${text} garbage 2026-13-99T99:99Z`)).toEqual([T0, T0 + 45 * MINUTE]);
    expect(parseFailures(undefined)).toEqual([]);
  });

  it('should keep the newest ten at most, well under a tag value’s 256 characters', () => {
    const text = formatFailures(Array.from({ length: 15 }, (_, i) => T0 + i * MINUTE));

    expect(parseFailures(text)).toHaveLength(10);
    expect(text.length).toBeLessThanOrEqual(256);
  });

  it('should call a repair a failed replacement only for a machine launched less than failureWindow ago', () => {
    expect(isFailedReplacement(T0 - 45 * MINUTE, T0, REPAIR)).toBe(true);
    expect(isFailedReplacement(T0 - 9 * 24 * HOUR, T0, REPAIR)).toBe(false);
    expect(isFailedReplacement(0, T0, REPAIR)).toBe(false);
  });
});

describe('repair back-off: the rule', () => {
  it('should hold after maxFailedReplacements failures within failureWindow, naming the group and how to clear it', () => {
    const held = backOffOf('ng-a', { failures: [T0, T0 + HOUR, T0 + 2 * HOUR] }, REPAIR);

    expect(held?.backOff).toMatchObject({ group: 'ng-a', failures: 3, first: T0, last: T0 + 2 * HOUR });
    expect(held?.reason).toMatch(
      /aws autoscaling delete-tags --tags ResourceId=ng-a,ResourceType=auto-scaling-group,Key=ec2-node-reconciler\/repair-failures/,
    );
  });

  it('should not hold with fewer failures, nor with failures spread wider than failureWindow', () => {
    expect(backOffOf('ng-a', { failures: [T0, T0 + HOUR] }, REPAIR)).toBeUndefined();
    expect(backOffOf('ng-a', { failures: [T0, T0 + 4 * HOUR, T0 + 8 * HOUR] }, REPAIR)).toBeUndefined();
  });

  it('should not lapse with time alone, and end once a machine launched after the last failure has stayed healthy', () => {
    const failures = [T0, T0 + HOUR, T0 + 2 * HOUR];

    expect(backOffOf('ng-a', { failures, healthyLaunchedAt: T0 - HOUR }, REPAIR)).toBeDefined();
    expect(backOffOf('ng-a', { failures, healthyLaunchedAt: T0 + 3 * HOUR }, REPAIR)).toBeUndefined();
  });

  it('should record a new failure with those still counting within failureWindow of it', () => {
    expect(withFailure({ failures: [T0 - 7 * HOUR, T0 - HOUR], healthyLaunchedAt: T0 - 8 * HOUR }, T0, REPAIR)).toEqual(
      [T0 - HOUR, T0],
    );
    expect(withFailure({ failures: [T0 - 2 * HOUR], healthyLaunchedAt: T0 - HOUR }, T0, REPAIR)).toEqual([T0]);
  });
});
