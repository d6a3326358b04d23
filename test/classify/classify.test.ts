import { describe, expect, it } from 'vitest';
import { classify } from '../../lib/classify/classify.js';
import type { ClassifiedPair, Condition } from '@ec2-node-reconciler/model/condition.js';
import type { Observation } from '@ec2-node-reconciler/model/observation.js';
import type { Signal } from '@ec2-node-reconciler/model/signal.js';
import type { Settings } from '@ec2-node-reconciler/model/contract/settings.js';
import {
  aNode,
  anInstance,
  anObservation,
  aSignal,
  CLUSTER,
  REGION,
  clockAt,
  HOUR,
  instanceId,
  MINUTE,
  NOW,
  settings,
} from '../support/world.js';

function classifyOne(observation: Observation, signals: Signal[] = [], over: Partial<Settings> = {}): ClassifiedPair {
  const pairs = classify(observation, signals, {
    settings: settings(over),
    clock: clockAt(),
    clusterName: CLUSTER,
    region: REGION,
  });
  const [first] = pairs;
  if (!first) throw new Error('no pair');
  return first;
}

const staleLease = (n: number, ago = HOUR) => ({ nodeName: aNode(n).name, renewTime: NOW - ago });

describe('classify', () => {
  const cases: {
    name: string;
    world: Observation;
    signals?: Signal[];
    over?: Partial<Settings>;
    expected: Condition;
    reason?: RegExp;
  }[] = [
    {
      name: 'a running machine with a Ready node and a fresh Lease',
      world: anObservation({ nodes: [aNode(1)], instances: [anInstance(1)] }),
      expected: 'in-sync',
    },
    {
      name: 'a pending machine with a fresh node',
      world: anObservation({ nodes: [aNode(1)], instances: [anInstance(1, { state: 'pending' })] }),
      expected: 'in-sync',
    },
    {
      name: 'a terminated machine with a stale heartbeat',
      world: anObservation({
        nodes: [aNode(1, { readyHeartbeatAt: NOW - HOUR })],
        instances: [anInstance(1, { state: 'terminated' })],
        leases: [staleLease(1)],
      }),
      expected: 'stale-object',
    },
    {
      name: 'a machine EC2 no longer knows, node older than notFoundGrace, stale heartbeat',
      world: anObservation({ nodes: [aNode(1, { readyHeartbeatAt: NOW - HOUR })], leases: [staleLease(1)] }),
      expected: 'stale-object',
    },
    {
      name: 'a machine EC2 does not return yet, node younger than notFoundGrace',
      world: anObservation({
        nodes: [aNode(1, { createdAt: NOW - 2 * MINUTE, readyHeartbeatAt: NOW - HOUR })],
        leases: [staleLease(1)],
      }),
      expected: 'unknown',
      reason: /eventually consistent/,
    },
    {
      name: 'a spot interruption warning',
      world: anObservation({ nodes: [aNode(1)], instances: [anInstance(1)] }),
      signals: [aSignal('spot-interruption', 1, { deadline: NOW + 2 * MINUTE })],
      expected: 'slated-for-removal',
    },
    {
      name: 'a shutting-down machine',
      world: anObservation({ nodes: [aNode(1)], instances: [anInstance(1, { state: 'shutting-down' })] }),
      expected: 'slated-for-removal',
    },
    {
      name: 'a stopping machine',
      world: anObservation({ nodes: [aNode(1)], instances: [anInstance(1, { state: 'stopping' })] }),
      expected: 'slated-for-removal',
    },
    {
      name: 'the decommission tag',
      world: anObservation({
        nodes: [aNode(1)],
        instances: [
          anInstance(1, { tags: { 'eks:cluster-name': CLUSTER, 'ec2-node-reconciler/decommission': 'true' } }),
        ],
      }),
      expected: 'slated-for-removal',
    },
    {
      name: 'an ASG instance in Terminating:Wait',
      world: anObservation({
        nodes: [aNode(1)],
        instances: [
          anInstance(1, { autoScaling: { group: 'ng-a', lifecycleState: 'Terminating:Wait', terminateHook: 'drain' } }),
        ],
      }),
      expected: 'slated-for-removal',
    },
    {
      name: 'a scheduled instance retirement',
      world: anObservation({
        nodes: [aNode(1)],
        instances: [anInstance(1, { scheduledEvents: [{ code: 'instance-retirement', notBefore: NOW + 48 * HOUR }] })],
      }),
      expected: 'slated-for-removal',
    },
    {
      name: 'a scheduled reboot (maintenance, drained by default policy)',
      world: anObservation({
        nodes: [aNode(1)],
        instances: [anInstance(1, { scheduledEvents: [{ code: 'system-reboot', notBefore: NOW + HOUR }] })],
      }),
      expected: 'slated-for-removal',
      reason: /system-reboot .*maintenance: policy drain/,
    },
    {
      name: 'a scheduled reboot under maintenance policy ignore',
      world: anObservation({
        nodes: [aNode(1)],
        instances: [anInstance(1, { scheduledEvents: [{ code: 'system-reboot', notBefore: NOW + HOUR }] })],
      }),
      over: { maintenance: 'ignore' },
      expected: 'in-sync',
    },
    {
      name: 'a rebalance recommendation under policy ignore',
      world: anObservation({ nodes: [aNode(1)], instances: [anInstance(1)] }),
      signals: [aSignal('rebalance-recommendation', 1)],
      over: { rebalance: 'ignore' },
      expected: 'in-sync',
    },
    {
      name: 'a stopped machine',
      world: anObservation({ nodes: [aNode(1)], instances: [anInstance(1, { state: 'stopped' })] }),
      expected: 'stopped-machine',
    },
    {
      name: 'a running machine whose kubelet is silent',
      world: anObservation({
        nodes: [aNode(1, { readyHeartbeatAt: NOW - HOUR, ready: 'Unknown' })],
        instances: [anInstance(1)],
        leases: [staleLease(1)],
      }),
      expected: 'unresponsive-machine',
      reason: /silent/,
    },
    {
      name: 'a running machine whose node is NotReady',
      world: anObservation({ nodes: [aNode(1, { ready: 'False' })], instances: [anInstance(1)] }),
      expected: 'unresponsive-machine',
      reason: /Ready condition is False/,
    },
    {
      name: 'a running machine whose node monitoring agent reports a problem (KernelReady False)',
      world: anObservation({
        nodes: [
          aNode(1, {
            conditions: { Ready: { status: 'True' }, KernelReady: { status: 'False', since: NOW - 35 * MINUTE } },
          }),
        ],
        instances: [anInstance(1)],
      }),
      expected: 'unresponsive-machine',
      reason: /KernelReady is False since 2026-11-29T11:25:00.000Z/,
    },
    {
      name: 'a running machine whose monitoring agent says Unknown (no problem found)',
      world: anObservation({
        nodes: [aNode(1, { conditions: { AcceleratedHardwareReady: { status: 'Unknown', since: NOW - HOUR } } })],
        instances: [anInstance(1)],
      }),
      expected: 'in-sync',
    },
    {
      name: 'a running machine whose monitoring agent reports every condition True',
      world: anObservation({
        nodes: [aNode(1, { conditions: { KernelReady: { status: 'True' }, StorageReady: { status: 'True' } } })],
        instances: [anInstance(1)],
      }),
      expected: 'in-sync',
    },
    {
      name: 'a running cluster machine with no node, past the registration grace',
      world: anObservation({ instances: [anInstance(1, { launchedAt: NOW - HOUR })] }),
      expected: 'unregistered-machine',
    },
    {
      name: 'a running cluster machine with no node, within the registration grace',
      world: anObservation({ instances: [anInstance(1, { launchedAt: NOW - MINUTE })] }),
      expected: 'in-sync',
      reason: /registrationGrace/,
    },
    {
      name: 'a terminated machine with no node: gone, not in sync',
      world: anObservation({ instances: [anInstance(1, { state: 'terminated', launchedAt: NOW - HOUR })] }),
      expected: 'gone',
      reason: /^i-\w+ is terminated and has no Node object$/,
    },
    {
      name: 'a terminated machine of another cluster with no node: gone too',
      world: anObservation({ instances: [anInstance(1, { state: 'terminated', tags: {} })] }),
      expected: 'gone',
    },
    {
      name: 'a terminated machine with a fresh heartbeat',
      world: anObservation({ nodes: [aNode(1)], instances: [anInstance(1, { state: 'terminated' })] }),
      expected: 'identity-conflict',
      reason: /Lease is live/,
    },
    {
      name: 'an unknown machine with a fresh heartbeat',
      world: anObservation({ nodes: [aNode(1)] }),
      expected: 'identity-conflict',
    },
    {
      name: 'a zone mismatch',
      world: anObservation({ nodes: [aNode(1)], instances: [anInstance(1, { zone: 'us-east-1b' })] }),
      expected: 'identity-conflict',
      reason: /zone/,
    },
    {
      name: 'two nodes claiming one instance',
      world: anObservation({
        nodes: [aNode(1), aNode(2, { providerID: `aws:///us-east-1a/${instanceId(1)}` })],
        instances: [anInstance(1)],
      }),
      expected: 'identity-conflict',
      reason: /also claimed/,
    },
    {
      name: 'a Fargate node',
      world: anObservation({
        nodes: [aNode(1, { providerID: 'aws:///us-east-1a/6f3d1a0b2c/fargate-ip-10-0-0-1.ec2.internal' })],
      }),
      expected: 'not-ec2',
    },
    {
      name: 'an EKS hybrid node',
      world: anObservation({
        nodes: [aNode(1, { providerID: 'eks-hybrid:///us-west-2/my-cluster/mi-0123456789abcdef0' })],
      }),
      expected: 'other-owner',
      reason: /EKS hybrid nodes/,
    },
    {
      name: "a Karpenter node whose spot machine is being reclaimed (Karpenter's to drain)",
      world: anObservation({
        nodes: [aNode(1, { labels: { 'karpenter.sh/nodepool': 'default' } })],
        instances: [anInstance(1, { spot: true })],
      }),
      signals: [aSignal('spot-interruption', 1)],
      expected: 'other-owner',
      reason: /Karpenter manages this node \(label karpenter.sh\/nodepool=default\)/,
    },
    {
      name: 'a Karpenter node when Karpenter nodes are included',
      world: anObservation({
        nodes: [aNode(1, { labels: { 'karpenter.sh/nodepool': 'default' } })],
        instances: [anInstance(1, { spot: true })],
      }),
      signals: [aSignal('spot-interruption', 1)],
      over: { includeKarpenterNodes: true },
      expected: 'slated-for-removal',
    },
    {
      name: 'an included Karpenter node that Karpenter is disrupting',
      world: anObservation({
        nodes: [
          aNode(1, {
            labels: { 'karpenter.sh/nodepool': 'default' },
            taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }],
          }),
        ],
        instances: [anInstance(1, { spot: true })],
      }),
      signals: [aSignal('spot-interruption', 1)],
      over: { includeKarpenterNodes: true },
      expected: 'other-owner',
      reason: /taint karpenter.sh\/disrupted/,
    },
    {
      name: 'a node whose machine Karpenter launched (its NodePool tag), though the node lacks the label',
      world: anObservation({
        nodes: [aNode(1)],
        instances: [anInstance(1, { tags: { 'eks:cluster-name': CLUSTER, 'karpenter.sh/nodepool': 'default' } })],
      }),
      expected: 'other-owner',
    },
    {
      name: 'an EKS Auto Mode node, even when Karpenter nodes are included',
      world: anObservation({
        nodes: [
          aNode(1, {
            labels: { 'eks.amazonaws.com/compute-type': 'auto', 'karpenter.sh/nodepool': 'general-purpose' },
          }),
        ],
        instances: [anInstance(1, { state: 'terminated' })],
        leases: [staleLease(1)],
      }),
      over: { includeKarpenterNodes: true },
      expected: 'other-owner',
      reason: /EKS Auto Mode/,
    },
    {
      name: 'a Karpenter machine with no Node yet',
      world: anObservation({
        instances: [
          anInstance(1, {
            launchedAt: NOW - 2 * HOUR,
            tags: { [`kubernetes.io/cluster/${CLUSTER}`]: 'owned', 'karpenter.sh/nodepool': 'default' },
          }),
        ],
      }),
      expected: 'other-owner',
    },
    {
      name: 'a failed lookup',
      world: anObservation({ nodes: [aNode(1)], lookupErrors: [[instanceId(1), 'RequestLimitExceeded']] }),
      expected: 'unknown',
      reason: /RequestLimitExceeded/,
    },
    {
      name: 'a malformed providerID',
      world: anObservation({ nodes: [aNode(1, { providerID: 'aws:///us-east-1a/i-zzz' })] }),
      expected: 'unknown',
      reason: /malformed/,
    },
  ];

  it.each(cases)('should classify $name as $expected', ({ world, signals, over, expected, reason }) => {
    const pair = classifyOne(world, signals, over);
    expect(pair.condition).toBe(expected);
    if (reason) expect(pair.reason).toMatch(reason);
  });

  it('should match a node without providerID by the instance private DNS name', () => {
    const node = aNode(1);
    const { providerID: _omitted, ...withoutProviderId } = node;
    const pair = classifyOne(anObservation({ nodes: [withoutProviderId], instances: [anInstance(1)] }));
    expect(pair.condition).toBe('in-sync');
    expect(pair.instanceId).toBe(instanceId(1));
  });

  it('should give a spot interruption its deadline and a drain', () => {
    const pair = classifyOne(anObservation({ nodes: [aNode(1)], instances: [anInstance(1)] }), [
      aSignal('spot-interruption', 1, { deadline: NOW + 2 * MINUTE }),
    ]);
    expect(pair.deadline).toBe(NOW + 2 * MINUTE);
    expect(pair.drain).toBe(true);
  });

  it('should cordon without draining for a rebalance under policy cordon, and drain under policy drain', () => {
    const world = anObservation({ nodes: [aNode(1)], instances: [anInstance(1)] });
    expect(classifyOne(world, [aSignal('rebalance-recommendation', 1)], { rebalance: 'cordon' }).drain).toBe(false);
    expect(classifyOne(world, [aSignal('rebalance-recommendation', 1)], { rebalance: 'drain' }).drain).toBe(true);
  });

  it('should carry the lifecycle action of an ASG signal', () => {
    const lifecycle = { group: 'ng-a', hook: 'drain-hook', token: 'tok-1' };
    const pair = classifyOne(anObservation({ nodes: [aNode(1)], instances: [anInstance(1)] }), [
      aSignal('asg-terminate-lifecycle-action', 1, { lifecycle }),
    ]);
    expect(pair.condition).toBe('slated-for-removal');
    expect(pair.lifecycle).toEqual(lifecycle);
  });

  it('should slate an ASG-terminating machine that has no node, so its lifecycle action is completed', () => {
    const lifecycle = { group: 'ng-a', hook: 'drain-hook', token: 'tok-1' };
    const pair = classifyOne(anObservation({ instances: [anInstance(1)], scope: 'event' }), [
      aSignal('asg-terminate-lifecycle-action', 1, { lifecycle }),
    ]);
    expect(pair.condition).toBe('slated-for-removal');
    expect(pair.node).toBeUndefined();
    expect(pair.lifecycle).toEqual(lifecycle);
  });

  describe('a stopped machine its group is terminating (a warm pool member terminated out of the pool)', () => {
    const lifecycle = { group: 'ng-a', hook: 'drain-hook', token: 'tok-1' };
    const stopped = anInstance(1, { state: 'stopped' });

    it('should carry our lifecycle action on a stopped machine with no Node, to be completed', () => {
      const pair = classifyOne(anObservation({ instances: [stopped], scope: 'event' }), [
        aSignal('asg-terminate-lifecycle-action', 1, { lifecycle }),
      ]);
      expect(pair.condition).toBe('slated-for-removal');
      expect(pair.drain).toBe(false);
      expect(pair.lifecycle).toEqual(lifecycle);
    });

    it('should keep a stopped machine with a Node stopped (no drain), carrying our lifecycle action', () => {
      const pair = classifyOne(anObservation({ nodes: [aNode(1)], instances: [stopped], scope: 'event' }), [
        aSignal('asg-terminate-lifecycle-action', 1, { lifecycle }),
      ]);
      expect(pair.condition).toBe('stopped-machine');
      expect(pair.lifecycle).toEqual(lifecycle);
      expect(pair.drain).toBeUndefined();
    });

    it('should carry the action a sweep found in Warmed:Terminating:Wait, with the hook that is ours', () => {
      const warm = anInstance(1, {
        state: 'stopped',
        autoScaling: { group: 'ng-a', lifecycleState: 'Warmed:Terminating:Wait', terminateHook: 'drain-hook' },
      });
      const withNode = classifyOne(anObservation({ nodes: [aNode(1)], instances: [warm] }));
      expect(withNode.condition).toBe('stopped-machine');
      expect(withNode.lifecycle).toEqual({ group: 'ng-a', hook: 'drain-hook' });
      const nodeless = classifyOne(anObservation({ instances: [warm] }));
      expect(nodeless.condition).toBe('slated-for-removal');
      expect(nodeless.lifecycle).toEqual({ group: 'ng-a', hook: 'drain-hook' });
    });

    it('should carry no lifecycle action for a hook that is not ours, nor for a stopped machine nothing terminates', () => {
      const foreign = classifyOne(
        anObservation({
          nodes: [aNode(1)],
          instances: [stopped],
          scope: 'event',
          terminateHooks: [['ng-a', { kind: 'ours', hook: 'our-hook' }]],
        }),
        [aSignal('asg-terminate-lifecycle-action', 1, { lifecycle })],
      );
      expect(foreign.condition).toBe('stopped-machine');
      expect(foreign.lifecycle).toBeUndefined();
      const resting = anInstance(1, {
        state: 'stopped',
        autoScaling: { group: 'ng-a', lifecycleState: 'Warmed:Stopped', terminateHook: 'drain-hook' },
      });
      expect(classifyOne(anObservation({ nodes: [aNode(1)], instances: [resting] })).lifecycle).toBeUndefined();
      expect(classifyOne(anObservation({ instances: [resting] })).condition).toBe('in-sync');
    });
  });

  it('should take the earliest deadline among signals and scheduled events', () => {
    const instance = anInstance(1, { scheduledEvents: [{ code: 'instance-stop', notBefore: NOW + 10 * MINUTE }] });
    const pair = classifyOne(anObservation({ nodes: [aNode(1)], instances: [instance] }), [
      aSignal('scheduled-change', 1, { deadline: NOW + 20 * MINUTE }),
    ]);
    expect(pair.deadline).toBe(NOW + 10 * MINUTE);
  });

  it('should classify a machine that just went (Lease expired, heartbeat within heartbeatGrace) as stale, not a conflict', () => {
    const world = anObservation({
      nodes: [aNode(1, { readyHeartbeatAt: NOW - 60_000 })],
      instances: [anInstance(1, { state: 'terminated' })],
      leases: [{ nodeName: aNode(1).name, renewTime: NOW - 60_000 }],
    });
    expect(classifyOne(world).condition).toBe('stale-object');
  });

  it('should prefer the Ready heartbeat when it is newer than the Lease', () => {
    const world = anObservation({
      nodes: [aNode(1, { readyHeartbeatAt: NOW - 1_000 })],
      instances: [anInstance(1, { state: 'terminated' })],
      leases: [staleLease(1)],
    });
    expect(classifyOne(world).condition).toBe('identity-conflict');
  });

  it('should classify a node whose instance was never looked up as unknown, never stale', () => {
    const world = {
      ...anObservation({ nodes: [aNode(1, { readyHeartbeatAt: NOW - HOUR })], leases: [staleLease(1)] }),
      notFound: new Set<never>(),
    };
    expect(classifyOne(world).condition).toBe('unknown');
  });

  it('should classify a cluster machine that is not tagged for this cluster as in-sync', () => {
    const pair = classifyOne(anObservation({ instances: [anInstance(1, { tags: {}, launchedAt: NOW - HOUR })] }));
    expect(pair.condition).toBe('in-sync');
    expect(pair.reason).toMatch(/not tagged/);
  });

  it('should recognise the kubernetes.io/cluster/<name> tag', () => {
    const pair = classifyOne(
      anObservation({
        instances: [anInstance(1, { tags: { [`kubernetes.io/cluster/${CLUSTER}`]: 'owned' }, launchedAt: NOW - HOUR })],
      }),
    );
    expect(pair.condition).toBe('unregistered-machine');
  });
});

// What plan reads from classify instead of judging again (lib/plan/repair/): whose the machine is, and the Node's health.
describe('classify, for plan to read', () => {
  it('should say what makes an instance ours: its own tags, or only a Node naming it for certain', () => {
    const tagged = classifyOne(anObservation({ nodes: [aNode(1)], instances: [anInstance(1)] }));
    const named = classifyOne(anObservation({ nodes: [aNode(1)], instances: [anInstance(1, { tags: {} })] }));
    const nodeless = classifyOne(anObservation({ instances: [anInstance(1, { launchedAt: NOW - HOUR })] }));

    expect([tagged.ours, tagged.ownedBy]).toEqual([true, 'instance']);
    expect([named.ours, named.ownedBy]).toEqual([true, 'node']);
    expect([nodeless.ours, nodeless.ownedBy]).toEqual([true, 'instance']);
  });

  it('should carry no owner for a machine nothing makes ours', () => {
    const pair = classifyOne(anObservation({ instances: [anInstance(1, { tags: {}, launchedAt: NOW - HOUR })] }));
    expect([pair.ours, pair.ownedBy]).toEqual([false, undefined]);
  });

  it("should judge every Node's health, whatever its pair's condition: a stand-down counts them all", () => {
    const notReady = {
      ready: 'Unknown' as const,
      conditions: { Ready: { status: 'Unknown' as const, since: NOW - HOUR } },
    };
    const karpenters = classifyOne(
      anObservation({ nodes: [aNode(1, { ...notReady, labels: { 'karpenter.sh/nodepool': 'default' } })] }),
    );
    const ours = classifyOne(anObservation({ nodes: [aNode(1, notReady)], instances: [anInstance(1)] }));
    const healthy = classifyOne(anObservation({ nodes: [aNode(1)], instances: [anInstance(1)] }));

    expect(karpenters.condition).toBe('other-owner');
    expect(karpenters.badConditions).toEqual([{ type: 'Ready', status: 'Unknown', since: NOW - HOUR }]);
    expect(ours.condition).toBe('unresponsive-machine');
    expect(ours.badConditions).toEqual(karpenters.badConditions);
    expect(healthy.condition).toBe('in-sync');
    expect(healthy.badConditions).toBeUndefined();
  });

  it('should take a silent kubelet whose Ready still says True for an inferred Ready Unknown', () => {
    const pair = classifyOne(
      anObservation({
        nodes: [aNode(1, { readyHeartbeatAt: NOW - HOUR })],
        instances: [anInstance(1)],
        leases: [staleLease(1)],
      }),
    );
    expect(pair.condition).toBe('unresponsive-machine');
    expect(pair.reason).toMatch(/kubelet is silent/);
    expect(pair.badConditions).toEqual([{ type: 'Ready', status: 'Unknown', inferred: true, since: NOW - HOUR }]);
  });
});
