import type { InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import type { InstanceView, NodeView, Observation } from '@ec2-node-reconciler/model/observation.js';
import {
  instanceIdOfNodeName,
  MalformedProviderIdError,
  parseProviderId,
  regionOfZone,
  type ProviderRef,
} from '@ec2-node-reconciler/model/provider-id.js';
import { ownershipOf, type OwnershipContext } from './ownership.js';

/**
 * How a Node names its machine, before EC2's answer is considered (docs/design.md §1a):
 * - `ec2`: by providerID, by an instance-id hostname, or (only for a Node without providerID) by
 *   the private DNS name of a live instance that is not another cluster's (such a weak link makes
 *   the instance this cluster's only if its tags say so: see `isStrongLink`);
 * - `other-region`: a providerID whose zone is in another region, where this region's EC2 cannot answer;
 * - `unidentified`: no link; `suspect` is the instance its name points at when its providerID does
 *   not parse (that instance may well be its machine, so nothing may treat it as Node-less).
 */
export type NodeClaim =
  | {
      readonly kind: 'ec2';
      readonly instanceId: InstanceId;
      readonly zone?: string;
      readonly via: 'providerID' | 'instance-id name' | 'private-dns-name';
    }
  | { readonly kind: 'not-ec2'; readonly platform: Extract<ProviderRef, { kind: 'not-ec2' }>['platform'] }
  | { readonly kind: 'other-region'; readonly instanceId: InstanceId; readonly zone: string; readonly region: string }
  | { readonly kind: 'unidentified'; readonly reason: string; readonly suspect?: InstanceId };

export interface ClaimScope extends OwnershipContext {
  /** The region whose EC2 this run asks. */
  readonly region: string;
  /** Live (not terminated) instances by private DNS name. */
  readonly byDnsName: ReadonlyMap<string, InstanceView>;
}

/** Whether a strong link (providerID or instance-id name) makes an unmarked instance this cluster's. */
export const isStrongLink = (claim: NodeClaim): boolean => claim.kind === 'ec2' && claim.via !== 'private-dns-name';

/** The instance a node's name points at: an instance-id hostname, else a live instance's private DNS name. */
function nameLink(node: NodeView, scope: ClaimScope): InstanceId | undefined {
  return instanceIdOfNodeName(node.name) ?? scope.byDnsName.get(node.name)?.id;
}

export function claimOf(node: NodeView, scope: ClaimScope): NodeClaim {
  if (node.providerID === undefined || node.providerID === '') {
    const named = instanceIdOfNodeName(node.name);
    if (named !== undefined) return { kind: 'ec2', instanceId: named, via: 'instance-id name' };
    const byName = scope.byDnsName.get(node.name);
    if (!byName)
      return {
        kind: 'unidentified',
        reason: `node has no providerID and no live instance has the private DNS name ${node.name}`,
      };
    // Private DNS names repeat across VPCs with overlapping CIDRs: a name never links to another cluster's instance.
    const owner = ownershipOf(byName, scope);
    if (owner.kind === 'foreign') {
      return {
        kind: 'unidentified',
        reason: `node has no providerID; its name is the private DNS name of ${byName.id}, which is another cluster's (${owner.by}): a name alone does not link them`,
      };
    }
    return { kind: 'ec2', instanceId: byName.id, via: 'private-dns-name' };
  }
  let ref: ProviderRef;
  try {
    ref = parseProviderId(node.providerID);
  } catch (error) {
    if (!(error instanceof MalformedProviderIdError)) throw error;
    const suspect = nameLink(node, scope);
    return { kind: 'unidentified', reason: error.message, ...(suspect !== undefined ? { suspect } : {}) };
  }
  if (ref.kind === 'not-ec2') return { kind: 'not-ec2', platform: ref.platform };
  const region = regionOfZone(ref.zone);
  if (region !== undefined && region !== scope.region)
    return { kind: 'other-region', instanceId: ref.instanceId, zone: ref.zone, region };
  return { kind: 'ec2', instanceId: ref.instanceId, zone: ref.zone, via: 'providerID' };
}

export function indexInstances(observation: Observation): {
  byId: ReadonlyMap<InstanceId, InstanceView>;
  byDnsName: ReadonlyMap<string, InstanceView>;
} {
  const byId = new Map<InstanceId, InstanceView>();
  const byDnsName = new Map<string, InstanceView>();
  for (const instance of observation.instances) {
    byId.set(instance.id, instance);
    // Terminated instances lose their private DNS name (EC2 may reuse it): only live names identify a node.
    if (instance.privateDnsName && instance.state !== 'terminated') byDnsName.set(instance.privateDnsName, instance);
  }
  return { byId, byDnsName };
}
