// Repair of unresponsive machines (docs/design.md §1b), as plan() decides it: when, behind which rails, the
// stand-down, at most maxParallel in flight per group, the replace step after the repair drain, and
// the cancel when the node recovers.
import { describe, expect, it } from 'vitest';
import { decide } from '../../lib/pipeline/decide.js';
import type { Action, Plan } from '@ec2-node-reconciler/model/action.js';
import type { InstanceView, NodeView, Observation } from '@ec2-node-reconciler/model/observation.js';
import type { Signal } from '@ec2-node-reconciler/model/signal.js';
import { DEFAULT_SETTINGS, type RepairSettings, type Settings } from '@ec2-node-reconciler/model/contract/settings.js';
import { drainExecutionName } from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import {
  aNode,
  anInstance,
  anObservation,
  CLUSTER,
  clockAt,
  HOUR,
  instanceId,
  MINUTE,
  NOW,
  REGION,
  settings,
  type WorldSpec,
} from '../support/world.js';

const REPAIR_ON: RepairSettings = { ...DEFAULT_SETTINGS.repair, enabled: true };

interface Over {
  readonly settings?: Partial<Settings>;
  readonly repair?: Partial<RepairSettings>;
  readonly signals?: Signal[];
  readonly ownGroups?: readonly string[];
}

function planFor(observation: Observation, over: Over = {}): Plan {
  const ctx = {
    settings: settings({ ...over.settings, repair: { ...REPAIR_ON, ...over.repair } }),
    clock: clockAt(),
    clusterName: CLUSTER,
    region: REGION,
    ...(over.ownGroups ? { ownGroups: over.ownGroups } : {}),
  };
  return decide(observation, over.signals ?? [], ctx).plan;
}

/** A member of Auto Scaling group `group`. */
const member = (n: number, group = 'ng-a', over: Partial<InstanceView> = {}): InstanceView =>
  anInstance(n, {
    launchedAt: NOW - 9 * HOUR,
    autoScaling: { group, lifecycleState: 'InService', healthStatus: 'Healthy' },
    ...over,
  });
/** A node whose kubelet went quiet `ago` ago (Ready Unknown since then). */
const silentNode = (n: number, ago = 40 * MINUTE, over: Partial<NodeView> = {}): NodeView =>
  aNode(n, {
    ready: 'Unknown',
    readyHeartbeatAt: NOW - ago,
    createdAt: NOW - 9 * HOUR,
    conditions: { Ready: { status: 'Unknown', since: NOW - ago } },
    ...over,
  });
const silentLease = (n: number, ago = 40 * MINUTE) => ({ nodeName: aNode(n).name, renewTime: NOW - ago });

/** Ten machines of ng-a with their Nodes; `bad` of them (from 1) with a kubelet silent for 40 minutes. */
function group(size: number, bad: readonly number[], over: Partial<WorldSpec> = {}): Observation {
  const ids = Array.from({ length: size }, (_, i) => i + 1);
  return anObservation({
    nodes: ids.map((n) => (bad.includes(n) ? silentNode(n) : aNode(n, { createdAt: NOW - 9 * HOUR }))),
    instances: ids.map((n) => member(n)),
    leases: ids.map((n) => (bad.includes(n) ? silentLease(n) : { nodeName: aNode(n).name, renewTime: NOW - 5_000 })),
    ...over,
  });
}

const repairs = (p: Plan) => p.actions.filter((a): a is Extract<Action, { kind: 'repair' }> => a.kind === 'repair');
const repairSkips = (p: Plan) => p.skipped.filter((s) => s.kind === 'repair');
const record = (execution: string, over: Record<string, string> = {}) => ({
  'ec2-node-reconciler/drain': execution,
  'ec2-node-reconciler/drain-deadline': new Date(NOW + 5 * MINUTE).toISOString(),
  'ec2-node-reconciler/drain-at': new Date(NOW - 10 * MINUTE).toISOString(),
  'ec2-node-reconciler/drain-for': 'repair',
  ...over,
});
const ownCordon = (at = NOW - 10 * MINUTE) => ({
  'ec2-node-reconciler/cordoned-by': 'ec2-node-reconciler',
  'ec2-node-reconciler/reason': 'repair',
  'ec2-node-reconciler/at': new Date(at).toISOString(),
});

describe('repair: starting', () => {
  it('should cordon and start a repair drain, bounded by repair.drainTimeout, for one of ten machines unresponsive for 40 minutes', () => {
    const result = planFor(group(10, [3]));
    const execution = drainExecutionName(
      CLUSTER,
      instanceId(3),
      `repair-${new Date(NOW).toISOString().slice(0, 16).replace(/[-T:]/g, '')}`,
      'uid-3',
    );
    expect(result.actions.filter((a) => a.kind !== 'report')).toEqual([
      expect.objectContaining({
        kind: 'cordon',
        node: aNode(3).name,
        claim: expect.objectContaining({ execution, for: 'repair', deadline: NOW + 15 * MINUTE }) as unknown,
      }),
      expect.objectContaining({
        kind: 'repair',
        step: 'drain',
        node: aNode(3).name,
        instanceId: instanceId(3),
        group: 'ng-a',
        execution,
        for: 'repair',
        deadline: NOW + 15 * MINUTE,
        mode: 'start',
      }),
    ]);
    expect(repairSkips(result)).toEqual([]);
  });

  it('should not repair a node whose Ready is still True though its heartbeat is 40 minutes old (a kubelet clock behind, or no node lifecycle controller), but count it as unhealthy for the stand-down', () => {
    const base = group(10, [3]);
    const skewed = (n: number) =>
      aNode(n, {
        createdAt: NOW - 9 * HOUR,
        ready: 'True',
        readyHeartbeatAt: NOW - 40 * MINUTE,
        conditions: { Ready: { status: 'True', since: NOW - 9 * HOUR } },
      });
    const nodes = base.nodes.map((n) => (n.name === aNode(3).name ? skewed(3) : n));
    const leases = new Map(
      [...base.leases].map(([k, v]) => [k, k === aNode(3).name ? { ...v, renewTime: NOW - 40 * MINUTE } : v]),
    );
    const alone = planFor({ ...base, nodes, leases });
    expect(repairs(alone)).toEqual([]);
    expect(alone.actions.filter((a) => a.kind === 'cordon')).toEqual([]);
    expect(repairSkips(alone).map((s) => s.reason)).toEqual([
      expect.stringMatching(
        /^Ready is still True though the kubelet's last heartbeat was at .*: the control plane has not marked the node/,
      ),
    ]);

    // Two of them and one silent machine are 3 of 10 unhealthy: the silent one stands down.
    const crowd = nodes.map((n) =>
      n.name === aNode(4).name ? skewed(4) : n.name === aNode(5).name ? silentNode(5) : n,
    );
    const crowdLeases = new Map(
      [...leases].map(([k, v]) => [
        k,
        k === aNode(4).name || k === aNode(5).name ? { ...v, renewTime: NOW - 40 * MINUTE } : v,
      ]),
    );
    const held = planFor({ ...base, nodes: crowd, leases: crowdLeases });
    expect(repairs(held)).toEqual([]);
    expect(repairSkips(held).find((s) => s.node === aNode(5).name)?.standDown).toEqual(
      expect.objectContaining({ unhealthy: 3, members: 10 }),
    );
  });

  it('should plan nothing while repair is off (the default), and report the machine as before', () => {
    const result = planFor(group(10, [3]), { repair: { enabled: false } });
    expect(result.actions.map((a) => a.kind)).toEqual(['report']);
    expect(repairSkips(result)).toEqual([]);
  });

  it('should wait for repair.after: Ready bad for 20 minutes is not repaired yet, and the report says when it will be', () => {
    const observation = group(10, [], {
      nodes: [silentNode(1, 20 * MINUTE)],
      instances: [member(1)],
      leases: [silentLease(1, 20 * MINUTE)],
    });
    const result = planFor(observation);
    expect(repairs(result)).toEqual([]);
    expect(repairSkips(result)).toEqual([
      expect.objectContaining({
        reason: expect.stringMatching(
          /Ready Unknown since .*: repaired once it has been so for 30m \(at 2026-11-29T12:10:00.000Z\)/,
        ) as unknown,
      }),
    ]);
  });

  it('should repair a machine whose KernelReady has been False for 35 minutes, and not one for 25', () => {
    const kernel = (n: number, ago: number) =>
      aNode(n, {
        createdAt: NOW - 9 * HOUR,
        conditions: { Ready: { status: 'True' }, KernelReady: { status: 'False', since: NOW - ago } },
      });
    const observation = anObservation({
      nodes: [
        kernel(1, 35 * MINUTE),
        kernel(2, 25 * MINUTE),
        aNode(3),
        aNode(4),
        aNode(5),
        aNode(6),
        aNode(7),
        aNode(8),
        aNode(9),
        aNode(10),
      ],
      instances: Array.from({ length: 10 }, (_, i) => member(i + 1)),
    });
    const result = planFor(observation, { repair: { maxParallel: 2 } });
    expect(repairs(result).map((a) => a.instanceId)).toEqual([instanceId(1)]);
  });

  it('should wait the per-condition time: AcceleratedHardwareReady False for 12 minutes is due (10m), KernelReady for 12 minutes is not (30m)', () => {
    const node = aNode(1, { conditions: { AcceleratedHardwareReady: { status: 'False', since: NOW - 12 * MINUTE } } });
    expect(repairs(planFor(group(10, [], { nodes: [node], instances: [member(1)] })))).toHaveLength(1);
    const kernel = aNode(1, { conditions: { KernelReady: { status: 'False', since: NOW - 12 * MINUTE } } });
    expect(repairs(planFor(group(10, [], { nodes: [kernel], instances: [member(1)] })))).toEqual([]);
  });

  it('should count from the later of the machine’s launch and the condition’s last change: a machine back from a warm pool 10 minutes ago is not repaired though its Node says Ready Unknown for 40 minutes', () => {
    const launchedAgo = (ago: number) => {
      const base = group(10, [3]);
      return {
        ...base,
        instances: base.instances.map((i) => (i.id === instanceId(3) ? { ...i, launchedAt: NOW - ago } : i)),
      };
    };

    const young = planFor(launchedAgo(10 * MINUTE));
    const old = planFor(launchedAgo(35 * MINUTE));

    expect(repairs(young)).toEqual([]);
    expect(repairSkips(young).map((s) => s.reason)).toEqual([
      expect.stringMatching(/counted from the machine's launch at .*repaired once it has been so for 30m/),
    ]);
    expect(repairs(old)).toEqual([expect.objectContaining({ step: 'drain', instanceId: instanceId(3) })]);
  });

  it('should plan the same repair under dryRun (act carries out nothing)', () => {
    const result = planFor(group(10, [3]), { settings: { dryRun: true } });
    expect(result.dryRun).toBe(true);
    expect(repairs(result)).toHaveLength(1);
  });
});

describe('repair: stand-down and parallelism', () => {
  it('should stand down when three of ten machines of the group are unhealthy (over 20 %, rounded up: 2), naming the group and the counts', () => {
    const result = planFor(group(10, [2, 5, 8]));
    expect(repairs(result)).toEqual([]);
    expect(result.actions.some((a) => a.kind === 'cordon')).toBe(false);
    expect(repairSkips(result)).toHaveLength(3);
    for (const skip of repairSkips(result)) {
      expect(skip.standDown).toEqual({
        scope: 'group',
        group: 'ng-a',
        unhealthy: 3,
        members: 10,
        allowed: 2,
        maxUnhealthyPercent: 20,
      });
      expect(skip.reason).toMatch(
        /stand down: 3 of 10 machines of Auto Scaling group ng-a are unhealthy, more than 20 % \(2\)/,
      );
    }
  });

  it('should still repair with two of ten unhealthy (the allowance is rounded up), one at a time', () => {
    const result = planFor(group(10, [2, 5]));
    expect(repairs(result).map((a) => a.instanceId)).toEqual([instanceId(2)]);
    expect(repairSkips(result)).toEqual([
      expect.objectContaining({
        instanceId: instanceId(5),
        reason: expect.stringMatching(
          /1 repair or drain in flight in Auto Scaling group ng-a \(maxParallel 1\)/,
        ) as unknown,
      }),
    ]);
  });

  it('should not count a warm pool’s members, whose warm-up Nodes are NotReady while they rest stopped, against their group', () => {
    // Ten in service, two of them silent (within the allowance); three resting in the pool with their Nodes left NotReady.
    const base = group(10, [2, 5]);
    const warm = [11, 12, 13];
    const world = anObservation({
      nodes: [...base.nodes, ...warm.map((n) => silentNode(n, 2 * HOUR))],
      instances: [
        ...base.instances,
        ...warm.map((n) =>
          member(n, 'ng-a', {
            state: 'stopped',
            autoScaling: { group: 'ng-a', lifecycleState: 'Warmed:Stopped', healthStatus: 'Healthy' },
          }),
        ),
      ],
      leases: [...base.leases.values(), ...warm.map((n) => silentLease(n, 2 * HOUR))],
    });

    const result = planFor(world);

    expect(repairs(result).map((a) => a.instanceId)).toEqual([instanceId(2)]);
    expect(repairSkips(result).some((s) => s.standDown !== undefined)).toBe(false);
  });

  it('should round the allowance up in small groups: one of four may be repaired, two of four stand down', () => {
    expect(repairs(planFor(group(4, [1])))).toHaveLength(1);
    expect(repairSkips(planFor(group(4, [1, 2]))).every((s) => s.standDown !== undefined)).toBe(true);
  });

  it('should count machines the group already has Unhealthy, and machines with no Node past registrationGrace, as unhealthy', () => {
    const observation = group(10, [1], {
      instances: [
        member(1),
        member(2, 'ng-a', { autoScaling: { group: 'ng-a', lifecycleState: 'InService', healthStatus: 'Unhealthy' } }),
        ...Array.from({ length: 8 }, (_, i) => member(i + 3)),
        member(11),
      ],
    });
    // 11 members: node 1 silent, instance 2 Unhealthy in the group, instance 11 has no Node: 3 > ceil(2.2) = 3? no: 3 ≤ 3.
    expect(repairs(planFor(observation))).toHaveLength(1);
    const more = group(10, [1], {
      instances: [
        member(1),
        member(2, 'ng-a', { autoScaling: { group: 'ng-a', lifecycleState: 'InService', healthStatus: 'Unhealthy' } }),
        ...Array.from({ length: 8 }, (_, i) => member(i + 3)),
        member(11),
        member(12),
      ],
    });
    // 12 members, 4 unhealthy (1 silent, 2 Unhealthy, 11 and 12 no Node) > ceil(2.4) = 3: stand down.
    expect(repairs(planFor(more))).toEqual([]);
    expect(repairSkips(planFor(more))[0]?.standDown).toEqual(
      expect.objectContaining({ unhealthy: 4, members: 12, allowed: 3 }),
    );
  });

  it('should count a machine two Nodes claim (an identity conflict), and their health, in its group', () => {
    const base = group(4, [1, 2]);
    const twin = silentNode(9, 40 * MINUTE, { name: 'twin-of-1', providerID: `aws:///us-east-1a/${instanceId(1)}` });
    const result = planFor({
      ...base,
      nodes: [...base.nodes, twin],
      leases: new Map([...base.leases, [twin.name, { nodeName: twin.name, renewTime: NOW - HOUR }]]),
    });
    // 2 of 4 unhealthy (machine 1 through its two silent Nodes, machine 2) > ceil(0.8) = 1: stand down.
    expect(repairs(result)).toEqual([]);
    expect(repairSkips(result).map((s) => s.standDown)).toEqual([
      expect.objectContaining({ unhealthy: 2, members: 4, allowed: 1 }),
    ]);
  });

  it('should not count members still launching as healthy capacity: 3 silent of 10 stand down though 5 more are pending', () => {
    const base = group(10, [1, 2, 3]);
    const launching = [11, 12, 13, 14, 15].map((n) =>
      member(n, 'ng-a', {
        state: 'pending',
        launchedAt: NOW - MINUTE,
        autoScaling: { group: 'ng-a', lifecycleState: 'Pending', healthStatus: 'Healthy' },
      }),
    );
    const result = planFor({ ...base, instances: [...base.instances, ...launching] });
    expect(repairs(result)).toEqual([]);
    expect(repairSkips(result).find((s) => s.standDown !== undefined)?.standDown).toMatchObject({
      unhealthy: 3,
      members: 10,
    });
  });

  it('should not repair a machine only a Node names (no cluster tag, not in a configured group): replacing it would terminate someone else’s machine', () => {
    const base = group(10, [3]);
    const instances = base.instances.map((i) => (i.id === instanceId(3) ? { ...i, tags: {} } : i));
    const result = planFor({ ...base, instances });
    expect(repairs(result)).toEqual([]);
    expect(repairSkips(result).map((s) => s.reason)).toEqual([
      expect.stringMatching(/not tagged for this cluster nor in a configured Auto Scaling group/),
    ]);
  });

  it('should stand down when one machine in each of many small groups is unhealthy (the cluster over its share), though no group is over its own', () => {
    const ids = [1, 2, 3, 4, 5, 6];
    const zoneOf = (n: number) => `us-east-1${'abc'.charAt(n % 3)}`;
    const world = anObservation({
      nodes: ids.map((n) => silentNode(n, 40 * MINUTE, { providerID: `aws:///${zoneOf(n)}/${instanceId(n)}` })),
      instances: ids.map((n) => member(n, `ng-${n}`, { zone: zoneOf(n) })),
      leases: ids.map((n) => silentLease(n)),
    });
    const result = planFor(world);
    expect(repairs(result)).toEqual([]);
    expect(repairSkips(result).map((s) => s.standDown?.scope)).toEqual(ids.map(() => 'cluster'));
  });

  it("should count every Node of the cluster for its share, not only the groups' machines: 20 of 24 Karpenter Nodes NotReady beside one silent group machine stand down", () => {
    // One machine of a group of five is silent (the group alone may repair it); 20 of Karpenter's 24 Nodes are NotReady too.
    const karpenter = Array.from({ length: 24 }, (_, i) => 100 + i);
    const base = group(5, [3]);
    const world = anObservation({
      nodes: [
        ...base.nodes,
        ...karpenter.map((n, i) =>
          i < 20
            ? silentNode(n, 40 * MINUTE, { labels: { 'karpenter.sh/nodepool': 'default' } })
            : aNode(n, { labels: { 'karpenter.sh/nodepool': 'default' } }),
        ),
      ],
      instances: [...base.instances, ...karpenter.map((n) => anInstance(n, { launchedAt: NOW - 9 * HOUR }))],
      leases: [
        ...base.leases.values(),
        ...karpenter.map((n, i) => (i < 20 ? silentLease(n) : { nodeName: aNode(n).name, renewTime: NOW - 5_000 })),
      ],
    });

    const result = planFor(world);
    const alone = planFor(base);

    expect(repairs(result)).toEqual([]);
    expect(repairSkips(result).filter((skip) => skip.node === aNode(3).name)).toEqual([
      expect.objectContaining({
        node: aNode(3).name,
        standDown: expect.objectContaining({ scope: 'cluster', unhealthy: 21, members: 29 }) as unknown,
      }),
    ]);
    expect(repairs(alone)).toEqual([expect.objectContaining({ step: 'drain', instanceId: instanceId(3) })]);
  });

  it('should judge each group on its own', () => {
    // Ten healthy machines of ng-c keep the zone's and the cluster's shares (3 of 18) under 20 %.
    const healthy = [9, 10, 11, 12, 13, 14, 15, 16, 17, 18];
    const observation = anObservation({
      nodes: [
        silentNode(1),
        silentNode(2),
        aNode(3),
        silentNode(4),
        aNode(5),
        aNode(6),
        aNode(7),
        aNode(8),
        ...healthy.map((n) => aNode(n)),
      ],
      instances: [
        member(1, 'ng-a'),
        member(2, 'ng-a'),
        member(3, 'ng-a'),
        member(4, 'ng-b'),
        member(5, 'ng-b'),
        member(6, 'ng-b'),
        member(7, 'ng-b'),
        member(8, 'ng-b'),
        ...healthy.map((n) => member(n, 'ng-c')),
      ],
      leases: [silentLease(1), silentLease(2), silentLease(4)],
    });
    const result = planFor(observation);
    // ng-a: 2 of 3 unhealthy > ceil(0.6) = 1: stand down; ng-b: 1 of 5 ≤ 1: repaired.
    expect(repairs(result).map((a) => a.instanceId)).toEqual([instanceId(4)]);
    expect(repairSkips(result).map((s) => s.standDown?.group)).toEqual(['ng-a', 'ng-a']);
  });

  it('should count a drain already running in the group (any purpose) against maxParallel', () => {
    const draining = aNode(5, {
      unschedulable: true,
      annotations: { ...ownCordon(), ...record('demo-drain-5', { 'ec2-node-reconciler/drain-for': 'removal' }) },
    });
    const observation = group(10, [3], { drains: [['demo-drain-5', { status: 'running' }]] });
    const withDrain = {
      ...observation,
      nodes: observation.nodes.map((n) => (n.name === draining.name ? draining : n)),
    };
    const result = planFor(withDrain);
    expect(repairs(result)).toEqual([]);
    expect(repairSkips(result)[0]?.reason).toMatch(/1 repair or drain in flight/);
    expect(repairs(planFor(withDrain, { repair: { maxParallel: 2 } }))).toHaveLength(1);
  });

  it('should start at most maxParallel repairs in one run', () => {
    const result = planFor(group(20, [1, 2, 3, 4]), { repair: { maxParallel: 3 } });
    expect(repairs(result).map((a) => a.instanceId)).toEqual([instanceId(1), instanceId(2), instanceId(3)]);
  });

  it("should stand down while an unhealthy Node's machine could not be looked up (its group is unknown), and go on once it can be", () => {
    // Two of ten are unhealthy where the run can see them (within 20 %); a third unhealthy Node's machine lookup failed.
    const world = group(10, [1, 2]);
    const hidden = silentNode(11);
    const blind = {
      ...world,
      nodes: [...world.nodes, hidden],
      leases: new Map([...world.leases, [hidden.name, silentLease(11)]]),
      lookupErrors: new Map([[instanceId(11), 'RequestLimitExceeded']]),
    };
    const result = planFor(blind);
    expect(repairs(result)).toEqual([]);
    expect(repairSkips(result).map((s) => s.node)).toEqual([aNode(1).name, aNode(2).name]);
    for (const skip of repairSkips(result))
      expect(skip.reason).toMatch(
        new RegExp(`stand down: the machine of unhealthy node ${hidden.name} could not be looked up this run`),
      );
    // A healthy Node whose lookup failed tells nothing about unhealthy shares: repairs go on.
    const healthy = aNode(11, { createdAt: NOW - 9 * HOUR });
    expect(
      repairs(
        planFor({
          ...blind,
          nodes: [...world.nodes, healthy],
          leases: new Map([...world.leases, [healthy.name, { nodeName: healthy.name, renewTime: NOW - 5_000 }]]),
        }),
      ).map((a) => a.instanceId),
    ).toEqual([instanceId(1)]);
  });

  it("should not mark an unregistered machine Unhealthy while an unhealthy Node's machine could not be looked up (the repair's stand-down), and mark it once it can be", () => {
    // Ten healthy members of ng-a, one more that never registered, and an unhealthy Node whose machine lookup failed.
    const world = group(10, []);
    const unregistered = member(12, 'ng-a', { launchedAt: NOW - HOUR });
    const hidden = silentNode(11);
    const blind = {
      ...world,
      nodes: [...world.nodes, hidden],
      instances: [...world.instances, unregistered],
      leases: new Map([...world.leases, [hidden.name, silentLease(11)]]),
      lookupErrors: new Map([[instanceId(11), 'RequestLimitExceeded']]),
    };
    const marks = (p: Plan) => p.actions.filter((a) => a.kind === 'mark-unhealthy');
    const markOn = { settings: { markUnregisteredUnhealthy: true } };

    const result = planFor(blind, markOn);
    expect(marks(result)).toEqual([]);
    expect(result.skipped.filter((s) => s.kind === 'mark-unhealthy').map((s) => s.reason)).toEqual([
      expect.stringMatching(
        new RegExp(`^stand down: the machine of unhealthy node ${hidden.name} could not be looked up this run`),
      ),
    ]);
    // Looked up, it counts in its group (2 of 12 unhealthy, within 20 %): the unregistered machine is marked.
    const seen = { ...blind, instances: [...world.instances, unregistered, member(11)], lookupErrors: new Map() };
    expect(marks(planFor(seen, markOn)).map((a) => a.kind === 'mark-unhealthy' && a.instanceId)).toEqual([
      instanceId(12),
    ]);
  });

  it('should not mark an unregistered machine Unhealthy while the group of another unregistered machine could not be described, and mark it once it can be', () => {
    // ng-a: ten healthy members and one that never registered. ng-b: its machine never registered either,
    // and its group could not be described this run, so neither ng-b nor the cluster can count it.
    const world = group(10, []);
    const unregistered = member(12, 'ng-a', { launchedAt: NOW - HOUR });
    const blindB = anInstance(13, {
      launchedAt: NOW - HOUR,
      tags: { 'eks:cluster-name': CLUSTER, 'aws:autoscaling:groupName': 'ng-b' },
      enrichmentErrors: ['describing Auto Scaling group ng-b: Throttling'],
    });
    const blind = { ...world, instances: [...world.instances, unregistered, blindB] };
    const marks = (p: Plan) => p.actions.flatMap((a) => (a.kind === 'mark-unhealthy' ? [a.instanceId] : []));
    const markOn = { settings: { markUnregisteredUnhealthy: true } };

    const result = planFor(blind, markOn);
    expect(marks(result)).toEqual([]);
    expect(result.skipped.filter((s) => s.kind === 'mark-unhealthy').map((s) => s.reason)).toContainEqual(
      expect.stringMatching(
        new RegExp(`^stand down: the group of unregistered machine ${instanceId(13)} could not be looked up this run`),
      ),
    );
    // Described: ng-b counts its own machine, and ng-a's is marked (and ng-b's, 1 of 1, stands down).
    const seen = {
      ...blind,
      instances: [...world.instances, unregistered, member(13, 'ng-b', { launchedAt: NOW - HOUR })],
    };
    expect(marks(planFor(seen, markOn))).toContain(instanceId(12));
  });

  it('should stand down while an unhealthy machine’s group could not be described (its group cannot count it), and go on once it can be', () => {
    const world = group(10, [1, 2]);
    const hidden = silentNode(11);
    const unplaced = anInstance(11, {
      launchedAt: NOW - 9 * HOUR,
      tags: { 'eks:cluster-name': CLUSTER, 'aws:autoscaling:groupName': 'ng-b' },
      enrichmentErrors: ['describing Auto Scaling group ng-b: Throttling'],
    });
    const blind = {
      ...world,
      nodes: [...world.nodes, hidden],
      instances: [...world.instances, unplaced],
      leases: new Map([...world.leases, [hidden.name, silentLease(11)]]),
    };
    const result = planFor(blind);
    expect(repairs(result)).toEqual([]);
    for (const skip of repairSkips(result).filter((s) => s.node !== hidden.name))
      expect(skip.reason).toMatch(
        new RegExp(`stand down: the machine of unhealthy node ${hidden.name} could not be looked up this run`),
      );
    // Described, it counts in its own group: ng-a goes on.
    const seen = { ...blind, instances: [...world.instances, member(11, 'ng-b')] };
    expect(repairs(planFor(seen)).map((a) => a.instanceId)).toEqual([instanceId(1), instanceId(11)]);
  });
});

describe('repair: never', () => {
  const one = (
    over: { node?: Partial<NodeView>; instance?: Partial<InstanceView> } = {},
    spec: Partial<WorldSpec> = {},
  ) => {
    const base = group(10, [3]);
    return {
      ...base,
      nodes: base.nodes.map((n) => (n.name === aNode(3).name ? { ...n, ...over.node } : n)),
      instances: base.instances.map((i) => (i.id === instanceId(3) ? { ...i, ...over.instance } : i)),
      ...(spec.lookupErrors ? { lookupErrors: new Map(spec.lookupErrors) } : {}),
      ...(spec.scope ? { scope: spec.scope } : {}),
    };
  };

  it.each<[string, Observation, RegExp | undefined]>([
    [
      'an excluded node',
      one({ node: { labels: { 'ec2-node-reconciler/exclude': 'true' } } }),
      /excluded by node label/,
    ],
    [
      'an excluded instance',
      one({ instance: { tags: { 'eks:cluster-name': CLUSTER, 'ec2-node-reconciler/exclude': 'true' } } }),
      /excluded by instance tag/,
    ],
    [
      'an instance outside any Auto Scaling group',
      one({ instance: { autoScaling: undefined } }),
      /not in an Auto Scaling group: nothing would replace it/,
    ],
    ["another cluster's instance", one({ instance: { tags: { 'eks:cluster-name': 'other' } } }), undefined],
    [
      'an instance whose Auto Scaling lookup failed this run',
      one({ instance: { enrichmentErrors: ['describing Auto Scaling instances: Throttling'] } }),
      /lookup about .* failed this run/,
    ],
    [
      'an instance the group is terminating',
      one({ instance: { autoScaling: { group: 'ng-a', lifecycleState: 'Terminating', healthStatus: 'Healthy' } } }),
      /Auto Scaling group ng-a has it Terminating/,
    ],
    [
      'an instance in Standby',
      one({ instance: { autoScaling: { group: 'ng-a', lifecycleState: 'Standby', healthStatus: 'Healthy' } } }),
      /has it Standby/,
    ],
    [
      'an instance the group already has Unhealthy',
      one({ instance: { autoScaling: { group: 'ng-a', lifecycleState: 'InService', healthStatus: 'Unhealthy' } } }),
      /already has it Unhealthy/,
    ],
    ['a pending instance', one({ instance: { state: 'pending' } }), /is pending, not running/],
  ])('should not repair %s', (_name, observation, reason) => {
    const result = planFor(observation);
    expect(repairs(result)).toEqual([]);
    expect(result.actions.some((a) => a.kind === 'cordon')).toBe(false);
    if (reason) expect(repairSkips(result).map((s) => s.reason)).toContainEqual(expect.stringMatching(reason));
  });

  it('should not repair an unknown pair (its lookup failed) nor an identity conflict', () => {
    expect(repairs(planFor(one({}, { lookupErrors: [[instanceId(3), 'RequestLimitExceeded']] })))).toEqual([]);
    const conflict = group(10, [3]);
    const twin = silentNode(11, 40 * MINUTE, { name: 'twin', providerID: `aws:///us-east-1a/${instanceId(3)}` });
    expect(repairs(planFor({ ...conflict, nodes: [...conflict.nodes, twin] }))).toEqual([]);
  });

  it('should not repair from an event: only a sweep sees the whole group', () => {
    expect(repairs(planFor(one({}, { scope: 'event' })))).toEqual([]);
  });

  it('should repair only in the configured groups when autoScalingGroupNames is set', () => {
    expect(repairSkips(planFor(group(10, [3]), { ownGroups: ['ng-b'] })).map((s) => s.reason)).toContainEqual(
      expect.stringMatching(/ng-a is not one of the configured autoScalingGroupNames/),
    );
    expect(repairs(planFor(group(10, [3]), { ownGroups: ['ng-a'] }))).toHaveLength(1);
  });

  it.each([['Launch'], ['Terminate'], ['ReplaceUnhealthy']])(
    'should not start a repair in a group with %s suspended (the group would not replace the machine), and start one once it is resumed',
    (process) => {
      const suspended = (processes: string[]) => {
        const base = group(10, [3]);
        return {
          ...base,
          instances: base.instances.map((i) => ({
            ...i,
            autoScaling: {
              group: 'ng-a',
              lifecycleState: 'InService',
              healthStatus: 'Healthy' as const,
              suspendedProcesses: processes,
            },
          })),
        };
      };
      const held = planFor(suspended(['AlarmNotification', process]));
      expect(repairs(held)).toEqual([]);
      expect(held.actions.filter((a) => a.kind === 'cordon')).toEqual([]);
      expect(repairSkips(held).map((s) => s.reason)).toEqual([
        `Auto Scaling group ng-a has ${process} suspended: it would not replace a machine marked Unhealthy, so none is taken out until it is resumed`,
      ]);
      // Processes a replacement does not need do not hold it.
      expect(
        repairs(planFor(suspended(['AZRebalance', 'AlarmNotification', 'HealthCheck', 'ScheduledActions']))),
      ).toHaveLength(1);
    },
  );

  it('should not start a repair on a node whose removal drain runs', () => {
    const observation = group(10, [3], { drains: [['demo-drain-3', { status: 'running' }]] });
    const nodes = observation.nodes.map((n) =>
      n.name === aNode(3).name
        ? {
            ...n,
            unschedulable: true,
            annotations: record('demo-drain-3', { 'ec2-node-reconciler/drain-for': 'removal' }),
          }
        : n,
    );
    const result = planFor({ ...observation, nodes });
    expect(repairs(result)).toEqual([]);
    expect(repairSkips(result)[0]?.reason).toMatch(/drain demo-drain-3 runs on the node/);
  });
});

describe('repair: after the drain', () => {
  const drained = (outcome: string, annotations: Record<string, string> = ownCordon()) => {
    const base = group(10, [3]);
    return {
      ...base,
      nodes: base.nodes.map((n) =>
        n.name === aNode(3).name
          ? {
              ...n,
              unschedulable: true,
              annotations: {
                ...annotations,
                ...record('demo-repair-3', { 'ec2-node-reconciler/drain-outcome': outcome }),
              },
            }
          : n,
      ),
    };
  };

  it.each(['done', 'deadline', 'incomplete'])(
    'should mark the machine Unhealthy in its group once its repair drain ended %s',
    (outcome) => {
      const result = planFor(drained(outcome));
      expect(repairs(result)).toEqual([
        expect.objectContaining({
          kind: 'repair',
          step: 'replace',
          instanceId: instanceId(3),
          group: 'ng-a',
          execution: 'demo-repair-3',
          drainOutcome: outcome,
        }),
      ]);
    },
  );

  it('should not mark a machine whose kubelet is alive (only KernelReady False) when its repair drain ended incomplete (pods a PodDisruptionBudget protects still run there): the repair is blocked, and says how to go on', () => {
    const kernelBad = (outcome: string) => {
      const base = drained(outcome);
      return {
        ...base,
        nodes: base.nodes.map((n) =>
          n.name === aNode(3).name
            ? {
                ...n,
                ready: 'True' as const,
                readyHeartbeatAt: NOW - 5_000,
                conditions: {
                  Ready: { status: 'True' as const, since: NOW - 9 * HOUR },
                  KernelReady: { status: 'False' as const, since: NOW - 40 * MINUTE },
                },
              }
            : n,
        ),
        leases: new Map(
          [...base.leases].map(([name, lease]) => [
            name,
            name === aNode(3).name ? { ...lease, renewTime: NOW - 5_000 } : lease,
          ]),
        ),
      };
    };

    const blocked = planFor(kernelBad('incomplete'));
    const done = planFor(kernelBad('done'));

    expect(repairs(blocked)).toEqual([]);
    expect(repairSkips(blocked).map((s) => s.reason)).toEqual([
      expect.stringMatching(
        /repair blocked: .*PodDisruptionBudget.*kubelet is alive.*set-instance-health --instance-id i-0+3 --health-status Unhealthy/,
      ),
    ]);
    expect(repairs(done)).toEqual([expect.objectContaining({ step: 'replace', instanceId: instanceId(3) })]);
  });

  it('should not mark a machine whose repair drain failed (no outcome: the step errored, or it was stopped) before the drain’s deadline, and mark it after', () => {
    const failed = (deadline: number) => {
      const base = group(10, [3], { drains: [['demo-repair-3', { status: 'ended' }]] });
      const annotations = {
        ...ownCordon(),
        ...record('demo-repair-3', { 'ec2-node-reconciler/drain-deadline': new Date(deadline).toISOString() }),
      };
      return {
        ...base,
        nodes: base.nodes.map((n) => (n.name === aNode(3).name ? { ...n, unschedulable: true, annotations } : n)),
      };
    };

    const early = planFor(failed(NOW + 5 * MINUTE));
    const late = planFor(failed(NOW - MINUTE));

    expect(repairs(early)).toEqual([]);
    expect(repairSkips(early).map((s) => s.reason)).toEqual([
      expect.stringMatching(/ended without an outcome \(failed or stopped\): not replaced before its deadline/),
    ]);
    expect(repairs(late)).toEqual([expect.objectContaining({ step: 'replace', instanceId: instanceId(3) })]);
  });

  it('should not replace while the repair drain runs, and count it in flight', () => {
    const base = group(10, [3, 5], { drains: [['demo-repair-3', { status: 'running' }]] });
    const nodes = base.nodes.map((n) =>
      n.name === aNode(3).name
        ? { ...n, unschedulable: true, annotations: { ...ownCordon(), ...record('demo-repair-3') } }
        : n,
    );
    const result = planFor({ ...base, nodes });
    expect(repairs(result)).toEqual([]);
    expect(repairSkips(result).map((s) => s.reason)).toEqual([
      expect.stringMatching(/repair drain demo-repair-3 is running/),
      expect.stringMatching(/1 repair or drain in flight/),
    ]);
  });

  it('should not mark the drained machine Unhealthy while its group has Launch and Terminate suspended: it stays cordoned, and the report says why', () => {
    const base = drained('done');
    const instances = base.instances.map((i) => ({
      ...i,
      autoScaling: {
        group: 'ng-a',
        lifecycleState: 'InService',
        healthStatus: 'Healthy' as const,
        suspendedProcesses: ['Launch', 'Terminate'],
      },
    }));
    const result = planFor({ ...base, instances });
    expect(repairs(result)).toEqual([]);
    const kinds = result.actions.map((a) => a.kind);
    expect(kinds).not.toContain('uncordon-own');
    expect(kinds).not.toContain('forget-drain');
    expect(repairSkips(result).map((s) => s.reason)).toEqual([
      expect.stringMatching(/ng-a has Launch, Terminate suspended: .* until they are resumed/),
    ]);
  });

  it.each(['done', 'deadline', 'incomplete'])(
    'should not mark the machine Unhealthy when someone uncordoned its node after its repair drain ended %s: it is the operator’s until its condition changes',
    (outcome) => {
      const base = drained(outcome);
      const uncordoned = {
        ...base,
        nodes: base.nodes.map((n) => (n.name === aNode(3).name ? { ...n, unschedulable: false } : n)),
      };
      const result = planFor(uncordoned);
      expect(repairs(result)).toEqual([]);
      expect(result.actions.filter((a) => a.kind === 'cordon')).toEqual([]);
      expect(repairSkips(result).map((s) => s.reason)).toEqual([
        expect.stringMatching(
          new RegExp(
            `uncordoned after its repair drain demo-repair-3 .*ended \\(${outcome}\\): it is the operator's, not replaced`,
          ),
        ),
      ]);

      // A condition that went bad again after the repair was recorded starts a new repair (a new cordon and drain), not the mark.
      const again = {
        ...uncordoned,
        nodes: uncordoned.nodes.map((n) =>
          n.name === aNode(3).name
            ? {
                ...n,
                annotations: {
                  ...n.annotations,
                  'ec2-node-reconciler/drain-at': new Date(NOW - 50 * MINUTE).toISOString(),
                },
              }
            : n,
        ),
      };
      const restarted = planFor(again);
      expect(
        restarted.actions
          .filter((a) => a.kind !== 'report')
          .map((a) => (a.kind === 'repair' ? `repair ${a.step}` : a.kind)),
      ).toEqual(['cordon', 'repair drain']);
    },
  );

  it('should stand down before replacing too', () => {
    const base = drained('done');
    const worse = {
      ...base,
      nodes: base.nodes.map((n, i) => (i === 0 || i === 1 ? silentNode(i + 1) : n)),
      leases: new Map(
        [...base.leases].map(([k, v]) => [
          k,
          k === aNode(1).name || k === aNode(2).name ? { ...v, renewTime: NOW - HOUR } : v,
        ]),
      ),
    };
    const result = planFor(worse);
    expect(repairs(result)).toEqual([]);
    expect(repairSkips(result).find((s) => s.instanceId === instanceId(3))?.standDown).toBeDefined();
  });

  it('should not repair again a machine whose repair drain an operator cancelled by uncordoning, until its condition changes', () => {
    const cancelled = drained('cancelled-by-uncordon', {});
    const uncordoned = {
      ...cancelled,
      nodes: cancelled.nodes.map((n) => (n.name === aNode(3).name ? { ...n, unschedulable: false } : n)),
    };
    const result = planFor(uncordoned);
    expect(repairs(result)).toEqual([]);
    expect(result.actions.some((a) => a.kind === 'cordon')).toBe(false);
    expect(repairSkips(result)[0]?.reason).toMatch(/uncordoned during its repair drain/);
    // Bad again since after the record (it recovered, then failed anew): a new repair.
    const anew = {
      ...uncordoned,
      nodes: uncordoned.nodes.map((n) =>
        n.name === aNode(3).name
          ? {
              ...n,
              conditions: { Ready: { status: 'False' as const, since: NOW - 5 * MINUTE } },
              ready: 'False' as const,
            }
          : n,
      ),
    };
    expect(repairs(planFor(anew, { repair: { after: { ...REPAIR_ON.after, Ready: 5 * MINUTE } } }))).toEqual([
      expect.objectContaining({ step: 'drain' }),
    ]);
  });

  it('should take the lifecycle event of a repaired machine (announced after its repair drain) as already drained', () => {
    const base = drained('deadline');
    const signal = {
      kind: 'asg-terminate-lifecycle-action' as const,
      instanceId: instanceId(3),
      observedAt: NOW,
      eventId: 'evt-lc-3',
      description: 'Auto Scaling terminates it',
      lifecycle: { group: 'ng-a', hook: 'drain-hook', token: 't-3' },
    };
    const result = planFor({ ...base, scope: 'event' }, { signals: [signal] });
    expect(result.actions.filter((a) => a.kind !== 'report')).toEqual([
      expect.objectContaining({
        kind: 'complete-lifecycle',
        instanceId: instanceId(3),
        lifecycle: expect.objectContaining({ token: 't-3' }) as unknown,
      }),
    ]);
    // An operator's uncordon stopped the repair: the machine stayed, so this removal is new and is drained.
    const cancelled = drained('cancelled-by-uncordon', {});
    const uncordoned = {
      ...cancelled,
      scope: 'event' as const,
      nodes: cancelled.nodes.map((n) => (n.name === aNode(3).name ? { ...n, unschedulable: false } : n)),
    };
    expect(planFor(uncordoned, { signals: [signal] }).actions.map((a) => a.kind)).toEqual(['cordon', 'drain']);
  });

  it('should take a removal of a repaired machine as already drained: its lifecycle action is completed, nothing drained again', () => {
    const base = drained('deadline');
    const terminating = {
      ...base,
      instances: base.instances.map((i) =>
        i.id === instanceId(3)
          ? {
              ...i,
              autoScaling: {
                group: 'ng-a',
                lifecycleState: 'Terminating:Wait',
                terminateHook: 'drain-hook',
                healthStatus: 'Unhealthy' as const,
              },
            }
          : i,
      ),
    };
    const result = planFor(terminating);
    expect(result.actions.filter((a) => a.kind !== 'report')).toEqual([
      expect.objectContaining({ kind: 'complete-lifecycle', instanceId: instanceId(3), result: 'CONTINUE' }),
    ]);
  });
});

describe('repair: recovery', () => {
  const recovered = (
    status: 'running' | 'ended',
    over: { annotations?: Record<string, string>; instance?: Partial<InstanceView> } = {},
  ) => {
    const base = group(10, [], { drains: [['demo-repair-3', { status }]] });
    return {
      ...base,
      nodes: base.nodes.map((n) =>
        n.name === aNode(3).name
          ? {
              ...n,
              unschedulable: true,
              annotations: over.annotations ?? { ...ownCordon(), ...record('demo-repair-3') },
            }
          : n,
      ),
      instances: base.instances.map((i) => (i.id === instanceId(3) ? { ...i, ...over.instance } : i)),
    };
  };

  it('should cancel the repair of a node Ready again while its repair drain runs: uncordon it, though a drain runs', () => {
    const result = planFor(recovered('running'));
    expect(result.actions).toEqual([
      expect.objectContaining({
        kind: 'repair',
        step: 'cancel',
        node: aNode(3).name,
        execution: 'demo-repair-3',
        instanceId: instanceId(3),
      }),
    ]);
    expect(result.actions.some((a) => a.kind === 'uncordon-own')).toBe(false);
  });

  it('should cancel a repair whose drain ended before the machine was replaced', () => {
    expect(repairs(planFor(recovered('ended')))).toEqual([expect.objectContaining({ step: 'cancel' })]);
  });

  it('should cancel even while repair is off (an own cordon is never left behind)', () => {
    expect(repairs(planFor(recovered('running'), { repair: { enabled: false } }))).toEqual([
      expect.objectContaining({ step: 'cancel' }),
    ]);
  });

  it.each<[string, Parameters<typeof recovered>[1], RegExp]>([
    [
      'a lookup about it failed',
      { instance: { enrichmentErrors: ['describing Auto Scaling instances: Throttling'] } },
      /lookup about .* failed this run/,
    ],
    [
      'it is excluded',
      { instance: { tags: { 'eks:cluster-name': CLUSTER, 'ec2-node-reconciler/exclude': 'true' } } },
      /excluded/,
    ],
    [
      'its group has it Unhealthy already',
      { instance: { autoScaling: { group: 'ng-a', lifecycleState: 'InService', healthStatus: 'Unhealthy' } } },
      /already has it Unhealthy/,
    ],
  ])('should not cancel when %s', (_name, over, reason) => {
    const result = planFor(recovered('running', over));
    expect(result.actions.filter((a) => a.kind !== 'report')).toEqual([]);
    expect(result.skipped.map((s) => s.reason)).toContainEqual(expect.stringMatching(reason));
  });
});
