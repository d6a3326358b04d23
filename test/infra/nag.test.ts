// cdk-nag AwsSolutions checks on the reconciler in its main shapes: no violation left
// unacknowledged, and every acknowledgement carries a reason.
import { App, Stack, Validations } from 'aws-cdk-lib';
import * as sns from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { NodeReconciler, type NodeReconcilerProps } from '../../infra/node-reconciler.js';
import { ReconcilerStack } from '../../infra/stack.js';
import { FakeCluster, testVpc } from './support/fake-cluster.js';
import { testEntries } from './support/synth.js';

const entries = testEntries();

function reconcilerStack(
  env?: { account: string; region: string },
  extra?: (stack: Stack) => Partial<NodeReconcilerProps>,
): Stack {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Nag', { env });
  new NodeReconciler(stack, 'Reconciler', { clusterName: 'demo', entries, ...extra?.(stack) });
  return stack;
}

const VARIANTS: Record<string, () => IConstruct> = {
  'default, environment-agnostic': () => reconcilerStack(),
  'pinned account and region': () => reconcilerStack({ account: '123456789012', region: 'eu-west-1' }),
  'VPC, cluster construct, named groups and hooks, tracing, alarm topic': () =>
    reconcilerStack({ account: '123456789012', region: 'us-east-2' }, (stack) => {
      const vpc = testVpc(stack);
      return {
        vpc,
        cluster: new FakeCluster(stack, 'Cluster', { clusterName: 'demo', vpc }),
        autoScalingGroupNames: ['eks-workers', 'eks-spot'],
        lifecycleHookNames: ['drain'],
        tracing: true,
        alarmTopic: new sns.Topic(stack, 'Topic', { enforceSSL: true }),
      };
    }),
  'the app stack with two clusters': () =>
    new ReconcilerStack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'App', {
      clusterNames: ['blue', 'green'],
      reconciler: { entries },
    }),
  'the app stack in a VPC by id, without access entries': () =>
    new ReconcilerStack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'AppVpc', {
      env: { account: '123456789012', region: 'eu-west-1' },
      clusterNames: ['demo'],
      reconciler: { entries, createAccessEntries: false },
      vpcId: 'vpc-0123456789abcdef0',
      subnetIds: ['subnet-0aaaaaaaaaaaaaaa1', 'subnet-0bbbbbbbbbbbbbbb2'],
    }),
  'the app stack in a VPC with its own security groups': () =>
    new ReconcilerStack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'AppVpcGroups', {
      clusterNames: ['demo'],
      reconciler: { entries },
      vpcId: 'vpc-0123456789abcdef0',
      subnetIds: ['subnet-0aaaaaaaaaaaaaaa1'],
      securityGroupIds: ['sg-0ccccccccccccccc3'],
    }),
};

describe('cdk-nag AwsSolutions', () => {
  it.each(Object.keys(VARIANTS))('should leave no violation unacknowledged: %s', (name) => {
    const scope = VARIANTS[name]?.();
    if (!scope) throw new Error(name);
    const report = new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(scope);
    const violations = report.violations.map(
      (v) => `${v.severity ?? '?'} ${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`,
    );
    expect(violations).toEqual([]);
    expect(report.success).toBe(true);
  });

  it('should give every acknowledgement a reason worth reading', () => {
    const stack = VARIANTS['VPC, cluster construct, named groups and hooks, tracing, alarm topic']?.();
    if (!stack) throw new Error('variant');
    const acknowledged = stack.node
      .findAll()
      .flatMap((construct) =>
        construct.node.metadata.filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY),
      )
      .flatMap((entry) => Object.entries(entry.data as Record<string, string>))
      // CDK acknowledges some of its own CloudFormation-Validate findings; only ours are under test.
      .filter(([id]) => id.includes('AwsSolutions-'));
    expect(acknowledged.length).toBeGreaterThan(0);
    for (const [id, reason] of acknowledged) {
      expect(id).toMatch(/AwsSolutions-[A-Z]+\d+/);
      expect(reason.length, id).toBeGreaterThanOrEqual(40);
    }
  });
});
