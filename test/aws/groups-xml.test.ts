// The DescribeAutoScalingGroups reader must find what the SDK finds: each instance's group and
// LifecycleState, whichever order a group's fields come in, and nothing from other lists (tags,
// suspended processes) that also hold `member`s.
import { DescribeAutoScalingGroupsCommand } from '@aws-sdk/client-auto-scaling';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AutoScalingAdapter } from '../../lib/aws/autoscaling.js';
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
      ['i-0aaaaaaaaaaaaaaa1', { group: 'ng-a', lifecycleState: 'Terminating:Wait' }],
      ['i-0aaaaaaaaaaaaaaa2', { group: 'ng-a', lifecycleState: 'InService' }],
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
    const bySdk = new Map<string, { group: string; lifecycleState: string }>();
    for (const names of [groups.slice(0, 100), groups.slice(100)]) {
      const out = await world.autoScaling.send(new DescribeAutoScalingGroupsCommand({ AutoScalingGroupNames: names, MaxRecords: 100 }));
      for (const g of out.AutoScalingGroups ?? []) for (const i of g.Instances ?? []) bySdk.set(i.InstanceId ?? '', { group: g.AutoScalingGroupName ?? '', lifecycleState: i.LifecycleState ?? '' });
    }
    world.aws.requestLog.clear();

    const lookup = await new AutoScalingAdapter(world.autoScaling).describeGroups([...groups, 'absent']);

    expect(lookup.failed).toEqual(new Map());
    expect(new Map([...lookup.members].sort(([a], [b]) => a.localeCompare(b)))).toEqual(new Map([...bySdk].sort(([a], [b]) => a.localeCompare(b))));
    expect(lookup.members.get(instanceId(50) as InstanceId)).toEqual({ group: 'ng-50', lifecycleState: 'Terminating:Wait' });
    expect(world.aws.requestLog.filter({ operation: 'DescribeAutoScalingGroups' })).toHaveLength(2);
  });
});
