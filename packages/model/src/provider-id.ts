import { isInstanceId, type InstanceId } from './instance-id.js';
import { REGION_SOURCE } from './partition.js';

/**
 * What a Node's spec.providerID says about its machine.
 * - `ec2`: an EC2 instance, `aws:///<zone>/<instance-id>`.
 * - `not-ec2`: a Node on something else (Fargate, EKS hybrid, another provider): never looked up in EC2.
 */
export type ProviderRef =
  | { readonly kind: 'ec2'; readonly zone: string; readonly instanceId: InstanceId }
  | { readonly kind: 'not-ec2'; readonly platform: 'fargate' | 'eks-hybrid' | 'other'; readonly raw: string };

export class MalformedProviderIdError extends Error {
  constructor(
    readonly providerID: string,
    readonly why: string,
  ) {
    super(`malformed providerID ${JSON.stringify(providerID.slice(0, 200))}: ${why}`);
    this.name = 'MalformedProviderIdError';
  }
}

/**
 * Every availability-zone form an EC2 providerID carries, the region (of any partition) first:
 * standard (`us-east-1a`, `us-gov-west-1a`, `cn-north-1a`, `us-isob-east-1a`, `eusc-de-east-1a`),
 * Local Zones (`us-east-1-bos-1a`) and Wavelength Zones (`us-east-1-wl1-bos-wlz-1`).
 */
const ZONE_PATTERN = new RegExp(`^(${REGION_SOURCE})(?:[a-z]|-[a-z]+-\\d+[a-z]|-wl\\d+-[a-z]+-wlz-\\d+)$`);

/** The region of an availability zone (any form above), or undefined when it is not one. */
export function regionOfZone(zone: string): string | undefined {
  return ZONE_PATTERN.exec(zone)?.[1];
}

/**
 * Parses a providerID. Malformed `aws://` ids throw a MalformedProviderIdError: never a guess,
 * because a wrong instance id could lead to deleting the wrong Node.
 */
export function parseProviderId(providerID: string): ProviderRef {
  const schemeEnd = providerID.indexOf('://');
  if (schemeEnd <= 0) throw new MalformedProviderIdError(providerID, 'no scheme');
  const scheme = providerID.slice(0, schemeEnd);
  if (scheme === 'eks-hybrid') return { kind: 'not-ec2', platform: 'eks-hybrid', raw: providerID };
  if (scheme !== 'aws') return { kind: 'not-ec2', platform: 'other', raw: providerID };

  // aws:///<zone>/<instance-id>; the host part is empty in every form the cloud provider writes.
  const rest = providerID.slice(schemeEnd + 3);
  if (!rest.startsWith('/')) throw new MalformedProviderIdError(providerID, 'expected aws:///<zone>/<instance-id>');
  const parts = rest.slice(1).split('/');
  const [zone, second, third] = parts;
  // Fargate: aws:///<zone>/<hex id>/<node name>; the name is normally fargate-ip-…, but the shape
  // alone says it is no instance (and calling it not-ec2 only keeps the reconciler's hands off it).
  if (parts.length === 3 && (third?.startsWith('fargate-') || /^[0-9a-f]{6,}$/.test(second ?? ''))) {
    return { kind: 'not-ec2', platform: 'fargate', raw: providerID };
  }
  if (parts.length !== 2 || zone === undefined || second === undefined) {
    throw new MalformedProviderIdError(providerID, 'expected aws:///<zone>/<instance-id>');
  }
  if (!ZONE_PATTERN.test(zone))
    throw new MalformedProviderIdError(providerID, `not an availability zone: ${zone.slice(0, 40)}`);
  if (!isInstanceId(second))
    throw new MalformedProviderIdError(providerID, `not an instance id: ${second.slice(0, 40)}`);
  return { kind: 'ec2', zone, instanceId: second };
}

/**
 * The EC2 instance a providerID names, or undefined for a non-EC2 or malformed one: for callers
 * that only ask "is this that instance?" (classify keeps the parse error for its report).
 */
export function ec2InstanceIdOf(providerID: string): InstanceId | undefined {
  try {
    const ref = parseProviderId(providerID);
    return ref.kind === 'ec2' ? ref.instanceId : undefined;
  } catch (error) {
    if (error instanceof MalformedProviderIdError) return undefined;
    throw error;
  }
}

/**
 * The instance a resource-based hostname names (`i-0123456789abcdef0.ec2.internal`,
 * `i-0123456789abcdef0.us-west-2.compute.internal`): its first label is the instance id, so
 * the name identifies its machine as surely as a providerID does. IP-based names return undefined.
 */
export function instanceIdOfNodeName(name: string): InstanceId | undefined {
  const first = name.split('.', 1)[0];
  return first !== undefined && isInstanceId(first) ? first : undefined;
}

/** The instance a Node stands for: the one its providerID names, else the one a resource-based name names. */
export const nodeInstanceId = (node: { readonly name: string; readonly providerID?: string }): InstanceId | undefined =>
  (node.providerID !== undefined ? ec2InstanceIdOf(node.providerID) : undefined) ?? instanceIdOfNodeName(node.name);

export function formatProviderId(zone: string, instanceId: InstanceId): string {
  return `aws:///${zone}/${instanceId}`;
}
