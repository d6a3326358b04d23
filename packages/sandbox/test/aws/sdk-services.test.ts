// Auto Scaling, EKS, STS, EventBridge, Step Functions and Lambda through the AWS SDK v3 clients the
// product uses, plus the emulator's programmatic side (seeding, faults, log, changes).
import {
  CompleteLifecycleActionCommand,
  DescribeAutoScalingGroupsCommand,
  DescribeAutoScalingInstancesCommand,
  DescribeLifecycleHooksCommand,
  DescribeWarmPoolCommand,
  RecordLifecycleActionHeartbeatCommand,
  SetInstanceHealthCommand,
} from '@aws-sdk/client-auto-scaling';
import { DescribeInstancesCommand } from '@aws-sdk/client-ec2';
import { DescribeClusterCommand } from '@aws-sdk/client-eks';
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import {
  DescribeExecutionCommand,
  GetExecutionHistoryCommand,
  StartExecutionCommand,
  type HistoryEvent,
} from '@aws-sdk/client-sfn';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anInstance, errorOf, instanceId, START, startWorld, type World } from './support/world.js';

const TOKEN = '6a1f0e2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b';
const MACHINE_ARN = 'arn:aws:states:us-east-1:111122223333:stateMachine:drain';

let world: World;
beforeEach(async () => {
  world = await startWorld();
});
afterEach(async () => {
  await world.close();
});

describe('Auto Scaling lifecycle actions', () => {
  function seedWaiting(token?: string): void {
    world.aws.state.seedInstance(
      anInstance(1, { autoScaling: { group: 'ng-a', lifecycleState: 'Terminating:Wait', hook: 'drain-hook', token } }),
    );
    world.aws.state.seedInstance(anInstance(2, { autoScaling: { group: 'ng-a' } }));
  }

  it('should list group members with their lifecycle state, and skip unknown ids', async () => {
    seedWaiting();

    const out = await world.autoScaling.send(
      new DescribeAutoScalingInstancesCommand({ InstanceIds: [instanceId(1), instanceId(2), instanceId(9)] }),
    );

    expect(
      out.AutoScalingInstances?.map((i) => [
        i.InstanceId,
        i.AutoScalingGroupName,
        i.LifecycleState,
        i.HealthStatus,
        i.AvailabilityZone,
      ]),
    ).toEqual([
      [instanceId(1), 'ng-a', 'Terminating:Wait', 'HEALTHY', 'us-east-1a'],
      [instanceId(2), 'ng-a', 'InService', 'HEALTHY', 'us-east-1a'],
    ]);
  });

  it('should describe groups with each instance and its lifecycle state, and leave unknown names out', async () => {
    seedWaiting();
    world.aws.state.seedInstance(anInstance(3, { autoScaling: { group: 'ng-b' } }));

    const out = await world.autoScaling.send(
      new DescribeAutoScalingGroupsCommand({ AutoScalingGroupNames: ['ng-b', 'ng-a', 'nope'], MaxRecords: 100 }),
    );

    expect(
      out.AutoScalingGroups?.map((g) => [
        g.AutoScalingGroupName,
        g.DesiredCapacity,
        g.Instances?.map((i) => [i.InstanceId, i.LifecycleState, i.HealthStatus]),
      ]),
    ).toEqual([
      [
        'ng-a',
        2,
        [
          [instanceId(1), 'Terminating:Wait', 'Healthy'],
          [instanceId(2), 'InService', 'Healthy'],
        ],
      ],
      ['ng-b', 1, [[instanceId(3), 'InService', 'Healthy']]],
    ]);
    expect(out.NextToken).toBeUndefined();
  });

  describe('a group with a warm pool', () => {
    const seedPool = () => {
      world.aws.state.seedInstance(anInstance(1, { autoScaling: { group: 'ng-w', hook: 'drain-hook' } }));
      world.aws.state.seedInstance(
        anInstance(2, { state: 'stopped', autoScaling: { group: 'ng-w', lifecycleState: 'Warmed:Stopped' } }),
      );
      world.aws.state.seedInstance(
        anInstance(3, { state: 'stopped', autoScaling: { group: 'ng-w', lifecycleState: 'Warmed:Stopped' } }),
      );
    };

    it('should list the pool apart: DescribeWarmPool and DescribeAutoScalingInstances show its members, DescribeAutoScalingGroups only says it has one', async () => {
      seedPool();

      const groups = await world.autoScaling.send(
        new DescribeAutoScalingGroupsCommand({ AutoScalingGroupNames: ['ng-w'] }),
      );
      const pool = await world.autoScaling.send(new DescribeWarmPoolCommand({ AutoScalingGroupName: 'ng-w' }));
      const instances = await world.autoScaling.send(
        new DescribeAutoScalingInstancesCommand({ InstanceIds: [instanceId(2)] }),
      );

      const group = groups.AutoScalingGroups?.[0];
      expect(group?.Instances?.map((i) => i.InstanceId)).toEqual([instanceId(1)]);
      expect(group?.WarmPoolConfiguration).toEqual({ MinSize: 0, PoolState: 'Stopped' });
      expect(group?.WarmPoolSize).toBe(2);
      expect(pool.WarmPoolConfiguration?.PoolState).toBe('Stopped');
      expect(pool.Instances?.map((i) => [i.InstanceId, i.LifecycleState])).toEqual([
        [instanceId(2), 'Warmed:Stopped'],
        [instanceId(3), 'Warmed:Stopped'],
      ]);
      expect(instances.AutoScalingInstances?.map((i) => i.LifecycleState)).toEqual(['Warmed:Stopped']);
    });

    it('should hold a member terminated out of the pool on the terminate hook, and terminate it once completed', async () => {
      seedPool();

      const action = world.aws.state.startAsgTermination(instanceId(2));
      const waiting = await world.autoScaling.send(new DescribeWarmPoolCommand({ AutoScalingGroupName: 'ng-w' }));
      await world.autoScaling.send(
        new CompleteLifecycleActionCommand({
          AutoScalingGroupName: 'ng-w',
          LifecycleHookName: 'drain-hook',
          LifecycleActionResult: 'CONTINUE',
          InstanceId: instanceId(2),
        }),
      );

      expect(action).toEqual(expect.objectContaining({ group: 'ng-w', hook: 'drain-hook' }));
      expect(waiting.Instances?.find((i) => i.InstanceId === instanceId(2))?.LifecycleState).toBe(
        'Warmed:Terminating:Wait',
      );
      expect(world.aws.state.autoScaling.member(instanceId(2))?.lifecycleState).toBe('Warmed:Terminating:Proceed');
      expect(world.aws.state.instances.get(instanceId(2))?.state).toBe('shutting-down');
    });

    it('should put a member scaled in into the pool back in the pool once its action is completed, stopped, not terminated', async () => {
      seedPool();

      world.aws.state.startAsgTermination(instanceId(1), 'WarmPool');
      const waiting = world.aws.state.autoScaling.member(instanceId(1))?.lifecycleState;
      await world.autoScaling.send(
        new CompleteLifecycleActionCommand({
          AutoScalingGroupName: 'ng-w',
          LifecycleHookName: 'drain-hook',
          LifecycleActionResult: 'CONTINUE',
          InstanceId: instanceId(1),
        }),
      );
      const pool = await world.autoScaling.send(new DescribeWarmPoolCommand({ AutoScalingGroupName: 'ng-w' }));

      expect(waiting).toBe('Terminating:Wait');
      expect(pool.Instances?.find((i) => i.InstanceId === instanceId(1))?.LifecycleState).toBe('Warmed:Stopped');
      expect(world.aws.state.instances.get(instanceId(1))?.state).toBe('stopping');
    });

    it('should answer no pool for a group without one, and refuse a group it does not know', async () => {
      world.aws.state.seedInstance(anInstance(1, { autoScaling: { group: 'ng-cold' } }));

      const cold = await world.autoScaling.send(new DescribeWarmPoolCommand({ AutoScalingGroupName: 'ng-cold' }));

      expect(cold.WarmPoolConfiguration).toBeUndefined();
      expect(cold.Instances ?? []).toEqual([]);
      expect(
        await errorOf(world.autoScaling.send(new DescribeWarmPoolCommand({ AutoScalingGroupName: 'nope' }))),
      ).toMatchObject({ name: 'ValidationError' });
    });

    it('should refuse a warm member seeded in a state its pool does not keep machines in', () => {
      expect(() =>
        world.aws.state.seedInstance(
          anInstance(4, { autoScaling: { group: 'ng-w', lifecycleState: 'Warmed:Stopped' } }),
        ),
      ).toThrow(/Warmed:Stopped member is stopped to EC2, not running/);
    });
  });

  it('should page groups by MaxRecords, and refuse more names than the page holds', async () => {
    for (let n = 1; n <= 5; n++) world.aws.state.seedInstance(anInstance(n, { autoScaling: { group: `ng-${n}` } }));

    const first = await world.autoScaling.send(new DescribeAutoScalingGroupsCommand({ MaxRecords: 3 }));
    const second = await world.autoScaling.send(
      new DescribeAutoScalingGroupsCommand({ MaxRecords: 3, NextToken: first.NextToken }),
    );
    const tooMany = await errorOf(
      world.autoScaling.send(
        new DescribeAutoScalingGroupsCommand({ AutoScalingGroupNames: Array.from({ length: 51 }, (_, i) => `g-${i}`) }),
      ),
    );

    expect(first.AutoScalingGroups?.map((g) => g.AutoScalingGroupName)).toEqual(['ng-1', 'ng-2', 'ng-3']);
    expect(second.AutoScalingGroups?.map((g) => g.AutoScalingGroupName)).toEqual(['ng-4', 'ng-5']);
    expect(second.NextToken).toBeUndefined();
    expect(tooMany.name).toBe('ValidationError');
  });

  it('should describe the group terminate hook, and refuse an unknown group', async () => {
    seedWaiting();

    const out = await world.autoScaling.send(new DescribeLifecycleHooksCommand({ AutoScalingGroupName: 'ng-a' }));

    expect(
      out.LifecycleHooks?.map((h) => [h.LifecycleHookName, h.LifecycleTransition, h.AutoScalingGroupName]),
    ).toEqual([['drain-hook', 'autoscaling:EC2_INSTANCE_TERMINATING', 'ng-a']]);
    expect(out.LifecycleHooks?.[0]?.HeartbeatTimeout).toBeGreaterThan(0);
    const error = await errorOf(
      world.autoScaling.send(new DescribeLifecycleHooksCommand({ AutoScalingGroupName: 'nope' })),
    );
    expect(error.name).toBe('ValidationError');
  });

  it('should complete the action by instance id, record it, and let the instance terminate', async () => {
    seedWaiting();

    await world.autoScaling.send(
      new CompleteLifecycleActionCommand({
        AutoScalingGroupName: 'ng-a',
        LifecycleHookName: 'drain-hook',
        InstanceId: instanceId(1),
        LifecycleActionResult: 'CONTINUE',
      }),
    );
    const during = await world.autoScaling.send(
      new DescribeAutoScalingInstancesCommand({ InstanceIds: [instanceId(1)] }),
    );
    world.clock.advance(30_000);
    const after = await world.autoScaling.send(
      new DescribeAutoScalingInstancesCommand({ InstanceIds: [instanceId(1)] }),
    );

    expect(world.aws.state.autoScaling.completions).toEqual([
      {
        at: START,
        instanceId: instanceId(1),
        group: 'ng-a',
        hook: 'drain-hook',
        token: undefined,
        result: 'CONTINUE',
        by: 'api',
      },
    ]);
    expect(during.AutoScalingInstances?.[0]?.LifecycleState).toBe('Terminating:Proceed');
    expect(after.AutoScalingInstances).toEqual([]);
    expect(world.aws.state.instanceView(instanceId(1))?.state).toBe('terminated');
  });

  it('should accept the seeded token and refuse any other with the ValidationError AWS words', async () => {
    seedWaiting(TOKEN);
    const other = TOKEN.replace('6a1f', '0000');
    const machineOf = (token: string) =>
      world.aws.state.autoScaling.machineOfAction({ group: 'ng-a', hook: 'drain-hook', token });
    // What the replay's planner asks of a heartbeat named by its token alone: the action's machine, while it waits.
    expect([machineOf(TOKEN), machineOf(other)]).toEqual([instanceId(1), undefined]);

    const wrong = await errorOf(
      world.autoScaling.send(
        new CompleteLifecycleActionCommand({
          AutoScalingGroupName: 'ng-a',
          LifecycleHookName: 'drain-hook',
          LifecycleActionToken: other,
          LifecycleActionResult: 'CONTINUE',
        }),
      ),
    );
    await world.autoScaling.send(
      new CompleteLifecycleActionCommand({
        AutoScalingGroupName: 'ng-a',
        LifecycleHookName: 'drain-hook',
        LifecycleActionToken: TOKEN,
        LifecycleActionResult: 'ABANDON',
      }),
    );
    const again = await errorOf(
      world.autoScaling.send(
        new CompleteLifecycleActionCommand({
          AutoScalingGroupName: 'ng-a',
          LifecycleHookName: 'drain-hook',
          LifecycleActionToken: TOKEN,
          LifecycleActionResult: 'CONTINUE',
        }),
      ),
    );

    expect(wrong).toMatchObject({
      name: 'ValidationError',
      status: 400,
      message: `No active Lifecycle Action found with token ${other}`,
    });
    expect(again.message).toBe(`No active Lifecycle Action found with token ${TOKEN}`);
    expect(world.aws.state.autoScaling.completions.map((c) => c.result)).toEqual(['ABANDON']);
    expect(machineOf(TOKEN)).toBeUndefined();
  });

  it.each([
    [
      { AutoScalingGroupName: 'ng-b', LifecycleHookName: 'drain-hook', InstanceId: instanceId(1) },
      'No active Lifecycle Action found with instance ID',
    ],
    [
      { AutoScalingGroupName: 'ng-a', LifecycleHookName: 'other-hook', InstanceId: instanceId(1) },
      'No active Lifecycle Action found with instance ID',
    ],
    [
      { AutoScalingGroupName: 'ng-a', LifecycleHookName: 'drain-hook', InstanceId: instanceId(2) },
      'No active Lifecycle Action found with instance ID',
    ],
    [
      { AutoScalingGroupName: 'ng-a', LifecycleHookName: 'drain-hook' },
      'Either LifecycleActionToken or InstanceId must be specified.',
    ],
    [
      { AutoScalingGroupName: 'ng-a', LifecycleHookName: 'drain-hook', LifecycleActionToken: 'short' },
      "Value 'short' at 'lifecycleActionToken'",
    ],
  ])('should refuse %j with a ValidationError', async (input, message) => {
    seedWaiting();

    const error = await errorOf(
      world.autoScaling.send(new CompleteLifecycleActionCommand({ ...input, LifecycleActionResult: 'CONTINUE' })),
    );

    expect(error.name).toBe('ValidationError');
    expect(error.message).toContain(message);
  });

  it('should extend the heartbeat timeout with heartbeats and apply the default result when it runs out', async () => {
    seedWaiting();

    world.clock.advance(50 * 60_000);
    await world.autoScaling.send(
      new RecordLifecycleActionHeartbeatCommand({
        AutoScalingGroupName: 'ng-a',
        LifecycleHookName: 'drain-hook',
        InstanceId: instanceId(1),
      }),
    );
    world.clock.advance(50 * 60_000);
    const stillWaiting = world.aws.state.autoScaling.member(instanceId(1))?.lifecycleState;
    world.clock.advance(10 * 60_000);

    expect(stillWaiting).toBe('Terminating:Wait');
    expect(world.aws.state.autoScaling.heartbeats).toEqual([
      { at: START + 50 * 60_000, instanceId: instanceId(1), group: 'ng-a', hook: 'drain-hook' },
    ]);
    expect(world.aws.state.autoScaling.completions).toEqual([
      {
        at: START + 110 * 60_000,
        instanceId: instanceId(1),
        group: 'ng-a',
        hook: 'drain-hook',
        token: undefined,
        result: 'ABANDON',
        by: 'timeout',
      },
    ]);
  });

  it('should start a termination with a fresh token, as a scale-in does', () => {
    seedWaiting();

    const action = world.aws.state.startAsgTermination(instanceId(2));

    expect(action).toEqual({
      group: 'ng-a',
      hook: 'drain-hook',
      token: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown,
    });
    expect(world.aws.state.changes.at(-1)).toMatchObject({
      kind: 'lifecycle-action-started',
      instanceId: instanceId(2),
      token: action?.token,
    });
  });

  it('should mark an instance Unhealthy, which starts its replacement', async () => {
    seedWaiting();

    await world.autoScaling.send(
      new SetInstanceHealthCommand({ InstanceId: instanceId(2), HealthStatus: 'Unhealthy' }),
    );
    const error = await errorOf(
      world.autoScaling.send(new SetInstanceHealthCommand({ InstanceId: instanceId(9), HealthStatus: 'Unhealthy' })),
    );
    const out = await world.autoScaling.send(new DescribeAutoScalingInstancesCommand({ InstanceIds: [instanceId(2)] }));

    expect(out.AutoScalingInstances?.[0]).toMatchObject({
      HealthStatus: 'UNHEALTHY',
      LifecycleState: 'Terminating:Wait',
    });
    expect(world.aws.state.autoScaling.healthChanges).toEqual([
      {
        at: START,
        instanceId: instanceId(2),
        group: 'ng-a',
        healthStatus: 'UNHEALTHY',
        shouldRespectGracePeriod: undefined,
      },
    ]);
    expect(error.name).toBe('ValidationError');
  });

  it('should replace an instance marked Unhealthy once it terminates: a new member of the group, launched like it', async () => {
    world.aws.state.seedInstance(
      anInstance(3, { tags: { 'eks:cluster-name': 'demo', team: 'web' }, autoScaling: { group: 'ng-b' } }),
    );
    world.aws.state.seedInstance(anInstance(4, { autoScaling: { group: 'ng-b' } }));
    const launched: string[] = [];
    world.aws.state.onChange((c) => {
      if (c.kind === 'instance-launched') launched.push(`${c.group} replaces ${c.replaces}`);
    });

    await world.autoScaling.send(
      new SetInstanceHealthCommand({ InstanceId: instanceId(3), HealthStatus: 'Unhealthy' }),
    );
    world.clock.advance(60_000);
    const members = await world.autoScaling.send(new DescribeAutoScalingInstancesCommand({}));
    const replacement = members.AutoScalingInstances?.find(
      (i) => i.InstanceId !== instanceId(3) && i.InstanceId !== instanceId(4),
    );

    expect(launched).toEqual([`ng-b replaces ${instanceId(3)}`]);
    expect(replacement).toMatchObject({
      AutoScalingGroupName: 'ng-b',
      LifecycleState: 'InService',
      HealthStatus: 'HEALTHY',
    });
    const view = world.aws.state.instanceView(replacement?.InstanceId ?? '');
    expect(view).toMatchObject({
      state: 'running',
      zone: 'us-east-1a',
      tags: expect.objectContaining({
        'eks:cluster-name': 'demo',
        team: 'web',
        'aws:autoscaling:groupName': 'ng-b',
      }) as unknown,
    });
    expect(world.aws.state.instanceView(instanceId(3))?.state).toBe('terminated');
  });

  it('should not replace an instance the group scales in (no health change)', async () => {
    seedWaiting();
    const launched: string[] = [];
    world.aws.state.onChange((c) => launched.push(c.kind));

    await world.autoScaling.send(
      new CompleteLifecycleActionCommand({
        AutoScalingGroupName: 'ng-a',
        LifecycleHookName: 'drain-hook',
        InstanceId: instanceId(1),
        LifecycleActionResult: 'CONTINUE',
      }),
    );
    world.clock.advance(60_000);

    expect(launched).not.toContain('instance-launched');
  });

  it('should answer Throttling (awsquery) and succeed after SDK retries', async () => {
    seedWaiting();
    world.aws.faults.throttle({ service: 'autoscaling', count: 1 });

    const out = await world.autoScaling.send(new DescribeAutoScalingInstancesCommand({}));

    expect(out.$metadata.attempts).toBe(2);
    expect(world.aws.requestLog.entries.map((e) => [e.status, e.errorCode])).toEqual([
      [400, 'Throttling'],
      [200, undefined],
    ]);
  });
});

describe('EKS DescribeCluster', () => {
  it('should return the seeded endpoint, CA and status', async () => {
    world.aws.state.seedCluster({
      name: 'demo',
      endpoint: 'https://127.0.0.1:6443',
      certificateAuthorityData: 'Q0EK',
      createdAgo: '1d',
    });

    const { cluster } = await world.eks.send(new DescribeClusterCommand({ name: 'demo' }));

    expect(cluster).toMatchObject({
      name: 'demo',
      arn: 'arn:aws:eks:us-east-1:111122223333:cluster/demo',
      endpoint: 'https://127.0.0.1:6443',
      certificateAuthority: { data: 'Q0EK' },
      status: 'ACTIVE',
      accessConfig: { authenticationMode: 'API_AND_CONFIG_MAP' },
    });
    expect(cluster?.createdAt?.getTime()).toBe(START - 86_400_000);
  });

  it('should leave out the endpoint while the cluster is CREATING, and 404 an unknown cluster', async () => {
    world.aws.state.seedCluster({ name: 'new', endpoint: 'https://127.0.0.1:6443', status: 'CREATING' });

    const { cluster } = await world.eks.send(new DescribeClusterCommand({ name: 'new' }));
    const error = await errorOf(world.eks.send(new DescribeClusterCommand({ name: 'nope' })));

    expect(cluster?.endpoint).toBeUndefined();
    expect(error).toMatchObject({
      name: 'ResourceNotFoundException',
      status: 404,
      message: 'No cluster found for name: nope.',
    });
  });
});

describe('STS GetCallerIdentity', () => {
  it('should report the configured identity of the signing key', async () => {
    const arn = 'arn:aws:sts::111122223333:assumed-role/reconciler/session-1';
    const w = await startWorld({ credentials: [{ accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'secret', arn }] });
    try {
      const out = await w.sts.send(new GetCallerIdentityCommand({}));

      expect(out).toMatchObject({
        Arn: arn,
        Account: '111122223333',
        UserId: expect.stringMatching(/^AROA[0-9A-F]{17}:session-1$/) as unknown,
      });
    } finally {
      await w.close();
    }
  });

  it('should derive an IAM user identity for a key it was not told about', async () => {
    const out = await world.sts.send(new GetCallerIdentityCommand({}));

    expect(out.Arn).toBe('arn:aws:iam::111122223333:user/sandbox-admin');
    expect(out.UserId).toMatch(/^AIDA[0-9A-F]{17}$/);
  });
});

describe('EventBridge PutEvents', () => {
  const entry = (detailType: string, extra: Record<string, unknown> = {}) => ({
    Source: 'ec2-node-reconciler',
    DetailType: detailType,
    Detail: JSON.stringify({ node: 'n1' }),
    ...extra,
  });

  it('should record accepted entries and fail invalid ones individually', async () => {
    world.aws.state.createEventBus('reconciler');

    const out = await world.events.send(
      new PutEventsCommand({
        Entries: [
          entry('Node Deleted', { EventBusName: 'reconciler', Time: new Date(START - 1000) }),
          entry('Node Drained', { Detail: '{oops' }),
          { Source: 'x', Detail: '{}' },
        ],
      }),
    );

    expect(out.FailedEntryCount).toBe(2);
    expect(out.Entries?.map((e) => e.ErrorCode ?? 'ok')).toEqual(['ok', 'MalformedDetail', 'InvalidArgument']);
    expect(world.aws.state.eventBus.on('reconciler')).toEqual([
      {
        eventId: out.Entries?.[0]?.EventId,
        receivedAt: START,
        time: START - 1000,
        eventBusName: 'reconciler',
        source: 'ec2-node-reconciler',
        detailType: 'Node Deleted',
        detail: { node: 'n1' },
        resources: [],
        traceHeader: undefined,
      },
    ]);
  });

  it('should fail entries on demand (partial failure) and refuse an unknown bus outright', async () => {
    world.aws.faults.failEntries({
      errorCode: 'ThrottlingException',
      count: 1,
      match: (e) => e.detailType === 'Node Drained',
    });

    const out = await world.events.send(
      new PutEventsCommand({ Entries: [entry('Node Deleted'), entry('Node Drained'), entry('Node Drained')] }),
    );
    const error = await errorOf(
      world.events.send(new PutEventsCommand({ Entries: [entry('Node Deleted', { EventBusName: 'missing' })] })),
    );
    const tooMany = await errorOf(
      world.events.send(new PutEventsCommand({ Entries: Array.from({ length: 11 }, () => entry('x')) })),
    );

    expect(out.FailedEntryCount).toBe(1);
    expect(out.Entries?.map((e) => e.ErrorCode ?? 'ok')).toEqual(['ok', 'ThrottlingException', 'ok']);
    expect(world.aws.state.eventBus.on('default')).toHaveLength(2);
    expect(error).toMatchObject({ name: 'ResourceNotFoundException', message: 'Event bus missing does not exist.' });
    expect(tooMany.name).toBe('ValidationException');
    expect(tooMany.message).toContain(
      "at 'entries' failed to satisfy constraint: Member must have length less than or equal to 10",
    );
  });
});

describe('Step Functions', () => {
  it('should be idempotent for the same name and input while running, and refuse a different input', async () => {
    world.aws.state.seedStateMachine({ name: 'drain' });

    const first = await world.sfn.send(
      new StartExecutionCommand({ stateMachineArn: MACHINE_ARN, name: 'demo-i-1-evt', input: '{"a":1}' }),
    );
    const same = await world.sfn.send(
      new StartExecutionCommand({ stateMachineArn: MACHINE_ARN, name: 'demo-i-1-evt', input: '{"a":1}' }),
    );
    const different = await errorOf(
      world.sfn.send(
        new StartExecutionCommand({ stateMachineArn: MACHINE_ARN, name: 'demo-i-1-evt', input: '{"a":2}' }),
      ),
    );

    expect(first.executionArn).toBe('arn:aws:states:us-east-1:111122223333:execution:drain:demo-i-1-evt');
    expect(same.executionArn).toBe(first.executionArn);
    expect(different).toMatchObject({
      name: 'ExecutionAlreadyExists',
      message: `Execution Already Exists: '${first.executionArn ?? ''}'`,
    });
    expect(world.aws.state.stepFunctions.executions()).toHaveLength(1);
  });

  it('should describe an execution, and refuse the same name once it has ended', async () => {
    world.aws.state.seedStateMachine({ name: 'drain' });
    const { executionArn = '' } = await world.sfn.send(
      new StartExecutionCommand({ stateMachineArn: MACHINE_ARN, name: 'run', input: '{}' }),
    );
    world.clock.advance(60_000);
    world.aws.state.stepFunctions.finish(executionArn, {
      status: 'SUCCEEDED',
      at: world.clock.now(),
      output: '{"drained":true}',
    });

    const described = await world.sfn.send(new DescribeExecutionCommand({ executionArn }));
    const again = await errorOf(
      world.sfn.send(new StartExecutionCommand({ stateMachineArn: MACHINE_ARN, name: 'run', input: '{}' })),
    );

    expect(described).toMatchObject({
      status: 'SUCCEEDED',
      name: 'run',
      input: '{}',
      output: '{"drained":true}',
      stateMachineArn: MACHINE_ARN,
    });
    expect(described.startDate?.getTime()).toBe(START);
    expect(described.stopDate?.getTime()).toBe(START + 60_000);
    expect(again.name).toBe('ExecutionAlreadyExists');
  });

  it.each([
    [{ stateMachineArn: 'arn:aws:states:us-east-1:111122223333:stateMachine:other' }, 'StateMachineDoesNotExist'],
    [{ stateMachineArn: 'bogus' }, 'InvalidArn'],
    [{ stateMachineArn: MACHINE_ARN, name: 'has space' }, 'InvalidName'],
    [{ stateMachineArn: MACHINE_ARN, input: '{not json' }, 'InvalidExecutionInput'],
  ])('should refuse %j with %s', async (input, code) => {
    world.aws.state.seedStateMachine({ name: 'drain' });

    const error = await errorOf(world.sfn.send(new StartExecutionCommand(input)));

    expect(error.name).toBe(code);
  });

  it('should page a history that grows between pages without repeating or skipping an event, and leave data out when asked', async () => {
    world.aws.state.seedStateMachine({ name: 'drain' });
    const { executionArn = '' } = await world.sfn.send(
      new StartExecutionCommand({ stateMachineArn: MACHINE_ARN, name: 'run', input: '{"a":1}' }),
    );
    const history = [
      { id: 1, type: 'ExecutionStarted', timestamp: START, input: { a: 1 } },
      { id: 2, type: 'WaitStateEntered', timestamp: START, stateName: 'Wait', input: { a: 1 } },
      { id: 3, type: 'WaitStateExited', timestamp: START + 5_000, stateName: 'Wait', output: { a: 1 } },
    ];
    world.aws.state.stepFunctions.attachHistory(executionArn, () => history);
    const page = (nextToken?: string) =>
      world.sfn.send(
        new GetExecutionHistoryCommand({
          executionArn,
          reverseOrder: true,
          maxResults: 2,
          ...(nextToken ? { nextToken } : {}),
        }),
      );
    const ids = (events: HistoryEvent[] | undefined) => (events ?? []).map((e) => e.id);

    const first = await page();
    history.push({ id: 4, type: 'TaskStateEntered', timestamp: START + 5_000, stateName: 'Step', input: { a: 1 } });
    const second = await page(first.nextToken);
    const metadata = await world.sfn.send(
      new GetExecutionHistoryCommand({ executionArn, includeExecutionData: false }),
    );

    expect(ids(first.events)).toEqual([3, 2]);
    expect(ids(second.events)).toEqual([1]);
    expect(second.nextToken).toBeUndefined();
    expect(first.events?.[0]?.timestamp?.getTime()).toBe(START + 5_000);
    expect(metadata.events?.map((e) => [e.type, e.stateEnteredEventDetails ?? e.executionStartedEventDetails])).toEqual(
      [
        ['ExecutionStarted', {}],
        ['WaitStateEntered', { name: 'Wait' }],
        ['WaitStateExited', undefined],
        ['TaskStateEntered', { name: 'Step' }],
      ],
    );
  });

  it('should answer ExecutionDoesNotExist for an unknown execution', async () => {
    const error = await errorOf(
      world.sfn.send(
        new DescribeExecutionCommand({ executionArn: 'arn:aws:states:us-east-1:111122223333:execution:drain:nope' }),
      ),
    );

    expect(error.name).toBe('ExecutionDoesNotExist');
  });
});

describe('Lambda Invoke (the function runs in process)', () => {
  const lambda = () => new LambdaClient(world.aws.clientConfig());
  const text = (payload: Uint8Array | undefined) => Buffer.from(payload ?? new Uint8Array()).toString('utf8');

  it('should hand the payload to the function and return its result, by name or by ARN', async () => {
    const fn = world.aws.state.functions.register('sweep', (payload, context) =>
      Promise.resolve({ got: payload, arn: context.invokedFunctionArn }),
    );

    const byName = await lambda().send(
      new InvokeCommand({ FunctionName: 'sweep', Payload: Buffer.from('{"dryRun":true}') }),
    );
    const byArn = await lambda().send(new InvokeCommand({ FunctionName: fn.arn }));

    expect(byName).toMatchObject({ StatusCode: 200, ExecutedVersion: '$LATEST' });
    expect(byName.FunctionError).toBeUndefined();
    expect(JSON.parse(text(byName.Payload))).toEqual({
      got: { dryRun: true },
      arn: 'arn:aws:lambda:us-east-1:111122223333:function:sweep',
    });
    expect(JSON.parse(text(byArn.Payload))).toEqual({ got: {}, arn: fn.arn });
  });

  it('should answer 200 with FunctionError and the error payload when the function throws', async () => {
    world.aws.state.functions.register('sweep', () =>
      Promise.reject(new Error('invalid sweep payload: bogus: Unrecognized key')),
    );

    const out = await lambda().send(new InvokeCommand({ FunctionName: 'sweep', Payload: Buffer.from('{"bogus":1}') }));

    expect(out).toMatchObject({ StatusCode: 200, FunctionError: 'Unhandled' });
    const payload = JSON.parse(text(out.Payload)) as { errorType: string; errorMessage: string; trace: string[] };
    expect(payload).toMatchObject({
      errorType: 'Error',
      errorMessage: 'invalid sweep payload: bogus: Unrecognized key',
    });
    // As the Node.js runtime writes it: the stack's lines, `Error: message` first, indentation kept.
    expect(payload.trace[0]).toBe('Error: invalid sweep payload: bogus: Unrecognized key');
    expect(payload.trace[1]).toMatch(/^ {4}at /);
    expect(world.aws.state.functions.invocations).toEqual([
      {
        functionName: 'sweep',
        type: 'RequestResponse',
        payload: '{"bogus":1}',
        error: 'Error: invalid sweep payload: bogus: Unrecognized key',
      },
    ]);
  });

  it('should run nothing on DryRun, and not wait for an Event invocation', async () => {
    let runs = 0;
    let release = (): void => undefined;
    world.aws.state.functions.register('sweep', () => {
      runs++;
      return new Promise((resolve) => (release = () => resolve('done')));
    });

    const dry = await lambda().send(new InvokeCommand({ FunctionName: 'sweep', InvocationType: 'DryRun' }));
    const event = await lambda().send(new InvokeCommand({ FunctionName: 'sweep', InvocationType: 'Event' }));
    release();

    expect([dry.StatusCode, event.StatusCode]).toEqual([204, 202]);
    expect(runs).toBe(1);
  });

  it.each([
    [
      'nope',
      '{}',
      'ResourceNotFoundException',
      'Function not found: arn:aws:lambda:us-east-1:111122223333:function:nope',
    ],
    ['sweep', '{not json', 'InvalidRequestContentException', 'Could not parse request body into json'],
  ])('should refuse function %s with payload %s: %s', async (name, payload, code, message) => {
    world.aws.state.functions.register('sweep', () => Promise.resolve(null));

    const error = await errorOf(
      lambda().send(new InvokeCommand({ FunctionName: name, Payload: Buffer.from(payload) })),
    );

    expect(error.name).toBe(code);
    expect(error.message).toContain(message);
  });
});

describe('faults, request log and counters', () => {
  it('should add injected latency in real time', async () => {
    world.aws.faults.latency({ service: 'ec2', ms: 150 });

    const started = performance.now();
    await world.ec2.send(new DescribeInstancesCommand({}));
    const elapsed = performance.now() - started;

    expect(elapsed).toBeGreaterThanOrEqual(140);
    expect(world.aws.requestLog.entries[0]?.durationMs).toBeGreaterThanOrEqual(140);
  });

  it('should fail a scripted number of calls with an arbitrary error and log each request', async () => {
    const remove = world.aws.faults.fail({ service: 'eks', code: 'ServerException', status: 500, count: 5 });
    world.aws.state.seedCluster({ name: 'demo', endpoint: 'https://127.0.0.1:6443' });

    const error = await errorOf(world.eks.send(new DescribeClusterCommand({ name: 'demo' })));
    remove();
    const ok = await world.eks.send(new DescribeClusterCommand({ name: 'demo' }));

    expect(error).toMatchObject({ name: 'ServerException', status: 500 });
    expect(ok.cluster?.name).toBe('demo');
    expect(
      world.aws.requestLog.filter({ service: 'eks' }).map((e) => [e.operation, e.status, e.region, e.accessKeyId]),
    ).toEqual([
      ['DescribeCluster', 500, 'us-east-1', 'AKIDEXAMPLE'],
      ['DescribeCluster', 500, 'us-east-1', 'AKIDEXAMPLE'],
      ['DescribeCluster', 500, 'us-east-1', 'AKIDEXAMPLE'],
      ['DescribeCluster', 200, 'us-east-1', 'AKIDEXAMPLE'],
    ]);
    expect(world.aws.counters.snapshot()).toEqual({ 'eks:DescribeCluster': { requests: 4, errors: 3, throttled: 0 } });
  });

  it('should throttle at a seeded rate reproducibly', async () => {
    const run = async (): Promise<string[]> => {
      const w = await startWorld({ faults: { seed: 7, throttle: [{ service: 'sts', rate: 0.5 }] } });
      // One attempt per call, so each outcome is the emulator's decision, not the SDK's retries.
      const sts = new STSClient({ ...w.aws.clientConfig(), maxAttempts: 1 });
      try {
        const outcomes: string[] = [];
        for (let n = 0; n < 12; n++)
          outcomes.push(
            await sts.send(new GetCallerIdentityCommand({})).then(
              () => 'ok',
              (e: Error) => e.name,
            ),
          );
        return outcomes;
      } finally {
        sts.destroy();
        await w.close();
      }
    };

    const [first, second] = [await run(), await run()];

    expect(first).toEqual(second);
    expect(new Set(first)).toEqual(new Set(['ok', 'Throttling']));
  });
});

describe('seeding', () => {
  it('should reject unknown keys and bad values with the path of the problem', () => {
    const state = world.aws.state;

    expect(() => state.seedInstance({ ...anInstance(1), colour: 'blue' } as never)).toThrow(
      /instances\[i-00000000000000001\]: Unrecognized key: "colour"/,
    );
    expect(() => state.seedInstance(anInstance(2, { zone: 'eu-west-1a' }))).toThrow(
      /not in the emulator's region us-east-1/,
    );
    expect(() => state.seedInstance(anInstance(3, { launchedAgo: '5 minutes' }))).toThrow(/launchedAgo/);
    expect(() =>
      state.seedInstance(anInstance(4, { autoScaling: { group: 'g', lifecycleState: 'Terminating:Wait' } })),
    ).toThrow(/autoScaling.hook is required/);
  });

  it('should finish seeded transitions at their simulated time and tell listeners then', () => {
    const heard: string[] = [];
    world.aws.state.onChange((c) =>
      heard.push(
        c.kind === 'instance-state' ? `${c.instanceId.slice(-1)} ${c.to} at +${(c.at - START) / 1000}s` : c.kind,
      ),
    );
    world.aws.state.seedInstance(anInstance(1, { state: 'pending' }));
    world.aws.state.seedInstance(anInstance(2, { state: 'stopping' }));
    world.aws.state.seedInstance(anInstance(3, { state: 'shutting-down' }));

    world.clock.advance(10_000);
    const early = [...heard];
    world.clock.advance(60_000);

    expect(early).toEqual([]);
    expect(heard).toEqual(['1 running at +30s', '2 stopped at +30s', '3 terminated at +30s']);
    expect(world.aws.state.instanceView(instanceId(2))?.state).toBe('stopped');
  });

  it('should seed a whole scenario at once and expose the observation view', () => {
    world.aws.state.seed({
      instances: [
        anInstance(1, { autoScaling: { group: 'ng', lifecycleState: 'Terminating:Wait', hook: 'h' } }),
        anInstance(2, { state: 'absent' }),
      ],
      clusters: [{ name: 'demo', endpoint: 'https://127.0.0.1:6443' }],
      stateMachines: [{ name: 'drain' }],
      eventBuses: ['reconciler'],
    });

    expect(world.aws.state.instanceView(instanceId(1))).toEqual({
      id: instanceId(1),
      state: 'running',
      zone: 'us-east-1a',
      privateDnsName: expect.stringMatching(/^ip-10-\d+-\d+-\d+\.ec2\.internal$/) as unknown,
      launchedAt: START - 7_200_000,
      tags: { 'eks:cluster-name': 'demo', 'aws:autoscaling:groupName': 'ng' },
      spot: false,
      autoScaling: { group: 'ng', lifecycleState: 'Terminating:Wait' },
      scheduledEvents: [],
    });
    expect(world.aws.state.instanceView(instanceId(2))).toBeUndefined();
    expect(world.aws.state.clusters.get('demo')?.endpoint).toBe('https://127.0.0.1:6443');
    expect(world.aws.state.eventBus.hasBus('reconciler')).toBe(true);
  });
});
