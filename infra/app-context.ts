// Reading the app's CDK context (cdk.json and `-c key=value`) into typed options. Kept apart from
// app.ts, which synthesizes on import, so that the parsing can be tested.
import { PRODUCT_NAME } from '../lib/contract/product.js';
import type { SettingsInput } from '../lib/contract/settings.js';

export interface AppOptions {
  readonly clusterNames: readonly string[];
  /** From context `region`, else the CLI's default region; absent makes an environment-agnostic stack. */
  readonly region?: string;
  readonly account?: string;
  readonly stackName: string;
  /** Settings from context `settings`, with `dryRun` from context `dryRun` laid over them. */
  readonly settings: SettingsInput;
  readonly autoScalingGroupNames?: readonly string[];
  /** Run cdk-nag's AwsSolutions checks during synth (context `nag`, default true). */
  readonly nag: boolean;
}

export type ContextReader = (key: string) => unknown;

const MISSING_CLUSTER = 'missing context clusterName: pass -c clusterName=<name> (several: -c clusterName=a,b)';

/** Context values from the command line are strings; from cdk.json they keep their JSON type. */
function list(key: string, value: unknown): string[] | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const items = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : undefined;
  if (items === undefined || !items.every((item): item is string => typeof item === 'string')) {
    throw new Error(`context ${key}: expected a name or a comma-separated list of names, got ${JSON.stringify(value)}`);
  }
  const names = items.map((item) => item.trim()).filter((item) => item !== '');
  return names.length > 0 ? names : undefined;
}

function flag(key: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined || value === null || value === '') return fallback;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new Error(`context ${key}: expected true or false, got ${JSON.stringify(value)}`);
}

function settingsFrom(value: unknown): SettingsInput {
  if (value === undefined || value === null || value === '') return {};
  const parsed: unknown = typeof value === 'string' ? parseJson(value) : value;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`context settings: expected a JSON object of settings, got ${JSON.stringify(value)}`);
  }
  // Field-level validation happens in NodeReconciler, which names each bad setting.
  return parsed;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new Error(`context settings: not JSON: ${text}`, { cause });
  }
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** One stack per set of clusters, so deploying another cluster never replaces the first one's stack. */
function defaultStackName(clusterNames: readonly string[]): string {
  // Stack names allow letters, digits and hyphens, at most 128; cluster names may also hold `_`.
  return `${PRODUCT_NAME}-${clusterNames.join('-')}`.replace(/[^A-Za-z0-9-]/g, '-').slice(0, 128);
}

/** Reads and checks the context; errors say which key to fix and how. */
export function readAppOptions(context: ContextReader, env: Readonly<Record<string, string | undefined>>): AppOptions {
  const clusterNames = list('clusterName', context('clusterName'));
  if (!clusterNames) throw new Error(MISSING_CLUSTER);
  const settings = settingsFrom(context('settings'));
  const dryRun = context('dryRun');
  return {
    clusterNames,
    region: text(context('region')) ?? text(env.CDK_DEFAULT_REGION),
    account: text(context('account')) ?? text(env.CDK_DEFAULT_ACCOUNT),
    stackName: text(context('stackName')) ?? defaultStackName(clusterNames),
    settings: dryRun === undefined || dryRun === '' ? settings : { ...settings, dryRun: flag('dryRun', dryRun, false) },
    autoScalingGroupNames: list('autoScalingGroupNames', context('autoScalingGroupNames')),
    nag: flag('nag', context('nag'), true),
  };
}
