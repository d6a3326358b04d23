import type { InstanceId } from '../model/instance-id.js';
import type { InstanceView, LeaseView, NodeView, Observation } from '../model/observation.js';
import type { Signal } from '../model/signal.js';
import type { ReconcilerDeps } from '../pipeline/deps.js';

/**
 * Observes only what the signals are about (DESIGN §3): each instance (by the `instance-id`
 * filter, so an unknown id is an answer, not an error), its Node and that Node's Lease (fetched
 * together when the Node is named after the private DNS name): DescribeInstances → GET node and
 * GET lease → act; a list of the whole cluster only when the Node's name is not its DNS name.
 */
export async function observeSignals(deps: ReconcilerDeps, signals: readonly Signal[]): Promise<Observation> {
  const ids = [...new Set(signals.map((s) => s.instanceId))];
  const lookup = await deps.ec2.describeByIds(ids);
  const byId = new Map<InstanceId, InstanceView>(lookup.found.map((i) => [i.id, i]));

  const nodes = new Map<string, NodeView>();
  const leases = new Map<string, LeaseView>();
  await Promise.all(
    ids
      .filter((id) => !lookup.errors.has(id))
      .map(async (id) => {
        const dnsName = byId.get(id)?.privateDnsName;
        // Nodes are usually named after the private DNS name: ask for that Lease at the same time.
        const [node, guessedLease] = await Promise.all([deps.finder.find(id, dnsName), dnsName ? deps.leases.getLease(dnsName) : undefined]);
        if (!node) return;
        nodes.set(node.name, node);
        const lease = node.name === dnsName ? guessedLease : await deps.leases.getLease(node.name);
        if (lease) leases.set(node.name, lease);
      }),
  );

  return {
    scope: 'event',
    nodes: [...nodes.values()],
    leases,
    instances: lookup.found,
    notFound: new Set(lookup.notFound),
    lookupErrors: lookup.errors,
    clusterInstancesComplete: false,
  };
}
