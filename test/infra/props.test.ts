// NodeReconciler props: validation (errors name the prop), warnings on suspicious settings, and
// what each optional prop changes in the template.
import { App, Duration, Fn, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import type * as eksv1 from 'aws-cdk-lib/aws-eks';
import * as eks from 'aws-cdk-lib/aws-eks-v2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as sns from 'aws-cdk-lib/aws-sns';
import { describe, expect, it } from 'vitest';
import type { ReconcilerCluster } from '../../infra/cluster-access.js';
import { logicalIdOf } from '../../infra/findings.js';
import { NodeReconciler, type NodeReconcilerProps } from '../../infra/node-reconciler.js';
import { RBAC_NAME, rbacManifests } from '@ec2-node-reconciler/model/contract/rbac.js';
import { parseSettings } from '@ec2-node-reconciler/model/contract/settings.js';
import { FUNCTION_ENV } from '@ec2-node-reconciler/model/contract/env.js';
import { FakeCluster, testVpc } from './support/fake-cluster.js';
import { synthesize, testEntries } from './support/synth.js';
import { allStatements, actionsOf, resources, resourcesOfStatement } from './support/template.js';

const entries = testEntries();

function build(props: Partial<NodeReconcilerProps>): () => NodeReconciler {
  return () =>
    new NodeReconciler(new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Props'), 'Reconciler', {
      entries,
      ...props,
    });
}

describe('NodeReconciler props: validation', () => {
  it('should require a cluster name or a cluster construct', () => {
    expect(build({})).toThrow(/clusterName: required when no cluster construct is given/);
  });

  it('should refuse a name EKS would refuse', () => {
    expect(build({ clusterName: 'my cluster' })).toThrow(/clusterName: "my cluster" is not an EKS cluster name/);
    expect(build({ clusterName: '-demo' })).toThrow(/clusterName/);
  });

  it('should name every bad setting, not only the first', () => {
    const attempt = build({ clusterName: 'demo', settings: { maxDeletions: -1, heartbeatGrace: '2 minutes' } });
    expect(attempt).toThrow(/settings\.maxDeletions: /);
    expect(attempt).toThrow(/settings\.heartbeatGrace: must be a duration/);
  });

  it('should refuse settings that would disarm a rail: a heartbeat grace under the Lease duration, a duration over 30 days', () => {
    expect(build({ clusterName: 'demo', settings: { heartbeatGrace: '30s' } })).toThrow(
      /settings\.heartbeatGrace: must be at least 40s \(the kubelet Lease duration\)/,
    );
    expect(build({ clusterName: 'demo', settings: { heartbeatGrace: '0s' } })).toThrow(
      /settings\.heartbeatGrace: must be at least 40s/,
    );
    expect(build({ clusterName: 'demo', settings: { drainTimeout: '99999999999999999999d' } })).toThrow(
      /settings\.drainTimeout: must be at most 30d/,
    );
    expect(build({ clusterName: 'demo', settings: { uncordonAfter: '31d' } })).toThrow(
      /settings\.uncordonAfter: must be at most 30d/,
    );
    expect(build({ clusterName: 'demo', settings: { heartbeatGrace: '40s', notFoundGrace: '30d' } })).not.toThrow();
  });

  it('should refuse an unknown setting (a typo would otherwise be ignored)', () => {
    expect(build({ clusterName: 'demo', settings: { maxDeletion: 3 } as never })).toThrow(/settings\./);
  });

  it.each<[string, Partial<NodeReconcilerProps>, RegExp]>([
    [
      'eventBatchSize above 10,000',
      { eventBatchSize: 10_001 },
      /eventBatchSize: 10001 must be a whole number from 1 to 10000/,
    ],
    [
      'eventBatchSize above 10 without a batching window',
      { eventBatchSize: 11, eventBatchingWindow: Duration.seconds(0) },
      /eventBatchSize: 11 above 10 needs an eventBatchingWindow of at least 1 second/,
    ],
    [
      'an eventBatchingWindow over 5 minutes',
      { eventBatchingWindow: Duration.minutes(6) },
      /eventBatchingWindow: 6 minutes must be at most 5 minutes/,
    ],
    [
      'eventMaxConcurrency below 2',
      { eventMaxConcurrency: 1 },
      /eventMaxConcurrency: 1 must be a whole number from 2 to 1000/,
    ],
    ['an empty autoScalingGroupNames', { autoScalingGroupNames: [] }, /autoScalingGroupNames: empty/],
    ['a blank lifecycle hook name', { lifecycleHookNames: [' '] }, /lifecycleHookNames\[0\]: empty name/],
    ['vpcSubnets without vpc', { vpcSubnets: {} }, /vpcSubnets: needs vpc/],
    [
      'the default bus as output bus',
      { outputEventBusName: 'default' },
      /outputEventBusName: "default" is not a custom event bus name/,
    ],
    [
      'a drain limit under a minute',
      { maxDrainDuration: Duration.seconds(30) },
      /maxDrainDuration: must be from 1 minute to 365 days/,
    ],
    [
      'a heartbeat every second',
      { lifecycleHeartbeatInterval: Duration.seconds(1) },
      /lifecycleHeartbeatInterval: must be at least 10 seconds/,
    ],
    [
      'a hook timeout Auto Scaling refuses (under 30 s)',
      { lifecycleHookTimeout: Duration.seconds(20) },
      /lifecycleHookTimeout: 20 s is not a heartbeat timeout Auto Scaling accepts \(30 s to 7200 s\)/,
    ],
    [
      'a hook timeout Auto Scaling refuses (over 2 h)',
      { lifecycleHookTimeout: Duration.hours(3) },
      /lifecycleHookTimeout: 10800 s is not a heartbeat timeout/,
    ],
    [
      'a dashboard name CloudWatch refuses',
      { dashboardName: 'my dashboard' },
      /dashboardName: "my dashboard" must be 1–200 letters, digits, - and _/,
    ],
    ['an alarm prefix with a space', { alarmNamePrefix: 'a b' }, /alarmNamePrefix: "a b"/],
  ])('should refuse %s, naming the prop', (_name, props, message) => {
    expect(build({ clusterName: 'demo', ...props })).toThrow(message);
  });

  it('should report several bad props in one error', () => {
    expect(build({ clusterName: 'demo', eventBatchSize: 0, eventMaxConcurrency: 0 })).toThrow(
      /eventBatchSize[\s\S]*eventMaxConcurrency/,
    );
  });
});

describe('NodeReconciler props: warnings', () => {
  const warningsOf = (props: Partial<NodeReconcilerProps>) => {
    const { stack } = synthesize({ props });
    return Annotations.fromStack(stack)
      .findWarning('*', Match.anyValue())
      .map((w) => (typeof w.entry.data === 'string' ? w.entry.data : JSON.stringify(w.entry.data)));
  };

  it('should warn about nothing with the defaults', () => {
    expect(warningsOf({})).toEqual([]);
  });

  it.each<[string, Partial<NodeReconcilerProps>, RegExp]>([
    ['dryRun', { settings: { dryRun: true } }, /settings\.dryRun is true/],
    ['maxDeletions 0', { settings: { maxDeletions: 0 } }, /settings\.maxDeletions is 0/],
    [
      'a drain limit shorter than the drain timeout',
      { settings: { drainTimeout: '2h' }, maxDrainDuration: Duration.hours(1) },
      /maxDrainDuration .* shorter than settings\.drainTimeout/,
    ],
    [
      'a hook timeout under twice the worst heartbeat gap (136 s)',
      { lifecycleHookTimeout: Duration.seconds(240) },
      /lifecycleHookTimeout \(4 minutes\) is under twice the drain workflow's worst-case gap between lifecycle heartbeats \(136 s: a 70 s drain step attempt, 10 s before its retry and 51 s of Lambda throttling retries.*at least 272 s/,
    ],
    [
      'a heartbeat interval as long as the default hook timeout',
      { lifecycleHeartbeatInterval: Duration.hours(1) },
      /lifecycleHookTimeout \(1 hour\) is under twice .* \(3656 s.*the 1 hour heartbeat interval\)/,
    ],
    [
      'an event concurrency that lets the events function hold more than 20 Kubernetes seats',
      { eventMaxConcurrency: 3 },
      /eventMaxConcurrency 3 lets the events function keep 24 Kubernetes requests in flight \(8 per invocation\), over 20 of the 49 seats/,
    ],
    [
      'a drain limit shorter than the repair drain timeout',
      { settings: { repair: { enabled: true, drainTimeout: '2h' } }, maxDrainDuration: Duration.hours(1) },
      /maxDrainDuration .* shorter than settings\.repair\.drainTimeout/,
    ],
  ])('should warn, not fail, on %s', (_name, props, message) => {
    const warnings = warningsOf(props);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(message);
  });

  it('should not warn about a hook timeout of twice the worst heartbeat gap, or the 300 s docs/deploy.md advises', () => {
    expect(warningsOf({ lifecycleHookTimeout: Duration.seconds(272) })).toEqual([]);
    expect(warningsOf({ lifecycleHookTimeout: Duration.seconds(300) })).toEqual([]);
    expect(warningsOf({ lifecycleHookTimeout: Duration.seconds(271) })).toHaveLength(1);
  });
});

describe('NodeReconciler props: effects', () => {
  it('should pass the settings to the functions in the form the functions parse', () => {
    const settings = { maxDeletions: 3, heartbeatGrace: '5m', rebalance: 'drain' } as const;
    const { reconciler, template } = synthesize({ props: { settings } });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ [FUNCTION_ENV.settings]: JSON.stringify(settings) }) },
    });
    expect(parseSettings(JSON.parse(JSON.stringify(settings)))).toEqual(reconciler.settings);
    expect(reconciler.settings.heartbeatGrace).toBe(300_000);
  });

  it('should scope rules and IAM to named Auto Scaling groups', () => {
    const { template } = synthesize({ props: { autoScalingGroupNames: ['eks-workers'] } });
    const asg = allStatements(template).filter(({ statement }) =>
      actionsOf(statement).includes('autoscaling:CompleteLifecycleAction'),
    );
    expect(asg.length).toBe(3); // the events function's policy, the sweep's and the state machine's
    for (const { statement } of asg) {
      expect(statement.Condition).toBeUndefined();
      expect(resourcesOfStatement(statement)).toEqual([
        'arn:<AWS::Partition>:autoscaling:<AWS::Region>:<AWS::AccountId>:autoScalingGroup:*:autoScalingGroupName/eks-workers',
      ]);
    }
  });

  it('should run the functions in the VPC, apply the RBAC manifest to the cluster and open its security group on 443', () => {
    let cluster: FakeCluster | undefined;
    const { reconciler, template } = synthesize({
      prepare: (stack) => {
        const vpc = testVpc(stack);
        cluster = new FakeCluster(stack, 'Cluster', { clusterName: 'demo', vpc });
        return { vpc, cluster, clusterName: undefined };
      },
    });
    expect(reconciler.clusterName).toBe('demo');
    expect(cluster?.manifests).toEqual([rbacManifests()]);
    for (const [, fn] of resources(template, 'AWS::Lambda::Function')) {
      expect(fn.Properties?.VpcConfig).toMatchObject({
        SecurityGroupIds: [expect.anything()],
        SubnetIds: expect.any(Array) as unknown,
      });
    }
    template.hasResourceProperties('AWS::EC2::SecurityGroupIngress', {
      IpProtocol: 'tcp',
      FromPort: 443,
      ToPort: 443,
      GroupId: { 'Fn::GetAtt': [logicalIdOf(cluster?.securityGroup ?? reconciler), 'GroupId'] },
    });
    template.hasResourceProperties('AWS::IAM::Role', {
      ManagedPolicyArns: [
        {
          'Fn::Join': [
            '',
            ['arn:', { Ref: 'AWS::Partition' }, ':iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole'],
          ],
        },
      ],
    });
  });

  it('should refuse a cluster construct whose name differs from clusterName', () => {
    expect(() =>
      synthesize({
        prepare: (stack) => ({
          cluster: new FakeCluster(stack, 'Cluster', { clusterName: 'other', vpc: testVpc(stack) }),
        }),
      }),
    ).toThrow(/clusterName: demo differs from cluster.clusterName other/);
  });

  it('should apply the RBAC manifest through a real aws-eks-v2 cluster with a kubectl provider', () => {
    const { template } = synthesize({
      prepare: (stack) => ({
        cluster: eks.Cluster.fromClusterAttributes(stack, 'Eks', {
          clusterName: 'demo',
          kubectlProvider: eks.KubectlProvider.fromKubectlProviderAttributes(stack, 'Kubectl', {
            serviceToken: 'arn:aws:lambda:us-east-1:123456789012:function:kubectl',
            role: iam.Role.fromRoleArn(stack, 'KubectlRole', 'arn:aws:iam::123456789012:role/kubectl'),
          }),
        }),
      }),
    });
    const [, manifest] = resources(template, 'Custom::AWSCDK-EKS-KubernetesResource')[0] ?? [];
    const applied = JSON.stringify(manifest?.Properties?.Manifest);
    for (const kind of ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'])
      expect(applied).toContain(`\\"kind\\":\\"${kind}\\"`);
    expect(applied).toContain(RBAC_NAME);
  });

  it('should accept aws-eks and aws-eks-v2 clusters as ReconcilerCluster', () => {
    const fromV1 = (cluster: eksv1.ICluster): ReconcilerCluster => cluster;
    const fromV2 = (cluster: eks.ICluster): ReconcilerCluster => cluster;
    expect([fromV1, fromV2]).toHaveLength(2);
  });

  it('should create no access entries when createAccessEntries is false', () => {
    const { template } = synthesize({ props: { createAccessEntries: false } });
    template.resourceCountIs('AWS::EKS::AccessEntry', 0);
  });

  it('should notify the alarm topic on ALARM and OK', () => {
    const { template } = synthesize({ prepare: (stack) => ({ alarmTopic: new sns.Topic(stack, 'Topic') }) });
    for (const [, alarm] of resources(template, 'AWS::CloudWatch::Alarm')) {
      expect(alarm.Properties?.AlarmActions).toEqual([{ Ref: expect.stringMatching(/^Topic/) as unknown }]);
      expect(alarm.Properties?.OKActions).toEqual([{ Ref: expect.stringMatching(/^Topic/) as unknown }]);
    }
  });

  it('should turn on X-Ray for the functions and the workflow with tracing', () => {
    const { template } = synthesize({ props: { tracing: true } });
    for (const [, fn] of resources(template, 'AWS::Lambda::Function'))
      expect(fn.Properties?.TracingConfig).toEqual({ Mode: 'Active' });
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', { TracingConfiguration: { Enabled: true } });
  });

  it('should skip the rebalance rule under the rebalance policy ignore', () => {
    const { template } = synthesize({ props: { settings: { rebalance: 'ignore' } } });
    template.resourceCountIs('AWS::Events::Rule', 7);
  });

  it('should name the dashboard and the alarms when told, and only then', () => {
    const { template, reconciler } = synthesize({
      props: { dashboardName: 'prod-reconciler', alarmNamePrefix: 'prod-reconciler' },
    });
    template.hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardName: 'prod-reconciler' });
    const names = resources(template, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties?.AlarmName);
    expect(names.sort()).toEqual(
      [...reconciler.observability.alarms.keys()].map((key) => `prod-reconciler-${key}`).sort(),
    );
  });

  it('should take the schedule, batch, concurrency, bus name, retention and removal policy given', () => {
    const { template } = synthesize({
      props: {
        sweepSchedule: scheduler.ScheduleExpression.rate(Duration.minutes(5)),
        eventBatchSize: 5,
        eventBatchingWindow: Duration.seconds(0),
        eventMaxConcurrency: 20,
        outputEventBusName: 'reconciler-events',
        logRetention: logs.RetentionDays.ONE_WEEK,
        removalPolicy: RemovalPolicy.DESTROY,
      },
    });
    template.hasResourceProperties('AWS::Scheduler::Schedule', { ScheduleExpression: 'rate(5 minutes)' });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 5,
      MaximumBatchingWindowInSeconds: 0,
      ScalingConfig: { MaximumConcurrency: 20 },
    });
    template.hasResourceProperties('AWS::Events::EventBus', { Name: 'reconciler-events' });
    for (const [, group] of resources(template, 'AWS::Logs::LogGroup')) {
      expect(group.Properties?.RetentionInDays).toBe(7);
      expect(group.DeletionPolicy).toBe('Delete');
    }
  });
});

it('should accept a cluster whose name is a token (imported from another stack) and skip the name checks', () => {
  const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Token');
  const cluster = new FakeCluster(stack, 'Cluster', {
    clusterName: Fn.importValue('shared-cluster-name'),
    vpc: testVpc(stack),
  });
  const reconciler = new NodeReconciler(stack, 'Reconciler', { entries, cluster });
  const template = Template.fromStack(stack);
  template.hasResourceProperties('AWS::EKS::AccessEntry', {
    ClusterName: { 'Fn::ImportValue': 'shared-cluster-name' },
  });
  template.hasResourceProperties('AWS::Events::EventBus', {
    Name: Match.stringLikeRegexp('^TokenReconcilerOutputBus'),
  });
  expect(reconciler.clusterName).toBe(cluster.clusterName);
  Annotations.fromStack(stack).hasWarning('/Token/Reconciler', Match.stringLikeRegexp('only known at deploy time'));
});
