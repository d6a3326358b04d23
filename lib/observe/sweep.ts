import type { InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import type { InstanceView, NodeView, Observation } from '@ec2-node-reconciler/model/observation.js';
import {
  instanceIdOfNodeName,
  MalformedProviderIdError,
  parseProviderId,
  regionOfZone,
} from '@ec2-node-reconciler/model/provider-id.js';
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
export function claimedInstanceId(node: NodeView, region: string): InstanceId | undefined {
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
 * Observes the whole cluster (docs/design.md §3): Nodes and Leases by paginated list; the cluster-tagged
 * instances (which also reveal machines with no Node); then, by id, only the Node instances that
 * listing missed; and by private DNS name the Nodes with no providerID.
 *
 * Each listing's pages come one after another (a continue token or NextToken names the next), so
 * against a distant API server the sweep lasts as long as its longest chain of pages: every read
 * starts as soon as what it needs is in, not when every listing is. The cluster's instances are
 * enriched (Auto Scaling states, scheduled events) while the Node and Lease pages still come, and
 * drains are asked about once the Nodes are in. No call is added: the reads are the same, overlapped.
 */
export async function observeSweep(deps: ObserveDeps & { readonly region: string }): Promise<ObservedSweep> {
  const listedNodes = deps.nodes.listNodes();
  const clusterListing = deps.ec2.describeClusterInstances(deps.clusterName);
  // Promise.all below holds every one of these, so none is left to reject unheard.
  const [nodes, leases, clusterInstances, enrichedCluster, drains] = await Promise.all([
    listedNodes,
    deps.leases.listLeases(),
    clusterListing,
    clusterListing.then((instances) => enrichInstances(deps, instances)),
    listedNodes.then((listed) => drainStates(deps, listed)),
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
  const extra = new Map<InstanceId, InstanceView>(lookup.found.map((i) => [i.id, i]));

  const liveDnsNames = new Set(
    [...known.values(), ...extra.values()].filter((i) => i.state !== 'terminated').map((i) => i.privateDnsName),
  );
  const unnamed = nodes
    .filter((n) => !n.providerID && instanceIdOfNodeName(n.name) === undefined && !liveDnsNames.has(n.name))
    .map((n) => n.name);
  if (unnamed.length > 0)
    for (const instance of await deps.ec2.describeByPrivateDnsNames(unnamed))
      if (!known.has(instance.id)) extra.set(instance.id, instance);

  // What the cluster's listing missed, enriched on its own (rare: Nodes of untagged machines).
  const enrichedExtra =
    extra.size > 0 ? await enrichInstances(deps, [...extra.values()]) : { instances: [], errors: [] };
  return {
    observation: {
      scope: 'sweep',
      nodes,
      leases,
      instances: [...enrichedCluster.instances, ...enrichedExtra.instances],
      notFound: new Set(lookup.notFound),
      lookupErrors: lookup.errors,
      clusterInstancesComplete: true,
      clusterNodeCount: nodes.length,
      drains: drains.states,
    },
    errors: [...enrichedCluster.errors, ...enrichedExtra.errors, ...drains.errors],
  };
}
