import * as z from 'zod';

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION_PATTERN = /^(\d+)(s|m|h|d)$/;

export class InvalidDurationError extends Error {
  constructor(readonly value: unknown) {
    super(`not a duration: ${JSON.stringify(value)} (expected a whole number and a unit: 30s, 5m, 2h, 3d)`);
    this.name = 'InvalidDurationError';
  }
}

/** Parses `30s`, `5m`, `2h`, `3d` into milliseconds. */
export function parseDuration(value: string): number {
  const match = DURATION_PATTERN.exec(value.trim());
  if (!match) throw new InvalidDurationError(value);
  const [, amount, unit] = match;
  return Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
}

/** Formats milliseconds in the largest unit that divides them exactly (`90s`, `5m`, `2h`). */
export function formatDuration(ms: number): string {
  for (const unit of ['d', 'h', 'm'] as const) {
    if (ms !== 0 && ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  }
  return ms % 1_000 === 0 ? `${ms / 1_000}s` : `${ms}ms`;
}

/** A duration string in, milliseconds out; the error message names the accepted form. */
export const DurationSchema = z
  .string()
  .regex(DURATION_PATTERN, { message: 'must be a duration such as 30s, 5m, 2h or 3d' })
  .transform(parseDuration);
