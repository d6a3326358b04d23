// What a sweep knows of its Auto Scaling groups for repair (docs/design.md §1b), as Karpenter's node health
// counts its NodePools before it repairs: every group's members, its unhealthy ones and its repairs in
// flight, and the same over the whole cluster. Health is classify's judgement (ClassifiedPair.badConditions),
// never judged again here. Pure.
import { AUTO_SCALING_GROUP_TAG } from '@ec2-node-reconciler/model/contract/labels.js';
import type { ClassifiedPair } from '@ec2-node-reconciler/model/condition.js';
import { isWarmPoolState } from '@ec2-node-reconciler/model/lifecycle-states.js';
import type { NodeView } from '@ec2-node-reconciler/model/observation.js';
import { recordedDrain, type PlanContext } from '../pair.js';
import { parseFailures, type BackOffCensus } from './backoff.js';
import { isDrainLive, isRepairToFinish } from './record.js';

/** One Auto Scaling group as this run saw it. */
export interface GroupCensus {
  /** Its machines this run observed (every live instance of the cluster, or named by a Node, in the group). */
  readonly members: number;
  /** Those that are unhealthy: a bad repair condition on their Node, no Node past registrationGrace, or Unhealthy in the group. */
  readonly unhealthy: number;
  /** Repairs and drains in flight in the group; the repairs this run starts are added as they are planned. */
  inFlight: number;
  /** The back-off's record (the group's tag; the failures this run records are added as they are planned) and the latest healthy launch. */
  readonly backOff: BackOffCensus;
}

/** What a sweep knows of its Auto Scaling groups, for the stand-down and maxParallel. */
export interface Census {
  readonly groups: ReadonlyMap<string, GroupCensus>;
  /**
   * The same counts over the whole cluster: every group's machines and every other Node (Karpenter's,
   * EKS Auto Mode's, managed elsewhere). An outage that hits one machine in each of many small groups,
   * or the Nodes outside any group (a bad AMI rolled out everywhere, the control plane unreachable),
   * stands down although no group alone is over its share.
   */
  readonly cluster: { readonly members: number; readonly unhealthy: number };
  /**
   * Unhealthy Nodes whose machine's lookup failed this run: which group they count against is unknown,
   * so no group's unhealthy share is known for certain.
   */
  readonly unlocated: readonly string[];
  /**
   * Machines that never registered a Node (unhealthy to their group) whose group could not be described
   * this run: no group, nor the cluster, counts them.
   */
  readonly unlocatedMachines: readonly string[];
}

const groupOf = (pair: ClassifiedPair): string | undefined => pair.instance?.autoScaling?.group;

/** Whether classify found a bad repair condition on the pair's Node. */
const hasBadCondition = (pair: ClassifiedPair): boolean => (pair.badConditions ?? []).length > 0;

/** Whether the node counts against repair.maxParallel: a drain of any purpose runs (or may), or a repair is not over. */
function isInFlight(node: NodeView, ctx: Pick<PlanContext, 'drains'>, now: number): boolean {
  const drain = recordedDrain(node, ctx, now);
  return drain !== undefined && (isDrainLive(drain) || isRepairToFinish(node, drain));
}

/** Unhealthy to its group: Unhealthy in the group, running with no Node past registrationGrace, or a bad condition on its Node. */
const isUnhealthy = (pair: ClassifiedPair): boolean =>
  pair.instance?.autoScaling?.healthStatus === 'Unhealthy' ||
  pair.condition === 'unregistered-machine' ||
  (pair.node !== undefined && hasBadCondition(pair));

/** Every group's members, unhealthy machines and repairs in flight, each instance counted once; and the unhealthy Nodes no group can be told for. */
export function takeCensus(pairs: readonly ClassifiedPair[], ctx: PlanContext, now: number): Census {
  const unlocated = pairs.flatMap((pair) =>
    (isLookupFailed(pair) || isGroupLookupFailed(pair)) && pair.node !== undefined && hasBadCondition(pair)
      ? [pair.node.name]
      : [],
  );
  const unlocatedMachines = pairs.flatMap((pair) =>
    pair.condition === 'unregistered-machine' && isGroupLookupFailed(pair) && pair.instance ? [pair.instance.id] : [],
  );
  const machines = censusMachines(pairs, ctx, now);
  const cluster = { members: 0, unhealthy: 0 };
  for (const machine of machines.values()) {
    if (!machine.serving && !machine.unhealthy) continue;
    cluster.members += 1;
    if (machine.unhealthy) cluster.unhealthy += 1;
  }
  return { groups: groupCensus(machines), cluster, unlocated, unlocatedMachines };
}

/** The machine's own lookup failed this run: which group it is in is unknown. */
const isLookupFailed = (pair: ClassifiedPair): boolean =>
  pair.condition === 'unknown' && pair.lookupError !== undefined;

/** Its group's tag names a group whose lookup failed this run: the group cannot count the machine. */
const isGroupLookupFailed = (pair: ClassifiedPair): boolean => {
  const instance = pair.instance;
  return (
    instance !== undefined &&
    instance.autoScaling === undefined &&
    instance.tags[AUTO_SCALING_GROUP_TAG] !== undefined &&
    (instance.enrichmentErrors ?? []).length > 0
  );
};

interface CensusMachine {
  /** Its Auto Scaling group; undefined for a Node of the cluster outside every group (Karpenter's, a managed or a self-managed one). */
  group: string | undefined;
  unhealthy: boolean;
  inFlight: boolean;
  serving: boolean;
  /** The group's back-off record, as this member's group lookup read it. */
  repairFailures?: string;
  /** Its launch, when it has stayed healthy for repair.after.Ready since (a replacement that worked). */
  healthyLaunchedAt?: number;
}

/**
 * Each Auto Scaling group member this run saw, once (by instance), and each other Node of the cluster,
 * once (by name). The Nodes outside every group count only towards the cluster's share: 20 of
 * Karpenter's Nodes NotReady beside one group machine is an outage of the cluster (its control plane,
 * its network, a bad AMI everywhere), which replacing the group machine would not cure.
 */
function censusMachines(pairs: readonly ClassifiedPair[], ctx: PlanContext, now: number): Map<string, CensusMachine> {
  const machines = new Map<string, CensusMachine>();
  for (const pair of pairs) {
    // A warm pool's member (DescribeWarmPool) is neither its group's capacity nor an outage of it: a Node
    // its warm-up left behind is NotReady while the machine rests stopped.
    if (isWarmPoolState(pair.instance?.autoScaling?.lifecycleState)) continue;
    const group = groupOf(pair);
    const id = pair.instance?.id;
    const key =
      group !== undefined && id !== undefined ? id : pair.node !== undefined ? `node/${pair.node.name}` : undefined;
    if (key === undefined) continue;
    const known = machines.get(key) ?? { group, unhealthy: false, inFlight: false, serving: false };
    known.unhealthy ||= isUnhealthy(pair);
    // A member still launching (or leaving) is no healthy capacity yet: counting it would hide an outage behind a scale-out.
    known.serving ||=
      group === undefined
        ? pair.node !== undefined
        : pair.instance?.state === 'running' && pair.instance.autoScaling?.lifecycleState === 'InService';
    known.inFlight ||= pair.node !== undefined && isInFlight(pair.node, ctx, now);
    const repairFailures = pair.instance?.autoScaling?.repairFailures;
    if (repairFailures !== undefined) known.repairFailures = repairFailures;
    const launchedAt = pair.instance?.launchedAt ?? 0;
    if (
      group !== undefined &&
      pair.condition === 'in-sync' &&
      pair.node !== undefined &&
      launchedAt > 0 &&
      now - launchedAt >= ctx.settings.repair.after.Ready &&
      pair.instance?.autoScaling?.lifecycleState === 'InService'
    )
      known.healthyLaunchedAt = launchedAt;
    machines.set(key, known);
  }
  return machines;
}

function groupCensus(machines: ReadonlyMap<string, CensusMachine>): Map<string, GroupCensus> {
  const census = new Map<string, GroupCensus>();
  for (const machine of machines.values()) {
    if (machine.group === undefined) continue;
    const counts = census.get(machine.group) ?? { members: 0, unhealthy: 0, inFlight: 0, backOff: { failures: [] } };
    const healthyLaunchedAt = Math.max(
      counts.backOff.healthyLaunchedAt ?? -Infinity,
      machine.unhealthy ? -Infinity : (machine.healthyLaunchedAt ?? -Infinity),
    );
    census.set(machine.group, {
      members: counts.members + (machine.serving || machine.unhealthy ? 1 : 0),
      unhealthy: counts.unhealthy + (machine.unhealthy ? 1 : 0),
      inFlight: counts.inFlight + (machine.inFlight ? 1 : 0),
      backOff: {
        failures: counts.backOff.failures.length > 0 ? counts.backOff.failures : parseFailures(machine.repairFailures),
        ...(Number.isFinite(healthyLaunchedAt) ? { healthyLaunchedAt } : {}),
      },
    });
  }
  return census;
}
