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

/** k8s.io/apimachinery/pkg/util/duration.HumanDuration, which the server's Age columns use. */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.floor(hours / 24) % 365;
    const years = Math.floor(hours / 24 / 365);
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
}
