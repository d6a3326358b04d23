import * as z from 'zod';
import { describeIssues } from '@ec2-node-reconciler/model/zod-issues.js';
import { SettingsSchema, type Settings } from '@ec2-node-reconciler/model/contract/settings.js';

/** A manual invocation or the schedule's payload: `{ dryRun?, settings? }`. */
export const SweepPayloadSchema = z
  .object({
    dryRun: z.boolean().optional(),
    /** Per-run overrides of the deployed settings, same names. */
    settings: SettingsSchema.partial().optional(),
  })
  .strict();

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `base` with what `given` names, at any depth, taken from `parsed` (its validated form): parsing fills
 * in a default for every key the payload left out, and a default must never replace a deployed value.
 */
function overlay(base: unknown, given: unknown, parsed: unknown): unknown {
  if (!isPlainObject(given) || !isPlainObject(base) || !isPlainObject(parsed)) return parsed;
  const out: Record<string, unknown> = { ...base };
  for (const key of Object.keys(given))
    if (given[key] !== undefined) out[key] = overlay(base[key], given[key], parsed[key]);
  return out;
}

/** The deployed settings with this run's overrides (only the keys given, at any depth). */
export function sweepSettings(base: Settings, payload: unknown): Settings {
  const parsed = SweepPayloadSchema.safeParse(payload ?? {});
  if (!parsed.success) {
    throw new Error(`invalid sweep payload: ${describeIssues(parsed.error)}`);
  }
  const given = isPlainObject(payload) ? payload.settings : undefined;
  // The payload was validated above: what it names has the settings' types, and the rest is base's.
  const settings = (given === undefined ? base : overlay(base, given, parsed.data.settings ?? {})) as Settings;
  return { ...settings, ...(parsed.data.dryRun !== undefined ? { dryRun: parsed.data.dryRun } : {}) };
}
