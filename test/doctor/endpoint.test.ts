import { describe, expect, it } from 'vitest';
import { readOk } from '../../cli/doctor/check.js';
import { checkEndpoint, type EndpointFacts, type Placement } from '../../cli/doctor/endpoint.js';

const PUBLIC: EndpointFacts = {
  publicAccess: true,
  privateAccess: false,
  publicAccessCidrs: ['0.0.0.0/0'],
  vpcId: 'vpc-1',
};
const OUTSIDE: Placement[] = [{ label: 'sweep' }];
const INSIDE: Placement[] = [{ label: 'sweep', vpc: { subnetIds: ['subnet-1'], vpcId: 'vpc-1' } }];
const check = (endpoint: EndpointFacts, functions: Placement[]) =>
  checkEndpoint({ cluster: 'demo', endpoint: readOk(endpoint), functions });

describe('checkEndpoint', () => {
  it('should pass functions outside a VPC only on a public endpoint open to any address', () => {
    expect(check(PUBLIC, OUTSIDE).map((c) => c.status)).toEqual(['pass']);
    const narrow = check({ ...PUBLIC, publicAccessCidrs: ['203.0.113.0/24'] }, OUTSIDE)[0];
    expect(narrow?.status).toBe('fail');
    expect(narrow?.fix).toContain('publicAccessCidrs=0.0.0.0/0');
    expect(check({ ...PUBLIC, publicAccess: false, privateAccess: true }, OUTSIDE)[0]?.status).toBe('fail');
  });

  it('should pass functions in the cluster’s VPC on its private endpoint; fail another VPC; not tell a NAT through narrow CIDRs', () => {
    expect(check({ ...PUBLIC, privateAccess: true }, INSIDE)[0]?.status).toBe('pass');
    expect(
      check({ ...PUBLIC, privateAccess: true }, [{ label: 'sweep', vpc: { subnetIds: ['s'], vpcId: 'vpc-2' } }])[0]
        ?.status,
    ).toBe('fail');
    expect(check({ ...PUBLIC, publicAccessCidrs: ['198.51.100.7/32'] }, INSIDE)[0]?.status).toBe('unknown');
    expect(check({ ...PUBLIC, publicAccess: false }, INSIDE)[0]?.status).toBe('fail');
  });
});
