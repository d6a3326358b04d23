import type { InstanceId } from '../model/instance-id.js';
import type { InstanceView, NodeView, Observation } from '../model/observation.js';
import { ec2InstanceIdOf } from '../model/provider-id.js';
import type { ReconcilerDeps } from '../pipeline/deps.js';
import { enrichInstances } from './enrich.js';

export interface ObservedSweep {
  readonly observation: Observation;
  /** Partial failures that did not stop the sweep (ASG or scheduled-event lookups). */
  readonly errors: readonly string[];
}

function claimedInstanceId(node: NodeView): InstanceId | undefined {
  return node.providerID ? ec2InstanceIdOf(node.providerID) : undefined;
}

/**
 * Observes the whole cluster (DESIGN §3): Nodes and Leases by paginated list; the cluster-tagged
 * instances (which also reveal machines with no Node); then, by id, only the Node instances that
 * listing missed; and by private DNS name the Nodes with no providerID.
 */
export async function observeSweep(deps: ReconcilerDeps): Promise<ObservedSweep> {
  const [nodes, leases, clusterInstances] = await Promise.all([
    deps.nodes.listNodes(),
    deps.leases.listLeases(),
    deps.ec2.describeClusterInstances(deps.clusterName),
  ]);

  const known = new Map<InstanceId, InstanceView>(clusterInstances.map((i) => [i.id, i]));
  const missing = [...new Set(nodes.map(claimedInstanceId).filter((id): id is InstanceId => id !== undefined && !known.has(id)))];
  const lookup = missing.length > 0 ? await deps.ec2.describeByIds(missing) : { found: [], notFound: [], errors: new Map<InstanceId, string>() };
  for (const instance of lookup.found) known.set(instance.id, instance);

  const liveDnsNames = new Set([...known.values()].map((i) => i.privateDnsName));
  const unnamed = nodes.filter((n) => !n.providerID && !liveDnsNames.has(n.name)).map((n) => n.name);
  if (unnamed.length > 0) for (const instance of await deps.ec2.describeByPrivateDnsNames(unnamed)) known.set(instance.id, instance);

  const enriched = await enrichInstances(deps, [...known.values()]);
  return {
    observation: {
      scope: 'sweep',
      nodes,
      leases,
      instances: enriched.instances,
      notFound: new Set(lookup.notFound),
      lookupErrors: lookup.errors,
      clusterInstancesComplete: true,
      clusterNodeCount: nodes.length,
    },
    errors: enriched.errors,
  };
}
