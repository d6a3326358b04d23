// Reading the app's CDK context (cdk.json and `-c key=value`) into typed options. Kept apart from
// app.ts, which synthesizes on import, so that the parsing can be tested.
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { settingsProblems, type SettingsInput } from '@ec2-node-reconciler/model/contract/settings.js';
import { defaultStackName } from '@ec2-node-reconciler/model/contract/stack-outputs.js';
import { InvalidDurationError, parseDuration } from '@ec2-node-reconciler/model/duration.js';
import { didYouMean } from '../lib/support/suggest.js';
import type { NodeReconcilerProps } from './node-reconciler.js';
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
  'alarmTopic',
  ...([
    'lifecycleHookNames',
    'lifecycleHookTimeout',
    'lifecycleHeartbeatInterval',
    'maxDrainDuration',
    'sweepSchedule',
    'reserveSweepConcurrency',
    'eventBatchSize',
    'eventBatchingWindow',
    'eventMaxConcurrency',
    'outputEventBusName',
    'dashboardName',
    'alarmNamePrefix',
    'logRetention',
    'removalPolicy',
    'tracing',
  ] as const satisfies readonly (keyof NodeReconcilerProps)[]),
] as const;

export type ContextKey = (typeof CONTEXT_KEYS)[number];

/**
 * The NodeReconciler props the app takes from context under their own names: every prop that is a
 * value rather than a construct (the cluster and the VPC placement are given by name or id instead).
 */
export type ReconcilerContextProps = Pick<
  NodeReconcilerProps,
  | 'lifecycleHookNames'
  | 'lifecycleHookTimeout'
  | 'lifecycleHeartbeatInterval'
  | 'maxDrainDuration'
  | 'sweepSchedule'
  | 'reserveSweepConcurrency'
  | 'eventBatchSize'
  | 'eventBatchingWindow'
  | 'eventMaxConcurrency'
  | 'outputEventBusName'
  | 'dashboardName'
  | 'alarmNamePrefix'
  | 'logRetention'
  | 'removalPolicy'
  | 'tracing'
>;

/** A mistake in the context: the message names the key and says what to pass; a stack trace would bury it. */
export class ContextError extends Error {
  override readonly name = 'ContextError';
}

export interface AppOptions {
  readonly clusterNames: readonly string[];
  /** From context `region`, else AWS_REGION or AWS_DEFAULT_REGION; required. */
  readonly region: string;
  readonly account?: string;
  readonly stackName: string;
  /** Settings from context `settings`, with `dryRun` from context `dryRun` (the two may not disagree). */
  readonly settings: SettingsInput;
  readonly autoScalingGroupNames?: readonly string[];
  /** Create EKS access entries for the function roles (context `createAccessEntries`, default true). */
  readonly createAccessEntries: boolean;
  /** Run the functions in this VPC (contexts `vpcId`, `subnetIds`, `securityGroupIds`); empty: outside any VPC. */
  readonly vpc: VpcPlacement;
  /** The SNS topic every alarm notifies (context `alarmTopic`, an ARN); none: the alarms notify nobody. */
  readonly alarmTopicArn?: string;
  /** The other NodeReconciler props, each from the context key of its name. */
  readonly reconciler: ReconcilerContextProps;
  /** Run cdk-nag's AwsSolutions checks during synth (context `nag`, default true). */
  readonly nag: boolean;
}

export type ContextReader = (key: ContextKey) => unknown;

const MISSING_CLUSTER = 'missing context clusterName: pass -c clusterName=<name> (several: -c clusterName=a,b)';
/** The CDK CLI falls back to us-east-1 when it finds no region (CDK_DEFAULT_REGION then says us-east-1): never trusted. */
const MISSING_REGION =
  'missing context region: pass -c region=<region> (or set AWS_REGION); without it the CDK CLI deploys to us-east-1, whatever region the cluster is in';

const isUnset = (value: unknown): boolean => value === undefined || value === null || value === '';

/** Context values from the command line are strings; from cdk.json they keep their JSON type. */
function list(key: ContextKey, value: unknown, noun = 'name'): string[] | undefined {
  if (isUnset(value)) return undefined;
  const items = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : undefined;
  if (items === undefined || !items.every((item): item is string => typeof item === 'string')) {
    throw new ContextError(
      `context ${key}: expected a ${noun} or a comma-separated list of ${noun}s, got ${JSON.stringify(value)}`,
    );
  }
  const names = items.map((item) => item.trim()).filter((item) => item !== '');
  return names.length > 0 ? names : undefined;
}

function flag(key: ContextKey, value: unknown): boolean | undefined {
  if (isUnset(value)) return undefined;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new ContextError(`context ${key}: expected true or false, got ${JSON.stringify(value)}`);
}

function settingsFrom(value: unknown): SettingsInput {
  if (isUnset(value)) return {};
  const parsed: unknown = typeof value === 'string' ? parseJson(value) : value;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ContextError(`context settings: expected a JSON object of settings, got ${JSON.stringify(value)}`);
  }
  return parsed;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new ContextError(`context settings: not JSON: ${text}`, { cause });
  }
}

/**
 * The settings of contexts `settings` and `dryRun`, checked here so that each error names its field
 * (`context settings.dryrun: unknown setting (did you mean dryRun?)`). One source per setting: a
 * `dryRun` that disagrees with `settings.dryRun` is refused naming both, never resolved in silence
 * (cdk.json's context counts as much as `-c`).
 */
function settingsOf(context: ContextReader): SettingsInput {
  const settings = settingsFrom(context('settings'));
  const problems = settingsProblems(settings);
  if (problems.length > 0) throw new ContextError(problems.map((problem) => `context settings.${problem}`).join('\n'));
  const dryRun = flag('dryRun', context('dryRun'));
  if (dryRun === undefined) return settings;
  if (settings.dryRun !== undefined && settings.dryRun !== dryRun) {
    throw new ContextError(
      `context dryRun is ${dryRun} but context settings.dryRun is ${settings.dryRun}: set dryRun in one of them (cdk.json's context included)`,
    );
  }
  return { ...settings, dryRun };
}

const nonBlank = (value: string | undefined): string | undefined =>
  value === undefined || value.trim() === '' ? undefined : value.trim();

function text(key: ContextKey, value: unknown): string | undefined {
  if (isUnset(value)) return undefined;
  if (typeof value !== 'string')
    throw new ContextError(`context ${key}: expected a string, got ${JSON.stringify(value)}`);
  return nonBlank(value);
}

/** `30s`, `5m`, `2h`, `3d`. */
function duration(key: ContextKey, value: unknown): Duration | undefined {
  const written = text(key, value);
  if (written === undefined) return undefined;
  try {
    return Duration.millis(parseDuration(written));
  } catch (error) {
    if (!(error instanceof InvalidDurationError)) throw error;
    throw new ContextError(
      `context ${key}: expected a duration such as 30s, 5m, 2h or 3d, got ${JSON.stringify(value)}`,
    );
  }
}

/** A whole number, from the command line's text or cdk.json's number; its range is the prop's to check. */
function whole(key: ContextKey, value: unknown): number | undefined {
  if (isUnset(value)) return undefined;
  const number = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number))
    throw new ContextError(`context ${key}: expected a whole number, got ${JSON.stringify(value)}`);
  return number;
}

/** One of `choices`, by its written value (`retain`) or, for a number, its decimal form (`30`). */
function oneOf<T extends string | number>(key: ContextKey, value: unknown, choices: readonly T[]): T | undefined {
  if (isUnset(value)) return undefined;
  const written = String(value).trim();
  const choice = choices.find((c) => String(c) === written);
  if (choice === undefined) {
    throw new ContextError(
      `context ${key}: expected one of ${choices.join(', ')}, got ${JSON.stringify(value)}${didYouMean(written, choices.map(String))}`,
    );
  }
  return choice;
}

const RETENTION_DAYS = Object.values(logs.RetentionDays).filter((v): v is logs.RetentionDays => typeof v === 'number');
const REMOVAL_POLICIES = Object.values(RemovalPolicy);
const SCHEDULE_EXPRESSION = /^(rate|cron|at)\(.+\)$/;
const TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/;

function schedule(value: unknown): scheduler.ScheduleExpression | undefined {
  const written = text('sweepSchedule', value);
  if (written === undefined) return undefined;
  if (!SCHEDULE_EXPRESSION.test(written))
    throw new ContextError(
      `context sweepSchedule: expected an EventBridge Scheduler expression such as "rate(10 minutes)" or "cron(0/10 * * * ? *)", got ${JSON.stringify(value)}`,
    );
  return scheduler.ScheduleExpression.expression(written);
}

function topicArn(value: unknown): string | undefined {
  const arn = text('alarmTopic', value);
  if (arn !== undefined && !TOPIC_ARN.test(arn))
    throw new ContextError(
      `context alarmTopic: ${JSON.stringify(arn)} is not an SNS topic ARN (arn:aws:sns:<region>:<account>:<name>)`,
    );
  return arn;
}

/** Only the props the context sets: every other prop keeps NodeReconciler's default. */
function definedOnly<T extends object>(props: T): T {
  return Object.fromEntries(Object.entries(props).filter(([, value]) => value !== undefined)) as T;
}

function reconcilerPropsOf(context: ContextReader): ReconcilerContextProps {
  return definedOnly<ReconcilerContextProps>({
    lifecycleHookNames: list('lifecycleHookNames', context('lifecycleHookNames')),
    lifecycleHookTimeout: duration('lifecycleHookTimeout', context('lifecycleHookTimeout')),
    lifecycleHeartbeatInterval: duration('lifecycleHeartbeatInterval', context('lifecycleHeartbeatInterval')),
    maxDrainDuration: duration('maxDrainDuration', context('maxDrainDuration')),
    sweepSchedule: schedule(context('sweepSchedule')),
    reserveSweepConcurrency: flag('reserveSweepConcurrency', context('reserveSweepConcurrency')),
    eventBatchSize: whole('eventBatchSize', context('eventBatchSize')),
    eventBatchingWindow: duration('eventBatchingWindow', context('eventBatchingWindow')),
    eventMaxConcurrency: whole('eventMaxConcurrency', context('eventMaxConcurrency')),
    outputEventBusName: text('outputEventBusName', context('outputEventBusName')),
    dashboardName: text('dashboardName', context('dashboardName')),
    alarmNamePrefix: text('alarmNamePrefix', context('alarmNamePrefix')),
    logRetention: oneOf('logRetention', context('logRetention'), RETENTION_DAYS),
    removalPolicy: oneOf('removalPolicy', context('removalPolicy'), REMOVAL_POLICIES),
    tracing: flag('tracing', context('tracing')),
  });
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
  if (problems.length > 0) throw new ContextError(problems.map((problem) => `context ${problem}`).join('\n'));
  return placement;
}

/** Reads and checks the context; errors say which key to fix and how. */
export function readAppOptions(context: ContextReader, env: Readonly<Record<string, string | undefined>>): AppOptions {
  const clusterNames = list('clusterName', context('clusterName'));
  if (!clusterNames) throw new ContextError(MISSING_CLUSTER);
  const region = text('region', context('region')) ?? nonBlank(env.AWS_REGION) ?? nonBlank(env.AWS_DEFAULT_REGION);
  if (region === undefined) throw new ContextError(MISSING_REGION);
  const alarmTopicArn = topicArn(context('alarmTopic'));
  return {
    clusterNames,
    region,
    account: text('account', context('account')) ?? nonBlank(env.CDK_DEFAULT_ACCOUNT),
    // One stack per set of clusters, so deploying another cluster never replaces the first one's stack.
    stackName: text('stackName', context('stackName')) ?? defaultStackName(clusterNames),
    settings: settingsOf(context),
    autoScalingGroupNames: list('autoScalingGroupNames', context('autoScalingGroupNames')),
    createAccessEntries: flag('createAccessEntries', context('createAccessEntries')) ?? true,
    vpc: vpcFrom(context),
    ...(alarmTopicArn === undefined ? {} : { alarmTopicArn }),
    reconciler: reconcilerPropsOf(context),
    nag: flag('nag', context('nag')) ?? true,
  };
}

/** The stack the options describe: what app.ts builds, apart so that the tests build the same. */
export function reconcilerStackProps(options: AppOptions): ReconcilerStackProps {
  return {
    env: { region: options.region, account: options.account },
    clusterNames: options.clusterNames,
    reconciler: {
      ...options.reconciler,
      settings: options.settings,
      autoScalingGroupNames: options.autoScalingGroupNames ? [...options.autoScalingGroupNames] : undefined,
      createAccessEntries: options.createAccessEntries,
    },
    ...(options.alarmTopicArn === undefined ? {} : { alarmTopicArn: options.alarmTopicArn }),
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
