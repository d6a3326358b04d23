// EC2 through the AWS SDK v3 client the product uses: ids, filters, pagination, not-found,
// eventual consistency, scheduled events, tags, termination on the virtual clock, throttling.
import {
  CreateTagsCommand,
  DeleteTagsCommand,
  DescribeInstancesCommand,
  DescribeInstanceStatusCommand,
  EC2Client,
  TerminateInstancesCommand,
  type DescribeInstancesCommandOutput,
  type Instance,
} from '@aws-sdk/client-ec2';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anInstance, errorOf, instanceId, START, startWorld, type World } from './support/world.js';

const instancesOf = (out: DescribeInstancesCommandOutput): Instance[] =>
  (out.Reservations ?? []).flatMap((r) => r.Instances ?? []);
const idsOf = (out: DescribeInstancesCommandOutput): string[] => instancesOf(out).map((i) => i.InstanceId ?? '');

let world: World;
beforeEach(async () => {
  world = await startWorld();
});
afterEach(async () => {
  await world.close();
});

describe('DescribeInstances', () => {
  it('should describe instances by id with the fields the reconciler reads', async () => {
    world.aws.state.seedInstance(
      anInstance(1, { zone: 'us-east-1b', privateDnsName: 'ip-10-0-1-1.ec2.internal', spot: true, launchedAgo: '3h' }),
    );
    world.aws.state.seedInstance(anInstance(2));

    const out = await world.ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceId(1)] }));

    const [instance] = instancesOf(out);
    expect(instancesOf(out)).toHaveLength(1);
    expect(instance).toMatchObject({
      InstanceId: instanceId(1),
      State: { Code: 16, Name: 'running' },
      Placement: { AvailabilityZone: 'us-east-1b' },
      PrivateDnsName: 'ip-10-0-1-1.ec2.internal',
      PrivateIpAddress: '10.0.1.1',
      InstanceLifecycle: 'spot',
      Tags: [{ Key: 'eks:cluster-name', Value: 'demo' }],
    });
    expect(instance?.LaunchTime?.getTime()).toBe(START - 3 * 3_600_000);
    expect(out.Reservations?.[0]?.OwnerId).toBe('111122223333');
  });

  it('should fail the whole call with InvalidInstanceID.NotFound when any id is unknown', async () => {
    world.aws.state.seedInstance(anInstance(1));

    const error = await errorOf(
      world.ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceId(1), instanceId(2), instanceId(3)] })),
    );

    expect(error).toMatchObject({ name: 'InvalidInstanceID.NotFound', status: 400 });
    expect(error.message).toBe(`The instance IDs '${instanceId(2)}, ${instanceId(3)}' do not exist`);
  });

  it('should simply leave out unknown ids given as an instance-id filter', async () => {
    world.aws.state.seedInstance(anInstance(1));

    const out = await world.ec2.send(
      new DescribeInstancesCommand({ Filters: [{ Name: 'instance-id', Values: [instanceId(1), instanceId(2)] }] }),
    );

    expect(idsOf(out)).toEqual([instanceId(1)]);
  });

  it('should answer InvalidInstanceID.Malformed for an id that is not an instance id', async () => {
    const error = await errorOf(world.ec2.send(new DescribeInstancesCommand({ InstanceIds: ['i-123'] })));

    expect(error).toMatchObject({ name: 'InvalidInstanceID.Malformed', message: 'Invalid id: "i-123"' });
  });

  it('should still return terminated instances, without their private DNS name', async () => {
    world.aws.state.seedInstance(anInstance(1, { state: 'terminated' }));

    const [instance] = instancesOf(
      await world.ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceId(1)] })),
    );

    expect(instance?.State).toEqual({ Code: 48, Name: 'terminated' });
    expect(instance?.PrivateDnsName).toBe('');
    expect(instance?.PrivateIpAddress).toBeUndefined();
    expect(instance?.StateReason?.Code).toBe('Client.UserInitiatedShutdown');
  });

  it('should launch a stopped instance again when it starts: a new LaunchTime, shown by the next describe', async () => {
    world.aws.state.seedInstance(anInstance(1, { state: 'stopped', launchedAgo: '3h' }));
    const launchTime = async () =>
      instancesOf(await world.ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceId(1)] })))[0]?.LaunchTime;
    expect((await launchTime())?.getTime()).toBe(START - 3 * 3_600_000);
    world.clock.advance(60_000);

    world.aws.state.setInstanceState(instanceId(1), 'running');

    expect((await launchTime())?.getTime()).toBe(START + 60_000);
  });

  it('should forget terminated instances after the retention time, as EC2 does after about an hour', async () => {
    world.aws.state.seedInstance(anInstance(1, { state: 'terminated' }));
    world.clock.advance(3_600_000);

    const error = await errorOf(world.ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceId(1)] })));

    expect(error.name).toBe('InvalidInstanceID.NotFound');
  });

  it('should never know an absent instance', async () => {
    expect(world.aws.state.seedInstance(anInstance(1, { state: 'absent' }))).toBeUndefined();

    const out = await world.ec2.send(new DescribeInstancesCommand({}));

    expect(idsOf(out)).toEqual([]);
  });

  it.each([
    ['tag:eks:cluster-name', ['demo'], [1, 2, 4]],
    ['tag:eks:cluster-name', ['de*'], [1, 2, 4]],
    ['tag-key', ['kubernetes.io/cluster/other'], [3]],
    ['instance-state-name', ['stopped', 'terminated'], [2, 4]],
    ['private-dns-name', ['ip-10-0-0-1.ec2.internal'], [1]],
    ['instance-id', [instanceId(3)], [3]],
    ['availability-zone', ['us-east-1?'], [1, 2, 3, 4]],
  ])('should filter by %s = %j', async (name, values, expected) => {
    const state = world.aws.state;
    state.seedInstance(anInstance(1, { privateDnsName: 'ip-10-0-0-1.ec2.internal' }));
    state.seedInstance(anInstance(2, { state: 'stopped' }));
    state.seedInstance(anInstance(3, { tags: { 'kubernetes.io/cluster/other': 'owned' } }));
    state.seedInstance(anInstance(4, { state: 'terminated', privateDnsName: 'ip-10-0-0-1.ec2.internal' }));

    const out = await world.ec2.send(new DescribeInstancesCommand({ Filters: [{ Name: name, Values: values }] }));

    expect(idsOf(out)).toEqual(expected.map(instanceId));
  });

  it('should AND filters and OR their values', async () => {
    world.aws.state.seedInstance(anInstance(1));
    world.aws.state.seedInstance(anInstance(2, { state: 'stopped' }));
    world.aws.state.seedInstance(anInstance(3, { tags: {} }));

    const out = await world.ec2.send(
      new DescribeInstancesCommand({
        Filters: [
          { Name: 'tag:eks:cluster-name', Values: ['demo'] },
          { Name: 'instance-state-name', Values: ['running', 'pending'] },
        ],
      }),
    );

    expect(idsOf(out)).toEqual([instanceId(1)]);
  });

  it('should look up 200 ids in one instance-id filter and refuse 201', async () => {
    for (let n = 1; n <= 3; n++) world.aws.state.seedInstance(anInstance(n));
    const ids = Array.from({ length: 201 }, (_, i) => instanceId(i + 1));

    const ok = await world.ec2.send(
      new DescribeInstancesCommand({ Filters: [{ Name: 'instance-id', Values: ids.slice(0, 200) }] }),
    );
    const error = await errorOf(
      world.ec2.send(new DescribeInstancesCommand({ Filters: [{ Name: 'instance-id', Values: ids }] })),
    );

    expect(idsOf(ok)).toEqual([instanceId(1), instanceId(2), instanceId(3)]);
    expect(error).toMatchObject({
      name: 'FilterLimitExceeded',
      message: 'The maximum number of filter values specified on a single call is 200',
    });
  });

  it('should refuse an unknown filter with InvalidParameterValue', async () => {
    const error = await errorOf(
      world.ec2.send(new DescribeInstancesCommand({ Filters: [{ Name: 'colour', Values: ['blue'] }] })),
    );

    expect(error).toMatchObject({ name: 'InvalidParameterValue', message: "The filter 'colour' is invalid" });
  });

  it('should paginate with MaxResults and NextToken until every instance was returned once', async () => {
    for (let n = 1; n <= 12; n++) world.aws.state.seedInstance(anInstance(n));

    const pages: string[][] = [];
    let token: string | undefined;
    do {
      const out = await world.ec2.send(new DescribeInstancesCommand({ MaxResults: 5, NextToken: token }));
      pages.push(idsOf(out));
      token = out.NextToken;
    } while (token !== undefined);

    expect(pages.map((p) => p.length)).toEqual([5, 5, 2]);
    expect(pages.flat()).toEqual(Array.from({ length: 12 }, (_, i) => instanceId(i + 1)));
  });

  it('should paginate a filtered listing whose matches are sparse, every match once and no empty last page', async () => {
    for (let n = 1; n <= 30; n++)
      world.aws.state.seedInstance(anInstance(n, n % 3 === 0 ? {} : { tags: { 'eks:cluster-name': 'other' } }));

    const pages: string[][] = [];
    let token: string | undefined;
    do {
      const out = await world.ec2.send(
        new DescribeInstancesCommand({
          Filters: [{ Name: 'tag:eks:cluster-name', Values: ['demo'] }],
          MaxResults: 5,
          NextToken: token,
        }),
      );
      pages.push(idsOf(out));
      token = out.NextToken;
    } while (token !== undefined);

    expect(pages.map((p) => p.length)).toEqual([5, 5]);
    expect(pages.flat()).toEqual(Array.from({ length: 10 }, (_, i) => instanceId(3 * (i + 1))));
  });

  it('should answer an instance-id filter in listing order whatever the order of its values, with unknown ids simply absent', async () => {
    for (let n = 1; n <= 6; n++) world.aws.state.seedInstance(anInstance(n));

    const out = await world.ec2.send(
      new DescribeInstancesCommand({
        Filters: [{ Name: 'instance-id', Values: [instanceId(5), instanceId(9), instanceId(2), instanceId(5)] }],
      }),
    );

    expect(idsOf(out)).toEqual([instanceId(2), instanceId(5)]);
  });

  it.each([
    [{ MaxResults: 4 }, 'InvalidParameterValue'],
    [{ MaxResults: 1001 }, 'InvalidParameterValue'],
    [{ MaxResults: 5, InstanceIds: [instanceId(1)] }, 'InvalidParameterCombination'],
    [{ NextToken: 'not-a-token' }, 'InvalidParameterValue'],
  ])('should refuse %j with %s', async (input, code) => {
    world.aws.state.seedInstance(anInstance(1));

    const error = await errorOf(world.ec2.send(new DescribeInstancesCommand(input)));

    expect(error.name).toBe(code);
  });

  it('should hide an instance until it becomes visible (eventual consistency)', async () => {
    world.aws.state.seedInstance(anInstance(1, { visibleAfter: '30s' }));

    const before = await errorOf(world.ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceId(1)] })));
    const filtered = await world.ec2.send(
      new DescribeInstancesCommand({ Filters: [{ Name: 'tag:eks:cluster-name', Values: ['demo'] }] }),
    );
    world.clock.advance(30_000);
    const after = await world.ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceId(1)] }));

    expect(before.name).toBe('InvalidInstanceID.NotFound');
    expect(idsOf(filtered)).toEqual([]);
    expect(idsOf(after)).toEqual([instanceId(1)]);
  });

  it('should show a client signing for another region an empty account, as a wrong-region reconciler would see', async () => {
    world.aws.state.seedInstance(anInstance(1));
    const elsewhere = new EC2Client({ ...world.aws.clientConfig(), region: 'eu-west-1' });

    const all = await elsewhere.send(new DescribeInstancesCommand({}));
    const byId = await errorOf(elsewhere.send(new DescribeInstancesCommand({ InstanceIds: [instanceId(1)] })));
    elsewhere.destroy();

    expect(idsOf(all)).toEqual([]);
    expect(byId.name).toBe('InvalidInstanceID.NotFound');
    expect(world.aws.requestLog.entries.map((e) => e.region)).toEqual(['eu-west-1', 'eu-west-1']);
  });

  it('should answer DryRunOperation to a dry run', async () => {
    const error = await errorOf(world.ec2.send(new DescribeInstancesCommand({ DryRun: true })));

    expect(error).toMatchObject({ name: 'DryRunOperation', status: 412 });
  });
});

describe('DescribeInstanceStatus', () => {
  it('should report scheduled events with their code, window and description', async () => {
    world.aws.state.seedInstance(
      anInstance(1, {
        scheduledEvents: [{ code: 'instance-retirement', notBefore: '2d', notAfter: '3d', description: 'retiring' }],
      }),
    );
    world.aws.state.seedInstance(anInstance(2));

    const out = await world.ec2.send(
      new DescribeInstanceStatusCommand({ InstanceIds: [instanceId(1), instanceId(2)] }),
    );

    expect(out.InstanceStatuses?.map((s) => s.InstanceId)).toEqual([instanceId(1), instanceId(2)]);
    const [first, second] = out.InstanceStatuses ?? [];
    expect(first?.Events).toEqual([
      {
        InstanceEventId: expect.stringMatching(/^instance-event-[0-9a-f]{17}$/) as unknown,
        Code: 'instance-retirement',
        Description: 'retiring',
        NotBefore: new Date(START + 2 * 86_400_000),
        NotAfter: new Date(START + 3 * 86_400_000),
      },
    ]);
    expect(first?.InstanceStatus?.Status).toBe('ok');
    expect(second?.Events).toBeUndefined();
  });

  it('should report only running instances unless IncludeAllInstances is set', async () => {
    world.aws.state.seedInstance(anInstance(1));
    world.aws.state.seedInstance(anInstance(2, { state: 'stopped' }));
    world.aws.state.seedInstance(anInstance(3, { state: 'terminated' }));

    const running = await world.ec2.send(new DescribeInstanceStatusCommand({}));
    const all = await world.ec2.send(new DescribeInstanceStatusCommand({ IncludeAllInstances: true }));

    expect(running.InstanceStatuses?.map((s) => s.InstanceId)).toEqual([instanceId(1)]);
    expect(all.InstanceStatuses?.map((s) => [s.InstanceId, s.InstanceState?.Name, s.InstanceStatus?.Status])).toEqual([
      [instanceId(1), 'running', 'ok'],
      [instanceId(2), 'stopped', 'not-applicable'],
      [instanceId(3), 'terminated', 'not-applicable'],
    ]);
  });

  it('should filter by event.code and mark past events as completed', async () => {
    world.aws.state.seedInstance(
      anInstance(1, { scheduledEvents: [{ code: 'system-reboot', notBefore: '1h', notAfter: '2h' }] }),
    );
    world.aws.state.seedInstance(anInstance(2, { scheduledEvents: [{ code: 'instance-stop', notBefore: '1d' }] }));
    world.clock.advance(3 * 3_600_000);

    const out = await world.ec2.send(
      new DescribeInstanceStatusCommand({ Filters: [{ Name: 'event.code', Values: ['system-reboot'] }] }),
    );

    expect(out.InstanceStatuses?.map((s) => s.InstanceId)).toEqual([instanceId(1)]);
    expect(out.InstanceStatuses?.[0]?.Events?.[0]?.Description).toBe('[Completed] Scheduled system reboot');
  });
});

describe('CreateTags and DeleteTags', () => {
  it('should add, overwrite and remove tags and report them as changes', async () => {
    world.aws.state.seedInstance(anInstance(1, { tags: { a: '1', b: '2' } }));

    await world.ec2.send(
      new CreateTagsCommand({
        Resources: [instanceId(1)],
        Tags: [
          { Key: 'ec2-node-reconciler/decommission', Value: 'true' },
          { Key: 'a', Value: 'one' },
        ],
      }),
    );
    await world.ec2.send(
      new DeleteTagsCommand({ Resources: [instanceId(1)], Tags: [{ Key: 'b', Value: 'not-2' }, { Key: 'a' }] }),
    );
    const [instance] = instancesOf(
      await world.ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceId(1)] })),
    );

    expect(instance?.Tags).toEqual([
      { Key: 'b', Value: '2' },
      { Key: 'ec2-node-reconciler/decommission', Value: 'true' },
    ]);
    // by: 'api' — made through CreateTags/DeleteTags, so announced as a Tag Change on Resource event (simulate/tag-events.ts).
    expect(world.aws.state.changes.filter((c) => c.kind === 'instance-tags')).toEqual([
      {
        kind: 'instance-tags',
        at: START,
        instanceId: instanceId(1),
        set: { 'ec2-node-reconciler/decommission': 'true', a: 'one' },
        removed: [],
        by: 'api',
      },
      { kind: 'instance-tags', at: START, instanceId: instanceId(1), set: {}, removed: ['a'], by: 'api' },
    ]);
  });

  it('should refuse reserved aws: keys and unknown instances, changing nothing', async () => {
    world.aws.state.seedInstance(anInstance(1));

    const reserved = await errorOf(
      world.ec2.send(new CreateTagsCommand({ Resources: [instanceId(1)], Tags: [{ Key: 'aws:x', Value: 'y' }] })),
    );
    const unknown = await errorOf(
      world.ec2.send(
        new CreateTagsCommand({ Resources: [instanceId(1), instanceId(2)], Tags: [{ Key: 'k', Value: 'v' }] }),
      ),
    );
    const missing = await errorOf(
      world.ec2.send(new CreateTagsCommand({ Resources: [instanceId(1)], Tags: undefined })),
    );

    expect(reserved.name).toBe('InvalidParameterValue');
    expect(unknown.name).toBe('InvalidInstanceID.NotFound');
    expect(missing).toMatchObject({ name: 'MissingParameter', message: 'The request must contain the parameter Tag' });
    expect(world.aws.state.instanceView(instanceId(1))?.tags).toEqual({ 'eks:cluster-name': 'demo' });
  });
});

describe('TerminateInstances', () => {
  it('should move the instance through shutting-down to terminated on the virtual clock', async () => {
    world.aws.state.seedInstance(anInstance(1));

    const out = await world.ec2.send(new TerminateInstancesCommand({ InstanceIds: [instanceId(1)] }));
    const during = await world.ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceId(1)] }));
    world.clock.advance(30_000);
    const after = await world.ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceId(1)] }));

    expect(out.TerminatingInstances).toEqual([
      {
        InstanceId: instanceId(1),
        CurrentState: { Code: 32, Name: 'shutting-down' },
        PreviousState: { Code: 16, Name: 'running' },
      },
    ]);
    expect(instancesOf(during)[0]?.State?.Name).toBe('shutting-down');
    expect(instancesOf(after)[0]?.State?.Name).toBe('terminated');
    expect(world.aws.state.changes).toEqual([
      { kind: 'instance-state', at: START, instanceId: instanceId(1), from: 'running', to: 'shutting-down' },
      {
        kind: 'instance-state',
        at: START + 30_000,
        instanceId: instanceId(1),
        from: 'shutting-down',
        to: 'terminated',
      },
    ]);
  });
});

describe('throttling', () => {
  it('should answer RequestLimitExceeded (503) and let the SDK retry until it succeeds', async () => {
    world.aws.state.seedInstance(anInstance(1));
    world.aws.faults.throttle({ service: 'ec2', operation: 'DescribeInstances', count: 2 });

    const out = await world.ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceId(1)] }));

    expect(idsOf(out)).toEqual([instanceId(1)]);
    expect(out.$metadata.attempts).toBe(3);
    expect(world.aws.requestLog.filter({ operation: 'DescribeInstances' }).map((e) => [e.status, e.errorCode])).toEqual(
      [
        [503, 'RequestLimitExceeded'],
        [503, 'RequestLimitExceeded'],
        [200, undefined],
      ],
    );
    expect(world.aws.counters.get('ec2', 'DescribeInstances')).toEqual({ requests: 3, errors: 2, throttled: 2 });
  });

  it('should surface the throttle once the SDK has used its attempts', async () => {
    world.aws.faults.throttle({ service: 'ec2', script: [true, true, true, false] });

    const error = await errorOf(world.ec2.send(new DescribeInstancesCommand({})));

    expect(error).toMatchObject({ name: 'RequestLimitExceeded', status: 503 });
    expect(world.aws.counters.get('ec2').throttled).toBe(3);
  });
});
