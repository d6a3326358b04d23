// The context keys createAccessEntries, vpcId, subnetIds and securityGroupIds, from the context
// (cdk.json or -c) through readAppOptions and reconcilerStackProps to the synthesized template:
// each one present and absent, and each bad value refused naming its key.
import { App } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import {
  CONTEXT_KEYS,
  readAppOptions,
  reconcilerStackProps,
  unknownContextKeys,
  type ContextKey,
} from '../../infra/app-context.js';
import { ReconcilerStack } from '../../infra/stack.js';
import { RECONCILER_GROUP } from '@ec2-node-reconciler/model/contract/rbac.js';
import { resources } from './support/template.js';

const VPC = 'vpc-0123456789abcdef0';
const SUBNETS = ['subnet-0aaaaaaaaaaaaaaa1', 'subnet-0bbbbbbbbbbbbbbb2'];
const GROUP = 'sg-0ccccccccccccccc3';
const VPC_ACCESS_POLICY = 'service-role/AWSLambdaVPCAccessExecutionRole';

type Context = Partial<Record<ContextKey, unknown>>;

const reader = (values: Context) => (key: ContextKey) => values[key];
/** What `cdk synth` runs the app with when the deployer has a region set. */
const REGION_ENV = { AWS_REGION: 'eu-west-1' };

/** The app's stack for this context, bundling skipped. */
function synthApp(values: Context): { stack: ReconcilerStack; template: Template } {
  const options = readAppOptions(reader({ clusterName: 'demo', ...values }), REGION_ENV);
  const stack = new ReconcilerStack(
    new App({ context: { 'aws:cdk:bundling-stacks': [] } }),
    options.stackName,
    reconcilerStackProps(options),
  );
  return { stack, template: Template.fromStack(stack) };
}

const functionsOf = (template: Template) => resources(template, 'AWS::Lambda::Function').map(([, fn]) => fn);

/** Managed policy ARNs of every role, flattened to their names (`service-role/…`). */
function managedPolicies(template: Template): string[][] {
  return resources(template, 'AWS::IAM::Role').map(([, role]) =>
    ((role.Properties?.ManagedPolicyArns ?? []) as unknown[]).map((arn) => JSON.stringify(arn)),
  );
}

describe('context createAccessEntries', () => {
  it('should create an access entry per function role, in the reconciler group, when absent', () => {
    // Prepare / act
    const { stack, template } = synthApp({});
    // Assess
    Annotations.fromStack(stack).hasNoInfo('/ec2-node-reconciler-demo/demo', Match.stringLikeRegexp('aws-auth'));
    const entries = resources(template, 'AWS::EKS::AccessEntry');
    expect(entries).toHaveLength(3);
    for (const [, entry] of entries) {
      expect(entry.Properties).toMatchObject({
        ClusterName: 'demo',
        Type: 'STANDARD',
        KubernetesGroups: [RECONCILER_GROUP],
      });
    }
  });

  it('should create them for true, from the command line or cdk.json', () => {
    for (const value of ['true', true]) {
      expect(
        readAppOptions(reader({ clusterName: 'demo', createAccessEntries: value }), REGION_ENV).createAccessEntries,
      ).toBe(true);
    }
  });

  it('should create no access entry when false, keep the role ARNs in the outputs and say to map them in aws-auth', () => {
    for (const value of ['false', false]) {
      const { stack, template } = synthApp({ createAccessEntries: value });
      template.resourceCountIs('AWS::EKS::AccessEntry', 0);
      Annotations.fromStack(stack).hasInfo('/ec2-node-reconciler-demo/demo', Match.stringLikeRegexp('aws-auth'));
      const outputs = Object.keys(template.findOutputs('*'));
      for (const role of ['EventsRoleArn', 'SweepRoleArn', 'DrainStepRoleArn'])
        expect(
          outputs.some((name) => name.includes(role)),
          role,
        ).toBe(true);
    }
  });

  it('should refuse a value that is not true or false, naming the key', () => {
    expect(() => readAppOptions(reader({ clusterName: 'demo', createAccessEntries: 'no' }), REGION_ENV)).toThrow(
      'context createAccessEntries: expected true or false, got "no"',
    );
  });
});

describe('context vpcId, subnetIds and securityGroupIds', () => {
  it('should run the functions outside any VPC when absent', () => {
    const { template } = synthApp({});
    for (const fn of functionsOf(template)) expect(fn.Properties?.VpcConfig).toBeUndefined();
    template.resourceCountIs('AWS::EC2::SecurityGroup', 0);
    expect(managedPolicies(template).flat().join()).not.toContain(VPC_ACCESS_POLICY);
    expect(Object.keys(template.findOutputs('*')).some((name) => name.includes('FunctionSecurityGroupIds'))).toBe(
      false,
    );
  });

  it('should run every function in the named subnets with a new security group in the VPC when vpcId and subnetIds are given', () => {
    // Prepare / act: the command line's comma-separated form
    const { template } = synthApp({ vpcId: VPC, subnetIds: SUBNETS.join(',') });
    // Assess
    const [group, ...others] = resources(template, 'AWS::EC2::SecurityGroup');
    expect(others).toEqual([]);
    expect(group?.[1].Properties?.VpcId).toBe(VPC);
    const functions = functionsOf(template);
    expect(functions).toHaveLength(3);
    for (const fn of functions) {
      expect(fn.Properties?.VpcConfig).toEqual({
        SubnetIds: SUBNETS,
        SecurityGroupIds: [{ 'Fn::GetAtt': [group?.[0], 'GroupId'] }],
      });
    }
    // Lambda creates the functions' network interfaces with their roles.
    const withVpcAccess = managedPolicies(template).filter((arns) => arns.join().includes(VPC_ACCESS_POLICY));
    expect(withVpcAccess).toHaveLength(3);
    const outputs = template.findOutputs('*');
    const sgOutput = Object.entries(outputs).find(([name]) => name.includes('FunctionSecurityGroupIds'));
    expect(sgOutput?.[1].Value).toEqual({ 'Fn::GetAtt': [group?.[0], 'GroupId'] });
  });

  it('should use the given security groups, and create none, when securityGroupIds is given', () => {
    // cdk.json's list form
    const { template } = synthApp({ vpcId: VPC, subnetIds: SUBNETS, securityGroupIds: [GROUP] });
    template.resourceCountIs('AWS::EC2::SecurityGroup', 0);
    template.resourceCountIs('AWS::EC2::SecurityGroupIngress', 0);
    template.resourceCountIs('AWS::EC2::SecurityGroupEgress', 0);
    for (const fn of functionsOf(template)) {
      expect(fn.Properties?.VpcConfig).toEqual({ SubnetIds: SUBNETS, SecurityGroupIds: [GROUP] });
    }
  });

  it('should synthesize without looking anything up (no missing context to fetch from AWS)', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const options = readAppOptions(
      reader({ clusterName: 'demo', region: 'eu-west-1', account: '123456789012', vpcId: VPC, subnetIds: SUBNETS }),
      REGION_ENV,
    );
    new ReconcilerStack(app, options.stackName, reconcilerStackProps(options));
    const assembly = app.synth();
    expect(assembly.manifest.missing ?? []).toEqual([]);
  });

  it.each<[string, Context, string]>([
    [
      'a VPC id of the wrong form',
      { vpcId: 'vpc-123', subnetIds: SUBNETS },
      'context vpcId: "vpc-123" is not a VPC id',
    ],
    [
      'a subnet id of the wrong form',
      { vpcId: VPC, subnetIds: `${SUBNETS[0] ?? ''},subnet-xyz` },
      'context subnetIds: "subnet-xyz" is not a subnet id',
    ],
    [
      'a subnet id among the security groups',
      { vpcId: VPC, subnetIds: SUBNETS, securityGroupIds: SUBNETS[0] },
      'context securityGroupIds: "subnet-0aaaaaaaaaaaaaaa1" is not a security group id',
    ],
    ['a VPC without subnets', { vpcId: VPC }, 'context subnetIds: required with vpcId'],
    ['subnets without a VPC', { subnetIds: SUBNETS }, 'context subnetIds: needs vpcId'],
    ['security groups without a VPC', { securityGroupIds: GROUP }, 'context securityGroupIds: needs vpcId'],
    ['a VPC id that is not a string', { vpcId: 42, subnetIds: SUBNETS }, 'context vpcId: expected a string, got 42'],
    [
      'subnets that are not names',
      { vpcId: VPC, subnetIds: { a: 1 } },
      'context subnetIds: expected a subnet id or a comma-separated list of subnet ids',
    ],
  ])('should refuse %s, naming the key', (_name, values, message) => {
    expect(() => readAppOptions(reader({ clusterName: 'demo', ...values }), REGION_ENV)).toThrow(message);
  });

  it('should name every bad key at once', () => {
    expect(() =>
      readAppOptions(
        reader({ clusterName: 'demo', vpcId: 'vpc-1', subnetIds: 'subnet-2', securityGroupIds: 'sg-3' }),
        REGION_ENV,
      ),
    ).toThrow(/context vpcId: [^\n]*\ncontext subnetIds: [^\n]*\ncontext securityGroupIds: /);
  });

  it('should refuse the same mistakes as stack props, naming the prop', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    expect(() => new ReconcilerStack(app, 'Bad', { clusterNames: ['demo'], subnetIds: SUBNETS })).toThrow(
      /ReconcilerStack: invalid props:\n {2}- subnetIds: needs vpcId/,
    );
    expect(
      () => new ReconcilerStack(app, 'Bad2', { clusterNames: ['demo'], vpcId: 'vpc-x', subnetIds: SUBNETS }),
    ).toThrow(/- vpcId: "vpc-x" is not a VPC id/);
  });
});

describe('the context keys the app reads', () => {
  it('should read every key of CONTEXT_KEYS, and no other', () => {
    // Prepare: a context that sets every key, so that no read is skipped
    const asked = new Set<string>();
    const full: Context = {
      clusterName: 'demo',
      region: 'eu-west-1',
      account: '123456789012',
      stackName: 'mine',
      dryRun: 'true',
      settings: '{}',
      autoScalingGroupNames: 'a',
      createAccessEntries: 'false',
      vpcId: VPC,
      subnetIds: SUBNETS,
      securityGroupIds: GROUP,
      nag: 'false',
      alarmTopic: 'arn:aws:sns:eu-west-1:123456789012:oncall',
      lifecycleHookNames: 'drain',
      lifecycleHookTimeout: '10m',
      lifecycleHeartbeatInterval: '2m',
      maxDrainDuration: '2h',
      sweepSchedule: 'rate(5 minutes)',
      reserveSweepConcurrency: 'false',
      eventBatchSize: '10',
      eventBatchingWindow: '2s',
      eventMaxConcurrency: '3',
      outputEventBusName: 'reconciler',
      dashboardName: 'reconciler',
      alarmNamePrefix: 'reconciler',
      logRetention: '90',
      removalPolicy: 'destroy',
      tracing: 'true',
    };
    // Act
    readAppOptions((key) => {
      asked.add(key);
      return full[key];
    }, REGION_ENV);
    // Assess
    expect([...asked].sort()).toEqual([...CONTEXT_KEYS].sort());
    expect(Object.keys(full).sort()).toEqual([...CONTEXT_KEYS].sort());
  });

  it("should point out a key that looks like the app's but is not, leaving CDK's own keys alone", () => {
    const unknown = unknownContextKeys({
      clusterName: 'demo',
      subnetId: SUBNETS[0],
      createAccesEntries: 'false',
      vpcid: VPC,
      colour: 'blue',
      '@aws-cdk/core:newStyleStackSynthesis': true,
      'aws:cdk:bundling-stacks': [],
      'availability-zones:account=123456789012:region=eu-west-1': ['eu-west-1a'],
    });
    expect(unknown).toEqual([
      'subnetId (did you mean subnetIds?)',
      'createAccesEntries (did you mean createAccessEntries?)',
      'vpcid (did you mean vpcId?)',
      'colour',
    ]);
  });
});
