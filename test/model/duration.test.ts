import { describe, expect, it } from 'vitest';
import { formatDuration, InvalidDurationError, parseDuration } from '@ec2-node-reconciler/model/duration.js';

describe('parseDuration', () => {
  it.each([
    ['30s', 30_000],
    ['5m', 300_000],
    ['2h', 7_200_000],
    ['3d', 259_200_000],
    ['0s', 0],
  ])('should parse %s', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '5', 'm', '1.5h', '-5m', '5 minutes', '5M', '1w'])('should reject %j', (text) => {
    expect(() => parseDuration(text)).toThrow(InvalidDurationError);
  });

  it('should format back to the largest exact unit', () => {
    expect(formatDuration(90_000)).toBe('90s');
    expect(formatDuration(300_000)).toBe('5m');
    expect(formatDuration(86_400_000)).toBe('1d');
  });
});
