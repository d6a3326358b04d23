import { describe, expect, it } from 'vitest';
import { readFailed, readOk } from '../../cli/doctor/check.js';
import {
  checkIam,
  queueArnOf,
  representativeGroup,
  simulationsFor,
  type SimulationResources,
} from '../../cli/doctor/iam.js';
import {
  DRAIN_STEP_PERMISSIONS,
  FUNCTION_PERMISSIONS,
  SWEEP_POLICY_PERMISSIONS,
} from '@ec2-node-reconciler/model/contract/permissions.js';

const RESOURCES: SimulationResources = {
  cluster: 'demo',
  clusterArn: 'arn:aws:eks:eu-west-1:111122223333:cluster/demo',
  drainStateMachineArn: 'arn:aws:states:eu-west-1:111122223333:stateMachine:drain',
  outputBusArn: 'arn:aws:events:eu-west-1:111122223333:event-bus/out',
  signalQueueArn: 'arn:aws:sqs:eu-west-1:111122223333:signals',
  groups: [
    {
      name: 'ng-a',
      arn: 'arn:aws:autoscaling:eu-west-1:111122223333:autoScalingGroup:u-1:autoScalingGroupName/ng-a',
      tags: { 'eks:cluster-name': 'demo' },
    },
  ],
  region: 'eu-west-1',
  accountId: '111122223333',
};

describe('simulationsFor', () => {
  it('should simulate every action of the role on the resource it is called on, a group with its tags as context', () => {
    const simulations = simulationsFor(SWEEP_POLICY_PERMISSIONS, RESOURCES);

    expect(simulations.map((s) => [s.actions, s.resourceArns ?? '*', s.on])).toEqual([
      [
        [
          'ec2:DescribeInstances',
          'ec2:DescribeInstanceStatus',
          'autoscaling:DescribeAutoScalingGroups',
          'autoscaling:DescribeWarmPool',
          'autoscaling:DescribeLifecycleHooks',
        ],
        '*',
        '*',
      ],
      [
        ['autoscaling:CompleteLifecycleAction', 'autoscaling:SetInstanceHealth', 'autoscaling:CreateOrUpdateTags'],
        [RESOURCES.groups[0]?.arn],
        'group ng-a',
      ],
      [['eks:DescribeCluster'], [RESOURCES.clusterArn], 'cluster demo'],
      [['states:StartExecution'], [RESOURCES.drainStateMachineArn], 'the drain workflow'],
      [
        ['states:DescribeExecution'],
        ['arn:aws:states:eu-west-1:111122223333:execution:drain:ec2-node-reconciler-doctor'],
        'the drain workflow’s executions',
      ],
      [['events:PutEvents'], [RESOURCES.outputBusArn], 'the output bus'],
    ]);
    expect(simulations[1]?.context).toEqual([
      { key: 'autoscaling:ResourceTag/eks:cluster-name', values: ['demo'] },
      { key: 'aws:ResourceTag/eks:cluster-name', values: ['demo'] },
    ]);
  });

  it('should simulate the events role on what an event needs only, and the mapping’s three actions on the queue', () => {
    const simulations = simulationsFor(FUNCTION_PERMISSIONS.events, RESOURCES);
    const actions = simulations.flatMap((s) => s.actions);

    expect(simulations[0]).toMatchObject({
      actions: ['ec2:DescribeInstances', 'autoscaling:DescribeLifecycleHooks'],
      on: '*',
    });
    expect(simulations[1]).toMatchObject({ actions: ['autoscaling:CompleteLifecycleAction'], on: 'group ng-a' });
    expect(simulations.at(-1)).toMatchObject({
      actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'],
      resourceArns: [RESOURCES.signalQueueArn],
      on: 'the signal queue',
    });
    // What main's least-privilege split took from the events role is not asked of it.
    for (const sweepOnly of [
      'ec2:DescribeInstanceStatus',
      'autoscaling:DescribeAutoScalingGroups',
      'autoscaling:SetInstanceHealth',
    ])
      expect(actions).not.toContain(sweepOnly);
  });

  it('should take a queue’s ARN from its URL, and nothing from a URL of another shape', () => {
    expect(queueArnOf('https://sqs.eu-west-1.amazonaws.com/111122223333/signals', 'aws')).toBe(
      'arn:aws:sqs:eu-west-1:111122223333:signals',
    );
    expect(queueArnOf('https://sqs.cn-north-1.amazonaws.com.cn/111122223333/q', 'aws-cn')).toBe(
      'arn:aws-cn:sqs:cn-north-1:111122223333:q',
    );
    expect(queueArnOf('http://localhost:4566/000000000000/q', 'aws')).toBeUndefined();
  });

  it('should stand for the cluster’s groups with one tagged as the cluster’s when none was found', () => {
    const [, heartbeat] = simulationsFor(DRAIN_STEP_PERMISSIONS, { ...RESOURCES, groups: [] });

    expect(heartbeat?.resourceArns).toEqual([representativeGroup(RESOURCES).arn]);
    expect(heartbeat?.on).toBe('a group tagged eks:cluster-name=demo');
  });
});

describe('checkIam', () => {
  const simulations = simulationsFor(DRAIN_STEP_PERMISSIONS, RESOURCES);
  const at = (index: number) => {
    const simulation = simulations[index];
    if (simulation === undefined) throw new Error(`no simulation ${index}`);
    return simulation;
  };

  it('should pass when every action is allowed', () => {
    const check = checkIam({
      subject: 'drain-step role',
      roleArn: 'arn:aws:iam::111122223333:role/d',
      stackName: 's',
      results: simulations.map((simulation) => ({
        simulation,
        decisions: readOk(Object.fromEntries(simulation.actions.map((a) => [a, 'allowed' as const]))),
      })),
    });

    expect(check).toMatchObject({ status: 'pass', detail: '3 action(s) allowed where the function calls them' });
  });

  it('should fail naming each action refused and on what, an explicit deny said so', () => {
    const check = checkIam({
      subject: 'drain-step role',
      roleArn: 'arn:aws:iam::111122223333:role/d',
      stackName: 's',
      results: [
        { simulation: at(0), decisions: readOk({ 'eks:DescribeCluster': 'implicitDeny' }) },
        {
          simulation: at(1),
          decisions: readOk({
            'autoscaling:RecordLifecycleActionHeartbeat': 'explicitDeny',
            'autoscaling:SetInstanceHealth': 'allowed',
          }),
        },
      ],
    });

    expect(check.status).toBe('fail');
    expect(check.detail).toBe(
      'arn:aws:iam::111122223333:role/d: denied eks:DescribeCluster on cluster demo, autoscaling:RecordLifecycleActionHeartbeat on group ng-a (explicit deny)',
    );
    expect(check.fix).toContain('aws iam put-role-policy');
    expect(check.fix).toContain('detect-stack-drift --stack-name s');
  });

  it('should be unknown when a simulation could not be run', () => {
    const check = checkIam({
      subject: 'drain-step role',
      roleArn: 'arn:aws:iam::111122223333:role/d',
      stackName: 's',
      results: simulations.map((simulation) => ({ simulation, decisions: readFailed('AccessDenied') })),
    });

    expect(check.status).toBe('unknown');
    expect(check.fix).toBe('doctor needs iam:SimulatePrincipalPolicy on arn:aws:iam::111122223333:role/d');
  });
});
