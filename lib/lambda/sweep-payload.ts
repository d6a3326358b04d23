import { z } from 'zod';
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
    throw new Error(`invalid sweep payload: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  }
  const overrides = Object.fromEntries(Object.entries(parsed.data.settings ?? {}).filter(([, v]) => v !== undefined));
  return { ...base, ...overrides, ...(parsed.data.dryRun !== undefined ? { dryRun: parsed.data.dryRun } : {}) };
}
