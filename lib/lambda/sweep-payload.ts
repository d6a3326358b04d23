import { z } from 'zod';
import { describeIssues } from '../model/zod-issues.js';
import { SettingsSchema, type Settings } from '../settings.js';

/** A manual invocation or the schedule's payload: `{ dryRun?, settings? }`. */
export const SweepPayloadSchema = z
  .object({
    dryRun: z.boolean().optional(),
    /** Per-run overrides of the deployed settings, same names. */
    settings: SettingsSchema.partial().optional(),
  })
  .strict();

/** The deployed settings with this run's overrides (only the keys given). */
export function sweepSettings(base: Settings, payload: unknown): Settings {
  const parsed = SweepPayloadSchema.safeParse(payload ?? {});
  if (!parsed.success) {
    throw new Error(`invalid sweep payload: ${describeIssues(parsed.error)}`);
  }
  const overrides = Object.fromEntries(Object.entries(parsed.data.settings ?? {}).filter(([, v]) => v !== undefined));
  return { ...base, ...overrides, ...(parsed.data.dryRun !== undefined ? { dryRun: parsed.data.dryRun } : {}) };
}
