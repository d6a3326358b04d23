// The DescribeAutoScalingGroups reader must find what the SDK finds: each instance's group,
// LifecycleState and HealthStatus, and the group's suspended processes (node repair reads both),
// whichever order a group's fields come in, and nothing from other lists (tags) that also hold `member`s.
import { DescribeAutoScalingGroupsCommand } from '@aws-sdk/client-auto-scaling';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AutoScalingAdapter, healthStatusOf, type AsgMembership } from '../../lib/aws/autoscaling.js';
import { madeClient } from '../../lib/aws/clients.js';
import type { InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import { parseGroupsPage, suspendedProcessesOf, UnexpectedGroupsXml } from '../../lib/aws/groups-xml.js';
import { anInstance, instanceId, startWorld, type World } from '@ec2-node-reconciler/sandbox/test/aws/support/world.js';

const PAGE = `<DescribeAutoScalingGroupsResponse xmlns="http://autoscaling.amazonaws.com/doc/2011-01-01/">
  <DescribeAutoScalingGroupsResult>
    <AutoScalingGroups>
      <member>
        <Tags><member><Key>eks:cluster-name</Key><Value>demo</Value><ResourceId>ng-a</ResourceId></member></Tags>
        <Instances>
          <member><InstanceId>i-0aaaaaaaaaaaaaaa1</InstanceId><LifecycleState>Terminating:Wait</LifecycleState><HealthStatus>Healthy</HealthStatus></member>
          <member><LifecycleState>InService</LifecycleState><InstanceId>i-0aaaaaaaaaaaaaaa2</InstanceId></member>
          <member><HealthStatus>Unhealthy</HealthStatus><InstanceId>i-0aaaaaaaaaaaaaaa3</InstanceId><LifecycleState>InService</LifecycleState></member>
        </Instances>
        <SuspendedProcesses><member><ProcessName>ReplaceUnhealthy</ProcessName><SuspensionReason>User suspended at 2026-11-30T10:00:00Z</SuspensionReason></member><member><ProcessName>Launch</ProcessName></member></SuspendedProcesses>
        <AutoScalingGroupName>ng-a</AutoScalingGroupName>
      </member>
      <member>
        <AutoScalingGroupName>ng-b</AutoScalingGroupName>
        <SuspendedProcesses/>
        <Instances><member><InstanceId>i-0bbbbbbbbbbbbbbb1</InstanceId><LifecycleState>InService</LifecycleState></member></Instances>
      </member>
      <member><AutoScalingGroupName>ng-empty</AutoScalingGroupName><Instances/></member>
    </AutoScalingGroups>
    <NextToken>next-page</NextToken>
  </DescribeAutoScalingGroupsResult>
  <ResponseMetadata><RequestId>r</RequestId></ResponseMetadata>
</DescribeAutoScalingGroupsResponse>`;

describe('parseGroupsPage', () => {
  it('should file every instance under its group, whatever the order of the group’s fields, and keep the next token', () => {
    const page = parseGroupsPage(PAGE);

    expect([...page.members]).toEqual([
      [
        'i-0aaaaaaaaaaaaaaa1',
        {
          group: 'ng-a',
          lifecycleState: 'Terminating:Wait',
          healthStatus: 'Healthy',
          suspendedProcesses: ['Launch', 'ReplaceUnhealthy'],
        },
      ],
      [
        'i-0aaaaaaaaaaaaaaa2',
        { group: 'ng-a', lifecycleState: 'InService', suspendedProcesses: ['Launch', 'ReplaceUnhealthy'] },
      ],
      [
        'i-0aaaaaaaaaaaaaaa3',
        {
          group: 'ng-a',
          lifecycleState: 'InService',
          healthStatus: 'Unhealthy',
          suspendedProcesses: ['Launch', 'ReplaceUnhealthy'],
        },
      ],
      ['i-0bbbbbbbbbbbbbbb1', { group: 'ng-b', lifecycleState: 'InService' }],
    ]);
    expect(page.nextToken).toBe('next-page');
  });

  it('should not file a group’s last instance again under the next group, whose suspended processes are `member`s too', () => {
    const page = `<DescribeAutoScalingGroupsResponse><DescribeAutoScalingGroupsResult><AutoScalingGroups>
      <member><AutoScalingGroupName>ng-a</AutoScalingGroupName>
        <Instances><member><InstanceId>i-0aaaaaaaaaaaaaaa1</InstanceId><LifecycleState>InService</LifecycleState></member><member><InstanceId>i-0aaaaaaaaaaaaaaa2</InstanceId><LifecycleState>InService</LifecycleState></member></Instances>
        <SuspendedProcesses/></member>
      <member><AutoScalingGroupName>ng-b</AutoScalingGroupName><Instances/>
        <SuspendedProcesses><member><ProcessName>AZRebalance</ProcessName><SuspensionReason>User suspended</SuspensionReason></member></SuspendedProcesses></member>
      <member><AutoScalingGroupName>ng-c</AutoScalingGroupName>
        <SuspendedProcesses><member><ProcessName>Launch</ProcessName></member></SuspendedProcesses><Instances/></member>
    </AutoScalingGroups></DescribeAutoScalingGroupsResult></DescribeAutoScalingGroupsResponse>`;

    expect([...parseGroupsPage(page).members]).toEqual([
      ['i-0aaaaaaaaaaaaaaa1', { group: 'ng-a', lifecycleState: 'InService' }],
      ['i-0aaaaaaaaaaaaaaa2', { group: 'ng-a', lifecycleState: 'InService' }],
    ]);
  });

  it('should tell which groups have a warm pool, wherever their WarmPoolConfiguration comes', () => {
    const page = `<DescribeAutoScalingGroupsResponse><DescribeAutoScalingGroupsResult><AutoScalingGroups>
      <member><WarmPoolConfiguration><MinSize>0</MinSize><PoolState>Stopped</PoolState></WarmPoolConfiguration><WarmPoolSize>2</WarmPoolSize>
        <AutoScalingGroupName>ng-warm</AutoScalingGroupName><Instances/></member>
      <member><AutoScalingGroupName>ng-cold</AutoScalingGroupName><Instances/></member>
      <member><AutoScalingGroupName>ng-warm-2</AutoScalingGroupName><Instances/><WarmPoolConfiguration><PoolState>Hibernated</PoolState></WarmPoolConfiguration></member>
    </AutoScalingGroups></DescribeAutoScalingGroupsResult></DescribeAutoScalingGroupsResponse>`;

    expect([...parseGroupsPage(page).warmPools]).toEqual(['ng-warm', 'ng-warm-2']);
    expect(parseGroupsPage(PAGE).warmPools.size).toBe(0);
  });

  it('should refuse another document', () => {
    expect(() => parseGroupsPage('<DescribeAutoScalingInstancesResponse/>')).toThrow(UnexpectedGroupsXml);
  });
});

describe('AutoScalingAdapter.describeGroups through the emulator', () => {
  let world: World;
  beforeEach(async () => {
    world = await startWorld();
  });
  afterEach(async () => {
    await world.close();
  });

  it('should find what the SDK finds, 100 groups a call', async () => {
    for (let n = 1; n <= 450; n++) {
      world.aws.state.seedInstance(
        anInstance(n, {
          autoScaling: {
            group: `ng-${n % 150}`,
            ...(n % 50 === 0 ? { lifecycleState: 'Terminating:Wait', hook: 'drain-hook' } : {}),
          },
        }),
      );
    }
    const groups = Array.from({ length: 150 }, (_, g) => `ng-${g}`);
    // One member the group has found Unhealthy (it is being replaced): repair reads that.
    const sick = world.aws.state.autoScaling.member(instanceId(7));
    if (sick) sick.healthStatus = 'UNHEALTHY';
    // Groups with processes suspended: repair reads them (a group that would not replace a machine takes none out).
    world.aws.state.autoScaling.suspend('ng-3', ['ReplaceUnhealthy', 'AZRebalance'], world.clock.now());
    world.aws.state.autoScaling.suspend('ng-120', [], world.clock.now());
    const bySdk = new Map<string, AsgMembership>();
    for (const names of [groups.slice(0, 100), groups.slice(100)]) {
      const out = await world.autoScaling.send(
        new DescribeAutoScalingGroupsCommand({ AutoScalingGroupNames: names, MaxRecords: 100 }),
      );
      for (const g of out.AutoScalingGroups ?? []) {
        const suspendedProcesses = suspendedProcessesOf((g.SuspendedProcesses ?? []).map((p) => p.ProcessName));
        for (const i of g.Instances ?? []) {
          const healthStatus = healthStatusOf(i.HealthStatus);
          bySdk.set(i.InstanceId ?? '', {
            group: g.AutoScalingGroupName ?? '',
            lifecycleState: i.LifecycleState ?? '',
            ...(healthStatus ? { healthStatus } : {}),
            ...(suspendedProcesses ? { suspendedProcesses } : {}),
          });
        }
      }
    }
    world.aws.requestLog.clear();

    const lookup = await new AutoScalingAdapter(madeClient(world.autoScaling)).describeGroups([...groups, 'absent']);

    expect(lookup.failed).toEqual(new Map());
    expect(new Map([...lookup.members].sort(([a], [b]) => a.localeCompare(b)))).toEqual(
      new Map([...bySdk].sort(([a], [b]) => a.localeCompare(b))),
    );
    expect(lookup.members.get(instanceId(50) as InstanceId)).toEqual({
      group: 'ng-50',
      lifecycleState: 'Terminating:Wait',
      healthStatus: 'Healthy',
    });
    expect(lookup.members.get(instanceId(7) as InstanceId)).toEqual({
      group: 'ng-7',
      lifecycleState: 'InService',
      healthStatus: 'Unhealthy',
    });
    expect(lookup.members.get(instanceId(3) as InstanceId)?.suspendedProcesses).toEqual([
      'AZRebalance',
      'ReplaceUnhealthy',
    ]);
    expect(lookup.members.get(instanceId(120) as InstanceId)?.suspendedProcesses).toHaveLength(9);
    expect(world.aws.requestLog.filter({ operation: 'DescribeAutoScalingGroups' })).toHaveLength(2);
  });
});

describe('AutoScalingAdapter warm pools through the emulator', () => {
  let world: World;
  beforeEach(async () => {
    world = await startWorld();
  });
  afterEach(async () => {
    await world.close();
  });

  it('should see a warm pool beside its group, and list all its members, 50 a page', async () => {
    world.aws.state.seedInstance(anInstance(1, { autoScaling: { group: 'ng-warm', hook: 'drain-hook' } }));
    for (let n = 2; n <= 61; n++) {
      const terminating = n === 60;
      world.aws.state.seedInstance(
        anInstance(n, {
          state: 'stopped',
          autoScaling: {
            group: 'ng-warm',
            lifecycleState: terminating ? 'Warmed:Terminating:Wait' : 'Warmed:Stopped',
            hook: 'drain-hook',
          },
        }),
      );
    }
    world.aws.state.seedInstance(anInstance(70, { autoScaling: { group: 'ng-cold' } }));
    const adapter = new AutoScalingAdapter(madeClient(world.autoScaling));

    const groups = await adapter.describeGroups(['ng-warm', 'ng-cold']);
    world.aws.requestLog.clear();
    const pool = await adapter.warmPoolMembers('ng-warm');

    // The group lists its one member in service; its pool is told apart, its members are not among Instances.
    expect([...groups.members.keys()].sort()).toEqual([instanceId(1), instanceId(70)].sort());
    expect([...groups.warmPools]).toEqual(['ng-warm']);
    expect(pool.size).toBe(60);
    expect(pool.get(instanceId(60) as InstanceId)).toEqual({
      group: 'ng-warm',
      lifecycleState: 'Warmed:Terminating:Wait',
      healthStatus: 'Healthy',
    });
    expect(pool.get(instanceId(2) as InstanceId)?.lifecycleState).toBe('Warmed:Stopped');
    expect(world.aws.requestLog.filter({ operation: 'DescribeWarmPool' })).toHaveLength(2);
    await expect(adapter.warmPoolMembers('ng-cold')).resolves.toEqual(new Map());
  });
});
