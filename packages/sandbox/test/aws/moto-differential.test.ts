// Oracle 2, an emulator written by others: moto 5 (`python3 -m moto.server`). The same world is
// seeded in moto (through the SDK) and in ours (programmatically), the same AWS SDK v3 calls go to
// both, and normalised answers are compared. Where moto is known to differ from AWS, the test
// follows the AWS documentation and says so (MOTO DIFFERS).
import {
  CompleteLifecycleActionCommand,
  CreateAutoScalingGroupCommand,
  DescribeAutoScalingGroupsCommand,
  DescribeAutoScalingInstancesCommand,
  ResumeProcessesCommand,
  SetInstanceHealthCommand,
  SuspendProcessesCommand,
} from '@aws-sdk/client-auto-scaling';
import {
  CreateLaunchTemplateCommand,
  DescribeInstancesCommand,
  DescribeInstanceStatusCommand,
  RunInstancesCommand,
  StopInstancesCommand,
  TerminateInstancesCommand,
  type DescribeInstancesCommandInput,
  type Instance,
} from '@aws-sdk/client-ec2';
import { CreateClusterCommand, DescribeClusterCommand } from '@aws-sdk/client-eks';
import { PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import {
  CreateStateMachineCommand,
  DescribeExecutionCommand,
  ListExecutionsCommand,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { GetCallerIdentityCommand } from '@aws-sdk/client-sts';
import { afterAll, beforeAll, beforeEach, afterEach, expect, it } from 'vitest';
import { describeWithOracle, motoMissing, motoVersion, startMoto, type Moto } from './support/oracles.js';
import { clientsFor, destroyClients, startWorld, type Clients, type World } from './support/world.js';

const ACCOUNT = '123456789012'; // moto's default account: ARNs then compare as plain strings
const ROLE = `arn:aws:iam::${ACCOUNT}:role/sandbox`;

let moto: Moto;
let motoClients: Clients;
let world: World;

/** What either side answered: the output, or the error's code. */
async function outcome<T>(call: Promise<T>): Promise<{ ok: T } | { error: string }> {
  try {
    return { ok: await call };
  } catch (error) {
    return { error: (error as Error).name };
  }
}

async function both<T>(call: (clients: Clients) => Promise<T>): Promise<[T, T]> {
  return Promise.all([call(motoClients), call(world)]);
}

const normaliseInstance = (i: Instance) => ({
  id: i.InstanceId,
  state: i.State?.Name,
  code: i.State?.Code,
  zone: i.Placement?.AvailabilityZone,
  // MOTO DIFFERS: moto keeps a terminated instance's private DNS name and IP; EC2 clears them
  // (the network interface is gone), so they are only compared while the instance exists.
  privateDnsName: i.State?.Name === 'terminated' ? '(cleared on EC2)' : i.PrivateDnsName,
  tags: [...(i.Tags ?? [])].map((t) => `${t.Key ?? ''}=${t.Value ?? ''}`).sort(),
  launchTime: i.LaunchTime ? Math.floor(i.LaunchTime.getTime() / 1000) : undefined,
  lifecycle: i.InstanceLifecycle,
});

async function describeBoth(input: DescribeInstancesCommandInput): Promise<[unknown, unknown]> {
  return both(async (c) => {
    const result = await outcome(c.ec2.send(new DescribeInstancesCommand(input)));
    if ('error' in result) return result;
    const instances = (result.ok.Reservations ?? []).flatMap((r) => r.Instances ?? []);
    return instances.map(normaliseInstance).sort((a, b) => String(a.id).localeCompare(String(b.id)));
  });
}

type Launch = { zone?: string; tags?: Record<string, string>; state?: 'running' | 'stopped' | 'terminated' };

/** Launches in moto (one reservation per instance), reads it back, and seeds the same instance in ours. */
async function launch(spec: Launch = {}): Promise<Instance> {
  const zone = spec.zone ?? 'us-east-1a';
  const tags = spec.tags ?? { 'eks:cluster-name': 'demo' };
  const run = await motoClients.ec2.send(
    new RunInstancesCommand({
      ImageId: 'ami-12c6146b',
      InstanceType: 'm5.large',
      MinCount: 1,
      MaxCount: 1,
      Placement: { AvailabilityZone: zone },
      TagSpecifications:
        Object.keys(tags).length > 0
          ? [{ ResourceType: 'instance', Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })) }]
          : undefined,
    }),
  );
  const id = run.Instances?.[0]?.InstanceId ?? '';
  if (spec.state === 'stopped') await motoClients.ec2.send(new StopInstancesCommand({ InstanceIds: [id] }));
  if (spec.state === 'terminated') await motoClients.ec2.send(new TerminateInstancesCommand({ InstanceIds: [id] }));
  const described = await motoClients.ec2.send(new DescribeInstancesCommand({ InstanceIds: [id] }));
  const instance = described.Reservations?.[0]?.Instances?.[0];
  if (!instance?.LaunchTime || !instance.PrivateDnsName) throw new Error(`moto did not describe ${id}`);
  world.aws.state.seedInstance({
    id,
    state: spec.state ?? 'running',
    zone,
    tags,
    privateDnsName: instance.PrivateDnsName,
    launchedAgo: world.clock.now() - instance.LaunchTime.getTime(),
  });
  return instance;
}

/** An Auto Scaling group of `size` instances launched in moto, and the same members seeded in ours. */
async function launchGroup(name: string, size: number) {
  await motoClients.ec2.send(
    new CreateLaunchTemplateCommand({
      LaunchTemplateName: name,
      LaunchTemplateData: { ImageId: 'ami-12c6146b', InstanceType: 'm5.large' },
    }),
  );
  await motoClients.autoScaling.send(
    new CreateAutoScalingGroupCommand({
      AutoScalingGroupName: name,
      LaunchTemplate: { LaunchTemplateName: name },
      MinSize: size,
      MaxSize: size,
      DesiredCapacity: size,
      AvailabilityZones: ['us-east-1a'],
    }),
  );
  const members =
    (await motoClients.autoScaling.send(new DescribeAutoScalingInstancesCommand({}))).AutoScalingInstances ?? [];
  for (const m of members.filter((member) => member.AutoScalingGroupName === name))
    world.aws.state.seedInstance({
      id: m.InstanceId ?? '',
      state: 'running',
      zone: m.AvailabilityZone ?? '',
      autoScaling: { group: name },
    });
  return members;
}

const missing = motoMissing();

describeWithOracle(`moto differential (moto ${missing ? 'missing' : motoVersion()})`, missing, () => {
  beforeAll(async () => {
    moto = await startMoto();
    motoClients = clientsFor({
      endpoint: moto.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'moto' },
    });
  });
  afterAll(async () => {
    destroyClients(motoClients);
    await moto.stop();
  });
  beforeEach(async () => {
    await fetch(`${moto.endpoint}/moto-api/reset`, { method: 'POST' });
    // Ahead of real time, so every moto launch time is in our clock's past and seeds exactly.
    world = await startWorld({ accountId: ACCOUNT, start: Date.now() + 60_000 });
  });
  afterEach(async () => {
    await world.close();
  });

  it('should describe the same instances by id, whatever their state', async () => {
    const instances = [
      await launch(),
      await launch({ state: 'stopped', zone: 'us-east-1b' }),
      await launch({ state: 'terminated', tags: { team: 'x' } }),
    ];

    const [theirs, ours] = await describeBoth({ InstanceIds: instances.map((i) => i.InstanceId ?? '') });

    expect(ours).toEqual(theirs);
    expect(ours).toHaveLength(3);
  });

  it.each<[string, (ids: readonly string[], dns: string) => DescribeInstancesCommandInput]>([
    [
      'instance-id (one unknown)',
      (ids) => ({ Filters: [{ Name: 'instance-id', Values: [ids[0] ?? '', 'i-0123456789abcdef0'] }] }),
    ],
    ['private-dns-name', (_ids, dns) => ({ Filters: [{ Name: 'private-dns-name', Values: [dns] }] })],
    ['instance-state-name', () => ({ Filters: [{ Name: 'instance-state-name', Values: ['stopped', 'terminated'] }] })],
    ['tag:<key>', () => ({ Filters: [{ Name: 'tag:eks:cluster-name', Values: ['demo'] }] })],
    ['tag-key', () => ({ Filters: [{ Name: 'tag-key', Values: ['team'] }] })],
    [
      'tag and state together',
      () => ({
        Filters: [
          { Name: 'tag:eks:cluster-name', Values: ['demo'] },
          { Name: 'instance-state-name', Values: ['running'] },
        ],
      }),
    ],
  ])('should filter alike by %s', async (_name, input) => {
    const first = await launch();
    await launch({ state: 'stopped' });
    await launch({ state: 'terminated', tags: { team: 'x', 'eks:cluster-name': 'demo' } });
    await launch({ tags: { team: 'y' } });

    const [theirs, ours] = await describeBoth(input([first.InstanceId ?? ''], first.PrivateDnsName ?? ''));

    expect(ours).toEqual(theirs);
  });

  it('should paginate alike with MaxResults and NextToken', async () => {
    for (let n = 0; n < 7; n++) await launch();

    const pages = await both(async (c) => {
      const sizes: number[] = [];
      const ids: string[] = [];
      let token: string | undefined;
      do {
        const out = await c.ec2.send(new DescribeInstancesCommand({ MaxResults: 5, NextToken: token }));
        const page = (out.Reservations ?? []).flatMap((r) => r.Instances ?? []);
        sizes.push(page.length);
        ids.push(...page.map((i) => i.InstanceId ?? ''));
        token = out.NextToken;
      } while (token);
      return { sizes, ids: ids.sort() };
    });

    expect(pages[1]).toEqual(pages[0]);
    expect(pages[1].sizes).toEqual([5, 2]);
  });

  it('should answer InvalidInstanceID.NotFound alike for unknown ids', async () => {
    const known = await launch();

    const [one, many] = await Promise.all([
      describeBoth({ InstanceIds: [known.InstanceId ?? '', 'i-0123456789abcdef0'] }),
      describeBoth({ InstanceIds: ['i-0123456789abcdef0', 'i-0123456789abcdef1'] }),
    ]);

    expect(one[1]).toEqual(one[0]);
    expect(many[1]).toEqual(many[0]);
    expect(one[1]).toEqual({ error: 'InvalidInstanceID.NotFound' });
  });

  it('MOTO DIFFERS: a malformed id is InvalidInstanceID.Malformed on EC2, NotFound in moto', async () => {
    const [theirs, ours] = await describeBoth({ InstanceIds: ['i-123'] });

    expect(theirs).toEqual({ error: 'InvalidInstanceID.NotFound' });
    expect(ours).toEqual({ error: 'InvalidInstanceID.Malformed' });
  });

  it('MOTO DIFFERS: MaxResults below 5 and unknown filters are refused by EC2; moto accepts the first and fails with a 500 on the second', async () => {
    await launch();

    const [theirsMax, oursMax] = await describeBoth({ MaxResults: 3 });
    const oursFilter = await outcome(
      world.ec2.send(new DescribeInstancesCommand({ Filters: [{ Name: 'colour', Values: ['blue'] }] })),
    );

    expect(theirsMax).not.toHaveProperty('error');
    expect(oursMax).toEqual({ error: 'InvalidParameterValue' });
    expect(oursFilter).toEqual({ error: 'InvalidParameterValue' });
  });

  it('should report instance status alike, running only or all instances', async () => {
    await launch();
    await launch({ state: 'stopped' });
    await launch({ state: 'terminated' });

    const statuses = await Promise.all(
      [false, true].map((all) =>
        both(async (c) => {
          const out = await c.ec2.send(new DescribeInstanceStatusCommand({ IncludeAllInstances: all }));
          return (out.InstanceStatuses ?? [])
            .map((s) => [
              s.InstanceId,
              s.AvailabilityZone,
              s.InstanceState?.Name,
              s.InstanceStatus?.Status,
              s.SystemStatus?.Status,
              s.InstanceStatus?.Details?.map((d) => `${d.Name ?? ''}:${d.Status ?? ''}`),
            ])
            .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
        }),
      ),
    );

    for (const [theirs, ours] of statuses) expect(ours).toEqual(theirs);
    expect(statuses[1]?.[1]).toHaveLength(3);
    // MOTO DIFFERS: moto has no scheduled events; ours reports them (see sdk-ec2.test.ts), so none are seeded here.
  });

  it('should describe an EKS cluster with the same shape, and 404 an unknown one alike', async () => {
    const created = await motoClients.eks.send(
      new CreateClusterCommand({ name: 'demo', roleArn: ROLE, resourcesVpcConfig: { subnetIds: [] } }),
    );
    world.aws.state.seedCluster({
      name: 'demo',
      endpoint: created.cluster?.endpoint ?? '',
      certificateAuthorityData: created.cluster?.certificateAuthority?.data ?? 'x',
      roleArn: ROLE,
    });

    const [theirs, ours] = await both((c) => c.eks.send(new DescribeClusterCommand({ name: 'demo' })));
    const missing = await both((c) => outcome(c.eks.send(new DescribeClusterCommand({ name: 'nope' }))));

    const shape = (value: unknown): unknown =>
      value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date)
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v)]))
        : value instanceof Date
          ? 'date'
          : Array.isArray(value)
            ? 'array'
            : typeof value;
    // Fields a cluster has only when it was created with them (an idempotency token, envelope encryption).
    const {
      clientRequestToken: _token,
      encryptionConfig: _encryption,
      ...theirShape
    } = shape(theirs.cluster) as Record<string, unknown>;
    // Every other field moto returns, ours returns with the same type (ours returns more: accessConfig, health, …).
    expect(shape(ours.cluster)).toMatchObject(theirShape);
    expect(Object.keys(theirShape).length).toBeGreaterThan(10);
    expect([ours.cluster?.arn, ours.cluster?.status, ours.cluster?.endpoint, ours.cluster?.roleArn]).toEqual([
      theirs.cluster?.arn,
      theirs.cluster?.status,
      theirs.cluster?.endpoint,
      theirs.cluster?.roleArn,
    ]);
    expect(missing[1]).toEqual(missing[0]);
    expect(missing[1]).toEqual({ error: 'ResourceNotFoundException' });
  });

  it('should answer GetCallerIdentity with the same fields and account', async () => {
    const [theirs, ours] = await both((c) => c.sts.send(new GetCallerIdentityCommand({})));

    expect(Object.keys(ours).sort()).toEqual(Object.keys(theirs).sort());
    expect(ours.Account).toBe(theirs.Account);
    for (const arn of [theirs.Arn, ours.Arn]) expect(arn).toMatch(new RegExp(`^arn:aws:(iam|sts)::${ACCOUNT}:user/`));
    // MOTO DIFFERS: moto names every caller user/moto; ours derives the user from the access key (or its configured ARN).
  });

  it('should fail the same PutEvents entries with the same codes, and the same whole calls', async () => {
    const entries: PutEventsRequestEntry[] = [
      { Source: 'ec2-node-reconciler', DetailType: 'Node Deleted', Detail: '{"node":"n1"}' },
      { Source: 'ec2-node-reconciler', Detail: '{}' },
      { Source: 'ec2-node-reconciler', DetailType: 'x', Detail: '{oops' },
      { DetailType: 'x', Detail: '{}' },
      { Source: 'ec2-node-reconciler', DetailType: 'x', Detail: '[1]' },
    ];
    const codes = (out: { FailedEntryCount?: number; Entries?: { EventId?: string; ErrorCode?: string }[] }) => ({
      failed: out.FailedEntryCount,
      entries: out.Entries?.map((e) => e.ErrorCode ?? (e.EventId ? 'accepted' : 'none')),
    });

    const [theirs, ours] = await both(async (c) =>
      codes(await c.events.send(new PutEventsCommand({ Entries: entries }))),
    );
    const unknownBus = await both((c) =>
      outcome(c.events.send(new PutEventsCommand({ Entries: [{ ...entries[0], EventBusName: 'missing' }] }))),
    );
    const tooMany = await both((c) =>
      outcome(c.events.send(new PutEventsCommand({ Entries: Array.from({ length: 11 }, () => entries[0] ?? {}) }))),
    );

    expect(ours).toEqual(theirs);
    expect(ours).toEqual({
      failed: 3,
      entries: ['accepted', 'InvalidArgument', 'MalformedDetail', 'InvalidArgument', 'accepted'],
    });
    expect(unknownBus[1]).toEqual(unknownBus[0]);
    expect(unknownBus[1]).toEqual({ error: 'ResourceNotFoundException' });
    expect(tooMany[1]).toEqual(tooMany[0]);
    expect(tooMany[1]).toEqual({ error: 'ValidationException' });
  });

  it('should start executions alike: idempotent for the same name and input, ExecutionAlreadyExists otherwise', async () => {
    const machine = await motoClients.sfn.send(
      new CreateStateMachineCommand({
        name: 'drain',
        roleArn: ROLE,
        definition: JSON.stringify({ StartAt: 'Done', States: { Done: { Type: 'Succeed' } } }),
      }),
    );
    world.aws.state.seedStateMachine({ name: 'drain' });
    const stateMachineArn = machine.stateMachineArn ?? '';
    const start = (input: string) =>
      both((c) =>
        outcome(c.sfn.send(new StartExecutionCommand({ stateMachineArn, name: 'demo-i-1-evt-1', input }))).then((o) =>
          'ok' in o ? o.ok.executionArn : o,
        ),
      );

    const first = await start('{"a":1}');
    const same = await start('{"a":1}');
    const different = await start('{"a":2}');
    const described = await both(async (c) => {
      const d = await c.sfn.send(
        new DescribeExecutionCommand({ executionArn: typeof first[0] === 'string' ? first[0] : '' }),
      );
      return [d.executionArn, d.stateMachineArn, d.name, d.status, d.input];
    });
    const errors = await Promise.all([
      both((c) =>
        outcome(
          c.sfn.send(
            new StartExecutionCommand({ stateMachineArn: stateMachineArn.replace(':drain', ':other'), name: 'x' }),
          ),
        ),
      ),
      both((c) => outcome(c.sfn.send(new StartExecutionCommand({ stateMachineArn: 'bogus', name: 'x' })))),
      both((c) =>
        outcome(
          c.sfn.send(
            new DescribeExecutionCommand({ executionArn: `arn:aws:states:us-east-1:${ACCOUNT}:execution:drain:nope` }),
          ),
        ),
      ),
    ]);

    expect(first[1]).toBe(first[0]);
    expect(same).toEqual(first);
    expect(different).toEqual([{ error: 'ExecutionAlreadyExists' }, { error: 'ExecutionAlreadyExists' }]);
    expect(described[1]).toEqual(described[0]);
    expect(errors.map(([theirs, ours]) => [theirs, ours])).toEqual([
      [{ error: 'StateMachineDoesNotExist' }, { error: 'StateMachineDoesNotExist' }],
      [{ error: 'InvalidArn' }, { error: 'InvalidArn' }],
      [{ error: 'ExecutionDoesNotExist' }, { error: 'ExecutionDoesNotExist' }],
    ]);
  });

  it('should list executions alike: the most recent first, by status, and refuse an unknown or malformed machine', async () => {
    const machine = await motoClients.sfn.send(
      new CreateStateMachineCommand({
        name: 'listed',
        roleArn: ROLE,
        definition: JSON.stringify({ StartAt: 'Wait', States: { Wait: { Type: 'Wait', Seconds: 3600, End: true } } }),
      }),
    );
    world.aws.state.seedStateMachine({ name: 'listed' });
    const stateMachineArn = machine.stateMachineArn ?? '';
    for (const name of ['older', 'newer']) {
      await both((c) => c.sfn.send(new StartExecutionCommand({ stateMachineArn, name, input: '{}' })));
      // Start dates are whole seconds apart on both sides (moto's clock is the wall's, ours virtual).
      world.clock.advance(1_000);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
    }
    const list = (statusFilter?: 'RUNNING' | 'SUCCEEDED') =>
      both(async (c) => {
        const out = await c.sfn.send(
          new ListExecutionsCommand({ stateMachineArn, ...(statusFilter ? { statusFilter } : {}) }),
        );
        return (out.executions ?? []).map((e) => [e.name, e.status, e.executionArn, e.stateMachineArn]);
      });

    const [all, running, succeeded] = await Promise.all([list(), list('RUNNING'), list('SUCCEEDED')]);
    const errors = await Promise.all([
      both((c) =>
        outcome(
          c.sfn.send(new ListExecutionsCommand({ stateMachineArn: stateMachineArn.replace(':listed', ':other') })),
        ),
      ),
      both((c) => outcome(c.sfn.send(new ListExecutionsCommand({ stateMachineArn: 'bogus' })))),
    ]);

    expect(all[1]).toEqual(all[0]);
    expect(all[1].map(([name, status]) => [name, status])).toEqual([
      ['newer', 'RUNNING'],
      ['older', 'RUNNING'],
    ]);
    expect(running[1]).toEqual(running[0]);
    expect(succeeded).toEqual([[], []]);
    expect(errors).toEqual([
      [{ error: 'StateMachineDoesNotExist' }, { error: 'StateMachineDoesNotExist' }],
      [{ error: 'InvalidArn' }, { error: 'InvalidArn' }],
    ]);
  });

  it('should describe Auto Scaling instances alike; MOTO DIFFERS on lifecycle actions and unhealthy replacement', async () => {
    const members = await launchGroup('ng-a', 2);
    // MOTO DIFFERS: DescribeAutoScalingInstances spells health HEALTHY/UNHEALTHY on AWS (DescribeAutoScalingGroups
    // says Healthy); moto says Healthy in both. Compared case-insensitively, and ours checked as AWS spells it.
    const normalise = (c: Clients) =>
      c.autoScaling
        .send(new DescribeAutoScalingInstancesCommand({}))
        .then((out) =>
          (out.AutoScalingInstances ?? [])
            .map((i) => [
              i.InstanceId,
              i.AutoScalingGroupName,
              i.AvailabilityZone,
              i.LifecycleState,
              i.HealthStatus?.toUpperCase(),
              i.ProtectedFromScaleIn,
            ])
            .sort(),
        );
    const target = members[0]?.InstanceId ?? '';
    // The sweep reads lifecycle states through the groups (one call for up to 100 groups).
    const groups = (c: Clients) =>
      c.autoScaling
        .send(new DescribeAutoScalingGroupsCommand({ AutoScalingGroupNames: ['ng-a', 'absent'], MaxRecords: 100 }))
        .then((out) =>
          (out.AutoScalingGroups ?? []).map((g) => [
            g.AutoScalingGroupName,
            (g.Instances ?? [])
              .map((i) => [i.InstanceId, i.AvailabilityZone, i.LifecycleState, i.HealthStatus, i.ProtectedFromScaleIn])
              .sort(),
          ]),
        );

    const [theirGroups, ourGroups] = await both(groups);
    const [theirs, ours] = await both(normalise);
    await both((c) =>
      c.autoScaling.send(new SetInstanceHealthCommand({ InstanceId: target, HealthStatus: 'Healthy' })),
    );
    const [theirsHealthy, oursHealthy] = await both(normalise);
    const complete = await both((c) =>
      outcome(
        c.autoScaling.send(
          new CompleteLifecycleActionCommand({
            AutoScalingGroupName: 'ng-a',
            LifecycleHookName: 'drain-hook',
            InstanceId: target,
            LifecycleActionResult: 'CONTINUE',
          }),
        ),
      ),
    );

    expect(theirs).toHaveLength(2);
    expect(ours).toEqual(theirs);
    expect(ourGroups).toEqual(theirGroups);
    expect(
      (await world.autoScaling.send(new DescribeAutoScalingInstancesCommand({}))).AutoScalingInstances?.map(
        (i) => i.HealthStatus,
      ),
    ).toEqual(['HEALTHY', 'HEALTHY']);
    expect(oursHealthy).toEqual(theirsHealthy);
    // EC2 Auto Scaling answers ValidationError (no pending action for that hook); moto 5 does not implement the call.
    expect(complete[1]).toEqual({ error: 'ValidationError' });
    expect(complete[0]).not.toEqual({ error: 'ValidationError' });
  });
  it('should list suspended processes alike through Suspend and ResumeProcesses (node repair stands down on them); MOTO DIFFERS on the suspension reason', async () => {
    await launchGroup('ng-s', 1);
    // MOTO DIFFERS: moto leaves SuspensionReason empty and lists processes in no order; AWS says
    // "User suspended at <time>". Compared as sorted names, with our reason checked on its own.
    const suspended = (c: Clients) =>
      c.autoScaling
        .send(new DescribeAutoScalingGroupsCommand({ AutoScalingGroupNames: ['ng-s'] }))
        .then((out) => (out.AutoScalingGroups?.[0]?.SuspendedProcesses ?? []).map((p) => p.ProcessName).sort());

    const none = await both(suspended);
    await both((c) =>
      c.autoScaling.send(
        new SuspendProcessesCommand({ AutoScalingGroupName: 'ng-s', ScalingProcesses: ['ReplaceUnhealthy', 'Launch'] }),
      ),
    );
    const two = await both(suspended);
    await both((c) =>
      c.autoScaling.send(new ResumeProcessesCommand({ AutoScalingGroupName: 'ng-s', ScalingProcesses: ['Launch'] })),
    );
    const one = await both(suspended);
    await both((c) => c.autoScaling.send(new SuspendProcessesCommand({ AutoScalingGroupName: 'ng-s' })));
    const all = await both(suspended);
    await both((c) => c.autoScaling.send(new ResumeProcessesCommand({ AutoScalingGroupName: 'ng-s' })));
    const resumed = await both(suspended);

    expect(none).toEqual([[], []]);
    expect(two[1]).toEqual(two[0]);
    expect(two[1]).toEqual(['Launch', 'ReplaceUnhealthy']);
    expect(one[1]).toEqual(one[0]);
    expect(all[1]).toEqual(all[0]);
    expect(all[1]).toHaveLength(9);
    expect(resumed).toEqual([[], []]);
  });
});
