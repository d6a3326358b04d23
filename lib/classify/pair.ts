import type { InstanceId } from '../model/instance-id.js';
import type { InstanceView, NodeView, Observation } from '../model/observation.js';
import { MalformedProviderIdError, parseProviderId, type ProviderRef } from '../model/provider-id.js';

/** How a Node names its machine, before EC2's answer is considered. */
export type NodeClaim =
  | { readonly kind: 'ec2'; readonly instanceId: InstanceId; readonly zone?: string; readonly via: 'providerID' | 'private-dns-name' }
  | { readonly kind: 'not-ec2'; readonly platform: Extract<ProviderRef, { kind: 'not-ec2' }>['platform'] }
  | { readonly kind: 'unidentified'; readonly reason: string };

/**
 * Reads a Node's claim on an instance: its providerID, or — only when it has none — the instance
 * whose private DNS name is the node's name.
 */
export function claimOf(node: NodeView, instancesByDnsName: ReadonlyMap<string, InstanceView>): NodeClaim {
  if (node.providerID === undefined || node.providerID === '') {
    const byName = instancesByDnsName.get(node.name);
    return byName
      ? { kind: 'ec2', instanceId: byName.id, via: 'private-dns-name' }
      : { kind: 'unidentified', reason: `node has no providerID and no instance has the private DNS name ${node.name}` };
  }
  try {
    const ref = parseProviderId(node.providerID);
    return ref.kind === 'ec2'
      ? { kind: 'ec2', instanceId: ref.instanceId, zone: ref.zone, via: 'providerID' }
      : { kind: 'not-ec2', platform: ref.platform };
  } catch (error) {
    if (error instanceof MalformedProviderIdError) return { kind: 'unidentified', reason: error.message };
    throw error;
  }
}

export function indexInstances(observation: Observation): {
  byId: ReadonlyMap<InstanceId, InstanceView>;
  byDnsName: ReadonlyMap<string, InstanceView>;
} {
  const byId = new Map<InstanceId, InstanceView>();
  const byDnsName = new Map<string, InstanceView>();
  for (const instance of observation.instances) {
    byId.set(instance.id, instance);
    // Terminated instances lose their private DNS name; only live names identify a node.
    if (instance.privateDnsName) byDnsName.set(instance.privateDnsName, instance);
  }
  return { byId, byDnsName };
}
