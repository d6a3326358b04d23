// The shipped app (cdk.json + infra/app.ts) from the deployer's command line (issue #28): one source
// per setting, every documented setting, context key and prop settable with -c, a region required,
// and a bad setting refused naming its field, with no stack trace.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CONTEXT_KEYS, ContextError, unknownContextKeys } from '../../infra/app-context.js';
import { PROJECT_ROOT } from '../../infra/functions.js';
import { FUNCTION_ENV } from '@ec2-node-reconciler/model/contract/env.js';
import { DEFAULT_SETTINGS, parseSettings, SettingsSchema } from '@ec2-node-reconciler/model/contract/settings.js';
import { formatDuration } from '@ec2-node-reconciler/model/duration.js';
import { annotationsOf, cdkJsonContext, shippedApp, templateOf, type ShippedApp } from './support/shipped-app.js';
import { resources } from './support/template.js';

/** The settings every function of the stack receives (RECONCILER_SETTINGS), parsed as the functions do. */
function deployedSettings(shipped: ShippedApp) {
  const functions = resources(templateOf(shipped), 'AWS::Lambda::Function');
  expect(functions).toHaveLength(3);
  const all = functions.map(([, fn]) => {
    const variables = (fn.Properties?.Environment as { Variables?: Record<string, string> } | undefined)?.Variables;
    return parseSettings(JSON.parse(variables?.[FUNCTION_ENV.settings] ?? '{}'));
  });
  for (const settings of all) expect(settings).toEqual(all[0]);
  return all[0] ?? DEFAULT_SETTINGS;
}

/** The value at a dotted path (`repair.after.Ready`). */
const valueAt = (value: unknown, key: string): unknown =>
  key
    .split('.')
    .reduce<unknown>(
      (at, part) => (typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[part] : undefined),
      value,
    );

/** The input that sets the dotted setting `key` to `value`. */
const at = (key: string, value: unknown): unknown =>
  key.split('.').reduceRight<unknown>((inner, part) => ({ [part]: inner }), value);

/**
 * A value of the setting other than its default, as a person writes it: the other boolean, the
 * next number, a minute more, another of its choices (as the schema lists them when refusing one).
 */
function anotherValue(key: string): unknown {
  const fallback = valueAt(DEFAULT_SETTINGS, key);
  if (typeof fallback === 'boolean') return !fallback;
  if (typeof fallback === 'number') {
    // A duration setting takes a duration (some only from an hour on: repair.failureWindow).
    const isDuration = ['10m', '2h'].some((d) => SettingsSchema.safeParse(at(key, d)).success);
    return isDuration ? formatDuration(fallback + 60_000) : fallback + 1;
  }
  if (typeof fallback === 'string') {
    const issue = SettingsSchema.safeParse(at(key, '\u0000')).error?.issues[0];
    const choices = issue?.code === 'invalid_value' ? issue.values : [];
    return choices.find((choice) => choice !== fallback);
  }
  throw new Error(`${key}: not a setting the schema has`);
}

// Each table where it is documented: settings in docs/settings.md, the context keys and props in docs/deploy.md.
const DOCS = [`${PROJECT_ROOT}docs/settings.md`, `${PROJECT_ROOT}docs/deploy.md`, `${PROJECT_ROOT}README.md`].filter(
  (file) => existsSync(file),
);

/**
 * The first column of the table whose header row's first cell is `header` (`| setting | default |
 * meaning |`), backticks removed, in the first document that has one.
 */
function documentedKeys(header: string): string[] {
  for (const file of DOCS) {
    const lines = readFileSync(file, 'utf8').split('\n');
    const cells = (line: string) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim().replace(/`/g, ''));
    const start = lines.findIndex((line) => line.trim().startsWith('|') && cells(line)[0] === header);
    if (start < 0) continue;
    const keys: string[] = [];
    for (const line of lines.slice(start + 2)) {
      if (!line.trim().startsWith('|')) break;
      keys.push(cells(line)[0] ?? '');
    }
    return keys;
  }
  throw new Error(`no table with the header | ${header} | in ${DOCS.join(' or ')}`);
}

/** The fingerprint of what a synth produced: the stack's identity, its template, its warnings and its synth-time checks. */
function produced(shipped: ShippedApp): string {
  const { stack, checks } = shipped;
  return JSON.stringify({
    stack: [stack.stackName, stack.region, stack.account],
    template: templateOf(shipped).toJSON(),
    annotations: annotationsOf(shipped).sort(),
    checks: checks.map((check) => check.name),
  });
}

const VPC = 'vpc-0123456789abcdef0';
const SUBNET_A = 'subnet-0aaaaaaaaaaaaaaa1';
const SUBNET_B = 'subnet-0bbbbbbbbbbbbbbb2';

/**
 * Per context key: two values (undefined: the key left out) that must synthesize differently, and
 * the other keys it needs. A key documented without an entry here fails: say how it is set.
 */
const KEY_SAMPLES: Readonly<Record<string, { values: [string | undefined, string]; with?: string[] }>> = {
  clusterName: { values: ['demo', 'blue,green'] },
  region: { values: [undefined, 'ap-southeast-2'] },
  account: { values: [undefined, '123456789012'] },
  stackName: { values: [undefined, 'mine'] },
  dryRun: { values: [undefined, 'true'] },
  settings: { values: [undefined, '{"maxDeletions":3}'] },
  autoScalingGroupNames: { values: [undefined, 'workers'] },
  createAccessEntries: { values: [undefined, 'false'] },
  vpcId: { values: [VPC, 'vpc-0fedcba9876543210'], with: [`subnetIds=${SUBNET_A}`] },
  subnetIds: { values: [SUBNET_A, `${SUBNET_A},${SUBNET_B}`], with: [`vpcId=${VPC}`] },
  securityGroupIds: { values: [undefined, 'sg-0ccccccccccccccc3'], with: [`vpcId=${VPC}`, `subnetIds=${SUBNET_A}`] },
  nag: { values: ['false', 'true'] },
  alarmTopic: { values: [undefined, 'arn:aws:sns:eu-west-1:123456789012:oncall'] },
  lifecycleHookNames: { values: [undefined, 'ec2-node-reconciler-drain'] },
  // Nothing is built from it: synth warns when it is too short for the heartbeat gap.
  lifecycleHookTimeout: { values: [undefined, '2m'] },
  lifecycleHeartbeatInterval: { values: [undefined, '2m'] },
  maxDrainDuration: { values: [undefined, '2h'] },
  sweepSchedule: { values: [undefined, 'rate(5 minutes)'] },
  reserveSweepConcurrency: { values: [undefined, 'false'] },
  eventBatchSize: { values: [undefined, '10'] },
  eventBatchingWindow: { values: [undefined, '5s'] },
  eventMaxConcurrency: { values: [undefined, '3'] },
  outputEventBusName: { values: [undefined, 'reconciler-demo'] },
  dashboardName: { values: [undefined, 'reconciler-demo'] },
  alarmNamePrefix: { values: [undefined, 'reconciler-demo'] },
  logRetention: { values: [undefined, '90'] },
  removalPolicy: { values: [undefined, 'destroy'] },
  tracing: { values: [undefined, 'true'] },
};

/**
 * Per NodeReconciler prop: the context key that sets it on the shipped app, or why none can (the
 * prop is a construct, given by name or id instead, or the handlers are the shipped app's own).
 */
const PROP_CONTEXT: Readonly<Record<string, { key: string } | { none: string }>> = {
  clusterName: { key: 'clusterName' },
  cluster: { none: 'a construct of your own app; the shipped app names the cluster (clusterName)' },
  settings: { key: 'settings' },
  autoScalingGroupNames: { key: 'autoScalingGroupNames' },
  vpc: { key: 'vpcId' },
  vpcSubnets: { key: 'subnetIds' },
  securityGroups: { key: 'securityGroupIds' },
  alarmTopic: { key: 'alarmTopic' },
  createAccessEntries: { key: 'createAccessEntries' },
  entries: { none: 'the shipped app deploys its own handlers' },
  ...Object.fromEntries(
    CONTEXT_KEYS.filter((key) => !['clusterName', 'settings', 'autoScalingGroupNames'].includes(key)).map((key) => [
      key,
      { key },
    ]),
  ),
};

const BASE = ['clusterName=demo', 'nag=false'];

describe('one source per setting (issue #28, 1)', () => {
  it('should deploy a dry-run reconciler for -c settings=\'{"dryRun":true}\', cdk.json as shipped', () => {
    const shipped = shippedApp(['clusterName=demo', 'settings={"dryRun":true}']);
    expect(deployedSettings(shipped).dryRun).toBe(true);
  });

  it('should ship no value in cdk.json that could shadow -c or settings: every key there is an empty placeholder', () => {
    for (const [key, value] of Object.entries(cdkJsonContext())) {
      const empty = value === '' || (typeof value === 'object' && value !== null && Object.keys(value).length === 0);
      expect(empty, `cdk.json context ${key}: ${JSON.stringify(value)}`).toBe(true);
    }
  });

  it('should refuse a dryRun that disagrees with settings.dryRun, naming both', () => {
    for (const [dryRun, inSettings] of [
      ['false', true],
      ['true', false],
    ] as const) {
      expect(() => shippedApp([...BASE, `dryRun=${dryRun}`, `settings={"dryRun":${inSettings}}`])).toThrow(
        new ContextError(
          `context dryRun is ${dryRun} but context settings.dryRun is ${inSettings}: set dryRun in one of them (cdk.json's context included)`,
        ),
      );
    }
  });

  it('should take dryRun from either key alone, and from both when they agree', () => {
    expect(deployedSettings(shippedApp([...BASE, 'dryRun=true'])).dryRun).toBe(true);
    expect(deployedSettings(shippedApp([...BASE, 'dryRun=true', 'settings={"dryRun":true}'])).dryRun).toBe(true);
    expect(deployedSettings(shippedApp(BASE)).dryRun).toBe(false);
  });
});

describe('every documented setting, context key and prop is settable with -c (issue #28, 2)', () => {
  const settings = documentedKeys('setting');
  const keys = documentedKeys('key');
  const props = documentedKeys('prop');

  it('should find the documented tables', () => {
    expect(settings).toContain('dryRun');
    expect(keys).toContain('clusterName');
    expect(props).toContain('alarmTopic');
  });

  it.each(settings)('should deploy setting %s given as -c settings=…', (key) => {
    // Prepare
    const value = anotherValue(key);
    expect(value, `${key}: no value other than its default`).toBeDefined();
    // Act
    const shipped = shippedApp([...BASE, `settings=${JSON.stringify(at(key, value))}`]);
    // Assess
    expect(unknownContextKeys(shipped.context)).toEqual([]);
    const deployed = valueAt(deployedSettings(shipped), key);
    expect(deployed).toEqual(valueAt(parseSettings(at(key, value)), key));
    expect(deployed).not.toEqual(valueAt(DEFAULT_SETTINGS, key));
  });

  it.each(keys)('should read context key %s, and synthesize differently for another value', (key) => {
    const sample = KEY_SAMPLES[key];
    expect(sample, `${key}: documented, but no sample in KEY_SAMPLES`).toBeDefined();
    if (sample === undefined) return;
    const run = (value: string | undefined) =>
      shippedApp([...BASE, ...(sample.with ?? []), ...(value === undefined ? [] : [`${key}=${value}`])]);
    // Act
    const [first, second] = [run(sample.values[0]), run(sample.values[1])];
    // Assess
    expect(unknownContextKeys(second.context)).toEqual([]);
    expect(produced(second)).not.toEqual(produced(first));
  });

  it.each(props)('should let prop %s be set on the shipped app, or say why it cannot be', (prop) => {
    const how = PROP_CONTEXT[prop];
    expect(how, `${prop}: documented, but neither a context key nor a reason in PROP_CONTEXT`).toBeDefined();
    if (how !== undefined && 'key' in how) expect(CONTEXT_KEYS).toContain(how.key);
  });
});

describe('the sweep’s reserved concurrency, optional for a new account (issue #28, 3)', () => {
  /** The sweep function's ReservedConcurrentExecutions (undefined: none), and every function's. */
  function reservations(shipped: ShippedApp): Record<string, unknown> {
    return Object.fromEntries(
      resources(templateOf(shipped), 'AWS::Lambda::Function').map(([, fn]) => [
        String(fn.Properties?.['Description']).replace(/^.*: /, ''),
        fn.Properties?.['ReservedConcurrentExecutions'],
      ]),
    );
  }

  it('should reserve 1 for the sweep by default, so that sweeps never overlap', () => {
    const reserved = reservations(shippedApp(BASE));
    expect(Object.values(reserved).filter((value) => value !== undefined)).toEqual([1]);
    expect(reserved['observes every node and instance on a schedule and reconciles']).toBe(1);
  });

  it('should reserve nothing with -c reserveSweepConcurrency=false, and warn that sweeps can overlap', () => {
    const shipped = shippedApp([...BASE, 'reserveSweepConcurrency=false']);
    expect(Object.values(reservations(shipped)).filter((value) => value !== undefined)).toEqual([]);
    expect(annotationsOf(shipped).join('\n')).toMatch(/reserveSweepConcurrency is false: two sweeps can overlap/);
  });
});

describe('a region, always (issue #28, 6)', () => {
  it('should refuse to synthesize without a region, with the fix', () => {
    // The CDK CLI sets CDK_DEFAULT_REGION to us-east-1 when it finds none: no proof of a choice.
    for (const env of [{}, { CDK_DEFAULT_REGION: 'us-east-1' }] as Record<string, string>[]) {
      expect(() => shippedApp(['clusterName=demo'], env)).toThrow(
        /^missing context region: pass -c region=<region> \(or set AWS_REGION\)/,
      );
    }
  });

  it('should deploy to the region given, by -c or AWS_REGION', () => {
    expect(shippedApp([...BASE, 'region=ap-southeast-2']).stack.region).toBe('ap-southeast-2');
    expect(shippedApp(BASE, { AWS_REGION: 'sa-east-1' }).stack.region).toBe('sa-east-1');
  });
});

describe('a bad setting at synth (issue #28)', () => {
  it.each([
    ['{"dryrun":true}', 'context settings.dryrun: unknown setting (did you mean dryRun?)'],
    ['{"repair":{"maxParalel":2}}', 'context settings.repair.maxParalel: unknown setting (did you mean maxParallel?)'],
    ['{"drainTimeout":"10"}', 'context settings.drainTimeout: must be a duration such as 30s, 5m, 2h or 3d'],
  ])('should name the field of %s', (settings, message) => {
    expect(() => shippedApp([...BASE, `settings=${settings}`])).toThrow(message);
  });

  const outdir = mkdtempSync(join(tmpdir(), 'shipped-app-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('should print the field and a did-you-mean from the app itself, with no stack trace', () => {
    // Act: infra/app.ts as `cdk synth -c clusterName=demo -c settings='{"maxDeletons":3}'` runs it
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'infra/app.ts'], {
      cwd: PROJECT_ROOT,
      env: {
        ...process.env,
        AWS_REGION: 'eu-west-1',
        CDK_OUTDIR: outdir,
        CDK_CONTEXT_JSON: JSON.stringify({
          ...cdkJsonContext(),
          clusterName: 'demo',
          settings: '{"maxDeletons":3}',
          'aws:cdk:bundling-stacks': [],
        }),
      },
      encoding: 'utf8',
    });
    // Assess
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe(
      'ec2-node-reconciler: context settings.maxDeletons: unknown setting (did you mean maxDeletions?)',
    );
  }, 60_000);
});
