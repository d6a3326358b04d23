// Reading the app's CDK context (cdk.json and `-c key=value`) into typed options. Kept apart from
// app.ts, which synthesizes on import, so that the parsing can be tested.
import type { SettingsInput } from '../lib/contract/settings.js';
import { defaultStackName } from '../lib/contract/stack-outputs.js';
import { didYouMean } from '../lib/support/suggest.js';
import type { ReconcilerStackProps } from './stack.js';
import { vpcPlacementProblems, type VpcPlacement } from './vpc-placement.js';

/**
 * Every context key the app reads, and no other: the reader below can ask for these only, and the
 * table of context keys in docs/deploy.md must list exactly these (test/infra/readme.test.ts).
 */
export const CONTEXT_KEYS = [
  'clusterName',
  'region',
  'account',
  'stackName',
  'dryRun',
  'settings',
  'autoScalingGroupNames',
  'createAccessEntries',
  'vpcId',
  'subnetIds',
  'securityGroupIds',
  'nag',
] as const;

export type ContextKey = (typeof CONTEXT_KEYS)[number];

export interface AppOptions {
  readonly clusterNames: readonly string[];
  /** From context `region`, else the CLI's default region; absent makes an environment-agnostic stack. */
  readonly region?: string;
  readonly account?: string;
  readonly stackName: string;
  /** Settings from context `settings`, with `dryRun` from context `dryRun` laid over them. */
  readonly settings: SettingsInput;
  readonly autoScalingGroupNames?: readonly string[];
  /** Create EKS access entries for the function roles (context `createAccessEntries`, default true). */
  readonly createAccessEntries: boolean;
  /** Run the functions in this VPC (contexts `vpcId`, `subnetIds`, `securityGroupIds`); empty: outside any VPC. */
  readonly vpc: VpcPlacement;
  /** Run cdk-nag's AwsSolutions checks during synth (context `nag`, default true). */
  readonly nag: boolean;
}

export type ContextReader = (key: ContextKey) => unknown;

const MISSING_CLUSTER = 'missing context clusterName: pass -c clusterName=<name> (several: -c clusterName=a,b)';

const isUnset = (value: unknown): boolean => value === undefined || value === null || value === '';

/** Context values from the command line are strings; from cdk.json they keep their JSON type. */
function list(key: ContextKey, value: unknown, noun = 'name'): string[] | undefined {
  if (isUnset(value)) return undefined;
  const items = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : undefined;
  if (items === undefined || !items.every((item): item is string => typeof item === 'string')) {
    throw new Error(
      `context ${key}: expected a ${noun} or a comma-separated list of ${noun}s, got ${JSON.stringify(value)}`,
    );
  }
  const names = items.map((item) => item.trim()).filter((item) => item !== '');
  return names.length > 0 ? names : undefined;
}

function flag(key: ContextKey, value: unknown, fallback: boolean): boolean {
  if (isUnset(value)) return fallback;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new Error(`context ${key}: expected true or false, got ${JSON.stringify(value)}`);
}

function settingsFrom(value: unknown): SettingsInput {
  if (isUnset(value)) return {};
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

const nonBlank = (value: string | undefined): string | undefined =>
  value === undefined || value.trim() === '' ? undefined : value.trim();

function text(key: ContextKey, value: unknown): string | undefined {
  if (isUnset(value)) return undefined;
  if (typeof value !== 'string') throw new Error(`context ${key}: expected a string, got ${JSON.stringify(value)}`);
  return nonBlank(value);
}

/** The VPC placement: ids checked here, so that the error names the context key. */
function vpcFrom(context: ContextReader): VpcPlacement {
  const vpcId = text('vpcId', context('vpcId'));
  const subnetIds = list('subnetIds', context('subnetIds'), 'subnet id');
  const securityGroupIds = list('securityGroupIds', context('securityGroupIds'), 'security group id');
  const placement: VpcPlacement = {
    ...(vpcId === undefined ? {} : { vpcId }),
    ...(subnetIds === undefined ? {} : { subnetIds }),
    ...(securityGroupIds === undefined ? {} : { securityGroupIds }),
  };
  const problems = vpcPlacementProblems(placement);
  if (problems.length > 0) throw new Error(problems.map((problem) => `context ${problem}`).join('\n'));
  return placement;
}

/** Reads and checks the context; errors say which key to fix and how. */
export function readAppOptions(context: ContextReader, env: Readonly<Record<string, string | undefined>>): AppOptions {
  const clusterNames = list('clusterName', context('clusterName'));
  if (!clusterNames) throw new Error(MISSING_CLUSTER);
  const settings = settingsFrom(context('settings'));
  const dryRun = context('dryRun');
  return {
    clusterNames,
    region: text('region', context('region')) ?? nonBlank(env.CDK_DEFAULT_REGION),
    account: text('account', context('account')) ?? nonBlank(env.CDK_DEFAULT_ACCOUNT),
    // One stack per set of clusters, so deploying another cluster never replaces the first one's stack.
    stackName: text('stackName', context('stackName')) ?? defaultStackName(clusterNames),
    settings: isUnset(dryRun) ? settings : { ...settings, dryRun: flag('dryRun', dryRun, false) },
    autoScalingGroupNames: list('autoScalingGroupNames', context('autoScalingGroupNames')),
    createAccessEntries: flag('createAccessEntries', context('createAccessEntries'), true),
    vpc: vpcFrom(context),
    nag: flag('nag', context('nag'), true),
  };
}

/** The stack the options describe: what app.ts builds, apart so that the tests build the same. */
export function reconcilerStackProps(options: AppOptions): ReconcilerStackProps {
  return {
    env: options.region || options.account ? { region: options.region, account: options.account } : undefined,
    clusterNames: options.clusterNames,
    reconciler: {
      settings: options.settings,
      autoScalingGroupNames: options.autoScalingGroupNames ? [...options.autoScalingGroupNames] : undefined,
      createAccessEntries: options.createAccessEntries,
    },
    ...options.vpc,
  };
}

/**
 * Context keys that look like the app's (no `:` as in CDK's own and cached lookups, no `@` as in
 * feature flags) but are not among CONTEXT_KEYS: a typo such as `-c subnetId=…` would otherwise be
 * ignored in silence. Each with a suggestion when one is near.
 */
export function unknownContextKeys(all: Readonly<Record<string, unknown>>): string[] {
  const known: readonly string[] = CONTEXT_KEYS;
  return Object.keys(all)
    .filter((key) => !key.includes(':') && !key.startsWith('@') && !known.includes(key))
    .map((key) => `${key}${didYouMean(key, CONTEXT_KEYS)}`);
}
