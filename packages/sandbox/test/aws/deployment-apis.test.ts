// Oracle 1, real clients, for the APIs an operator reads a deployment with (and `doctor` does) and
// breaks one with: CloudFormation, EKS access entries, IAM role policies and their simulation,
// EventBridge rules, SQS attributes, Scheduler, Lambda configuration and mappings, CloudWatch Logs.
// AWS CLI v2 (/usr/bin/aws) drives what it knows; v1 (on PATH, botocore 1.4x) drives what v2.9
// predates — EKS access entries and accessConfig, SQS's JSON protocol — so both SQS protocols are held.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IamAuthorizer, parsePolicy } from '../../src/aws/iam/index.js';
import { describeWithOracle, runCli, type AwsCli, type CliResult } from './support/oracles.js';
import { START, startWorld, type World } from './support/world.js';

const REGION = 'eu-west-1';
const ACCOUNT = '111122223333';
const ROLE = `arn:aws:iam::${ACCOUNT}:role/service/sweep-role`;
const QUEUE_URL = `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/signals`;
const QUEUE_ARN = `arn:aws:sqs:${REGION}:${ACCOUNT}:signals`;
const DLQ_ARN = `arn:aws:sqs:${REGION}:${ACCOUNT}:dead`;
const FUNCTION_ARN = `arn:aws:lambda:${REGION}:${ACCOUNT}:function:sweep`;

function probe(path: string): AwsCli | undefined {
  const ran = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 20_000 });
  const version = `${ran.stdout}${ran.stderr}`.trim();
  const major = /aws-cli\/(\d+)\./.exec(version)?.[1];
  return ran.status === 0 && (major === '1' || major === '2')
    ? { path, version, major: major === '2' ? 2 : 1 }
    : undefined;
}
const v2 = probe('/usr/bin/aws');
const v1 = probe('aws');

/** A deployment as the sandbox records one (src/deployed/account.ts), small. */
async function deployedWorld(): Promise<World> {
  const iam = new IamAuthorizer();
  iam.attach(
    ROLE,
    parsePolicy('ReconcilerPolicy', {
      Version: '2012-10-17',
      Statement: [
        { Effect: 'Allow', Action: ['ec2:DescribeInstances'], Resource: '*' },
        {
          Effect: 'Allow',
          Action: 'autoscaling:CompleteLifecycleAction',
          Resource: `arn:aws:autoscaling:${REGION}:${ACCOUNT}:autoScalingGroup:*:autoScalingGroupName/*`,
          Condition: { StringEquals: { 'autoscaling:ResourceTag/eks:cluster-name': 'demo' } },
        },
      ],
    }),
  );
  const world = await startWorld({ region: REGION, accountId: ACCOUNT, iam });
  const { state } = world.aws;
  state.seedCluster({ name: 'demo', endpoint: 'https://127.0.0.1:1' });
  state.seedCluster({ name: 'legacy', endpoint: 'https://127.0.0.1:1', authenticationMode: 'CONFIG_MAP' });
  state.accessEntries.put({
    clusterName: 'demo',
    principalArn: ROLE,
    accessEntryArn: `arn:aws:eks:${REGION}:${ACCOUNT}:access-entry/demo/role/${ACCOUNT}/sweep-role/0f`,
    kubernetesGroups: ['ec2-node-reconciler'],
    username: `arn:aws:sts::${ACCOUNT}:assumed-role/sweep-role/{{SessionName}}`,
    type: 'STANDARD',
    createdAt: START,
    modifiedAt: START,
    tags: {},
  });
  state.stacks.put({
    name: 'ec2-node-reconciler-demo',
    id: `arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/ec2-node-reconciler-demo/5c1d0e2a-0000-4000-8000-000000000001`,
    status: 'CREATE_COMPLETE',
    createdAt: START,
    outputs: [{ key: 'demoSweepRoleArn1A2B3C4D', value: ROLE, description: 'demo: sweep function role' }],
  });
  state.eventBus.putRule({
    name: 'spot',
    arn: `arn:aws:events:${REGION}:${ACCOUNT}:rule/spot`,
    eventBusName: 'default',
    eventPattern: JSON.stringify({ source: ['aws.ec2'], 'detail-type': ['EC2 Spot Instance Interruption Warning'] }),
    state: 'ENABLED',
    description: 'demo: spot',
    targets: [
      {
        id: 'Target0',
        arn: QUEUE_ARN,
        deadLetterArn: DLQ_ARN,
        maximumRetryAttempts: 185,
        maximumEventAgeSeconds: 86_400,
      },
    ],
  });
  state.queues.put({
    name: 'signals',
    url: QUEUE_URL,
    arn: QUEUE_ARN,
    createdAt: START,
    attributes: {
      VisibilityTimeout: '180',
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: DLQ_ARN, maxReceiveCount: 3 }),
    },
    counts: () => ({ visible: 2, notVisible: 1, delayed: 0 }),
  });
  state.schedules.put({
    name: 'sweep-schedule',
    groupName: 'default',
    arn: `arn:aws:scheduler:${REGION}:${ACCOUNT}:schedule/default/sweep-schedule`,
    expression: 'rate(10 minutes)',
    state: 'ENABLED',
    target: { arn: FUNCTION_ARN, roleArn: ROLE, input: '{}', maximumRetryAttempts: 0, maximumEventAgeSeconds: 3600 },
    flexibleTimeWindow: { mode: 'OFF' },
    createdAt: START,
    modifiedAt: START,
  });
  state.functions.register('sweep', () => Promise.resolve({}), undefined, {
    runtime: 'nodejs24.x',
    role: ROLE,
    handler: 'index.handler',
    timeoutSeconds: 300,
    memoryMb: 1024,
    environment: { CLUSTER_NAME: 'demo' },
    logGroup: '/aws/lambda/sweep',
    reservedConcurrency: 1,
  });
  state.functions.eventSourceMappings.push({
    uuid: '2d9f1c00-0000-4000-8000-000000000001',
    eventSourceArn: QUEUE_ARN,
    functionArn: FUNCTION_ARN,
    batchSize: 10,
    batchingWindowSeconds: 0,
    functionResponseTypes: ['ReportBatchItemFailures'],
    state: 'Enabled',
    lastModified: START,
  });
  state.logs.append(
    '/aws/lambda/sweep',
    '2026/11/29/[$LATEST]a1',
    ['START', '{"message":"sweep reconciled","report":{}}'],
    START,
  );
  state.logs.append(
    '/aws/lambda/sweep',
    '2026/11/29/[$LATEST]b2',
    ['{"message":"sweep reconciled","report":{"n":2}}'],
    START + 600_000,
  );
  state.seedAutoScalingGroup({ name: 'ng-a', tags: { 'eks:cluster-name': 'demo' } });
  return world;
}

async function withWorld<T>(run: (world: World) => Promise<T>): Promise<T> {
  const world = await deployedWorld();
  try {
    return await run(world);
  } finally {
    await world.close();
  }
}

const ok = (result: CliResult): unknown => {
  if (result.code !== 0) throw new Error(`aws exited ${result.code}: ${result.stderr}`);
  return result.json;
};
const failed = (result: CliResult, code: string): void => {
  expect(result.code).not.toBe(0);
  expect(result.stderr).toContain(`An error occurred (${code})`);
};

function suite(newer: AwsCli, older: AwsCli | undefined): void {
  const aws = (world: World, ...args: string[]) => runCli(newer, world.aws.endpoint, args, REGION);
  const awsV1 = (world: World, ...args: string[]) =>
    older ? runCli(older, world.aws.endpoint, args, REGION) : undefined;

  describe.concurrent(`${newer.version}${older ? ` and ${older.version}` : ''}`, { timeout: 120_000 }, () => {
    it('should describe the stack and its outputs, and refuse one nobody deployed', () =>
      withWorld(async (world) => {
        const [stack, missing] = await Promise.all([
          aws(world, 'cloudformation', 'describe-stacks', '--stack-name', 'ec2-node-reconciler-demo'),
          aws(world, 'cloudformation', 'describe-stacks', '--stack-name', 'nope'),
        ]);

        expect(ok(stack)).toMatchObject({
          Stacks: [
            {
              StackName: 'ec2-node-reconciler-demo',
              StackStatus: 'CREATE_COMPLETE',
              Outputs: [
                { OutputKey: 'demoSweepRoleArn1A2B3C4D', OutputValue: ROLE, Description: 'demo: sweep function role' },
              ],
            },
          ],
        });
        failed(missing, 'ValidationError');
        expect(missing.stderr).toContain('Stack with id nope does not exist');
      }));

    it('should list, read, write, remove and simulate role policies, signed for any region (IAM is global)', () =>
      withWorld(async (world) => {
        const dir = mkdtempSync(join(tmpdir(), 'iam-cli-'));
        const document = join(dir, 'policy.json');
        writeFileSync(
          document,
          JSON.stringify({
            Version: '2012-10-17',
            Statement: [{ Effect: 'Allow', Action: 'eks:DescribeCluster', Resource: '*' }],
          }),
        );
        const simulate = (...args: string[]) =>
          aws(world, 'iam', 'simulate-principal-policy', '--policy-source-arn', ROLE, ...args);
        try {
          const [listed, read, missingRole] = await Promise.all([
            aws(world, 'iam', 'list-role-policies', '--role-name', 'sweep-role'),
            aws(world, 'iam', 'get-role-policy', '--role-name', 'sweep-role', '--policy-name', 'ReconcilerPolicy'),
            aws(world, 'iam', 'list-role-policies', '--role-name', 'nobody'),
          ]);
          const [tagged, otherTag, unscoped] = await Promise.all([
            simulate(
              '--action-names',
              'autoscaling:CompleteLifecycleAction',
              '--resource-arns',
              `arn:aws:autoscaling:${REGION}:${ACCOUNT}:autoScalingGroup:u:autoScalingGroupName/ng-a`,
              '--context-entries',
              'ContextKeyName=autoscaling:ResourceTag/eks:cluster-name,ContextKeyValues=demo,ContextKeyType=string',
            ),
            simulate(
              '--action-names',
              'autoscaling:CompleteLifecycleAction',
              '--resource-arns',
              `arn:aws:autoscaling:${REGION}:${ACCOUNT}:autoScalingGroup:u:autoScalingGroupName/ng-a`,
              '--context-entries',
              'ContextKeyName=autoscaling:ResourceTag/eks:cluster-name,ContextKeyValues=prod,ContextKeyType=string',
            ),
            simulate('--action-names', 'ec2:DescribeInstances', 'eks:DescribeCluster'),
          ]);
          ok(
            await aws(
              world,
              'iam',
              'put-role-policy',
              '--role-name',
              'sweep-role',
              '--policy-name',
              'Extra',
              '--policy-document',
              `file://${document}`,
            ),
          );
          const afterPut = await simulate('--action-names', 'eks:DescribeCluster');
          ok(
            await aws(
              world,
              'iam',
              'delete-role-policy',
              '--role-name',
              'sweep-role',
              '--policy-name',
              'ReconcilerPolicy',
            ),
          );
          const [afterDelete, deleteAgain, malformed] = await Promise.all([
            simulate('--action-names', 'ec2:DescribeInstances'),
            aws(world, 'iam', 'delete-role-policy', '--role-name', 'sweep-role', '--policy-name', 'ReconcilerPolicy'),
            aws(
              world,
              'iam',
              'put-role-policy',
              '--role-name',
              'sweep-role',
              '--policy-name',
              'Bad',
              '--policy-document',
              '{"Statement":[{"Effect":"Maybe"}]}',
            ),
          ]);

          const decisions = (result: CliResult) =>
            (
              ok(result) as { EvaluationResults: { EvalActionName: string; EvalDecision: string }[] }
            ).EvaluationResults.map((r) => `${r.EvalActionName} ${r.EvalDecision}`);
          // The CLI pages through and drops IsTruncated from what it prints.
          expect(ok(listed)).toEqual({ PolicyNames: ['ReconcilerPolicy'] });
          // The CLI decodes the URL-encoded document IAM hands out.
          expect(ok(read)).toMatchObject({
            RoleName: 'sweep-role',
            PolicyName: 'ReconcilerPolicy',
            PolicyDocument: { Version: '2012-10-17' },
          });
          failed(missingRole, 'NoSuchEntity');
          expect(decisions(tagged)).toEqual(['autoscaling:CompleteLifecycleAction allowed']);
          expect(ok(tagged)).toMatchObject({
            EvaluationResults: [
              {
                MatchedStatements: [{ SourcePolicyId: 'ReconcilerPolicy' }],
                ResourceSpecificResults: [{ EvalResourceDecision: 'allowed' }],
              },
            ],
          });
          expect(decisions(otherTag)).toEqual(['autoscaling:CompleteLifecycleAction implicitDeny']);
          expect(decisions(unscoped)).toEqual(['ec2:DescribeInstances allowed', 'eks:DescribeCluster implicitDeny']);
          expect(decisions(afterPut)).toEqual(['eks:DescribeCluster allowed']);
          expect(decisions(afterDelete)).toEqual(['ec2:DescribeInstances implicitDeny']);
          failed(deleteAgain, 'NoSuchEntity');
          failed(malformed, 'MalformedPolicyDocument');
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }));

    it('should describe rules and their targets, find them by target, and disable one', () =>
      withWorld(async (world) => {
        const [rule, targets, byTarget, none] = await Promise.all([
          aws(world, 'events', 'describe-rule', '--name', 'spot'),
          aws(world, 'events', 'list-targets-by-rule', '--rule', 'spot'),
          aws(world, 'events', 'list-rule-names-by-target', '--target-arn', QUEUE_ARN),
          aws(world, 'events', 'describe-rule', '--name', 'nope'),
        ]);
        ok(await aws(world, 'events', 'disable-rule', '--name', 'spot'));
        const disabled = await aws(world, 'events', 'describe-rule', '--name', 'spot');

        expect(ok(rule)).toMatchObject({
          Name: 'spot',
          State: 'ENABLED',
          EventBusName: 'default',
          Description: 'demo: spot',
        });
        expect(JSON.parse((ok(rule) as { EventPattern: string }).EventPattern)).toEqual({
          source: ['aws.ec2'],
          'detail-type': ['EC2 Spot Instance Interruption Warning'],
        });
        expect(ok(targets)).toEqual({
          Targets: [
            {
              Id: 'Target0',
              Arn: QUEUE_ARN,
              DeadLetterConfig: { Arn: DLQ_ARN },
              RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 86_400 },
            },
          ],
        });
        expect(ok(byTarget)).toEqual({ RuleNames: ['spot'] });
        failed(none, 'ResourceNotFoundException');
        expect(ok(disabled)).toMatchObject({ State: 'DISABLED' });
      }));

    it('should give a queue’s attributes and live counts in both of SQS’s protocols', () =>
      withWorld(async (world) => {
        const [query, queryUrl, queryMissing, json, jsonMissing] = await Promise.all([
          aws(world, 'sqs', 'get-queue-attributes', '--queue-url', QUEUE_URL, '--attribute-names', 'All'),
          aws(world, 'sqs', 'get-queue-url', '--queue-name', 'signals'),
          aws(
            world,
            'sqs',
            'get-queue-attributes',
            '--queue-url',
            `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/nope`,
            '--attribute-names',
            'All',
          ),
          awsV1(
            world,
            'sqs',
            'get-queue-attributes',
            '--queue-url',
            QUEUE_URL,
            '--attribute-names',
            'QueueArn',
            'ApproximateNumberOfMessages',
            'RedrivePolicy',
          ),
          awsV1(
            world,
            'sqs',
            'get-queue-attributes',
            '--queue-url',
            `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/nope`,
          ),
        ]);

        expect(ok(query)).toMatchObject({
          Attributes: {
            QueueArn: QUEUE_ARN,
            ApproximateNumberOfMessages: '2',
            ApproximateNumberOfMessagesNotVisible: '1',
            VisibilityTimeout: '180',
            RedrivePolicy: JSON.stringify({ deadLetterTargetArn: DLQ_ARN, maxReceiveCount: 3 }),
          },
        });
        expect(ok(queryUrl)).toEqual({ QueueUrl: QUEUE_URL });
        failed(queryMissing, 'AWS.SimpleQueueService.NonExistentQueue');
        if (json && jsonMissing) {
          expect(ok(json)).toEqual({
            Attributes: {
              QueueArn: QUEUE_ARN,
              ApproximateNumberOfMessages: '2',
              RedrivePolicy: JSON.stringify({ deadLetterTargetArn: DLQ_ARN, maxReceiveCount: 3 }),
            },
          });
          // The JSON protocol's error carries the query code too (x-amzn-query-error), which the CLI shows.
          failed(jsonMissing, 'AWS.SimpleQueueService.NonExistentQueue');
        }
      }));

    it('should get the schedule, the function configuration, its mappings, and a group’s tags', () =>
      withWorld(async (world) => {
        const [schedule, noSchedule, configuration, noFunction, mappings, groups] = await Promise.all([
          aws(world, 'scheduler', 'get-schedule', '--name', 'sweep-schedule'),
          aws(world, 'scheduler', 'get-schedule', '--name', 'nope'),
          aws(world, 'lambda', 'get-function-configuration', '--function-name', 'sweep'),
          aws(world, 'lambda', 'get-function-configuration', '--function-name', 'nope'),
          aws(world, 'lambda', 'list-event-source-mappings', '--event-source-arn', QUEUE_ARN),
          aws(world, 'autoscaling', 'describe-auto-scaling-groups', '--auto-scaling-group-names', 'ng-a'),
        ]);

        expect(ok(schedule)).toMatchObject({
          Name: 'sweep-schedule',
          GroupName: 'default',
          State: 'ENABLED',
          ScheduleExpression: 'rate(10 minutes)',
          Target: { Arn: FUNCTION_ARN, RoleArn: ROLE, RetryPolicy: { MaximumRetryAttempts: 0 } },
          FlexibleTimeWindow: { Mode: 'OFF' },
        });
        failed(noSchedule, 'ResourceNotFoundException');
        expect(ok(configuration)).toMatchObject({
          FunctionName: 'sweep',
          FunctionArn: FUNCTION_ARN,
          Role: ROLE,
          State: 'Active',
          LastUpdateStatus: 'Successful',
          Timeout: 300,
          Environment: { Variables: { CLUSTER_NAME: 'demo' } },
        });
        failed(noFunction, 'ResourceNotFoundException');
        expect(ok(mappings)).toMatchObject({
          EventSourceMappings: [
            {
              UUID: '2d9f1c00-0000-4000-8000-000000000001',
              FunctionArn: FUNCTION_ARN,
              State: 'Enabled',
              BatchSize: 10,
            },
          ],
        });
        expect(ok(groups)).toMatchObject({
          AutoScalingGroups: [
            { AutoScalingGroupName: 'ng-a', Tags: [{ Key: 'eks:cluster-name', Value: 'demo', ResourceId: 'ng-a' }] },
          ],
        });
      }));

    it('should give the account’s concurrency quota less the reservations, and a function’s reservation', () =>
      withWorld(async (world) => {
        const [settings, reserved, noFunction] = await Promise.all([
          aws(world, 'lambda', 'get-account-settings'),
          aws(world, 'lambda', 'get-function-concurrency', '--function-name', 'sweep'),
          aws(world, 'lambda', 'get-function-concurrency', '--function-name', 'nope'),
        ]);

        expect(ok(settings)).toMatchObject({
          AccountLimit: { ConcurrentExecutions: 1000, UnreservedConcurrentExecutions: 999 },
        });
        expect(ok(reserved)).toEqual({ ReservedConcurrentExecutions: 1 });
        failed(noFunction, 'ResourceNotFoundException');
      }));

    it('should list log streams newest first and filter events by a quoted phrase and a start time', () =>
      withWorld(async (world) => {
        const [streams, filtered, since, unsupported] = await Promise.all([
          aws(
            world,
            'logs',
            'describe-log-streams',
            '--log-group-name',
            '/aws/lambda/sweep',
            '--order-by',
            'LastEventTime',
            '--descending',
          ),
          aws(
            world,
            'logs',
            'filter-log-events',
            '--log-group-name',
            '/aws/lambda/sweep',
            '--filter-pattern',
            '"sweep reconciled"',
          ),
          aws(
            world,
            'logs',
            'filter-log-events',
            '--log-group-name',
            '/aws/lambda/sweep',
            '--start-time',
            String(START + 1),
          ),
          aws(
            world,
            'logs',
            'filter-log-events',
            '--log-group-name',
            '/aws/lambda/sweep',
            '--filter-pattern',
            '{ $.level = "ERROR" }',
          ),
        ]);

        expect(
          (ok(streams) as { logStreams: { logStreamName: string }[] }).logStreams.map((s) => s.logStreamName),
        ).toEqual(['2026/11/29/[$LATEST]b2', '2026/11/29/[$LATEST]a1']);
        expect(
          (ok(filtered) as { events: { message: string; timestamp: number }[] }).events.map((e) => e.timestamp),
        ).toEqual([START, START + 600_000]);
        expect((ok(since) as { events: unknown[] }).events).toHaveLength(1);
        failed(unsupported, 'InvalidParameterException');
      }));

    if (older)
      it('should create, list, describe and delete access entries (AWS CLI v1: v2.9 predates them), and show accessConfig', () =>
        withWorld(async (world) => {
          const other = `arn:aws:iam::${ACCOUNT}:role/drain-role`;
          const v1 = (...args: string[]) => runCli(older, world.aws.endpoint, args, REGION);
          const [described, cluster, legacy] = await Promise.all([
            v1('eks', 'describe-access-entry', '--cluster-name', 'demo', '--principal-arn', ROLE),
            v1('eks', 'describe-cluster', '--name', 'demo'),
            v1('eks', 'list-access-entries', '--cluster-name', 'legacy'),
          ]);
          const created = await v1(
            'eks',
            'create-access-entry',
            '--cluster-name',
            'demo',
            '--principal-arn',
            other,
            '--kubernetes-groups',
            'ec2-node-reconciler',
          );
          const [again, listed] = await Promise.all([
            v1('eks', 'create-access-entry', '--cluster-name', 'demo', '--principal-arn', other),
            v1('eks', 'list-access-entries', '--cluster-name', 'demo'),
          ]);
          ok(await v1('eks', 'delete-access-entry', '--cluster-name', 'demo', '--principal-arn', ROLE));
          const [gone, afterDelete] = await Promise.all([
            v1('eks', 'describe-access-entry', '--cluster-name', 'demo', '--principal-arn', ROLE),
            v1('eks', 'list-access-entries', '--cluster-name', 'demo'),
          ]);

          expect(ok(described)).toMatchObject({
            accessEntry: {
              principalArn: ROLE,
              type: 'STANDARD',
              kubernetesGroups: ['ec2-node-reconciler'],
              username: `arn:aws:sts::${ACCOUNT}:assumed-role/sweep-role/{{SessionName}}`,
            },
          });
          expect(ok(cluster)).toMatchObject({
            cluster: { accessConfig: { authenticationMode: 'API_AND_CONFIG_MAP' } },
          });
          failed(legacy, 'InvalidRequestException');
          expect(ok(created)).toMatchObject({
            accessEntry: {
              principalArn: other,
              type: 'STANDARD',
              username: `arn:aws:sts::${ACCOUNT}:assumed-role/drain-role/{{SessionName}}`,
            },
          });
          failed(again, 'ResourceInUseException');
          expect(ok(listed)).toEqual({ accessEntries: [other, ROLE] });
          failed(gone, 'ResourceNotFoundException');
          expect(ok(afterDelete)).toEqual({ accessEntries: [other] });
        }));
  });
}

describeWithOracle(
  'AWS CLI against the deployment APIs',
  v2?.major === 2 ? undefined : 'no AWS CLI v2 at /usr/bin/aws (apt-get install awscli)',
  () => {
    if (v2) suite(v2, v1?.major === 1 ? v1 : undefined);
  },
);
