import { SettingsSchema, type Settings } from '../settings.js';
import { CliError } from './exit-codes.js';

/** `heartbeatGrace` → `heartbeat-grace`: every setting is also a flag, named after it. */
export const flagOf = (setting: string): string => setting.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

export const SETTING_NAMES = Object.keys(SettingsSchema.shape) as (keyof Settings)[];

/** parseArgs options for every setting (values as strings; the schema converts them). */
export function settingOptions(): Record<string, { type: 'string' }> {
  return Object.fromEntries(SETTING_NAMES.filter((n) => n !== 'dryRun').map((n) => [flagOf(n), { type: 'string' as const }]));
}

function coerce(text: string): unknown {
  if (text === 'true' || text === 'false') return text === 'true';
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  return text;
}

/** Settings from flags, validated by the same schema as the deployed configuration. */
export function settingsFromFlags(values: Record<string, unknown>, dryRun: boolean): Settings {
  const input: Record<string, unknown> = { dryRun };
  for (const name of SETTING_NAMES) {
    const value = values[flagOf(name)];
    if (typeof value === 'string') input[name] = coerce(value);
  }
  const parsed = SettingsSchema.safeParse(input);
  if (!parsed.success) throw new CliError(parsed.error.issues.map((i) => `--${flagOf(String(i.path[0] ?? ''))}: ${i.message}`).join('; '));
  return parsed.data;
}
