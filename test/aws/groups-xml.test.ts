// The DescribeAutoScalingGroups reader must find what the SDK finds: each instance's group,
// LifecycleState and HealthStatus (node repair reads it), whichever order a group's fields come in, and nothing from other lists (tags,
// suspended processes) that also hold `member`s.
import { DescribeAutoScalingGroupsCommand } from '@aws-sdk/client-auto-scaling';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AutoScalingAdapter, healthStatusOf, type AsgMembership } from '../../lib/aws/autoscaling.js';
import { madeClient } from '../../lib/aws/clients.js';
import type { InstanceId } from '../../lib/model/instance-id.js';
import { parseGroupsPage, UnexpectedGroupsXml } from '../../lib/aws/groups-xml.js';
import { anInstance, instanceId, startWorld, type World } from '../sandbox/aws/support/world.js';

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
        <SuspendedProcesses><member><ProcessName>Launch</ProcessName></member></SuspendedProcesses>
        <AutoScalingGroupName>ng-a</AutoScalingGroupName>
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
      ['i-0aaaaaaaaaaaaaaa1', { group: 'ng-a', lifecycleState: 'Terminating:Wait', healthStatus: 'Healthy' }],
      ['i-0aaaaaaaaaaaaaaa2', { group: 'ng-a', lifecycleState: 'InService' }],
      ['i-0aaaaaaaaaaaaaaa3', { group: 'ng-a', lifecycleState: 'InService', healthStatus: 'Unhealthy' }],
    ]);
    expect(page.nextToken).toBe('next-page');
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
      world.aws.state.seedInstance(anInstance(n, { autoScaling: { group: `ng-${n % 150}`, ...(n % 50 === 0 ? { lifecycleState: 'Terminating:Wait', hook: 'drain-hook' } : {}) } }));
    }
    const groups = Array.from({ length: 150 }, (_, g) => `ng-${g}`);
    // One member the group has found Unhealthy (it is being replaced): repair reads that.
    const sick = world.aws.state.autoScaling.member(instanceId(7));
    if (sick) sick.healthStatus = 'UNHEALTHY';
    const bySdk = new Map<string, AsgMembership>();
    for (const names of [groups.slice(0, 100), groups.slice(100)]) {
      const out = await world.autoScaling.send(new DescribeAutoScalingGroupsCommand({ AutoScalingGroupNames: names, MaxRecords: 100 }));
      for (const g of out.AutoScalingGroups ?? []) {
        for (const i of g.Instances ?? []) {
          const healthStatus = healthStatusOf(i.HealthStatus);
          bySdk.set(i.InstanceId ?? '', { group: g.AutoScalingGroupName ?? '', lifecycleState: i.LifecycleState ?? '', ...(healthStatus ? { healthStatus } : {}) });
        }
      }
    }
    world.aws.requestLog.clear();

    const lookup = await new AutoScalingAdapter(madeClient(world.autoScaling)).describeGroups([...groups, 'absent']);

    expect(lookup.failed).toEqual(new Map());
    expect(new Map([...lookup.members].sort(([a], [b]) => a.localeCompare(b)))).toEqual(new Map([...bySdk].sort(([a], [b]) => a.localeCompare(b))));
    expect(lookup.members.get(instanceId(50) as InstanceId)).toEqual({ group: 'ng-50', lifecycleState: 'Terminating:Wait', healthStatus: 'Healthy' });
    expect(lookup.members.get(instanceId(7) as InstanceId)).toEqual({ group: 'ng-7', lifecycleState: 'InService', healthStatus: 'Unhealthy' });
    expect(world.aws.requestLog.filter({ operation: 'DescribeAutoScalingGroups' })).toHaveLength(2);
  });
});
