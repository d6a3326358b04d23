// Running the functions in a VPC the user already has, named by id: the app's context keys vpcId,
// subnetIds and securityGroupIds, and ReconcilerStack's props of the same names. Imported by id,
// never looked up (Vpc.fromLookup calls EC2 at synth), so `cdk synth` stays offline.
import { Annotations, Fn, Token } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import type { Construct } from 'constructs';
import type { NodeReconcilerProps } from './node-reconciler.js';

/** A VPC placement by id. All absent: the functions run outside any VPC. */
export interface VpcPlacement {
  /** The VPC the functions run in; needs `subnetIds`. */
  readonly vpcId?: string;
  /** The subnets the functions run in: private, with a route to the AWS APIs (NAT or interface endpoints). */
  readonly subnetIds?: readonly string[];
  /** The functions' security groups; none: one new group allowing all outbound traffic. */
  readonly securityGroupIds?: readonly string[];
}

type IdField = keyof VpcPlacement;

/** EC2 resource ids: a prefix and 8 (older resources) or 17 hex digits. */
const ID_FORMS: Readonly<Record<IdField, { readonly pattern: RegExp; readonly what: string }>> = {
  vpcId: { pattern: /^vpc-(?:[0-9a-f]{8}|[0-9a-f]{17})$/, what: 'a VPC id (vpc- and 8 or 17 hex digits)' },
  subnetIds: { pattern: /^subnet-(?:[0-9a-f]{8}|[0-9a-f]{17})$/, what: 'a subnet id (subnet- and 8 or 17 hex digits)' },
  securityGroupIds: {
    pattern: /^sg-(?:[0-9a-f]{8}|[0-9a-f]{17})$/,
    what: 'a security group id (sg- and 8 or 17 hex digits)',
  },
};

/**
 * What is wrong with a placement, each problem starting with the field to fix (the caller adds
 * `context ` or its own prefix). Values only known at deploy time (tokens) are not checked.
 */
export function vpcPlacementProblems(placement: VpcPlacement): string[] {
  const problems: string[] = [];
  const checkId = (field: IdField, value: string) => {
    const form = ID_FORMS[field];
    if (!Token.isUnresolved(value) && !form.pattern.test(value)) {
      problems.push(`${field}: ${JSON.stringify(value)} is not ${form.what}`);
    }
  };
  const { vpcId, subnetIds, securityGroupIds } = placement;
  if (vpcId !== undefined) checkId('vpcId', vpcId);
  for (const [field, ids] of [
    ['subnetIds', subnetIds],
    ['securityGroupIds', securityGroupIds],
  ] as const) {
    if (ids === undefined) continue;
    if (ids.length === 0) problems.push(`${field}: empty; leave it out instead`);
    for (const id of ids) checkId(field, id);
    if (vpcId === undefined) problems.push(`${field}: needs vpcId, the VPC they belong to`);
  }
  if (vpcId !== undefined && subnetIds === undefined) {
    problems.push(
      'subnetIds: required with vpcId: the subnets the functions run in (private, with a route to the AWS APIs)',
    );
  }
  return problems;
}

/** The NodeReconciler props that put the functions in the placement's VPC, imported into `scope`. */
export function importVpcPlacement(
  scope: Construct,
  placement: VpcPlacement,
): Pick<NodeReconcilerProps, 'vpc' | 'vpcSubnets' | 'securityGroups'> {
  if (placement.vpcId === undefined) return {};
  const vpc = ec2.Vpc.fromVpcAttributes(scope, 'Vpc', {
    vpcId: placement.vpcId,
    // The import requires zones, but nothing selects subnets by zone or type here: the subnets are
    // named. The region's zones as a deploy-time list keep synth free of an availability-zone lookup.
    availabilityZones: Fn.getAzs(),
  });
  Annotations.of(vpc).acknowledgeWarning(
    '@aws-cdk/aws-ec2:vpcAttributeIsListTokenavailabilityZones',
    'Nothing selects subnets by zone: the functions get the subnets named by subnetIds.',
  );
  const subnets = (placement.subnetIds ?? []).map((id, index) => {
    const subnet = ec2.Subnet.fromSubnetId(scope, `Subnet${index}`, id);
    Annotations.of(subnet).acknowledgeWarning(
      '@aws-cdk/aws-ec2:noSubnetRouteTableId',
      "Lambda needs only the subnet's id; nothing reads its route table.",
    );
    return subnet;
  });
  // The groups are the user's: the stack adds no rule to them.
  const securityGroups = placement.securityGroupIds?.map((id, index) =>
    ec2.SecurityGroup.fromSecurityGroupId(scope, `SecurityGroup${index}`, id, { mutable: false }),
  );
  return { vpc, vpcSubnets: { subnets }, ...(securityGroups ? { securityGroups } : {}) };
}
