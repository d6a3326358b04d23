// Assertion tests on the default NodeReconciler, one template shared by the whole file.
import { spawnSync } from 'node:child_process';
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AccountRootPrincipal, Role } from 'aws-cdk-lib/aws-iam';
import { describe, expect, it } from 'vitest';
import { logicalIdOf } from '../../infra/findings.js';
import { FUNCTION_SPECS } from '../../infra/functions.js';
import { METRIC_NAMES, METRIC_NAMESPACE } from '@ec2-node-reconciler/model/contract/metrics.js';
import { NodeReconciler, SWEEP_SCHEDULE_INPUT } from '../../infra/node-reconciler.js';
import { RECONCILER_GROUP } from '@ec2-node-reconciler/model/contract/rbac.js';
import { readFunctionConfig } from '../../lib/lambda/config.js';
import { SweepPayloadSchema } from '../../lib/lambda/sweep-payload.js';
import { DEFAULT_SETTINGS } from '@ec2-node-reconciler/model/contract/settings.js';
import { FUNCTION_ENV } from '@ec2-node-reconciler/model/contract/env.js';
import { SIGNAL_QUEUE } from '@ec2-node-reconciler/model/contract/signal-queue.js';
import { OUTPUT_DETAIL_TYPES } from '@ec2-node-reconciler/model/contract/output-events.js';
import { CLUSTER, defaultStack, synthesize, testEntries } from './support/synth.js';
import {
  actionsOf,
  allStatements,
  joinedJson,
  only,
  propertiesOf,
  resources,
  resourcesOfStatement,
  statementsOfRole,
  type Statement,
} from './support/template.js';

const { stack, reconciler, template } = defaultStack();
const id = (construct: Parameters<typeof logicalIdOf>[0]) => logicalIdOf(construct);
const FOURTEEN_DAYS = 14 * 24 * 3600;

/** The default reconciler, and an operator role granted the decommission tag. */
function synthesizeWithOperator(): { template: Template; reconciler: NodeReconciler } {
  const own = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Operator');
  const withOperator = new NodeReconciler(own, 'Reconciler', { clusterName: CLUSTER, entries: testEntries() });
  withOperator.grantDecommission(new Role(own, 'Operator', { assumedBy: new AccountRootPrincipal() }));
  return { template: Template.fromStack(own), reconciler: withOperator };
}

describe('NodeReconciler: signal queue', () => {
  it('should create the queue and its dead-letter queue with SSE and 14 days retention', () => {
    template.resourceCountIs('AWS::SQS::Queue', 2);
    template.hasResourceProperties('AWS::SQS::Queue', {
      MessageRetentionPeriod: FOURTEEN_DAYS,
      SqsManagedSseEnabled: true,
      VisibilityTimeout: FUNCTION_SPECS.events.timeout.toSeconds() * 6,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [id(reconciler.deadLetterQueue), 'Arn'] },
        maxReceiveCount: SIGNAL_QUEUE.maxReceiveCount,
      },
    });
    expect(propertiesOf(template, id(reconciler.deadLetterQueue))).toMatchObject({
      MessageRetentionPeriod: FOURTEEN_DAYS,
      SqsManagedSseEnabled: true,
    });
  });

  it('should refuse non-TLS access to both queues', () => {
    for (const queue of [reconciler.queue, reconciler.deadLetterQueue]) {
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: id(queue) }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 'sqs:*',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    }
  });

  it('should let each rule, and only it, send to the queue', () => {
    const [, policy] =
      resources(template, 'AWS::SQS::QueuePolicy').find(
        ([, p]) => JSON.stringify(p.Properties?.Queues) === JSON.stringify([{ Ref: id(reconciler.queue) }]),
      ) ?? [];
    const statements = (policy?.Properties?.PolicyDocument as { Statement: Statement[] }).Statement.filter(
      (s) => s.Effect === 'Allow',
    );
    expect(statements).toHaveLength(reconciler.rules.rules.size);
    for (const statement of statements) {
      expect(statement.Condition).toEqual({ ArnEquals: { 'aws:SourceArn': expect.anything() as unknown } });
      expect(actionsOf(statement)).toContain('sqs:SendMessage');
    }
  });

  it('should feed the events function in batches with partial failures and bounded concurrency', () => {
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [id(reconciler.queue), 'Arn'] },
      FunctionName: { Ref: id(reconciler.eventsFunction) },
      BatchSize: 25,
      MaximumBatchingWindowInSeconds: 1,
      ScalingConfig: { MaximumConcurrency: 2 },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('should point every rule at the queue, with the dead-letter queue for undeliverable events', () => {
    const rules = resources(template, 'AWS::Events::Rule');
    expect(rules).toHaveLength(8);
    for (const [, rule] of rules) {
      expect(rule.Properties).toMatchObject({
        State: 'ENABLED',
        Targets: [
          {
            Arn: { 'Fn::GetAtt': [id(reconciler.queue), 'Arn'] },
            DeadLetterConfig: { Arn: { 'Fn::GetAtt': [id(reconciler.deadLetterQueue), 'Arn'] } },
            RetryPolicy: { MaximumEventAgeInSeconds: 86_400 },
          },
        ],
      });
      // The default bus: AWS services publish there.
      expect(rule.Properties?.EventBusName).toBeUndefined();
    }
  });
});

describe('NodeReconciler: functions', () => {
  const functions = {
    events: reconciler.eventsFunction,
    sweep: reconciler.sweepFunction,
    drainStep: reconciler.drainStepFunction,
  };

  it.each(Object.entries(functions))(
    'should run the %s function on Node 24, arm64, with its timeout, memory and log group',
    (kind, fn) => {
      const spec = FUNCTION_SPECS[kind as keyof typeof FUNCTION_SPECS];
      expect(propertiesOf(template, id(fn))).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        Timeout: spec.timeout.toSeconds(),
        MemorySize: spec.memorySize,
        LoggingConfig: { LogGroup: { Ref: expect.any(String) as unknown } },
      });
    },
  );

  it('should give each function its own log group, one month retention, retained on removal', () => {
    const logGroups = resources(template, 'AWS::Logs::LogGroup');
    expect(logGroups).toHaveLength(4);
    for (const [, group] of logGroups) {
      expect(group.Properties?.RetentionInDays).toBe(30);
      expect(group.DeletionPolicy).toBe('Retain');
    }
  });

  it('should give the functions the environment lib/lambda/config.ts reads, and it should parse', () => {
    for (const fn of Object.values(functions)) {
      const variables = (propertiesOf(template, id(fn)).Environment as { Variables: Record<string, unknown> })
        .Variables;
      expect(variables).toMatchObject({
        [FUNCTION_ENV.clusterName]: CLUSTER,
        [FUNCTION_ENV.settings]: '{}',
        POWERTOOLS_SERVICE_NAME: 'ec2-node-reconciler',
        POWERTOOLS_METRICS_NAMESPACE: METRIC_NAMESPACE,
      });
      // Stack traces through the shipped source maps; the sweep's young generation sized for its pages (infra/functions.ts).
      expect(variables['NODE_OPTIONS']).toBe(
        fn === functions.sweep ? '--enable-source-maps --max-semi-space-size=32' : '--enable-source-maps',
      );
      const env = Object.fromEntries(
        Object.entries(variables).map(([key, value]) => [key, typeof value === 'string' ? value : 'token']),
      );
      const config = readFunctionConfig({ ...env, AWS_REGION: 'us-east-1' });
      expect(config.settings).toEqual(DEFAULT_SETTINGS);
    }
  });

  it('should give each function NODE_OPTIONS that Node.js accepts there (some V8 flags are refused in NODE_OPTIONS)', () => {
    for (const fn of Object.values(functions)) {
      const variables = (propertiesOf(template, id(fn)).Environment as { Variables: Record<string, unknown> })
        .Variables;
      const nodeOptions = variables['NODE_OPTIONS'];
      expect(typeof nodeOptions).toBe('string');
      // The project's Node 24, as the runtime starts it: the options from the environment, no script of ours.
      const started = spawnSync(process.execPath, ['-e', ''], {
        env: { PATH: process.env['PATH'] ?? '', NODE_OPTIONS: String(nodeOptions) },
        encoding: 'utf8',
      });
      expect(started.stderr).toBe('');
      expect(started.status).toBe(0);
    }
  });

  it('should tell the event and sweep functions where the drain workflow and the output bus are', () => {
    for (const fn of [functions.events, functions.sweep]) {
      template.hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: Match.absent(),
        Environment: {
          Variables: Match.objectLike({
            [FUNCTION_ENV.drainStateMachineArn]: { Ref: id(reconciler.drainStateMachine) },
            [FUNCTION_ENV.outputEventBusName]: { Ref: id(reconciler.outputBus) },
          }),
        },
        Role: { 'Fn::GetAtt': [id(fn.role ?? fn), 'Arn'] },
      });
    }
    const drainEnv = (
      propertiesOf(template, id(functions.drainStep)).Environment as { Variables: Record<string, unknown> }
    ).Variables;
    expect(drainEnv[FUNCTION_ENV.drainStateMachineArn]).toBeUndefined();
  });

  it('should turn the Powertools Tracer off when the functions have no active tracing', () => {
    for (const fn of Object.values(functions)) {
      const variables = (propertiesOf(template, id(fn)).Environment as { Variables: Record<string, unknown> })
        .Variables;
      expect(variables.POWERTOOLS_TRACE_ENABLED).toBe('false');
    }
  });

  it('should run one sweep at a time, with no retries of the scheduled (asynchronous) invocation by Lambda', () => {
    expect(propertiesOf(template, id(functions.sweep)).ReservedConcurrentExecutions).toBe(1);
    template.resourceCountIs('AWS::Lambda::EventInvokeConfig', 1);
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: id(functions.sweep) },
      Qualifier: '$LATEST',
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 300,
    });
    expect(propertiesOf(template, id(functions.events)).ReservedConcurrentExecutions).toBeUndefined();
    expect(propertiesOf(template, id(functions.drainStep)).ReservedConcurrentExecutions).toBeUndefined();
  });

  it('should create each function only after the policy that gives it its permissions', () => {
    const dependsOn = (fn: (typeof functions)[keyof typeof functions]) =>
      (template.toJSON() as { Resources: Record<string, { DependsOn?: string[] }> }).Resources[id(fn)]?.DependsOn ?? [];
    const policies = resources(template, 'AWS::IAM::Policy').map(([logicalId]) => logicalId);
    const named = (prefix: string) => policies.find((p) => p.startsWith(prefix));
    const drainStepPolicy = named('ReconcilerDrainStepPolicy');
    expect(dependsOn(functions.events)).toContain(named('ReconcilerEventsPolicy'));
    expect(dependsOn(functions.sweep)).toContain(named('ReconcilerSweepPolicy'));
    expect(dependsOn(functions.drainStep)).toContain(drainStepPolicy);
  });

  it('should not attach the AWS managed basic execution role (it can write to any log group)', () => {
    for (const [, role] of resources(template, 'AWS::IAM::Role'))
      expect(role.Properties?.ManagedPolicyArns).toBeUndefined();
  });
});

describe('NodeReconciler: sweep schedule', () => {
  it('should send a payload the sweep function accepts', () => {
    const [, schedule] = only(template, 'AWS::Scheduler::Schedule');
    const input: unknown = JSON.parse(String((schedule.Properties?.Target as { Input: string }).Input));
    expect(SweepPayloadSchema.safeParse(input).success).toBe(true);
  });

  it('should invoke the sweep function every 10 minutes with no overrides, through its own role', () => {
    const [, schedule] = only(template, 'AWS::Scheduler::Schedule');
    expect(schedule.Properties).toMatchObject({
      ScheduleExpression: 'rate(10 minutes)',
      State: 'ENABLED',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: {
        Arn: { 'Fn::GetAtt': [id(reconciler.sweepFunction), 'Arn'] },
        Input: JSON.stringify(SWEEP_SCHEDULE_INPUT),
        RetryPolicy: { MaximumRetryAttempts: 0 },
        RoleArn: { 'Fn::GetAtt': [expect.stringMatching(/SweepScheduleRole/) as unknown, 'Arn'] },
      },
    });
    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [
          Match.objectLike({
            Principal: { Service: 'scheduler.amazonaws.com' },
            Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
          }),
        ],
      },
    });
  });
});

describe('NodeReconciler: output bus', () => {
  it('should create a custom bus with a name unique to the stack (two stacks for one cluster do not collide)', () => {
    const busName = (t: Template) => only(t, 'AWS::Events::EventBus')[1].Properties?.Name;
    expect(busName(template)).toMatch(/^TestReconcilerOutputBus[0-9A-F]{8}$/);
    // The same cluster in a second stack of the same account and region gets another bus.
    const second = synthesize({ stackProps: {}, stackId: 'Second' });
    expect(busName(second.template)).toMatch(/^SecondReconcilerOutputBus[0-9A-F]{8}$/);
  });
});

describe('NodeReconciler: IAM', () => {
  const reconcilerPolicy = (roleOf: 'events' | 'sweep' | 'drainStep') =>
    statementsOfRole(template, id(reconciler.roles[roleOf]));
  const grants = (list: Statement[], action: string) => list.filter((s) => actionsOf(s).includes(action));

  // No wildcard actions, and resource `*` only where the service has no resource-level permissions: test/infra/iam-walk.test.ts.

  it('should give the event and sweep functions the cluster, the drain workflow and the output bus, scoped', () => {
    for (const kind of ['events', 'sweep'] as const) {
      const list = reconcilerPolicy(kind);
      expect(resourcesOfStatement(grants(list, 'eks:DescribeCluster')[0] as Statement)).toEqual([
        'arn:<AWS::Partition>:eks:<AWS::Region>:<AWS::AccountId>:cluster/demo',
      ]);
      expect(resourcesOfStatement(grants(list, 'states:StartExecution')[0] as Statement)).toEqual([
        `<${id(reconciler.drainStateMachine)}>`,
      ]);
      expect(resourcesOfStatement(grants(list, 'events:PutEvents')[0] as Statement)).toEqual([
        `<${id(reconciler.outputBus)}.Arn>`,
      ]);
      // Nothing the functions never call: the operator tags (decommission), the workflow heartbeats, and
      // Auto Scaling state comes by group (DescribeAutoScalingGroups), not by instance.
      for (const unused of [
        'ec2:CreateTags',
        'ec2:DeleteTags',
        'ec2:DescribeTags',
        'autoscaling:RecordLifecycleActionHeartbeat',
        'autoscaling:DescribeAutoScalingInstances',
      ]) {
        expect(grants(list, unused), unused).toEqual([]);
      }
    }
  });

  it('should give only the sweep the reads and Auto Scaling mutations of a whole group', () => {
    const actionsOfRole = (kind: 'events' | 'sweep') => new Set(reconcilerPolicy(kind).flatMap(actionsOf));
    // The sweep completes only our hooks: it reads the group's hooks (issue #15: this was denied).
    expect(
      resourcesOfStatement(grants(reconcilerPolicy('sweep'), 'autoscaling:DescribeLifecycleHooks')[0] as Statement),
    ).toEqual(['*']);
    for (const sweepOnly of [
      'ec2:DescribeInstanceStatus',
      'autoscaling:DescribeAutoScalingGroups',
      // A warm pool's members, one of which may wait in Warmed:Terminating:Wait (issue #27).
      'autoscaling:DescribeWarmPool',
      'autoscaling:SetInstanceHealth',
    ]) {
      expect(actionsOfRole('sweep').has(sweepOnly), sweepOnly).toBe(true);
      expect(actionsOfRole('events').has(sweepOnly), sweepOnly).toBe(false);
    }
    expect(actionsOfRole('events').has('ec2:DescribeInstances')).toBe(true);
    // An event's lifecycle action is ours only by the sweep's rule, which reads the group's hooks (issue #27).
    expect(
      resourcesOfStatement(grants(reconcilerPolicy('events'), 'autoscaling:DescribeLifecycleHooks')[0] as Statement),
    ).toEqual(['*']);
    expect(actionsOfRole('events').has('autoscaling:CompleteLifecycleAction')).toBe(true);
  });

  it('should let the events function consume its queue with what the event source mapping needs, nothing more', () => {
    const sqs = reconcilerPolicy('events').filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:')));
    expect(sqs.flatMap(actionsOf).sort()).toEqual([
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
      'sqs:ReceiveMessage',
    ]);
    expect(sqs.flatMap(resourcesOfStatement)).toEqual([`<${id(reconciler.queue)}.Arn>`]);
  });

  it('should grant an operator role the decommission tag and its removal, for its key only, when asked', () => {
    const { template: own, reconciler: other } = synthesizeWithOperator();
    const list = allStatements(own).filter(({ statement }) => actionsOf(statement).includes('ec2:CreateTags'));
    expect(list).toHaveLength(1);
    expect(actionsOf(list[0]?.statement as Statement)).toEqual(['ec2:CreateTags', 'ec2:DeleteTags']);
    expect(list[0]?.statement.Condition).toEqual({
      'ForAllValues:StringEquals': { 'aws:TagKeys': ['ec2-node-reconciler/decommission'] },
      Null: { 'aws:TagKeys': 'false' },
    });
    expect(resourcesOfStatement(list[0]?.statement as Statement)).toEqual([
      'arn:<AWS::Partition>:ec2:<AWS::Region>:<AWS::AccountId>:instance/*',
    ]);
    expect(Object.values(other.roles).some((role) => JSON.stringify(list[0]?.statement).includes(id(role)))).toBe(
      false,
    );
  });

  it("should scope Auto Scaling mutations to the cluster's groups by tag", () => {
    const asg = grants(reconcilerPolicy('sweep'), 'autoscaling:CompleteLifecycleAction');
    expect(asg.map((s) => s.Condition)).toEqual([
      { StringEquals: { 'autoscaling:ResourceTag/eks:cluster-name': CLUSTER } },
      { StringEquals: { [`autoscaling:ResourceTag/kubernetes.io/cluster/${CLUSTER}`]: ['owned', 'shared'] } },
    ]);
    for (const statement of asg) {
      expect(resourcesOfStatement(statement)).toEqual([
        'arn:<AWS::Partition>:autoscaling:<AWS::Region>:<AWS::AccountId>:autoScalingGroup:*:autoScalingGroupName/*',
      ]);
      expect(actionsOf(statement).sort()).toEqual([
        'autoscaling:CompleteLifecycleAction',
        'autoscaling:CreateOrUpdateTags',
        'autoscaling:SetInstanceHealth',
      ]);
    }
  });

  it('should give the drain-step function logs, eks:DescribeCluster, the lifecycle heartbeat and the repair’s mark on the cluster’s groups, nothing else', () => {
    const list = reconcilerPolicy('drainStep');
    const actions = list.flatMap(actionsOf).sort();
    expect([...new Set(actions)]).toEqual([
      'autoscaling:RecordLifecycleActionHeartbeat',
      'autoscaling:SetInstanceHealth',
      'eks:DescribeCluster',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
    ]);
    expect(grants(list, 'autoscaling:RecordLifecycleActionHeartbeat').map((s) => s.Condition)).toEqual([
      { StringEquals: { 'autoscaling:ResourceTag/eks:cluster-name': CLUSTER } },
      { StringEquals: { [`autoscaling:ResourceTag/kubernetes.io/cluster/${CLUSTER}`]: ['owned', 'shared'] } },
    ]);
  });

  it('should let the state machine invoke the drain step, report on the bus and drive lifecycle actions, nothing else', () => {
    const role = reconciler.drainStateMachine.role;
    const list = statementsOfRole(template, id(role));
    const byAction = (action: string) => grants(list, action).flatMap(resourcesOfStatement);
    expect(byAction('lambda:InvokeFunction')).toEqual([
      `<${id(reconciler.drainStepFunction)}.Arn>`,
      `<${id(reconciler.drainStepFunction)}.Arn>:*`,
    ]);
    expect(byAction('events:PutEvents')).toEqual([`<${id(reconciler.outputBus)}.Arn>`]);
    expect(grants(list, 'autoscaling:CompleteLifecycleAction').every((s) => s.Condition !== undefined)).toBe(true);
    expect(grants(list, 'autoscaling:RecordLifecycleActionHeartbeat')).toHaveLength(2);
    expect(grants(list, 'autoscaling:SetInstanceHealth')).toEqual([]);
  });
});

describe('NodeReconciler: cluster access', () => {
  it('should map each function role to the reconciler Kubernetes group with a STANDARD access entry', () => {
    const entries = resources(template, 'AWS::EKS::AccessEntry');
    expect(entries).toHaveLength(3);
    const principals = entries.map(([, entry]) => {
      expect(entry.Properties).toMatchObject({
        ClusterName: CLUSTER,
        Type: 'STANDARD',
        KubernetesGroups: [RECONCILER_GROUP],
      });
      return JSON.stringify(entry.Properties?.PrincipalArn);
    });
    const roles = Object.values(reconciler.roles).map((role) => JSON.stringify({ 'Fn::GetAtt': [id(role), 'Arn'] }));
    expect(principals.sort()).toEqual(roles.sort());
  });
});

describe('NodeReconciler: observability', () => {
  const dashboard = () => {
    const [, resource] = only(template, 'AWS::CloudWatch::Dashboard');
    return {
      name: resource.Properties?.DashboardName,
      body: JSON.stringify(joinedJson(resource.Properties?.DashboardBody)),
    };
  };

  it('should show every reconciler metric next to the AWS/Lambda, AWS/SQS and AWS/States ones, on a dashboard CloudFormation names', () => {
    const { name, body } = dashboard();
    // Dashboard names are global to the account: a fixed one would collide between two stacks.
    expect(name).toBeUndefined();
    for (const metric of Object.values(METRIC_NAMES)) expect(body, metric).toContain(metric);
    for (const namespace of ['AWS/Lambda', 'AWS/SQS', 'AWS/States', METRIC_NAMESPACE])
      expect(body).toContain(namespace);
    expect(body).toContain('SEARCH(');
  });

  it('should alarm on the dead-letter queue, delayed signals, function errors, drain failures and the breaker, under names CloudFormation generates', () => {
    const alarms = resources(template, 'AWS::CloudWatch::Alarm').map(([logicalId, alarm]): Record<string, unknown> => ({
      logicalId,
      ...(alarm.Properties ?? {}),
    }));
    const keys = [...reconciler.observability.alarms.keys()].sort();
    expect(keys).toEqual([
      'BreakerTripped',
      'DeadLetterQueueNotEmpty',
      'DrainFailures',
      'DrainStepFunctionErrors',
      'EventsFunctionErrors',
      'SignalsDelayed',
      'SweepFunctionErrors',
    ]);
    expect(alarms).toHaveLength(keys.length);
    for (const alarm of alarms) {
      expect(alarm.AlarmName).toBeUndefined();
      expect(alarm).toMatchObject({ EvaluationPeriods: 1, TreatMissingData: 'notBreaching' });
      expect(alarm.AlarmActions).toBeUndefined();
    }
    const byName = (key: string) => {
      const created = reconciler.observability.alarms.get(key);
      return alarms.find((a) => created !== undefined && a.logicalId === id(created));
    };
    for (const key of keys.filter((k) => k !== 'SignalsDelayed'))
      expect(byName(key), key).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    expect(byName('DeadLetterQueueNotEmpty')).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [id(reconciler.deadLetterQueue), 'QueueName'] } }],
    });
    // Two deliveries' worth of waiting (a failed record comes back after the visibility timeout).
    expect(byName('SignalsDelayed')).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Statistic: 'Maximum',
      Threshold: 720,
      ComparisonOperator: 'GreaterThanThreshold',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [id(reconciler.queue), 'QueueName'] } }],
    });
    expect(byName('BreakerTripped')).toMatchObject({
      Namespace: METRIC_NAMESPACE,
      MetricName: METRIC_NAMES.breakerTripped,
      Dimensions: expect.arrayContaining([
        { Name: 'ClusterName', Value: CLUSTER },
        { Name: 'service', Value: 'ec2-node-reconciler' },
      ]) as unknown,
    });
    const drainFailures = JSON.stringify(byName('DrainFailures')?.Metrics);
    for (const metric of ['ExecutionsFailed', 'ExecutionsTimedOut', 'ExecutionsAborted'])
      expect(drainFailures).toContain(metric);
  });
});

describe('NodeReconciler: drain workflow', () => {
  it('should be a Standard state machine (unique execution names dedupe duplicate drains) logging ALL without execution data', () => {
    const [, machine] = only(template, 'AWS::StepFunctions::StateMachine');
    expect(machine.Properties).toMatchObject({
      StateMachineType: 'STANDARD',
      LoggingConfiguration: { Level: 'ALL', IncludeExecutionData: false },
    });
    expect(machine.Properties?.TracingConfiguration).toEqual({ Enabled: false });
  });

  it('should report on the output bus with the contract source and detail-types', () => {
    const [, machine] = only(template, 'AWS::StepFunctions::StateMachine');
    const definition = JSON.stringify(joinedJson(machine.Properties?.DefinitionString));
    expect(definition).toContain(`"EventBusName":"<${id(reconciler.outputBus)}.Arn>"`);
    for (const type of OUTPUT_DETAIL_TYPES.filter((t) => t === 'Node Drained' || t === 'Drain Failed'))
      expect(definition).toContain(type);
  });
});

it('should synthesize an environment-agnostic stack', () => {
  expect(stack.region).toMatch(/^\$\{Token/);
});
