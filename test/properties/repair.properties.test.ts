// Repair invariants (docs/design.md §1b, issue #19), each over at least 10,000 generated worlds: never more
// than repair.maxParallel in flight per group, none while more than repair.maxUnhealthyPercent of the
// group is unhealthy (nor while an unhealthy Node cannot be placed in a group), none before repair.after,
// none for a pair that is not unresponsive-machine; and
// the rails around them: never a machine not ours, excluded, outside an InService Auto Scaling group,
// in a group that would not replace it (Launch, Terminate or ReplaceUnhealthy suspended) or whose
// lookup failed; replaced only once its repair drain has ended; cancelled only when the node
// has recovered; under dryRun planned exactly the same and not carried out. "A repair" is a repair
// drain started or a machine marked Unhealthy for its group to replace.
//
// The worlds: a quarter are the plan properties' general worlds (conflicts, other regions, signals,
// failed lookups), three quarters are worlds of one or two Auto Scaling groups of up to ten machines,
// where repairs, stand-downs and turns come up often (the last test shows they do).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { act } from '../../lib/act/act.js';
import type { Action } from '@ec2-node-reconciler/model/action.js';
import { isInstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import type { InstanceView, NodeView } from '@ec2-node-reconciler/model/observation.js';
import type { ReconcilerDeps } from '../../lib/pipeline/deps.js';
import { groupWorldArb, recordStatus, worldArb, type World, decideWorld } from '../support/arbitraries.js';
import { CLUSTER, NOW, REGION } from '../support/world.js';
import { isWarmPoolState } from '@ec2-node-reconciler/model/lifecycle-states.js';

const RUNS = { numRuns: 10_000 };

const repairWorldArb: fc.Arbitrary<World> = fc.oneof(
  { weight: 1, arbitrary: worldArb },
  { weight: 3, arbitrary: groupWorldArb },
);

type Repair = Extract<Action, { kind: 'repair' }>;
/** A repair proper: its drain started, or its machine marked Unhealthy (a cancel undoes one). */
const repairsOf = (actions: readonly Action[]): Exclude<Repair, { step: 'cancel' }>[] =>
  actions.filter((a): a is Exclude<Repair, { step: 'cancel' }> => a.kind === 'repair' && a.step !== 'cancel');

// ---------- the oracle: its own plain reading of the world, never classify's or plan's helpers ----------

const EC2_PROVIDER_ID = /^aws:\/\/\/([a-z0-9-]+)\/(i-[0-9a-f]{8}(?:[0-9a-f]{9})?)$/;
const inRegion = (zone: string): boolean => zone.startsWith(`${REGION}-`) || /^us-east-1[a-z]$/.test(zone);

/** The instance a node names for certain: a providerID in this region, or an instance-id hostname when it has none. */
function linkedId(node: NodeView): string | undefined {
  if (node.providerID) {
    const match = EC2_PROVIDER_ID.exec(node.providerID);
    return match?.[1] !== undefined && inRegion(match[1]) ? match[2] : undefined;
  }
  const first = node.name.split('.')[0] ?? '';
  return /^i-[0-9a-f]{8}(?:[0-9a-f]{9})?$/.test(first) ? first : undefined;
}

/** Every condition of the node that is bad, with since when: Ready not True, a kubelet gone quiet, an agent condition False. */
/** A Node another system runs end to end by its own marks (found by seed 538743401: Karpenter's disrupted taint). */
function isAnotherSystemsNode(world: World, node: NodeView): boolean {
  return (
    node.taints.some((t) => t.key === 'karpenter.sh/disrupted') ||
    node.labels['eks.amazonaws.com/compute-type'] === 'auto' ||
    (!world.settings.includeKarpenterNodes && node.labels['karpenter.sh/nodepool'] !== undefined)
  );
}

function badSince(world: World, node: NodeView): { type: string; since: number | undefined }[] {
  const lease = world.observation.leases.get(node.name)?.renewTime;
  const beats = [lease, node.readyHeartbeatAt].filter((t): t is number => t !== undefined);
  const lastBeat = beats.length > 0 ? Math.max(...beats) : undefined;
  const silent = lastBeat === undefined || NOW - lastBeat > world.settings.heartbeatGrace;
  const bad: { type: string; since: number | undefined }[] = [];
  if (node.ready !== 'True') bad.push({ type: 'Ready', since: node.conditions?.Ready?.since });
  else if (silent) bad.push({ type: 'Ready', since: lastBeat });
  for (const [type, condition] of Object.entries(node.conditions ?? {})) {
    if (type !== 'Ready' && condition?.status === 'False') bad.push({ type, since: condition.since });
  }
  return bad;
}

/** A group's members in service: a warm pool's (resting, or leaving from the pool) are not its capacity. */
const membersOf = (world: World, group: string): InstanceView[] =>
  world.observation.instances.filter(
    (i) => i.autoScaling?.group === group && !isWarmPoolState(i.autoScaling.lifecycleState),
  );

/** Unhealthy by the meaning EKS and Karpenter give it: the group says so, or a Node of the machine has a bad condition. */
function isUnhealthy(world: World, instance: InstanceView): boolean {
  if (instance.autoScaling?.healthStatus === 'Unhealthy') return true;
  return world.observation.nodes.some((n) => linkedId(n) === instance.id && badSince(world, n).length > 0);
}

/** How the node's drain record stands, read from its annotations and what the workflow said. */
function recordState(world: World, node: NodeView): 'none' | 'running' | 'ended' | 'absent' {
  const execution = node.annotations['ec2-node-reconciler/drain'];
  if (execution === undefined || execution === '') return 'none';
  const status = recordStatus(node.annotations, world.observation.drains.get(execution), NOW);
  return status === 'unknown' ? 'running' : status;
}

/**
 * In flight: a drain that runs (or may), or a repair that is not over (its record not cancelled by an
 * operator, not absent, and its node still cordoned: one uncordoned after its drain is the operator's).
 */
function inFlight(world: World, node: NodeView): boolean {
  const state = recordState(world, node);
  if (state === 'running') return true;
  const repair =
    node.annotations['ec2-node-reconciler/drain-for'] === 'repair' &&
    node.annotations['ec2-node-reconciler/drain-outcome'] !== 'cancelled-by-uncordon';
  return repair && state === 'ended' && node.unschedulable;
}

/**
 * Ours (docs/design.md §1a): tagged for this cluster (EKS's, the Kubernetes or Karpenter's tag), or tagged for
 * no cluster at all and named by the Node for certain (providerID or instance-id hostname): a Node
 * that matches it by private DNS name only does not make it ours.
 */
function isOurs(instance: InstanceView | undefined, node?: NodeView): boolean {
  if (instance === undefined) return false;
  const { tags } = instance;
  if (
    tags['eks:cluster-name'] === CLUSTER ||
    tags['eks:eks-cluster-name'] === CLUSTER ||
    tags[`kubernetes.io/cluster/${CLUSTER}`] !== undefined
  )
    return true;
  const unmarked = !Object.keys(tags).some(
    (k) => k === 'eks:cluster-name' || k === 'eks:eks-cluster-name' || k.startsWith('kubernetes.io/cluster/'),
  );
  return unmarked && node !== undefined && linkedId(node) === instance.id;
}

/** The opt-out: any value of the label or tag but "false". */
const isExcluded = (marks: Readonly<Record<string, string>> | undefined): boolean => {
  const value = marks?.['ec2-node-reconciler/exclude'];
  return value !== undefined && value !== 'false';
};

/** Clients that note every use: under dryRun, nothing may reach them. */
function untouchable(touched: string[]): ReconcilerDeps {
  const client = (name: string): object =>
    new Proxy(
      {},
      {
        get: (_target, method) => () => {
          touched.push(`${name}.${String(method)}`);
          return Promise.reject(new Error(`dryRun called ${name}.${String(method)}`));
        },
      },
    );
  const deps: object = new Proxy({}, { get: (_target, port) => client(String(port)) });
  return deps as ReconcilerDeps;
}

const groupsOf = (world: World): string[] => [
  ...new Set(world.observation.instances.flatMap((i) => (i.autoScaling ? [i.autoScaling.group] : []))),
];

describe('repair invariants (fast-check)', () => {
  it('should never have more than repair.maxParallel repairs in flight per group, counting the drains running there', () => {
    fc.assert(
      fc.property(repairWorldArb, (world) => {
        const { planned } = decideWorld(world);
        for (const group of groupsOf(world)) {
          const ids = new Set<string>(membersOf(world, group).map((i) => i.id));
          const busy = new Set(
            world.observation.nodes
              .filter((n) => inFlight(world, n))
              .flatMap((n) => [linkedId(n)].filter((id): id is string => id !== undefined && ids.has(id))),
          );
          const started = planned.actions.filter(
            (a) => a.kind === 'repair' && a.step === 'drain' && a.group === group,
          ).length;
          expect(started, `${group}: ${started} repairs started beside ${busy.size} in flight`).toBeLessThanOrEqual(
            Math.max(0, world.settings.repair.maxParallel - busy.size),
          );
        }
      }),
      RUNS,
    );
  });

  it('should never repair while more than repair.maxUnhealthyPercent of the group is unhealthy (rounded up), nor while an unhealthy Node cannot be placed in a group', () => {
    fc.assert(
      fc.property(repairWorldArb, (world) => {
        const { nodes, lookupErrors } = world.observation;
        // An unhealthy Node (the only one naming its machine) whose machine's lookup failed may be any group's: no repair at all.
        // Unless its own marks say another system runs it end to end: Karpenter disrupting it, EKS Auto Mode
        // (docs/design.md §1c) — no Auto Scaling group holds such a machine.
        const unlocated = nodes.filter((n) => {
          const id = linkedId(n);
          return (
            !isAnotherSystemsNode(world, n) &&
            isInstanceId(id) &&
            lookupErrors.has(id) &&
            nodes.filter((m) => linkedId(m) === id).length === 1 &&
            badSince(world, n).length > 0
          );
        });
        const planned = repairsOf(decideWorld(world).planned.actions);
        if (unlocated.length > 0)
          expect(
            planned.map((r) => `${r.step} ${r.node}`),
            `repairs beside unhealthy ${unlocated.map((n) => n.name).join(', ')}, whose lookup failed`,
          ).toEqual([]);
        for (const repair of planned) {
          const members = membersOf(world, repair.group);
          const unhealthy = members.filter((i) => isUnhealthy(world, i)).length;
          const allowed = Math.ceil((members.length * world.settings.repair.maxUnhealthyPercent) / 100);
          expect(
            unhealthy,
            `${repair.step} in ${repair.group}: ${unhealthy} of ${members.length} unhealthy, ${allowed} allowed`,
          ).toBeLessThanOrEqual(allowed);
        }
      }),
      RUNS,
    );
  });

  it('should never repair before a condition has been bad for its repair.after', () => {
    fc.assert(
      fc.property(repairWorldArb, (world) => {
        for (const repair of repairsOf(decideWorld(world).planned.actions)) {
          const node = world.observation.nodes.find((n) => n.name === repair.node);
          expect(node).toBeDefined();
          if (!node) continue;
          const after = world.settings.repair.after as Readonly<Record<string, number>>;
          const due = badSince(world, node).some(
            (c) => c.since !== undefined && NOW - c.since >= (after[c.type] ?? Infinity),
          );
          expect(due, `${repair.step} of ${node.name} with no condition bad for its repair.after`).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it('should never repair a pair that is not unresponsive-machine in the run, nor a machine that is not running, InService, ours, included and fully looked up', () => {
    fc.assert(
      fc.property(repairWorldArb, (world) => {
        const { pairs, planned } = decideWorld(world);
        for (const repair of repairsOf(planned.actions)) {
          const what = `${repair.step} of ${repair.node}`;
          expect(world.settings.repair.enabled, what).toBe(true);
          expect(world.observation.scope, what).toBe('sweep');
          const pair = pairs.find((p) => p.node?.name === repair.node);
          expect(pair?.condition, what).toBe('unresponsive-machine');
          const node = world.observation.nodes.find((n) => n.name === repair.node);
          const instance = world.observation.instances.find((i) => i.id === repair.instanceId);
          const byName = node?.providerID === undefined && instance?.privateDnsName === node?.name;
          expect(
            node !== undefined && (linkedId(node) === repair.instanceId || byName),
            `${what}: its Node does not name ${repair.instanceId}`,
          ).toBe(true);
          expect(instance?.state, what).toBe('running');
          expect(instance?.autoScaling?.group, what).toBe(repair.group);
          expect(instance?.autoScaling?.lifecycleState, what).toBe('InService');
          expect(instance?.autoScaling?.healthStatus, what).not.toBe('Unhealthy');
          const halted = (instance?.autoScaling?.suspendedProcesses ?? []).filter((p) =>
            ['Launch', 'ReplaceUnhealthy', 'Terminate'].includes(p),
          );
          expect(halted, `${what}: its group would not replace it`).toEqual([]);
          expect(isOurs(instance, node), `${what}: not this cluster's`).toBe(true);
          expect(isExcluded(node?.labels), `${what}: node excluded`).toBe(false);
          expect(isExcluded(instance?.tags), `${what}: instance excluded`).toBe(false);
          expect(world.observation.lookupErrors.has(repair.instanceId), `${what}: its lookup failed`).toBe(false);
          expect(instance?.enrichmentErrors ?? [], `${what}: a lookup about it failed`).toEqual([]);
        }
      }),
      RUNS,
    );
  });

  it('should replace a machine only once its own repair drain has ended, and cancel a repair only for a node that recovered', () => {
    fc.assert(
      fc.property(repairWorldArb, (world) => {
        for (const action of decideWorld(world).planned.actions) {
          if (action.kind !== 'repair' || action.step === 'drain') continue;
          const node = world.observation.nodes.find((n) => n.name === action.node);
          expect(node, `${action.step} of ${action.node}`).toBeDefined();
          if (!node) continue;
          expect(
            node.annotations['ec2-node-reconciler/drain-for'],
            `${action.step} of ${node.name}: not a repair's record`,
          ).toBe('repair');
          expect(node.annotations['ec2-node-reconciler/drain'], `${action.step} of ${node.name}`).toBe(
            action.execution,
          );
          expect(
            node.annotations['ec2-node-reconciler/drain-outcome'],
            `${action.step} of ${node.name}: the operator stopped that repair`,
          ).not.toBe('cancelled-by-uncordon');
          if (action.step === 'replace') {
            expect(recordState(world, node), `replaced ${node.name} while its repair drain is not over`).toBe('ended');
            expect(node.unschedulable, `replaced ${node.name}, which someone uncordoned after its repair drain`).toBe(
              true,
            );
          } else {
            expect(badSince(world, node), `cancelled the repair of ${node.name}, which is still unhealthy`).toEqual([]);
            const instance = world.observation.instances.find((i) => i.id === action.instanceId);
            expect(
              isExcluded(node.labels) || isExcluded(instance?.tags),
              `cancelled the repair of excluded ${node.name}`,
            ).toBe(false);
            expect(
              world.observation.lookupErrors.has(action.instanceId) || (instance?.enrichmentErrors ?? []).length > 0,
              `cancelled the repair of ${node.name}, whose lookup failed`,
            ).toBe(false);
          }
        }
      }),
      RUNS,
    );
  });

  it('should plan the same repairs under dryRun, and carry none of them out', async () => {
    await fc.assert(
      fc.asyncProperty(repairWorldArb, async (world) => {
        const live = decideWorld({ ...world, settings: { ...world.settings, dryRun: false } }).planned;
        const dry = decideWorld({ ...world, settings: { ...world.settings, dryRun: true } }).planned;
        expect(dry.dryRun).toBe(true);
        expect(dry.actions).toEqual(live.actions);
        expect(dry.skipped).toEqual(live.skipped);
        const touched: string[] = [];
        const outcomes = await act(dry, untouchable(touched), world.observation.nodes);
        expect(touched, 'dryRun reached a client').toEqual([]);
        for (const { action, outcome } of outcomes)
          expect(outcome, `${action.kind} under dryRun`).toBe(action.kind === 'report' ? 'done' : 'dry-run');
      }),
      RUNS,
    );
  });

  it('should never start a repair drain on a node where a drain runs, and never without its cordon or on a cordoned node', () => {
    fc.assert(
      fc.property(repairWorldArb, (world) => {
        const { actions } = decideWorld(world).planned;
        for (const [index, action] of actions.entries()) {
          if (action.kind !== 'repair' || action.step !== 'drain') continue;
          const node = world.observation.nodes.find((n) => n.name === action.node);
          expect(node && recordState(world, node)).not.toBe('running');
          const cordon = actions[index - 1];
          if (node?.unschedulable === false)
            expect(cordon).toEqual(
              expect.objectContaining({
                kind: 'cordon',
                node: action.node,
                claim: expect.objectContaining({ execution: action.execution, for: 'repair' }) as unknown,
              }),
            );
        }
        // A repair's cordon never comes without its repair drain.
        for (const [index, action] of actions.entries()) {
          if (action.kind === 'cordon' && action.claim?.for === 'repair')
            expect(actions[index + 1]).toEqual(
              expect.objectContaining({ kind: 'repair', step: 'drain', node: action.node }),
            );
        }
      }),
      RUNS,
    );
  });
});

describe('the world generator, for repair', () => {
  it('should produce worlds where repairs start, replace, cancel, stand down, wait their turn and wait for repair.after (the properties are not vacuous)', () => {
    const worlds = fc.sample(repairWorldArb, { numRuns: 5_000, seed: 19 });
    const decided = worlds.map((w) => decideWorld(w).planned);
    const share = (test: (p: (typeof decided)[number]) => boolean) => decided.filter(test).length / decided.length;
    const step = (s: Repair['step']) => (p: (typeof decided)[number]) =>
      p.actions.some((a) => a.kind === 'repair' && a.step === s);
    const skipped = (pattern: RegExp) => (p: (typeof decided)[number]) =>
      p.skipped.some((s) => s.kind === 'repair' && pattern.test(s.reason));
    // Measured at about 6 %, 0.6 %, 11 %, 15 %, 0.4 %, 25 %, 0.7 % and (suspended processes) 6 % of the worlds
    // (maxUnhealthyPercent at most 50 holds more repairs back than the 100 it once allowed, and a repair
    // uncordoned after its drain is no longer in flight).
    expect(share(step('drain'))).toBeGreaterThan(0.04);
    // About 0.4 % before, 0.38 % since the stand-down counts every Node of the cluster and a blocked
    // repair drain on a live kubelet is not replaced (issue #26): the floor sits below both.
    expect(share(step('replace'))).toBeGreaterThan(0.003);
    expect(share(step('cancel'))).toBeGreaterThan(0.05);
    expect(share((p) => p.skipped.some((s) => s.standDown !== undefined))).toBeGreaterThan(0.05);
    expect(share(skipped(/in flight in Auto Scaling group/))).toBeGreaterThan(0.003);
    expect(share(skipped(/repaired once it has been so for/))).toBeGreaterThan(0.1);
    expect(share((p) => p.actions.filter((a) => a.kind === 'repair' && a.step === 'drain').length > 1)).toBeGreaterThan(
      0.005,
    );
    // The rails come up too: excluded machines, failed lookups, other clusters' machines, machines out of service.
    expect(share(skipped(/^excluded by/))).toBeGreaterThan(0.01);
    expect(share(skipped(/a lookup about .* failed this run/))).toBeGreaterThan(0.005);
    expect(share(skipped(/could not be looked up this run/))).toBeGreaterThan(0.005);
    const foreignAndBad =
      worlds.filter((w) =>
        w.observation.nodes.some((n) => {
          const instance = w.observation.instances.find((i) => i.id === linkedId(n));
          return instance !== undefined && !isOurs(instance, n) && badSince(w, n).length > 0;
        }),
      ).length / worlds.length;
    expect(foreignAndBad, 'worlds with an unhealthy Node of a machine not ours').toBeGreaterThan(0.02);
    expect(share(skipped(/only InService machines are repaired/))).toBeGreaterThan(0.005);
    expect(share(skipped(/suspended: it would not replace a machine marked Unhealthy/))).toBeGreaterThan(0.005);
  });
});
