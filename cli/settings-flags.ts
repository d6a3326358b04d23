import * as z from 'zod';
import { SettingsSchema, type Settings } from '@ec2-node-reconciler/model/contract/settings.js';
import { CliError } from './exit-codes.js';

/** `heartbeatGrace` → `heartbeat-grace`: every setting is also a flag, named after it. */
export const flagOf = (setting: string): string =>
  setting.replace(/[A-Z]/g, (c, at: number) => `${at > 0 ? '-' : ''}${c.toLowerCase()}`);

/** The flag of a nested setting: `repair.after.KernelReady` → `repair-after-kernel-ready`. */
export const flagOfPath = (path: readonly PropertyKey[]): string => path.map((key) => flagOf(String(key))).join('-');

/** The object schema inside defaults and prefaults, or undefined for a leaf setting. */
function objectSchemaOf(schema: z.ZodType): z.ZodObject | undefined {
  if (schema instanceof z.ZodObject) return schema;
  if (schema instanceof z.ZodDefault || schema instanceof z.ZodPrefault || schema instanceof z.ZodOptional)
    return objectSchemaOf(schema.unwrap() as z.ZodType);
  return undefined;
}

/** Every leaf setting's path, nested objects (`repair`) walked into. */
function leafPaths(schema: z.ZodObject, prefix: readonly string[] = []): string[][] {
  return Object.entries(schema.shape).flatMap(([key, child]) => {
    const nested = objectSchemaOf(child as z.ZodType);
    return nested ? leafPaths(nested, [...prefix, key]) : [[...prefix, key]];
  });
}

export const SETTING_PATHS: readonly (readonly string[])[] = leafPaths(SettingsSchema);

/** parseArgs options for every setting (values as strings; the schema converts them). */
export function settingOptions(): Record<string, { type: 'string' }> {
  return Object.fromEntries(
    SETTING_PATHS.filter((p) => p.join('.') !== 'dryRun').map((p) => [flagOfPath(p), { type: 'string' as const }]),
  );
}

function coerce(text: string): unknown {
  if (text === 'true' || text === 'false') return text === 'true';
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  return text;
}

/** Sets `value` at `path` in `target`, creating the nested objects on the way. */
function setAt(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  const [head, ...rest] = path;
  if (head === undefined) return;
  if (rest.length === 0) {
    target[head] = value;
    return;
  }
  const existing = target[head];
  const child: Record<string, unknown> =
    typeof existing === 'object' && existing !== null ? (existing as Record<string, unknown>) : {};
  target[head] = child;
  setAt(child, rest, value);
}

/**
 * Settings from flags, validated by the same schema as the deployed configuration. `aliases` maps a
 * command's own flag to the setting flag it stands for (`{ timeout: 'drain-timeout' }`, kubectl's
 * `{ force: 'evict-unreplicated' }`): the alias sets the setting, and an error names the flag as
 * written; an alias and its setting flag that disagree are refused.
 */
export function settingsFromFlags(
  values: Record<string, unknown>,
  dryRun: boolean,
  aliases: Readonly<Record<string, string>> = {},
): Settings {
  const input: Record<string, unknown> = { dryRun };
  const written = new Map<string, string>();
  for (const path of SETTING_PATHS) {
    const flag = flagOfPath(path);
    // Setting flags are string flags; a boolean under the same name (--dry-run) is the command's own.
    const direct = typeof values[flag] === 'string' ? values[flag] : undefined;
    const alias = Object.keys(aliases).find((a) => aliases[a] === flag && flagText(values[a]) !== undefined);
    const aliased = alias !== undefined ? flagText(values[alias]) : undefined;
    if (direct !== undefined && aliased !== undefined && direct !== aliased)
      throw new CliError(`--${alias ?? ''} and --${flag} ${direct} say different things: pass one of them`);
    const value = direct ?? aliased;
    if (value === undefined) continue;
    setAt(input, path, coerce(value));
    written.set(flag, direct === undefined && alias !== undefined ? alias : flag);
  }
  const parsed = SettingsSchema.safeParse(input);
  if (!parsed.success)
    throw new CliError(
      parsed.error.issues
        .map((i) => `--${written.get(flagOfPath(i.path)) ?? flagOfPath(i.path)}: ${i.message}`)
        .join('; '),
    );
  return parsed.data;
}

/** A flag's value as settings read it: a string as written, a boolean flag (an alias) as true or false. */
const flagText = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'boolean' ? String(value) : undefined;
