// Whether the functions can reach the cluster's API server from where they run: outside a VPC only
// through the public endpoint, open to any address (Lambda has no fixed egress address); inside one,
// through the private endpoint in the same VPC (or the public one, through a NAT whose addresses
// the public access CIDRs must admit — which cannot be seen from here).
import { couldNotRead, failed, passed, unknown, type Check, type Read } from './check.js';

export interface EndpointFacts {
  readonly publicAccess: boolean;
  readonly privateAccess: boolean;
  readonly publicAccessCidrs: readonly string[];
  readonly vpcId?: string;
}

export interface Placement {
  readonly label: string;
  /** Undefined: outside any VPC. */
  readonly vpc?: { readonly subnetIds: readonly string[]; readonly vpcId?: string };
}

const ANYWHERE = '0.0.0.0/0';

/** One check per way the functions are placed (normally all alike). */
export function checkEndpoint(input: {
  readonly cluster: string;
  readonly endpoint: Read<EndpointFacts>;
  readonly functions: readonly Placement[];
}): Check[] {
  const { cluster, endpoint } = input;
  if (!endpoint.ok) return [couldNotRead('endpoint', cluster, endpoint.error, `eks:DescribeCluster on ${cluster}`)];
  const e = endpoint.value;
  const outside = input.functions.filter((f) => f.vpc === undefined || f.vpc.subnetIds.length === 0);
  const inside = input.functions.filter((f) => f.vpc !== undefined && f.vpc.subnetIds.length > 0);
  const names = (fs: readonly Placement[]) => fs.map((f) => f.label).join(', ');
  const checks: Check[] = [];
  const inVpc = `or run the functions in the cluster's VPC: -c vpcId=${e.vpcId ?? 'vpc-…'} -c subnetIds=subnet-…,subnet-…`;
  if (outside.length > 0) {
    const subject = `${names(outside)} (outside a VPC)`;
    if (!e.publicAccess)
      checks.push(
        failed(
          'endpoint',
          subject,
          'the public endpoint is disabled, and functions outside a VPC reach only that one',
          `aws eks update-cluster-config --name ${cluster} --resources-vpc-config endpointPublicAccess=true, ${inVpc}`,
        ),
      );
    else if (!e.publicAccessCidrs.includes(ANYWHERE))
      checks.push(
        failed(
          'endpoint',
          subject,
          `public access only from ${e.publicAccessCidrs.join(', ')}: Lambda outside a VPC has no fixed address`,
          `aws eks update-cluster-config --name ${cluster} --resources-vpc-config publicAccessCidrs=${ANYWHERE}, ${inVpc}`,
        ),
      );
    else checks.push(passed('endpoint', subject, `public endpoint open to ${ANYWHERE}`));
  }
  if (inside.length > 0) {
    const subject = `${names(inside)} (in a VPC)`;
    const vpcs = [...new Set(inside.map((f) => f.vpc?.vpcId).filter((v) => v !== undefined))];
    const elsewhere = vpcs.filter((v) => e.vpcId !== undefined && v !== e.vpcId);
    if (elsewhere.length > 0)
      checks.push(
        failed(
          'endpoint',
          subject,
          `they run in ${elsewhere.join(', ')}, the cluster in ${e.vpcId ?? '?'}: its private endpoint is not there`,
          `deploy with -c vpcId=${e.vpcId ?? 'vpc-…'} and that VPC's subnets`,
        ),
      );
    else if (e.privateAccess)
      checks.push(
        passed(
          'endpoint',
          subject,
          'private endpoint in their VPC (the cluster security group must admit them on 443: not checked here)',
        ),
      );
    else if (e.publicAccess && e.publicAccessCidrs.includes(ANYWHERE))
      checks.push(passed('endpoint', subject, `public endpoint open to ${ANYWHERE}, through the subnets' NAT`));
    else if (e.publicAccess)
      checks.push(
        unknown(
          'endpoint',
          subject,
          `only the public endpoint, from ${e.publicAccessCidrs.join(', ')}: whether the subnets' NAT addresses are among them cannot be seen from here`,
          `aws eks update-cluster-config --name ${cluster} --resources-vpc-config endpointPrivateAccess=true`,
        ),
      );
    else
      checks.push(
        failed(
          'endpoint',
          subject,
          'neither endpoint is enabled',
          `aws eks update-cluster-config --name ${cluster} --resources-vpc-config endpointPrivateAccess=true`,
        ),
      );
  }
  return checks;
}
