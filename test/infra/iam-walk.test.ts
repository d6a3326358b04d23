// The IAM walk over the synthesized stack in its shapes (default, tracing, named groups, an operator's
// decommission grant), and over statements made to break each rule, so that a finding is known to fire.
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AccountRootPrincipal, PolicyStatement, Role } from 'aws-cdk-lib/aws-iam';
import { describe, expect, it } from 'vitest';
import { NodeReconciler } from '../../infra/node-reconciler.js';
import { describeFinding, statementFindings, walkIam, type WalkedStatement } from './support/iam-walk.js';
import { CLUSTER, defaultStack, synthesize, testEntries } from './support/synth.js';

const allow = (Action: string | string[], Resource: unknown = '*'): WalkedStatement => ({
  Effect: 'Allow',
  Action,
  Resource,
});

describe('the IAM walk, over the synthesized stack', () => {
  it('should find nothing in the default stack', () => {
    expect(walkIam(defaultStack().template).map(describeFinding)).toEqual([]);
  });

  it('should find nothing with tracing on, with named Auto Scaling groups, or with the operator grant', () => {
    const own = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Operator');
    const withOperator = new NodeReconciler(own, 'Reconciler', { clusterName: CLUSTER, entries: testEntries() });
    withOperator.grantDecommission(new Role(own, 'Operator', { assumedBy: new AccountRootPrincipal() }));
    const templates = [
      synthesize({ props: { tracing: true } }).template,
      synthesize({ props: { autoScalingGroupNames: ['ng-a', 'ng-b'] } }).template,
      Template.fromStack(own),
    ];
    for (const template of templates) expect(walkIam(template).map(describeFinding)).toEqual([]);
  });

  it('should fire on a mutating action on `*` added to a function role of a real stack', () => {
    const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Broken');
    const reconciler = new NodeReconciler(stack, 'Reconciler', { clusterName: CLUSTER, entries: testEntries() });
    reconciler.roles.events.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['autoscaling:SetInstanceHealth'], resources: ['*'] }),
    );
    const findings = walkIam(Template.fromStack(stack));
    expect(findings).toEqual([
      expect.objectContaining({ rule: 'mutating-on-star', action: 'autoscaling:SetInstanceHealth' }),
    ]);
  });
});

describe('the IAM walk, rule by rule', () => {
  it('should fire on a wildcard action, whole-service or partial', () => {
    expect(statementFindings('P', allow('*'))).toContainEqual({ policy: 'P', rule: 'wildcard-action', action: '*' });
    expect(statementFindings('P', allow(['ec2:*'], 'arn:aws:ec2:us-east-1:1:instance/i-1'))).toEqual([
      { policy: 'P', rule: 'wildcard-action', action: 'ec2:*' },
    ]);
    expect(statementFindings('P', allow('autoscaling:Describe*'))).toEqual([
      { policy: 'P', rule: 'wildcard-action', action: 'autoscaling:Describe*' },
    ]);
    expect(statementFindings('P', allow('states:Start?xecution', 'arn:x'))).toEqual([
      { policy: 'P', rule: 'wildcard-action', action: 'states:Start?xecution' },
    ]);
  });

  it('should fire on NotAction and NotResource, which allow everything they do not name', () => {
    expect(statementFindings('P', { Effect: 'Allow', NotAction: 'iam:*', Action: [], Resource: '*' })).toEqual([
      { policy: 'P', rule: 'not-action', action: 'iam:*' },
    ]);
    expect(
      statementFindings('P', { Effect: 'Allow', Action: 'ec2:DescribeInstances', Resource: [], NotResource: 'arn:x' }),
    ).toEqual([{ policy: 'P', rule: 'not-resource', action: 'ec2:DescribeInstances' }]);
  });

  it('should fire on a mutating action on `*` that supports resource-level permissions, one finding each', () => {
    expect(
      statementFindings('P', allow(['autoscaling:CompleteLifecycleAction', 'states:StartExecution', 'ec2:CreateTags'])),
    ).toEqual([
      { policy: 'P', rule: 'mutating-on-star', action: 'autoscaling:CompleteLifecycleAction' },
      { policy: 'P', rule: 'mutating-on-star', action: 'states:StartExecution' },
      { policy: 'P', rule: 'mutating-on-star', action: 'ec2:CreateTags' },
    ]);
    // `*` among other resources still grants everything.
    expect(statementFindings('P', allow('events:PutEvents', ['arn:aws:events:us-east-1:1:event-bus/b', '*']))).toEqual([
      { policy: 'P', rule: 'mutating-on-star', action: 'events:PutEvents' },
    ]);
  });

  it('should fire on an action on `*` that the Service Authorization table does not know', () => {
    expect(statementFindings('P', allow('ec2:TerminateInstances'))).toEqual([
      { policy: 'P', rule: 'unclassified-on-star', action: 'ec2:TerminateInstances' },
    ]);
  });

  it('should let pass what the rules allow: reads and resource-less mutations on `*`, anything scoped, and Deny', () => {
    expect(
      statementFindings('P', allow(['ec2:DescribeInstances', 'logs:CreateLogDelivery', 'xray:PutTraceSegments'])),
    ).toEqual([]);
    expect(statementFindings('P', allow('autoscaling:CompleteLifecycleAction', 'arn:aws:autoscaling:*'))).toEqual([]);
    expect(statementFindings('P', allow('ec2:TerminateInstances', 'arn:aws:ec2:us-east-1:1:instance/i-1'))).toEqual([]);
    expect(statementFindings('P', { Effect: 'Deny', Action: '*', Resource: '*' })).toEqual([]);
  });
});
