import type { Clock } from '../model/clock.js';
import type { ClassifiedPair } from '../model/condition.js';
import { formatDuration } from '../model/duration.js';
import type { InstanceId } from '../model/instance-id.js';
import { CLUSTER_TAG_EKS, clusterOwnershipTag } from '../model/labels.js';
import type { InstanceView, NodeView, Observation } from '../model/observation.js';
import type { Signal } from '../model/signal.js';
import type { Settings } from '../settings.js';
import { isHeartbeatFresh, lastHeartbeat, LEASE_DURATION_MS } from './heartbeat.js';
import { claimOf, indexInstances, type NodeClaim } from './pair.js';
import { findSlating } from './slating.js';

export interface ClassifyContext {
  readonly settings: Settings;
  readonly clock: Clock;
  /** The cluster's name, to recognise cluster-tagged instances. */
  readonly clusterName: string;
}

/**
 * Puts every (machine, node) pair of the observation into exactly one condition (DESIGN §1).
 * Pure: a function of the observation, the signals, the settings and the clock. Output order is
 * the nodes' order, then unclaimed instances in observation order.
 */
export function classify(observation: Observation, signals: readonly Signal[], ctx: ClassifyContext): ClassifiedPair[] {
  const now = ctx.clock.now();
  const { byId, byDnsName } = indexInstances(observation);
  const signalsByInstance = groupSignals(signals);

  const claims = observation.nodes.map((node) => ({ node, claim: claimOf(node, byDnsName) }));
  const claimants = new Map<InstanceId, string[]>();
  for (const { node, claim } of claims) {
    if (claim.kind !== 'ec2') continue;
    claimants.set(claim.instanceId, [...(claimants.get(claim.instanceId) ?? []), node.name]);
  }

  const pairs: ClassifiedPair[] = claims.map(({ node, claim }) =>
    classifyNode(node, claim, { observation, byId, claimants, signalsByInstance, now, ctx }),
  );

  for (const instance of observation.instances) {
    if (claimants.has(instance.id)) continue;
    pairs.push(classifyUnclaimedInstance(instance, signalsByInstance.get(instance.id) ?? [], now, ctx));
  }
  return pairs;
}

interface NodeScope {
  readonly observation: Observation;
  readonly byId: ReadonlyMap<InstanceId, InstanceView>;
  readonly claimants: ReadonlyMap<InstanceId, readonly string[]>;
  readonly signalsByInstance: ReadonlyMap<InstanceId, readonly Signal[]>;
  readonly now: number;
  readonly ctx: ClassifyContext;
}

function classifyNode(node: NodeView, claim: NodeClaim, scope: NodeScope): ClassifiedPair {
  const { observation, now, ctx } = scope;
  const { settings } = ctx;
  const heartbeatAt = lastHeartbeat(node, observation.leases.get(node.name));
  const base = { node, signals: [] as Signal[], ...(heartbeatAt !== undefined ? { heartbeatAt } : {}) };

  if (claim.kind === 'not-ec2') {
    return { ...base, condition: 'not-ec2', reason: `node runs on ${claim.platform}, not on an EC2 instance` };
  }
  if (claim.kind === 'unidentified') {
    return { ...base, condition: 'unknown', reason: claim.reason };
  }

  const instanceId = claim.instanceId;
  const withId = { ...base, instanceId };
  const others = (scope.claimants.get(instanceId) ?? []).filter((name) => name !== node.name);
  if (others.length > 0) {
    return { ...withId, condition: 'identity-conflict', reason: `instance ${instanceId} is also claimed by node ${others.join(', ')}` };
  }

  const lookupError = observation.lookupErrors.get(instanceId);
  if (lookupError !== undefined) {
    return { ...withId, condition: 'unknown', reason: `looking up ${instanceId} failed: ${lookupError}` };
  }

  const instance = scope.byId.get(instanceId);
  const signals = scope.signalsByInstance.get(instanceId) ?? [];
  const heartbeatFresh = isHeartbeatFresh(heartbeatAt, now, settings.heartbeatGrace);
  // A live Lease while EC2 says the machine is gone is a conflict; a recently expired one is a
  // machine that just went (stale-object, its delete held back by heartbeatGrace in plan()).
  const kubeletAlive = isHeartbeatFresh(heartbeatAt, now, Math.min(LEASE_DURATION_MS, settings.heartbeatGrace));
  const nodeAge = now - node.createdAt;

  if (!instance) {
    if (!observation.notFound.has(instanceId)) {
      return { ...withId, condition: 'unknown', reason: `instance ${instanceId} was not looked up in this run` };
    }
    if (nodeAge < settings.notFoundGrace) {
      return {
        ...withId,
        condition: 'unknown',
        reason: `EC2 does not return ${instanceId}, but the node is younger than notFoundGrace (${formatDuration(settings.notFoundGrace)}): EC2 reads are eventually consistent`,
      };
    }
    if (kubeletAlive) {
      return { ...withId, condition: 'identity-conflict', reason: `EC2 does not know ${instanceId}, yet the node's Lease is live` };
    }
    return { ...withId, condition: 'stale-object', reason: `EC2 does not know ${instanceId} and the node's kubelet has stopped` };
  }

  const withInstance = { ...withId, instance };
  if (claim.zone !== undefined && claim.zone !== instance.zone) {
    return {
      ...withInstance,
      condition: 'identity-conflict',
      reason: `providerID says zone ${claim.zone} but ${instanceId} is in ${instance.zone}`,
    };
  }
  if (instance.state === 'terminated') {
    return kubeletAlive
      ? { ...withInstance, condition: 'identity-conflict', reason: `${instanceId} is terminated, yet the node's Lease is live` }
      : { ...withInstance, condition: 'stale-object', reason: `${instanceId} is terminated and the node's kubelet has stopped` };
  }
  if (instance.state === 'stopped') {
    return { ...withInstance, condition: 'stopped-machine', reason: `${instanceId} is stopped` };
  }

  const slating = findSlating(instance, signals, settings);
  if (slating) {
    return {
      ...withInstance,
      condition: 'slated-for-removal',
      reason: slating.reasons.join('; '),
      signals: slating.signals,
      drain: slating.drain,
      deadline: slating.deadline ?? now + settings.drainTimeout,
      ...(slating.lifecycle ? { lifecycle: slating.lifecycle } : {}),
    };
  }

  if (!heartbeatFresh) {
    const age = heartbeatAt === undefined ? 'no heartbeat at all' : `last heartbeat ${formatDuration(readableAge(now - heartbeatAt))} ago`;
    return { ...withInstance, condition: 'unresponsive-machine', reason: `${instanceId} is ${instance.state} but the kubelet is silent (${age})` };
  }
  if (node.ready !== 'True') {
    return { ...withInstance, condition: 'unresponsive-machine', reason: `${instanceId} is ${instance.state} but the node's Ready condition is ${node.ready ?? 'missing'}` };
  }
  return { ...withInstance, condition: 'in-sync', reason: `${instanceId} is ${instance.state} and the node is Ready` };
}

function classifyUnclaimedInstance(instance: InstanceView, signals: readonly Signal[], now: number, ctx: ClassifyContext): ClassifiedPair {
  const base = { instance, instanceId: instance.id, signals: [] as Signal[] };
  if (instance.state === 'running' || instance.state === 'pending' || instance.state === 'shutting-down' || instance.state === 'stopping') {
    // A machine with no Node can still hold an ASG lifecycle action that must be completed.
    const slating = findSlating(instance, signals, ctx.settings);
    if (slating?.lifecycle) {
      return {
        ...base,
        condition: 'slated-for-removal',
        reason: `${slating.reasons.join('; ')}; no Node object`,
        signals: slating.signals,
        drain: false,
        lifecycle: slating.lifecycle,
        ...(slating.deadline !== undefined ? { deadline: slating.deadline } : {}),
      };
    }
  }
  const clusterTagged = isClusterTagged(instance, ctx.clusterName);
  const age = now - instance.launchedAt;
  if (instance.state === 'running' && clusterTagged && age >= ctx.settings.registrationGrace) {
    return {
      ...base,
      condition: 'unregistered-machine',
      reason: `${instance.id} has been running for ${formatDuration(readableAge(age))} with no Node object`,
    };
  }
  const why =
    instance.state === 'running' && clusterTagged
      ? `within registrationGrace (${formatDuration(ctx.settings.registrationGrace)})`
      : instance.state === 'running'
        ? 'not tagged for this cluster'
        : `instance is ${instance.state}`;
  return { ...base, condition: 'in-sync', reason: `${instance.id} has no Node object: ${why}` };
}

export function isClusterTagged(instance: InstanceView, clusterName: string): boolean {
  return instance.tags[CLUSTER_TAG_EKS] === clusterName || instance.tags[clusterOwnershipTag(clusterName)] !== undefined;
}

function groupSignals(signals: readonly Signal[]): Map<InstanceId, Signal[]> {
  const grouped = new Map<InstanceId, Signal[]>();
  for (const signal of signals) grouped.set(signal.instanceId, [...(grouped.get(signal.instanceId) ?? []), signal]);
  return grouped;
}

/**
 * An age rounded to the unit a person reads it in, so formatDuration prints `52m` or `3h`, not
 * `3134s`: seconds under 2 minutes, minutes under 2 hours, hours under 2 days, then days.
 */
function readableAge(ms: number): number {
  const unit = ms < 120_000 ? 1_000 : ms < 7_200_000 ? 60_000 : ms < 172_800_000 ? 3_600_000 : 86_400_000;
  return Math.max(0, Math.round(ms / unit) * unit);
}
