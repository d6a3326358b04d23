import { AwsError } from '../errors.js';
import { epochSeconds } from '../protocol/json.js';
import type { ClusterRecord } from '../state/clusters.js';
import type { RestJsonService } from './types.js';

function clusterJson(c: ClusterRecord): Record<string, unknown> {
  // A cluster still being created has no API server yet: EKS leaves out its endpoint and CA.
  const serving = c.status !== 'CREATING' && c.status !== 'FAILED';
  return {
    name: c.name,
    arn: c.arn,
    createdAt: epochSeconds(c.createdAt),
    version: c.version,
    endpoint: serving ? c.endpoint : undefined,
    roleArn: c.roleArn,
    resourcesVpcConfig: {
      subnetIds: c.subnetIds,
      securityGroupIds: [],
      clusterSecurityGroupId: c.clusterSecurityGroupId,
      vpcId: c.vpcId,
      endpointPublicAccess: true,
      endpointPrivateAccess: true,
      publicAccessCidrs: ['0.0.0.0/0'],
    },
    kubernetesNetworkConfig: {
      serviceIpv4Cidr: '172.20.0.0/16',
      ipFamily: 'ipv4',
      elasticLoadBalancing: { enabled: false },
    },
    logging: {
      clusterLogging: [{ types: ['api', 'audit', 'authenticator', 'controllerManager', 'scheduler'], enabled: false }],
    },
    identity: { oidc: { issuer: c.oidcIssuer } },
    status: c.status,
    certificateAuthority: serving ? { data: c.certificateAuthorityData } : {},
    platformVersion: c.platformVersion,
    tags: c.tags,
    health: { issues: [] },
    accessConfig: { authenticationMode: c.authenticationMode },
    upgradePolicy: { supportType: 'STANDARD' },
    deletionProtection: false,
  };
}

export const eksService: RestJsonService = {
  name: 'eks',
  protocol: 'rest-json',
  throttlingError: () => new AwsError('ThrottlingException', 'Rate exceeded', 429),
  routes: [
    {
      method: 'GET',
      pattern: /^\/clusters\/([^/]+)$/,
      operation: 'DescribeCluster',
      handle([name = ''], ctx) {
        const cluster = ctx.state.clusters.get(name);
        if (!cluster) throw new AwsError('ResourceNotFoundException', `No cluster found for name: ${name}.`, 404);
        return { body: { cluster: clusterJson(cluster) } };
      },
    },
  ],
};
