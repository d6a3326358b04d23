// Whether a sweep would do anything: what a replay needs to leave out the scheduled sweeps that provably
// would not (packages/sandbox/src/simulate/sweep-skip.ts). A sweep whose observation plans no action,
// skips none and reports nothing changes nothing in the world, and its report says "nothing to do".
// Between two sweeps of an unchanged world, what the API serves differs only where kubelets renew
// what they heartbeat: Lease spec.renewTime and the Node's Ready lastHeartbeatTime (and so its
// resourceVersion). Those are read again, and the same classify and plan run at the new clock: every
// time-based rule (grace periods, lease staleness, drain deadlines, uncordon delays, maintenance
// windows, repair back-off, hook timeouts) is judged as the sweep would judge it.
import { isClusterInstance } from '../aws/ec2.js';
import type { Plan } from '@ec2-node-reconciler/model/action.js';
import type { InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import type { InstanceView, LeaseView, NodeView, Observation } from '@ec2-node-reconciler/model/observation.js';
import { claimedInstanceId } from '../observe/sweep.js';
import { notificationsFor } from '../report/notify.js';
import { drainClaimOf } from '../plan/own-cordon.js';

/** What kubelets refresh as time passes, as the API would serve it now (epoch ms). */
export interface Heartbeats {
  /** Lease spec.renewTime by node name; a name missing here has no Lease now. */
  readonly leases: ReadonlyMap<string, number | undefined>;
  /** The Node's Ready lastHeartbeatTime and its resourceVersion, by name; a name missing here has no Node now. */
  readonly nodes: ReadonlyMap<string, { readonly readyHeartbeatAt?: number; readonly resourceVersion: string }>;
}

/**
 * The observation with the heartbeats read now; undefined when a Node or Lease came or went (then the
 * world changed, and only a whole observation tells what the sweep would see).
 */
export function retimed(observation: Observation, heartbeats: Heartbeats): Observation | undefined {
  if (heartbeats.nodes.size !== observation.nodes.length || heartbeats.leases.size !== observation.leases.size)
    return undefined;
  const nodes: NodeView[] = [];
  for (const node of observation.nodes) {
    const now = heartbeats.nodes.get(node.name);
    if (now === undefined) return undefined;
    const { readyHeartbeatAt: _was, ...rest } = node;
    nodes.push({
      ...rest,
      resourceVersion: now.resourceVersion,
      ...(now.readyHeartbeatAt !== undefined ? { readyHeartbeatAt: now.readyHeartbeatAt } : {}),
    });
  }
  const leases = new Map<string, LeaseView>();
  for (const name of observation.leases.keys()) {
    if (!heartbeats.leases.has(name)) return undefined;
    const renewTime = heartbeats.leases.get(name);
    leases.set(name, { nodeName: name, ...(renewTime !== undefined ? { renewTime } : {}) });
  }
  return { ...observation, nodes, leases };
}

/**
 * Whether a sweep that decided `plan` on `observation` would have written nothing: no action (reports
 * included: each records an Event), no breaker, no failed lookup, and no refusal that notifies (a repair
 * stood down or backed off records an Event and an output event). Its other refusals — a maintenance
 * cordon held for its window, a delete waiting out a grace period — are only said in its report.
 */
export const writesNothing = (observation: Observation, errors: readonly string[], plan: Plan): boolean =>
  plan.actions.length === 0 &&
  plan.breaker === undefined &&
  observedWhole(observation, errors) &&
  notifiesNothing(plan);

/** Whether nothing failed in observing: no partial failure, no failed lookup, no failed enrichment. */
export const observedWhole = (observation: Observation, errors: readonly string[]): boolean =>
  errors.length === 0 &&
  observation.lookupErrors.size === 0 &&
  observation.instances.every((i) => (i.enrichmentErrors ?? []).length === 0);

function notifiesNothing(plan: Plan): boolean {
  const { kube, output } = notificationsFor([], '', {}, plan);
  return kube.length === 0 && output.length === 0;
}

/**
 * Whether a Node is paired with its machine by the machine's private DNS name (it has no providerID):
 * which machine that is, any change to the machines a sweep holds may change, so only a whole
 * observation tells.
 */
const anyPairedByDnsName = (nodes: readonly NodeView[]): boolean => nodes.some((n) => !n.providerID);

/**
 * The observation with some Nodes and node Leases read again (written since: a cordon, an annotation;
 * or deleted), as a whole sweep would hold them: a deleted one is no longer held, nor the machine only it
 * named (the sweep looks up by id only the machines its Nodes name). Undefined when a Node or Lease
 * appeared that was not held (where it goes, and what it names, only a whole observation tells), a Node
 * now names another machine, or Nodes went while some are paired by DNS name (a Node without a providerID).
 * The drains the Nodes record are the caller's to ask about again (`recordsChanged`).
 */
export function withObjects(
  observation: Observation,
  read: {
    readonly nodes: ReadonlyMap<string, NodeView | undefined>;
    readonly leases: ReadonlyMap<string, LeaseView | undefined>;
  },
  cluster: { readonly name: string; readonly region: string },
): { readonly observation: Observation; readonly recordsChanged: boolean } | undefined {
  let recordsChanged = false;
  const held = new Map(observation.nodes.map((n) => [n.name, n]));
  const gone = new Set<string>();
  for (const [name, node] of read.nodes) {
    const was = held.get(name);
    if (was === undefined) return undefined;
    if (node === undefined) {
      gone.add(name);
      recordsChanged ||= drainClaimOf(was) !== undefined;
      continue;
    }
    if (node.providerID !== was.providerID) return undefined;
    if (JSON.stringify(drainClaimOf(node)) !== JSON.stringify(drainClaimOf(was))) recordsChanged = true;
  }
  const leases = new Map(observation.leases);
  for (const [name, lease] of read.leases) {
    if (!leases.has(name)) return undefined;
    if (lease === undefined) leases.delete(name);
    else leases.set(name, lease);
  }
  const nodes = observation.nodes.filter((n) => !gone.has(n.name)).map((n) => read.nodes.get(n.name) ?? n);
  if (gone.size === 0) return { observation: { ...observation, nodes, leases }, recordsChanged };
  // A machine only a gone Node held may be the one a Node paired by DNS name answers to now.
  if (anyPairedByDnsName(observation.nodes)) return undefined;
  // The machines only a gone Node named: the sweep no longer looks them up (a cluster's own it still lists).
  const claimed = new Set(nodes.map((n) => claimedInstanceId(n, cluster.region)));
  const unnamed = new Set(
    [...gone]
      .map((name) => held.get(name))
      .map((n) => n && claimedInstanceId(n, cluster.region))
      .filter((id): id is InstanceId => id !== undefined && !claimed.has(id)),
  );
  const notFound = new Set([...observation.notFound].filter((id) => !unnamed.has(id)));
  const instances = observation.instances.filter((i) => !unnamed.has(i.id) || isClusterInstance(i, cluster.name));
  return {
    observation: { ...observation, nodes, leases, instances, notFound, clusterNodeCount: nodes.length },
    recordsChanged,
  };
}

/**
 * The observation with some machines described again (a tag or state of theirs changed, or the account
 * has a new one), as a whole sweep would hold them: a machine that joined the cluster's listing (or that a
 * Node names and EC2 now returns) is added, one that left it with no Node naming it is dropped, and one a
 * Node names that EC2 no longer returns becomes not found. An added machine goes last, not where a
 * sweep would hold it in EC2's order: whether a sweep writes anything does not depend on that order
 * (test/properties/quiet-order.properties.test.ts). Undefined when the Nodes are paired by DNS name (a
 * Node without a providerID, which any machine may take): then only a whole observation tells.
 */
export function withMachines(
  observation: Observation,
  described: { readonly found: readonly InstanceView[]; readonly notFound: readonly InstanceId[] },
  cluster: { readonly name: string; readonly region: string },
): Observation | undefined {
  if (anyPairedByDnsName(observation.nodes)) return undefined;
  const claimed = new Set(observation.nodes.map((n) => claimedInstanceId(n, cluster.region)));
  const instances = new Map(observation.instances.map((i) => [i.id, i]));
  const notFound = new Set(observation.notFound);
  for (const instance of described.found) {
    if (isClusterInstance(instance, cluster.name) || claimed.has(instance.id)) {
      instances.set(instance.id, instance);
      notFound.delete(instance.id);
    } else instances.delete(instance.id);
  }
  for (const id of described.notFound) {
    instances.delete(id);
    if (claimed.has(id)) notFound.add(id);
  }
  return { ...observation, instances: [...instances.values()], notFound };
}
