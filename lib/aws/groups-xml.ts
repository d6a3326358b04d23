// Auto Scaling's DescribeAutoScalingGroups XML read for what the sweep keeps: each group's name and
// each instance's id, LifecycleState and HealthStatus, whether the group has a warm pool, and the group's suspended processes (node
// repair reads both: an Unhealthy member is being replaced, and a group with its replacement
// processes suspended would not replace a machine marked Unhealthy; see xml-scan.ts). A
// group of 500 instances answers ~200 KB of XML (launch templates, zones, protection per instance)
// that the SDK would turn into objects first.
import { isInstanceId, type InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import { scanXml } from './xml-scan.js';
import { REPAIR_FAILURES_TAG } from '@ec2-node-reconciler/model/contract/labels.js';

export { UnexpectedXml as UnexpectedGroupsXml } from './xml-scan.js';

/** An instance's health as the group sees it. */
export type HealthStatus = 'Healthy' | 'Unhealthy';

/** HealthStatus as Auto Scaling words it (`HEALTHY`, `Unhealthy`, …), in one spelling. */
export function healthStatusOf(value: string | undefined): HealthStatus | undefined {
  const lower = value?.toLowerCase();
  return lower === 'healthy' ? 'Healthy' : lower === 'unhealthy' ? 'Unhealthy' : undefined;
}

/** A group's suspended processes in one spelling (sorted, each once), or undefined for none; one array shared by its members. */
export function suspendedProcessesOf(names: readonly (string | undefined)[]): readonly string[] | undefined {
  const processes = [...new Set(names.filter((n): n is string => n !== undefined && n !== ''))].sort();
  return processes.length > 0 ? processes : undefined;
}

/** What a page says of one instance. */
export interface GroupMember {
  readonly group: string;
  readonly lifecycleState: string;
  /** Absent when the answer does not say. */
  readonly healthStatus?: HealthStatus;
  /** The group's suspended processes (SuspendProcesses: `Launch`, `ReplaceUnhealthy`, …), sorted; absent when none is. */
  readonly suspendedProcesses?: readonly string[];
  /** The group's REPAIR_FAILURES_TAG value (the repair back-off's record); absent when it has none. */
  readonly repairFailures?: string;
}

export interface GroupsPage {
  /** Instance → its group, LifecycleState and (when the answer says) HealthStatus. */
  readonly members: Map<InstanceId, GroupMember>;
  /** The groups of the page that have a warm pool (WarmPoolConfiguration): their pool's members are not among Instances. */
  readonly warmPools: Set<string>;
  readonly nextToken?: string;
}

// Depths, the document element being 1: DescribeAutoScalingGroupsResult 2, AutoScalingGroups and
// NextToken 3, a group 4, its fields 5 (AutoScalingGroupName, Instances, SuspendedProcesses, Tags), an
// instance, a suspended process or a tag 6, its fields 7.
/** Reads one DescribeAutoScalingGroups page. Throws UnexpectedGroupsXml for a document it does not know. */
export function parseGroupsPage(xml: string): GroupsPage {
  const members = new Map<InstanceId, GroupMember>();
  let nextToken: string | undefined;
  let group: string | undefined;
  let pending: { id: string; state: string; health: HealthStatus | undefined }[] = [];
  let id: string | undefined;
  let state: string | undefined;
  let health: HealthStatus | undefined;
  let suspended: string[] = [];
  let tagKey: string | undefined;
  let tagValue: string | undefined;
  let repairFailures: string | undefined;
  let warmPool = false;
  const warmPools = new Set<string>();
  const states = new Map<string, string>();
  scanXml(xml, 'DescribeAutoScalingGroupsResponse', {
    descend(depth, path) {
      const name = path[depth];
      switch (depth) {
        case 1:
          return name === 'DescribeAutoScalingGroupsResponse';
        case 2:
          return name === 'DescribeAutoScalingGroupsResult';
        case 3:
          return name === 'AutoScalingGroups';
        case 4:
          return name === 'member';
        case 5:
          return name === 'Instances' || name === 'SuspendedProcesses' || name === 'Tags';
        case 6:
          return name === 'member';
        default:
          return false;
      }
    },
    open(depth, path, text) {
      const name = path[depth];
      if (depth === 3 && name === 'NextToken') nextToken = text() || undefined;
      else if (depth === 4) {
        group = undefined;
        pending = [];
        suspended = [];
        repairFailures = undefined;
        warmPool = false;
        id = undefined;
        state = undefined;
        health = undefined;
      } else if (depth === 5 && name === 'AutoScalingGroupName') group = text();
      else if (depth === 5 && name === 'WarmPoolConfiguration') warmPool = true;
      else if (path[5] === 'SuspendedProcesses') {
        if (depth === 7 && name === 'ProcessName') suspended.push(text());
      } else if (path[5] === 'Tags') {
        if (depth === 6) {
          tagKey = undefined;
          tagValue = undefined;
        } else if (depth === 7 && name === 'Key') tagKey = text();
        else if (depth === 7 && name === 'Value') tagValue = text();
      } else if (depth === 6) {
        id = undefined;
        state = undefined;
        health = undefined;
      } else if (depth === 7 && name === 'InstanceId') id = text();
      else if (depth === 7 && name === 'HealthStatus') health = healthStatusOf(text());
      else if (depth === 7 && name === 'LifecycleState') {
        const read = text();
        state = states.get(read) ?? read;
        states.set(state, state);
      }
    },
    close(depth, path) {
      // Only an instance files a member: a suspended process (also a `member` at this depth) must not file the instance before it again.
      if (depth === 6 && path[5] === 'Instances' && id !== undefined && state !== undefined)
        pending.push({ id, state, health });
      if (depth === 6 && path[5] === 'Tags' && tagKey === REPAIR_FAILURES_TAG) repairFailures = tagValue;
      // The group's name and suspended processes may come before or after its instances: they are filed when the group ends.
      if (depth === 4 && group !== undefined && group !== '') {
        if (warmPool) warmPools.add(group);
        const processes = suspendedProcessesOf(suspended);
        for (const member of pending) {
          if (isInstanceId(member.id)) {
            members.set(member.id, {
              group,
              lifecycleState: member.state,
              ...(member.health ? { healthStatus: member.health } : {}),
              ...(processes ? { suspendedProcesses: processes } : {}),
              ...(repairFailures ? { repairFailures } : {}),
            });
          }
        }
      }
    },
  });
  return { members, warmPools, ...(nextToken ? { nextToken } : {}) };
}
