import type { Clock } from '@ec2-node-reconciler/model/clock.js';
import type { ClassifiedPair } from '@ec2-node-reconciler/model/condition.js';
import { formatDuration } from '@ec2-node-reconciler/model/duration.js';
import type { InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import { LEASE_DURATION_MS } from '@ec2-node-reconciler/model/kubelet.js';
import type { BadCondition } from '@ec2-node-reconciler/model/node-conditions.js';
import type { InstanceView, NodeView, Observation } from '@ec2-node-reconciler/model/observation.js';
import { instanceIdOfNodeName } from '@ec2-node-reconciler/model/provider-id.js';
import type { Signal } from '@ec2-node-reconciler/model/signal.js';
import type { Settings } from '@ec2-node-reconciler/model/contract/settings.js';
import { isHeartbeatFresh, lastHeartbeat } from './heartbeat.js';
import { badConditions } from './node-health.js';
import { otherOwnerOfInstance, otherOwnerOfNode } from './other-owner.js';
import { ownershipOf, type OwnershipContext } from './ownership.js';
import { claimOf, indexInstances, isStrongLink, type ClaimScope, type NodeClaim } from './pair.js';
import { findSlating, type Slating, type SlatingContext, type SlatingFindings } from './slating.js';

export interface ClassifyContext extends OwnershipContext {
  readonly settings: Settings;
  readonly clock: Clock;
  /** The region whose EC2 answers this run: only it is authoritative for a providerID (docs/design.md §1a). */
  readonly region: string;
}

/**
 * Puts every (machine, node) pair of the observation into exactly one condition (docs/design.md §1).
 * Pure: a function of the observation, the signals, the settings and the clock. Output order is
 * the nodes' order, then unclaimed instances in observation order.
 */
export function classify(observation: Observation, signals: readonly Signal[], ctx: ClassifyContext): ClassifiedPair[] {
  const now = ctx.clock.now();
  const { byId, byDnsName } = indexInstances(observation);
  const signalsByInstance = groupSignals(signals);
  const claimScope: ClaimScope = {
    region: ctx.region,
    byDnsName,
    clusterName: ctx.clusterName,
    ...(ctx.ownGroups ? { ownGroups: ctx.ownGroups } : {}),
  };

  const claims = observation.nodes.map((node) => ({ node, claim: claimOf(node, claimScope) }));
  const claimants = new Map<InstanceId, string[]>();
  for (const { node, claim } of claims) {
    if (claim.kind !== 'ec2') continue;
    claimants.set(claim.instanceId, [...(claimants.get(claim.instanceId) ?? []), node.name]);
  }
  const scope: NodeScope = { observation, byId, claimants, signalsByInstance, now, ctx };

  const pairs: ClassifiedPair[] = claims.map(({ node, claim }) => classifyNode(node, claim, scope));

  const unlinked = claims.filter(({ claim }) => claim.kind === 'unidentified' || claim.kind === 'other-region');
  const nodesByName = new Map(observation.nodes.map((n) => [n.name, n]));
  for (const instance of observation.instances) {
    if (claimants.has(instance.id)) continue;
    pairs.push(classifyUnclaimedInstance(instance, { ...scope, unlinked, nodesByName }));
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
  // Judged once, for every Node: unresponsive-machine below, and a repair's stand-down over the whole cluster.
  const bad = badConditions(node, heartbeatAt, now, settings.heartbeatGrace);
  const base = {
    node,
    signals: [] as Signal[],
    ...(heartbeatAt !== undefined ? { heartbeatAt } : {}),
    ...(bad.length > 0 ? { badConditions: bad } : {}),
  };

  const named = claim.kind === 'ec2' || claim.kind === 'other-region' ? claim.instanceId : undefined;
  const other = otherOwnerOfNode(node, claim, named !== undefined ? scope.byId.get(named) : undefined, settings);
  if (other) {
    return {
      ...base,
      ...(named !== undefined ? { instanceId: named } : {}),
      condition: 'other-owner',
      reason: `${other.owner} manages this node (${other.by}): left to it`,
    };
  }

  switch (claim.kind) {
    case 'not-ec2':
      return { ...base, condition: 'not-ec2', reason: `node runs on ${claim.platform}, not on an EC2 instance` };
    case 'unidentified':
      return { ...base, condition: 'unknown', reason: claim.reason };
    case 'other-region':
      return {
        ...base,
        instanceId: claim.instanceId,
        condition: 'unknown',
        reason: `providerID zone ${claim.zone} is in ${claim.region}, not ${ctx.region}: this region's EC2 cannot answer for ${claim.instanceId}`,
      };
    case 'ec2':
      break;
    default: {
      const unreachable: never = claim;
      throw new Error(`unhandled claim ${JSON.stringify(unreachable)}`);
    }
  }

  const instanceId = claim.instanceId;
  const withId = { ...base, instanceId };
  const others = (scope.claimants.get(instanceId) ?? []).filter((name) => name !== node.name);
  if (others.length > 0) {
    // The machine is still its group's member (a repair's stand-down counts it, and these Nodes' health).
    const claimed = scope.byId.get(instanceId);
    return {
      ...withId,
      ...(claimed ? { instance: claimed } : {}),
      condition: 'identity-conflict',
      reason: `instance ${instanceId} is also claimed by node ${others.join(', ')}`,
    };
  }

  const lookupError = observation.lookupErrors.get(instanceId);
  if (lookupError !== undefined) {
    return { ...withId, condition: 'unknown', lookupError, reason: `looking up ${instanceId} failed: ${lookupError}` };
  }

  const instance = scope.byId.get(instanceId);
  const signals = scope.signalsByInstance.get(instanceId) ?? [];
  const heartbeatFresh = isHeartbeatFresh(heartbeatAt, now, settings.heartbeatGrace);
  // A live Lease while EC2 says the machine is gone is a conflict; a recently expired one is a
  // machine that just went (stale-object, its delete held back by heartbeatGrace in plan()).
  const kubeletAlive = isHeartbeatFresh(heartbeatAt, now, LEASE_DURATION_MS);
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
      return {
        ...withId,
        condition: 'identity-conflict',
        reason: `EC2 does not know ${instanceId}, yet the node's Lease is live`,
      };
    }
    return {
      ...withId,
      condition: 'stale-object',
      reason: `EC2 does not know ${instanceId} and the node's kubelet has stopped`,
    };
  }

  const withInstance = { ...withId, instance };
  const owner = ownershipOf(instance, ctx);
  if (owner.kind === 'foreign') {
    return {
      ...withInstance,
      condition: 'identity-conflict',
      reason: `node claims ${instanceId} by ${claim.via}, but the instance is another cluster's (${owner.by})`,
    };
  }
  if (claim.zone !== undefined && claim.zone !== instance.zone) {
    return {
      ...withInstance,
      condition: 'identity-conflict',
      reason: `providerID says zone ${claim.zone} but ${instanceId} is in ${instance.zone}`,
    };
  }
  if (instance.state === 'terminated') {
    return kubeletAlive
      ? {
          ...withInstance,
          condition: 'identity-conflict',
          reason: `${instanceId} is terminated, yet the node's Lease is live`,
        }
      : {
          ...withInstance,
          condition: 'stale-object',
          reason: `${instanceId} is terminated and the node's kubelet has stopped`,
        };
  }

  const ownedBy: ClassifiedPair['ownedBy'] =
    owner.kind === 'ours' ? 'instance' : isStrongLink(claim) ? 'node' : undefined;
  const findings = findSlating(instance, signals, slatingContext(scope));
  const extras = { ours: ownedBy !== undefined, ...(ownedBy ? { ownedBy } : {}), ...findingExtras(findings) };
  if (instance.state === 'stopped') {
    // A stopped machine runs no pods: a lifecycle action of ours (a warm pool's member terminated out of
    // the pool, a stopped member replaced) has nothing to wait for, and is carried to be completed.
    const going = findings.slating?.lifecycle !== undefined ? findings.slating : undefined;
    return {
      ...withInstance,
      ...extras,
      condition: 'stopped-machine',
      reason: [`${instanceId} is stopped`, ...(going?.reasons ?? [])].join('; '),
      ...(going?.lifecycle ? { lifecycle: going.lifecycle, signals: going.signals } : {}),
    };
  }

  const { slating } = findings;
  if (slating) {
    return {
      ...withInstance,
      ...extras,
      condition: 'slated-for-removal',
      reason: [...slating.reasons, ...boundedNote(slating, now, settings)].join('; '),
      signals: slating.signals,
      drain: slating.drain,
      purpose: slating.purpose,
      ...drainDeadline(slating, now, settings),
      ...(slating.lifecycle ? { lifecycle: slating.lifecycle } : {}),
      ...(slating.holdUntil !== undefined ? { holdCordonUntil: slating.holdUntil } : {}),
    };
  }

  if (bad.length > 0) {
    return {
      ...withInstance,
      ...extras,
      condition: 'unresponsive-machine',
      reason: unresponsiveReason(instance, node, bad, heartbeatFresh ? undefined : { heartbeatAt, now }),
    };
  }
  return {
    ...withInstance,
    ...extras,
    condition: 'in-sync',
    reason: `${instanceId} is ${instance.state} and the node is Ready`,
  };
}

/**
 * Why a running machine's Node is unhealthy, most telling first: a silent kubelet (`silent`: its heartbeat
 * is stale), a Ready condition not True, the node monitoring agent's conditions.
 */
function unresponsiveReason(
  instance: InstanceView,
  node: NodeView,
  bad: readonly BadCondition[],
  silent: { readonly heartbeatAt: number | undefined; readonly now: number } | undefined,
): string {
  const instanceId = instance.id;
  if (silent !== undefined) {
    const { heartbeatAt, now } = silent;
    const age =
      heartbeatAt === undefined
        ? 'no heartbeat at all'
        : `last heartbeat ${formatDuration(readableAge(now - heartbeatAt))} ago`;
    return `${instanceId} is ${instance.state} but the kubelet is silent (${age})`;
  }
  if (node.ready !== 'True')
    return `${instanceId} is ${instance.state} but the node's Ready condition is ${node.ready ?? 'missing'}`;
  const said = bad
    .filter((c) => c.type !== 'Ready')
    .map((c) => `${c.type} is ${c.status}${c.since !== undefined ? ` since ${new Date(c.since).toISOString()}` : ''}`)
    .join(', ');
  return `${instanceId} is ${instance.state} but the node monitoring agent reports a problem: ${said}`;
}

/** What judging signals needs: the settings, the clock, and (event path) whose lifecycle actions are ours. */
function slatingContext({ ctx, now, observation }: NodeScope): SlatingContext {
  return {
    settings: ctx.settings,
    now,
    ...(observation.terminateHooks ? { terminateHooks: observation.terminateHooks } : {}),
  };
}

function findingExtras(findings: SlatingFindings): Pick<ClassifiedPair, 'staleSignals' | 'holdCordonUntil'> {
  return {
    ...(findings.stale.length > 0 ? { staleSignals: findings.stale } : {}),
    ...(findings.holdCordonUntil !== undefined ? { holdCordonUntil: findings.holdCordonUntil } : {}),
  };
}

interface InstanceScope extends NodeScope {
  /** Nodes no instance could be linked to (their providerID does not parse or is another region's, or nothing matches their name). */
  readonly unlinked: readonly { readonly node: NodeView; readonly claim: NodeClaim }[];
  readonly nodesByName: ReadonlyMap<string, NodeView>;
}

/** Why an instance with no claimant may still have a Node: then it is not Node-less, and nothing may treat it so. */
function hiddenNode(
  instance: InstanceView,
  scope: InstanceScope,
): { condition: 'unknown' | 'identity-conflict'; reason: string } | undefined {
  const suspect = scope.unlinked.find(
    ({ claim }) =>
      (claim.kind === 'unidentified' && claim.suspect === instance.id) ||
      (claim.kind === 'other-region' && claim.instanceId === instance.id),
  );
  if (suspect) {
    return {
      condition: 'unknown',
      reason: `node ${suspect.node.name} may be ${instance.id}'s, but it cannot be linked: ${claimReason(suspect.claim)}`,
    };
  }
  // Its kubelet registers under its private DNS name or its instance-id name: a Node holding either for another machine blocks it.
  const namesake =
    (instance.privateDnsName !== undefined ? scope.nodesByName.get(instance.privateDnsName) : undefined) ??
    scope.observation.nodes.find((n) => instanceIdOfNodeName(n.name) === instance.id);
  if (namesake) {
    return {
      condition: 'identity-conflict',
      reason: `node ${namesake.name} has ${instance.id}'s name but names another machine (${namesake.providerID ?? 'no providerID'}): its kubelet cannot register`,
    };
  }
  // An event looks for one instance's Node: any Node it met that could not be linked might be that one.
  if (scope.observation.scope === 'event') {
    const unparsed = scope.unlinked.find(
      ({ node, claim }) => claim.kind === 'unidentified' && node.providerID !== undefined && node.providerID !== '',
    );
    if (unparsed)
      return {
        condition: 'unknown',
        reason: `cannot tell whether node ${unparsed.node.name} is ${instance.id}'s: ${claimReason(unparsed.claim)}`,
      };
  }
  return undefined;
}

const claimReason = (claim: NodeClaim): string =>
  claim.kind === 'unidentified'
    ? claim.reason
    : claim.kind === 'other-region'
      ? `its providerID names zone ${claim.zone}, in ${claim.region}`
      : claim.kind;

function classifyUnclaimedInstance(instance: InstanceView, scope: InstanceScope): ClassifiedPair {
  const { now, ctx } = scope;
  const owner = ownershipOf(instance, ctx);
  const ours = owner.kind === 'ours';
  const base = {
    instance,
    instanceId: instance.id,
    signals: [] as Signal[],
    ours,
    ...(ours ? { ownedBy: 'instance' as const } : {}),
  };
  if (instance.state === 'terminated')
    return { ...base, condition: 'gone', reason: `${instance.id} is terminated and has no Node object` };
  const other = otherOwnerOfInstance(instance, ctx.settings);
  if (other)
    return {
      ...base,
      condition: 'other-owner',
      reason: `${other.owner} manages ${instance.id} (${other.by}), which has no Node object: left to it`,
    };
  if (!ours) {
    const whose = owner.kind === 'foreign' ? `another cluster's (${owner.by})` : 'not tagged for this cluster';
    return {
      ...base,
      condition: 'in-sync',
      reason: `${instance.id} has no Node object and is ${whose}: left to its owner`,
    };
  }
  const hidden = hiddenNode(instance, scope);
  if (hidden) return { ...base, ...hidden };

  const findings = findSlating(instance, scope.signalsByInstance.get(instance.id) ?? [], slatingContext(scope));
  const extras = findingExtras(findings);
  // A machine with no Node can still hold an ASG lifecycle action that must be completed (a stopped one
  // too: a warm pool's member terminated out of the pool has never had a Node, or has none any more).
  const slating = findings.slating;
  if (slating?.lifecycle) {
    return {
      ...base,
      ...extras,
      condition: 'slated-for-removal',
      reason: `${slating.reasons.join('; ')}; no Node object${instance.state === 'stopped' ? ` (${instance.id} is stopped)` : ''}`,
      signals: slating.signals,
      drain: false,
      purpose: slating.purpose,
      lifecycle: slating.lifecycle,
      ...(slating.deadline !== undefined ? { deadline: slating.deadline } : {}),
    };
  }
  const age = now - instance.launchedAt;
  if (instance.state === 'running' && age >= ctx.settings.registrationGrace) {
    return {
      ...base,
      ...extras,
      condition: 'unregistered-machine',
      reason: `${instance.id} has been running for ${formatDuration(readableAge(age))} with no Node object`,
    };
  }
  const why =
    instance.state === 'running'
      ? `within registrationGrace (${formatDuration(ctx.settings.registrationGrace)})`
      : `instance is ${instance.state}`;
  return { ...base, ...extras, condition: 'in-sync', reason: `${instance.id} has no Node object: ${why}` };
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

/**
 * Time kept back before a lifecycle action's global timeout: the drain ends there, and its workflow
 * notices (a step, a wait) and completes the action before Auto Scaling applies the default result.
 */
export const LIFECYCLE_EXPIRY_MARGIN_MS = 5 * 60_000;

/** The drain's deadline: the signals' (else drainTimeout from now), never past what the lifecycle action lives. */
function drainDeadline(slating: Slating, now: number, settings: Settings): { deadline: number } {
  const wanted = slating.deadline ?? now + settings.drainTimeout;
  const bound =
    slating.lifecycleExpiresAt !== undefined ? slating.lifecycleExpiresAt - LIFECYCLE_EXPIRY_MARGIN_MS : undefined;
  return { deadline: bound !== undefined ? Math.min(wanted, bound) : wanted };
}

/** The report says when the lifecycle action's global timeout set the deadline (docs/design.md §5). */
function boundedNote(slating: Slating, now: number, settings: Settings): string[] {
  const wanted = slating.deadline ?? now + settings.drainTimeout;
  const { deadline } = drainDeadline(slating, now, settings);
  if (deadline >= wanted || slating.lifecycleExpiresAt === undefined) return [];
  return [
    `its drain ends at ${new Date(deadline).toISOString()}, ${formatDuration(LIFECYCLE_EXPIRY_MARGIN_MS)} before Auto Scaling ends the lifecycle action at ${new Date(slating.lifecycleExpiresAt).toISOString()} (its global timeout, min(48h, 100 × HeartbeatTimeout)), not at ${new Date(wanted).toISOString()}`,
  ];
}
