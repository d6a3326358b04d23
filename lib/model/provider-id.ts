import { isInstanceId, type InstanceId } from './instance-id.js';

/**
 * What a Node's spec.providerID says about its machine.
 * - `ec2`: an EC2 instance, `aws:///<zone>/<instance-id>`.
 * - `not-ec2`: a Node on something else (Fargate, EKS hybrid, another provider): never looked up in EC2.
 */
export type ProviderRef =
  | { readonly kind: 'ec2'; readonly zone: string; readonly instanceId: InstanceId }
  | { readonly kind: 'not-ec2'; readonly platform: 'fargate' | 'eks-hybrid' | 'other'; readonly raw: string };

export class MalformedProviderIdError extends Error {
  constructor(readonly providerID: string, readonly why: string) {
    super(`malformed providerID ${JSON.stringify(providerID.slice(0, 200))}: ${why}`);
    this.name = 'MalformedProviderIdError';
  }
}

const ZONE_PATTERN = /^[a-z]{2}(-[a-z0-9]+)+-\d+[a-z]$/;

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
  if (parts.length === 3 && third?.startsWith('fargate-')) {
    return { kind: 'not-ec2', platform: 'fargate', raw: providerID };
  }
  if (parts.length !== 2 || zone === undefined || second === undefined) {
    throw new MalformedProviderIdError(providerID, 'expected aws:///<zone>/<instance-id>');
  }
  if (!ZONE_PATTERN.test(zone)) throw new MalformedProviderIdError(providerID, `not an availability zone: ${zone.slice(0, 40)}`);
  if (!isInstanceId(second)) throw new MalformedProviderIdError(providerID, `not an instance id: ${second.slice(0, 40)}`);
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

export function formatProviderId(zone: string, instanceId: InstanceId): string {
  return `aws:///${zone}/${instanceId}`;
}
