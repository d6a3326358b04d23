import type { InstanceId } from '../model/instance-id.js';
import type { InstanceView, NodeView, Observation } from '../model/observation.js';
import { instanceIdOfNodeName, MalformedProviderIdError, parseProviderId, regionOfZone } from '../model/provider-id.js';
import type { ObserveDeps } from './deps.js';
import { drainStates } from './drains.js';
import { enrichInstances } from './enrich.js';

export interface ObservedSweep {
  readonly observation: Observation;
  /** Partial failures that did not stop the sweep (ASG, scheduled-event or drain lookups). */
  readonly errors: readonly string[];
}

/**
 * The instance a node names for certain (providerID in this region, or an instance-id hostname);
 * undefined for the rest (another region's EC2 answers for those, and a NotFound here means nothing).
 */
function claimedInstanceId(node: NodeView, region: string): InstanceId | undefined {
  if (!node.providerID) return instanceIdOfNodeName(node.name);
  try {
    const ref = parseProviderId(node.providerID);
    if (ref.kind !== 'ec2') return undefined;
    const zoneRegion = regionOfZone(ref.zone);
    return zoneRegion === undefined || zoneRegion === region ? ref.instanceId : undefined;
  } catch (error) {
    if (error instanceof MalformedProviderIdError) return undefined;
    throw error;
  }
}

/**
 * Observes the whole cluster (DESIGN §3): Nodes and Leases by paginated list; the cluster-tagged
 * instances (which also reveal machines with no Node); then, by id, only the Node instances that
 * listing missed; and by private DNS name the Nodes with no providerID.
 */
export async function observeSweep(deps: ObserveDeps & { readonly region: string }): Promise<ObservedSweep> {
  const [nodes, leases, clusterInstances] = await Promise.all([
    deps.nodes.listNodes(),
    deps.leases.listLeases(),
    deps.ec2.describeClusterInstances(deps.clusterName),
  ]);

  const known = new Map<InstanceId, InstanceView>(clusterInstances.map((i) => [i.id, i]));
  const missing = [
    ...new Set(
      nodes
        .map((n) => claimedInstanceId(n, deps.region))
        .filter((id): id is InstanceId => id !== undefined && !known.has(id)),
    ),
  ];
  const lookup =
    missing.length > 0
      ? await deps.ec2.describeByIds(missing)
      : { found: [], notFound: [], errors: new Map<InstanceId, string>() };
  for (const instance of lookup.found) known.set(instance.id, instance);

  const liveDnsNames = new Set(
    [...known.values()].filter((i) => i.state !== 'terminated').map((i) => i.privateDnsName),
  );
  const unnamed = nodes
    .filter((n) => !n.providerID && instanceIdOfNodeName(n.name) === undefined && !liveDnsNames.has(n.name))
    .map((n) => n.name);
  if (unnamed.length > 0)
    for (const instance of await deps.ec2.describeByPrivateDnsNames(unnamed)) known.set(instance.id, instance);

  const [enriched, drains] = await Promise.all([enrichInstances(deps, [...known.values()]), drainStates(deps, nodes)]);
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
      drains: drains.states,
    },
    errors: [...enriched.errors, ...drains.errors],
  };
}
