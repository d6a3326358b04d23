// A sweep against a distant API server lasts as long as its longest chain of pages: what can start
// early does. The cluster's instances are enriched (Auto Scaling, scheduled events) while the Node
// and Lease pages still come, with the same calls as before, only overlapped.
import { describe, expect, it } from 'vitest';
import type { AsgMembership, GroupLookup } from '../../lib/aws/autoscaling.js';
import { DEFAULT_SETTINGS } from '@ec2-node-reconciler/model/contract/settings.js';
import { systemClock } from '@ec2-node-reconciler/model/clock.js';
import type { InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import type { InstanceView, LeaseView, NodeView, ScheduledEvent } from '@ec2-node-reconciler/model/observation.js';
import type { ObserveDeps } from '../../lib/observe/deps.js';
import { observeSweep } from '../../lib/observe/sweep.js';

const id = (n: number) => `i-0${String(n).padStart(16, '0')}` as InstanceId;
const instance = (n: number): InstanceView => ({
  id: id(n),
  state: 'running',
  zone: 'us-east-1a',
  launchedAt: 0,
  tags: { 'eks:cluster-name': 'demo', 'aws:autoscaling:groupName': 'eks-ng-1' },
  spot: false,
  scheduledEvents: [],
});
const node = (n: number): NodeView => ({
  name: `node-${n}`,
  uid: `uid-${n}`,
  resourceVersion: '1',
  providerID: `aws:///us-east-1a/${id(n)}`,
  createdAt: 0,
  ready: 'True',
  unschedulable: false,
  labels: {},
  annotations: {},
  taints: [],
});

/** A listing that answers only when the test says: the last of its pages is still on its way. */
function gate<T>(): { promise: Promise<T>; open: (value: T) => void } {
  let open: (value: T) => void = () => undefined;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('observeSweep', () => {
  it('should enrich the cluster’s instances while the Node and Lease pages are still coming', async () => {
    const nodes = gate<NodeView[]>();
    const leases = gate<Map<string, LeaseView>>();
    const asked: string[] = [];
    const deps = {
      clusterName: 'demo',
      region: 'us-east-1',
      settings: DEFAULT_SETTINGS,
      clock: systemClock,
      nodes: { listNodes: () => nodes.promise },
      leases: { listLeases: () => leases.promise, getLease: () => Promise.resolve(undefined) },
      finder: {} as ObserveDeps['finder'],
      ec2: {
        describeClusterInstances: () => Promise.resolve([instance(1), instance(2)]),
        describeByIds: () => Promise.reject(new Error('no instance is missing')),
        describeByPrivateDnsNames: () => Promise.reject(new Error('every node has a providerID')),
        scheduledEvents: () => {
          asked.push('scheduled events');
          return Promise.resolve(new Map<InstanceId, ScheduledEvent[]>());
        },
      },
      autoScaling: {
        describeGroups: (names: readonly string[]): Promise<GroupLookup> => {
          asked.push(`groups ${names.join(',')}`);
          const members = new Map<InstanceId, AsgMembership>([
            [id(1), { group: 'eks-ng-1', lifecycleState: 'InService' }],
            [id(2), { group: 'eks-ng-1', lifecycleState: 'Terminating:Wait' }],
          ]);
          return Promise.resolve({ members, failed: new Map(), warmPools: new Set<string>() });
        },
        warmPoolMembers: () => Promise.reject(new Error('no group has a warm pool')),
        terminateHooks: () => Promise.resolve([{ name: 'drain-hook' }]),
      },
      drains: { status: () => Promise.reject(new Error('no drain is running')) },
    } satisfies ObserveDeps & { region: string };

    const observed = observeSweep(deps);
    await settle();

    expect(asked.sort()).toEqual(['groups eks-ng-1', 'scheduled events']);

    nodes.open([node(1), node(2)]);
    leases.open(new Map());
    const { observation, errors } = await observed;

    expect(errors).toEqual([]);
    expect(observation.instances.map((i) => [i.id, i.autoScaling?.lifecycleState])).toEqual([
      [id(1), 'InService'],
      [id(2), 'Terminating:Wait'],
    ]);
    expect(asked).toHaveLength(2);
  });
});
