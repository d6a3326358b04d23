// The app's context handling (cdk.json and -c), ReconcilerStack and the cdk-nag finding ids.
import { readFileSync } from 'node:fs';
import { App, Fn, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference.js';
import { Construct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { readAppOptions, unknownContextKeys } from '../../infra/app-context.js';
import { flattenReference, invokeGrantFinding, wildcardResourceFinding } from '../../infra/findings.js';
import { PROJECT_ROOT } from '../../infra/functions.js';
import { ReconcilerStack } from '../../infra/stack.js';
import { testEntries } from './support/synth.js';

const context = (values: Record<string, unknown>) => (key: string) => values[key];
/** What `cdk synth` runs the app with when the deployer has a region set. */
const REGION_ENV = { AWS_REGION: 'eu-west-1' };

describe('readAppOptions', () => {
  it('should fail with the command to run when clusterName is missing or empty', () => {
    for (const value of [undefined, '', ' , ']) {
      expect(() => readAppOptions(context({ clusterName: value }), REGION_ENV)).toThrow(
        'missing context clusterName: pass -c clusterName=<name>',
      );
    }
  });

  it('should read one cluster or a comma-separated list, from the command line or cdk.json', () => {
    expect(readAppOptions(context({ clusterName: 'demo' }), REGION_ENV).clusterNames).toEqual(['demo']);
    expect(readAppOptions(context({ clusterName: 'blue, green' }), REGION_ENV).clusterNames).toEqual(['blue', 'green']);
    expect(readAppOptions(context({ clusterName: ['blue', 'green'] }), REGION_ENV).clusterNames).toEqual([
      'blue',
      'green',
    ]);
    expect(() => readAppOptions(context({ clusterName: 42 }), REGION_ENV)).toThrow(
      /context clusterName: expected a name/,
    );
  });

  it('should name the stack after the clusters, so another cluster gets another stack', () => {
    expect(readAppOptions(context({ clusterName: 'demo' }), REGION_ENV).stackName).toBe('ec2-node-reconciler-demo');
    expect(readAppOptions(context({ clusterName: 'prod_eu,prod_us' }), REGION_ENV).stackName).toBe(
      'ec2-node-reconciler-prod-eu-prod-us',
    );
    expect(readAppOptions(context({ clusterName: 'demo', stackName: 'mine' }), REGION_ENV).stackName).toBe('mine');
  });

  it('should take the region from context, else from AWS_REGION or AWS_DEFAULT_REGION', () => {
    expect(
      readAppOptions(context({ clusterName: 'demo', region: 'eu-west-1' }), { AWS_REGION: 'us-east-1' }).region,
    ).toBe('eu-west-1');
    expect(readAppOptions(context({ clusterName: 'demo', region: '' }), { AWS_REGION: 'eu-central-1' }).region).toBe(
      'eu-central-1',
    );
    expect(readAppOptions(context({ clusterName: 'demo' }), { AWS_DEFAULT_REGION: 'ap-south-1' }).region).toBe(
      'ap-south-1',
    );
  });

  it('should refuse to synthesize without a region, with the fix, rather than let the CDK CLI pick us-east-1', () => {
    // The CLI sets CDK_DEFAULT_REGION to us-east-1 when it finds no region at all: it proves nothing.
    for (const env of [{}, { CDK_DEFAULT_REGION: 'us-east-1' }, { AWS_REGION: ' ' }]) {
      expect(() => readAppOptions(context({ clusterName: 'demo', region: '' }), env)).toThrow(
        /missing context region: pass -c region=<region> \(or set AWS_REGION\)/,
      );
    }
  });

  it('should take dryRun from its own key or from settings, from a flag string or a boolean', () => {
    expect(readAppOptions(context({ clusterName: 'demo', dryRun: 'true' }), REGION_ENV).settings).toEqual({
      dryRun: true,
    });
    expect(
      readAppOptions(
        context({ clusterName: 'demo', dryRun: true, settings: { dryRun: true, maxDeletions: 2 } }),
        REGION_ENV,
      ).settings,
    ).toEqual({ dryRun: true, maxDeletions: 2 });
    expect(
      readAppOptions(context({ clusterName: 'demo', settings: '{"maxDeletions":2}' }), REGION_ENV).settings,
    ).toEqual({
      maxDeletions: 2,
    });
    expect(() => readAppOptions(context({ clusterName: 'demo', dryRun: 'yes' }), REGION_ENV)).toThrow(
      'context dryRun: expected true or false, got "yes"',
    );
    expect(() => readAppOptions(context({ clusterName: 'demo', settings: '{maxDeletions' }), REGION_ENV)).toThrow(
      /context settings: not JSON/,
    );
    expect(() => readAppOptions(context({ clusterName: 'demo', settings: [1] }), REGION_ENV)).toThrow(
      /expected a JSON object/,
    );
  });

  it('should run cdk-nag unless nag is false', () => {
    expect(readAppOptions(context({ clusterName: 'demo' }), REGION_ENV).nag).toBe(true);
    expect(readAppOptions(context({ clusterName: 'demo', nag: 'false' }), REGION_ENV).nag).toBe(false);
  });

  it('should accept the defaults cdk.json ships, which require only clusterName', () => {
    const cdkJson = JSON.parse(readFileSync(`${PROJECT_ROOT}cdk.json`, 'utf8')) as {
      app: string;
      context: Record<string, unknown>;
    };
    expect(cdkJson.app).toBe('npx tsx infra/app.ts');
    expect(() => readAppOptions(context(cdkJson.context), REGION_ENV)).toThrow(/pass -c clusterName=<name>/);
    const options = readAppOptions(context({ ...cdkJson.context, clusterName: 'demo' }), REGION_ENV);
    expect(options).toMatchObject({
      clusterNames: ['demo'],
      settings: {},
      createAccessEntries: true,
      vpc: {},
      nag: true,
    });
    expect(options.autoScalingGroupNames).toBeUndefined();
    expect(unknownContextKeys(cdkJson.context)).toEqual([]);
  });
});

describe('ReconcilerStack', () => {
  const entries = testEntries();

  it('should build one reconciler per cluster, with the outputs an operator needs', () => {
    const stack = new ReconcilerStack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Stack', {
      clusterNames: ['blue', 'green'],
      reconciler: { entries },
    });
    expect([...stack.reconcilers.keys()]).toEqual(['blue', 'green']);
    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::StepFunctions::StateMachine', 2);
    template.resourceCountIs('AWS::Events::EventBus', 2);
    const outputs = Object.values(template.findOutputs('*')).map((o) => String(o.Description));
    for (const cluster of ['blue', 'green']) {
      for (const what of [
        'sweep function',
        'schedule of the periodic sweep',
        'drain workflow',
        'bus with Node Deleted',
        'signal queue',
        'dead-letter queue',
        'CloudWatch dashboard',
        'events function role',
      ]) {
        expect(
          outputs.some((d) => d.startsWith(`${cluster}: ${what}`)),
          `${cluster} ${what}`,
        ).toBe(true);
      }
    }
  });

  it('should refuse no clusters and the same cluster twice', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    expect(() => new ReconcilerStack(app, 'None', { clusterNames: [] })).toThrow(/clusterNames: empty/);
    expect(() => new ReconcilerStack(app, 'Twice', { clusterNames: ['a', 'a'], reconciler: { entries } })).toThrow(
      /lists a more than once/,
    );
  });
});

describe('cdk-nag finding ids', () => {
  it('should flatten references exactly as cdk-nag does', () => {
    const stack = new Stack(new App(), 'Flat', { env: { region: 'eu-west-1' } });
    const samples = [
      '*',
      stack.formatArn({ service: 'ec2', resource: 'instance', resourceName: '*' }),
      `${Fn.getAtt('Fn1234', 'Arn').toString()}:*`,
      Fn.importValue('x'),
      Fn.sub('arn:${AWS::Partition}:sqs:*'),
      `arn:${stack.partition}:eks:${stack.region}:${stack.account}:cluster/demo`,
    ];
    for (const sample of samples) {
      const resolved: unknown = stack.resolve(sample);
      expect(flattenReference(resolved)).toBe(flattenCfnReference(resolved));
    }
  });

  it('should build the ids cdk-nag reports', () => {
    const stack = new Stack(new App(), 'Ids');
    expect(wildcardResourceFinding(stack, '*')).toBe('AwsSolutions-IAM5[Resource::*]');
    const fn = Object.assign(new Construct(stack, 'Fn'), { functionArn: Fn.getAtt('DrainStep1234', 'Arn').toString() });
    expect(invokeGrantFinding(fn)).toBe('AwsSolutions-IAM5[Resource::<DrainStep1234.Arn>:*]');
  });
});
