// What IAM is asked for each call the emulator serves (src/aws/iam/requests.ts), against the
// Service Authorization Reference: the action, the resource ARNs and the condition keys.
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { AwsState, type SeedInstance } from '../../../src/aws/index.js';
import {
  globalKeys,
  hasIamMapping,
  iamAction,
  iamChecks,
  operationNamed,
  partitionOf,
} from '../../../src/aws/iam/index.js';
import { Faults } from '../../../src/aws/faults.js';
import { SERVICES } from '../../../src/aws/router.js';
import type { ServiceName } from '../../../src/aws/services/names.js';

const ACCOUNT = '111122223333';
const REGION = 'eu-west-1';
const START = Date.UTC(2026, 10, 29, 12);

const instance = (n: number, overrides: Partial<SeedInstance> = {}): SeedInstance => ({
  id: `i-0${n.toString(16).padStart(16, '0')}`,
  state: 'running',
  zone: 'eu-west-1a',
  tags: { 'eks:cluster-name': 'demo' },
  ...overrides,
});

/** An account in eu-west-1 with two groups: one of `demo`'s, and one another cluster's (eksctl's tag). */
function anAccount(region = REGION): AwsState {
  const state = new AwsState({ clock: new VirtualClock(START), region, accountId: ACCOUNT });
  if (region !== REGION) return state;
  state.seed({
    instances: [
      instance(1, {
        tags: { 'eks:cluster-name': 'demo', 'eks:nodegroup-name': 'ng-a', team: 'nodes' },
        autoScaling: { group: 'ng-a', lifecycleState: 'Terminating:Wait', hook: 'drain' },
      }),
      instance(2, {
        tags: { 'kubernetes.io/cluster/other': 'owned', owner: 'them' },
        autoScaling: { group: 'ng-other' },
      }),
      instance(3, { tags: { 'eks:cluster-name': 'demo' } }),
    ],
    clusters: [{ name: 'demo', endpoint: 'https://127.0.0.1:6443', tags: { env: 'prod' } }],
    eventBuses: ['reconciler'],
  });
  return state;
}

const arn = (service: string, resource: string) => `arn:aws:${service}:${REGION}:${ACCOUNT}:${resource}`;
const ID1 = 'i-00000000000000001';

describe('IAM action names', () => {
  it('should name every action service:Operation, and Lambda Invoke lambda:InvokeFunction', () => {
    expect(iamAction('ec2', 'DescribeInstances')).toBe('ec2:DescribeInstances');
    expect(iamAction('states', 'StartExecution')).toBe('states:StartExecution');
    expect(iamAction('lambda', 'Invoke')).toBe('lambda:InvokeFunction');
  });

  it('should read a fault written with the IAM action name or the operation alike', () => {
    expect(operationNamed('lambda', 'InvokeFunction')).toBe('Invoke');
    expect(operationNamed('lambda', 'Invoke')).toBe('Invoke');
    expect(operationNamed('ec2', 'DescribeInstances')).toBe('DescribeInstances');
    const faults = new Faults();
    faults.fail({ service: 'lambda', operation: 'InvokeFunction', code: 'ServiceException', status: 500, count: 1 });
    expect(faults.decide('lambda', 'Invoke')).toMatchObject({ kind: 'fail', code: 'ServiceException' });
    expect(faults.decide('lambda', 'Invoke')).toBeUndefined();
  });

  it('should have a mapping of its own for every operation the emulator implements', () => {
    const implemented = Object.values(SERVICES).flatMap((service) => {
      const operations =
        service.protocol === 'rest-json' ? service.routes.map((r) => r.operation) : Object.keys(service.operations);
      return operations.map((operation) => [service.name, operation] as const);
    });
    const unmapped = implemented
      .filter(([service, operation]) => !hasIamMapping(service, operation))
      .map(([s, o]) => `${s}:${o}`);
    expect(unmapped).toEqual([]);
  });
});

describe('IAM requests of EC2 calls', () => {
  it('should authorize Describe calls on * with ec2:Region only', () => {
    for (const operation of ['DescribeInstances', 'DescribeInstanceStatus']) {
      expect(
        iamChecks('ec2', operation, { Filter: [{ Name: 'tag:eks:cluster-name', Value: ['demo'] }] }, anAccount()),
      ).toEqual([{ action: `ec2:${operation}`, resources: ['*'], context: { 'ec2:Region': REGION } }]);
    }
  });

  it('should authorize CreateTags on each instance, with its current tags and the tags requested', () => {
    const checks = iamChecks(
      'ec2',
      'CreateTags',
      { ResourceId: [ID1, 'i-00000000000000003'], Tag: [{ Key: 'ec2-node-reconciler/decommission', Value: 'by me' }] },
      anAccount(),
    );

    expect(checks.map((c) => c.resources)).toEqual([
      [arn('ec2', `instance/${ID1}`)],
      [arn('ec2', 'instance/i-00000000000000003')],
    ]);
    expect(checks[0]?.context).toMatchObject({
      'ec2:Region': REGION,
      'ec2:ResourceTag/team': 'nodes',
      'aws:ResourceTag/team': 'nodes',
      'aws:ResourceTag/eks:cluster-name': 'demo',
      'aws:ResourceTag/aws:autoscaling:groupName': 'ng-a',
      'ec2:InstanceType': 'm5.large',
      'ec2:AvailabilityZone': 'eu-west-1a',
      'aws:TagKeys': ['ec2-node-reconciler/decommission'],
      'aws:RequestTag/ec2-node-reconciler/decommission': 'by me',
    });
    expect(checks[1]?.context).not.toHaveProperty('aws:ResourceTag/team');
  });

  it('should authorize an unknown instance by its ARN, without resource keys', () => {
    const [check] = iamChecks('ec2', 'TerminateInstances', { InstanceId: ['i-0fffffffffffffff0'] }, anAccount());
    expect(check).toEqual({
      action: 'ec2:TerminateInstances',
      resources: [arn('ec2', 'instance/i-0fffffffffffffff0')],
      context: { 'ec2:Region': REGION },
    });
  });

  it('should give DeleteTags the keys it removes as aws:TagKeys', () => {
    const [check] = iamChecks(
      'ec2',
      'DeleteTags',
      { ResourceId: [ID1], Tag: [{ Key: 'team' }, { Key: 'x', Value: 'y' }] },
      anAccount(),
    );
    expect(check?.context).toMatchObject({ 'aws:TagKeys': ['team', 'x'], 'aws:RequestTag/x': 'y' });
    expect(check?.context).not.toHaveProperty('aws:RequestTag/team');
  });

  it('should authorize a call whose fields do not parse on *, never skip it', () => {
    expect(iamChecks('ec2', 'CreateTags', { ResourceId: 'not-a-list' }, anAccount())).toEqual([
      { action: 'ec2:CreateTags', resources: ['*'], context: {} },
    ]);
  });
});

describe('IAM requests of Auto Scaling calls', () => {
  it('should authorize Describe calls on *', () => {
    for (const operation of ['DescribeAutoScalingInstances', 'DescribeAutoScalingGroups', 'DescribeLifecycleHooks']) {
      expect(iamChecks('autoscaling', operation, { AutoScalingGroupName: 'ng-a' }, anAccount())).toEqual([
        { action: `autoscaling:${operation}`, resources: ['*'], context: {} },
      ]);
    }
  });

  it('should authorize lifecycle calls on the group ARN with the group’s tags, derived from its members’ cluster tags', () => {
    const state = anAccount();
    const uuid = state.autoScaling.group('ng-a')?.uuid ?? '';
    for (const operation of ['CompleteLifecycleAction', 'RecordLifecycleActionHeartbeat']) {
      expect(
        iamChecks(
          'autoscaling',
          operation,
          { AutoScalingGroupName: 'ng-a', LifecycleHookName: 'drain', InstanceId: ID1 },
          state,
        ),
      ).toEqual([
        {
          action: `autoscaling:${operation}`,
          resources: [arn('autoscaling', `autoScalingGroup:${uuid}:autoScalingGroupName/ng-a`)],
          // The members' own tags (team) stay theirs: a group carries only the tags it propagates.
          context: {
            'autoscaling:ResourceTag/eks:cluster-name': 'demo',
            'aws:ResourceTag/eks:cluster-name': 'demo',
            'autoscaling:ResourceTag/eks:nodegroup-name': 'ng-a',
            'aws:ResourceTag/eks:nodegroup-name': 'ng-a',
          },
        },
      ]);
    }
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(anAccount().autoScaling.group('ng-a')?.uuid).toBe(uuid);
    expect(state.autoScaling.group('ng-other')?.tags).toEqual({ 'kubernetes.io/cluster/other': 'owned' });
  });

  it('should authorize SetInstanceHealth on the group of the instance', () => {
    const state = anAccount();
    const [check] = iamChecks(
      'autoscaling',
      'SetInstanceHealth',
      { InstanceId: 'i-00000000000000002', HealthStatus: 'Unhealthy' },
      state,
    );
    expect(check?.resources).toEqual([
      arn(
        'autoscaling',
        `autoScalingGroup:${state.autoScaling.group('ng-other')?.uuid ?? ''}:autoScalingGroupName/ng-other`,
      ),
    ]);
    expect(check?.context).toEqual({
      'autoscaling:ResourceTag/kubernetes.io/cluster/other': 'owned',
      'aws:ResourceTag/kubernetes.io/cluster/other': 'owned',
    });
    expect(
      iamChecks(
        'autoscaling',
        'SetInstanceHealth',
        { InstanceId: 'i-00000000000000003', HealthStatus: 'Unhealthy' },
        state,
      )[0]?.resources,
    ).toEqual(['*']);
  });

  it('should let explicit group tags win over the members’ and keep them', () => {
    const state = new AwsState({ clock: new VirtualClock(START), region: REGION, accountId: ACCOUNT });
    state.seed({
      autoScalingGroups: [{ name: 'ng-a', tags: { 'eks:cluster-name': 'prod' } }],
      instances: [instance(1, { autoScaling: { group: 'ng-a' } })],
    });
    expect(state.autoScaling.group('ng-a')?.tags).toEqual({ 'eks:cluster-name': 'prod' });
    expect(() => state.seed({ autoScalingGroups: [{ name: 'ng-b', tags: { k: 'v' }, extra: 1 } as never] })).toThrow(
      /autoScalingGroups\[ng-b\]/,
    );
  });

  it('should give a group the account does not have the ARN its name would have, and no tags', () => {
    const [check] = iamChecks('autoscaling', 'CompleteLifecycleAction', { AutoScalingGroupName: 'nope' }, anAccount());
    expect(check?.resources[0]).toMatch(
      new RegExp(`^arn:aws:autoscaling:${REGION}:${ACCOUNT}:autoScalingGroup:[0-9a-f-]{36}:autoScalingGroupName/nope$`),
    );
    expect(check?.context).toEqual({});
  });
});

describe('IAM requests of EKS, STS, EventBridge, Step Functions and Lambda calls', () => {
  it('should authorize DescribeCluster on the cluster ARN with its tags', () => {
    expect(iamChecks('eks', 'DescribeCluster', { path: ['demo'], query: {} }, anAccount())).toEqual([
      {
        action: 'eks:DescribeCluster',
        resources: [arn('eks', 'cluster/demo')],
        context: { 'aws:ResourceTag/env': 'prod', 'eks:ResourceTag/env': 'prod' },
      },
    ]);
  });

  it('should authorize GetCallerIdentity on * (the evaluator always allows it)', () => {
    expect(iamChecks('sts', 'GetCallerIdentity', {}, anAccount())).toEqual([
      { action: 'sts:GetCallerIdentity', resources: ['*'], context: {} },
    ]);
  });

  it('should authorize PutEvents on the bus of every entry, the default bus when none is named', () => {
    const entries = [
      { Source: 'ec2-node-reconciler', DetailType: 'Node Deleted', Detail: '{}', EventBusName: 'reconciler' },
      { Source: 'ec2-node-reconciler', DetailType: 'Node Deleted', Detail: '{}', EventBusName: 'reconciler' },
      {
        Source: 'ec2-node-reconciler',
        DetailType: 'Node Drained',
        Detail: '{}',
        EventBusName: arn('events', 'event-bus/reconciler'),
      },
      { Source: 'test', DetailType: 'x', Detail: '{}' },
    ];
    expect(iamChecks('events', 'PutEvents', { Entries: entries }, anAccount())).toEqual([
      {
        action: 'events:PutEvents',
        resources: [arn('events', 'event-bus/reconciler')],
        context: { 'events:source': 'ec2-node-reconciler', 'events:detail-type': 'Node Deleted' },
      },
      {
        action: 'events:PutEvents',
        resources: [arn('events', 'event-bus/reconciler')],
        context: { 'events:source': 'ec2-node-reconciler', 'events:detail-type': 'Node Drained' },
      },
      {
        action: 'events:PutEvents',
        resources: [arn('events', 'event-bus/default')],
        context: { 'events:source': 'test', 'events:detail-type': 'x' },
      },
    ]);
  });

  it('should authorize StartExecution on the state machine and execution calls on the execution', () => {
    const machine = arn('states', 'stateMachine:drain');
    const execution = arn('states', 'execution:drain:demo-i-1');
    expect(
      iamChecks('states', 'StartExecution', { stateMachineArn: machine, name: 'demo-i-1', input: '{}' }, anAccount()),
    ).toEqual([{ action: 'states:StartExecution', resources: [machine], context: {} }]);
    for (const operation of ['DescribeExecution', 'StopExecution']) {
      expect(iamChecks('states', operation, { executionArn: execution }, anAccount())).toEqual([
        { action: `states:${operation}`, resources: [execution], context: {} },
      ]);
    }
  });

  it('should authorize Invoke as lambda:InvokeFunction on the function ARN, qualified only when the call names a qualifier', () => {
    const fn = arn('lambda', 'function:sweep');
    const invoke = (ref: string, query: Record<string, string> = {}) =>
      iamChecks('lambda', 'Invoke', { path: [ref], query }, anAccount())[0]?.resources;
    expect(invoke('sweep')).toEqual([fn]);
    expect(invoke(fn)).toEqual([fn]);
    expect(invoke(`${ACCOUNT}:function:sweep`)).toEqual([fn]);
    expect(invoke('sweep:live')).toEqual([`${fn}:live`]);
    expect(invoke('sweep', { Qualifier: '$LATEST' })).toEqual([`${fn}:$LATEST`]);
    expect(iamChecks('lambda', 'Invoke', { path: ['sweep'], query: {} }, anAccount())[0]?.action).toBe(
      'lambda:InvokeFunction',
    );
  });

  it('should build ARNs in the partition of the region', () => {
    expect(partitionOf('cn-north-1')).toBe('aws-cn');
    expect(partitionOf('us-gov-west-1')).toBe('aws-us-gov');
    expect(iamChecks('eks', 'DescribeCluster', { path: ['demo'] }, anAccount('cn-north-1'))[0]?.resources).toEqual([
      `arn:aws-cn:eks:cn-north-1:${ACCOUNT}:cluster/demo`,
    ]);
  });

  it('should default an operation it has no entry for to service:Operation on *', () => {
    const service: ServiceName = 'states';
    expect(iamChecks(service, 'ListStateMachines', {}, anAccount())).toEqual([
      { action: 'states:ListStateMachines', resources: ['*'], context: {} },
    ]);
  });
});

describe('global condition keys', () => {
  it('should say who calls, from where and when', () => {
    const session = {
      arn: `arn:aws:sts::${ACCOUNT}:assumed-role/sweep-role/sweep`,
      accountId: ACCOUNT,
      userId: 'AROAEXAMPLE:sweep',
      accessKeyId: 'ASIAEXAMPLE',
      sessionName: 'sweep',
    };
    expect(globalKeys({ identity: session, region: REGION, now: START })).toEqual({
      'aws:PrincipalType': 'AssumedRole',
      'aws:userid': 'AROAEXAMPLE:sweep',
      'aws:RequestedRegion': REGION,
      'aws:CurrentTime': '2026-11-29T12:00:00Z',
      'aws:EpochTime': START / 1000,
      'aws:SecureTransport': true,
    });
    const user = {
      arn: `arn:aws:iam::${ACCOUNT}:user/ops/alice`,
      accountId: ACCOUNT,
      userId: 'AIDAEXAMPLE',
      accessKeyId: 'AKIDEXAMPLE',
    };
    expect(globalKeys({ identity: user, region: REGION, now: START })).toMatchObject({
      'aws:PrincipalType': 'User',
      'aws:username': 'alice',
    });
  });
});
