// EKS (restJson): DescribeCluster, and the cluster's access entries (who the API server takes an
// IAM principal for), which the Kubernetes emulator of the deployed world reads at every request.
import * as z from 'zod';
import { AwsError } from '../errors.js';
import { epochSeconds } from '../protocol/json.js';
import { defaultAccessEntryUsername, type AccessEntryRecord, type ClusterRecord } from '../state/clusters.js';
import { stableHex } from '../ids.js';
import type { RequestContext, RestAnswer, RestJsonService } from './types.js';
import { parseInput, smithyValidation } from './validate.js';

const invalid = smithyValidation('InvalidParameterException');

function clusterNamed(ctx: RequestContext, name: string): ClusterRecord {
  const cluster = ctx.state.clusters.get(name);
  if (!cluster) throw new AwsError('ResourceNotFoundException', `No cluster found for name: ${name}.`, 404);
  return cluster;
}

const accessEntryJson = (entry: AccessEntryRecord): Record<string, unknown> => ({
  clusterName: entry.clusterName,
  principalArn: entry.principalArn,
  kubernetesGroups: entry.kubernetesGroups,
  accessEntryArn: entry.accessEntryArn,
  createdAt: epochSeconds(entry.createdAt),
  modifiedAt: epochSeconds(entry.modifiedAt),
  tags: entry.tags,
  username: entry.username,
  type: entry.type,
});

/** Access entries need an authentication mode that includes the API. */
function requireApiMode(cluster: ClusterRecord): void {
  if (cluster.authenticationMode === 'CONFIG_MAP')
    throw new AwsError(
      'InvalidRequestException',
      "The cluster's authentication mode must be set to one of [API, API_AND_CONFIG_MAP] to perform this operation.",
      400,
    );
}

const noEntry = (): AwsError =>
  new AwsError(
    'ResourceNotFoundException',
    "The specified principalArn could not be found. You can view your available access entries with 'list-access-entries'.",
    404,
  );

const PRINCIPAL_ARN = /^arn:aws[\w-]*:(iam|sts)::\d{12}:(role|user)\/.+$/;

const CreateAccessEntryInput = z.object({
  principalArn: z.string().regex(PRINCIPAL_ARN),
  kubernetesGroups: z.array(z.string().min(1)).optional(),
  username: z.string().min(1).optional(),
  type: z.string().optional(),
  tags: z.record(z.string(), z.string()).optional(),
  clientRequestToken: z.string().optional(),
});

/** The ARN EKS gives an entry: `access-entry/<cluster>/<role|user>/<account>/<name>/<uuid>`. */
function accessEntryArn(cluster: ClusterRecord, principalArn: string): string {
  const [, kind = 'role', name = ''] = /:(role|user)\/(?:[^/]+\/)*([^/]+)$/.exec(principalArn) ?? [];
  const account = /::(\d{12}):/.exec(principalArn)?.[1] ?? '';
  const hex = stableHex(`access-entry:${cluster.name}:${principalArn}`, 32);
  const uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
  return cluster.arn.replace(/:cluster\/.*$/, `:access-entry/${cluster.name}/${kind}/${account}/${name}/${uuid}`);
}

function createAccessEntry(clusterName: string, ctx: RequestContext): RestAnswer {
  const cluster = clusterNamed(ctx, clusterName);
  requireApiMode(cluster);
  const input = parseInput(CreateAccessEntryInput, parseBody(ctx), invalid);
  if (ctx.state.accessEntries.get(cluster.name, input.principalArn))
    throw new AwsError(
      'ResourceInUseException',
      'The specified access entry resource is already in use on this cluster.',
      409,
    );
  const type = input.type ?? 'STANDARD';
  const now = ctx.state.now();
  const entry: AccessEntryRecord = {
    clusterName: cluster.name,
    principalArn: input.principalArn,
    accessEntryArn: accessEntryArn(cluster, input.principalArn),
    kubernetesGroups: input.kubernetesGroups ?? [],
    username: input.username ?? defaultAccessEntryUsername(input.principalArn),
    type,
    createdAt: now,
    modifiedAt: now,
    tags: input.tags ?? {},
  };
  ctx.state.accessEntries.put(entry);
  return { body: { accessEntry: accessEntryJson(entry) } };
}

function parseBody(ctx: RequestContext): unknown {
  const text = ctx.request.body;
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AwsError('InvalidParameterException', 'The request body is not JSON.');
  }
}

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
        return { body: { cluster: clusterJson(clusterNamed(ctx, name)) } };
      },
    },
    {
      method: 'POST',
      pattern: /^\/clusters\/([^/]+)\/access-entries$/,
      operation: 'CreateAccessEntry',
      handle: ([name = ''], ctx) => createAccessEntry(name, ctx),
    },
    {
      method: 'GET',
      pattern: /^\/clusters\/([^/]+)\/access-entries$/,
      operation: 'ListAccessEntries',
      handle([name = ''], ctx) {
        const cluster = clusterNamed(ctx, name);
        requireApiMode(cluster);
        const arns = ctx.state.accessEntries.of(cluster.name).map((e) => e.principalArn);
        const max = Number(ctx.request.query.get('maxResults') ?? 100);
        const start = Number(ctx.request.query.get('nextToken') ?? 0);
        const page = arns.slice(start, start + max);
        return {
          body: { accessEntries: page, ...(start + max < arns.length ? { nextToken: String(start + max) } : {}) },
        };
      },
    },
    {
      method: 'GET',
      pattern: /^\/clusters\/([^/]+)\/access-entries\/([^/]+)$/,
      operation: 'DescribeAccessEntry',
      handle([name = '', principalArn = ''], ctx) {
        const cluster = clusterNamed(ctx, name);
        requireApiMode(cluster);
        const entry = ctx.state.accessEntries.get(cluster.name, principalArn);
        if (!entry) throw noEntry();
        return { body: { accessEntry: accessEntryJson(entry) } };
      },
    },
    {
      method: 'DELETE',
      pattern: /^\/clusters\/([^/]+)\/access-entries\/([^/]+)$/,
      operation: 'DeleteAccessEntry',
      handle([name = '', principalArn = ''], ctx) {
        const cluster = clusterNamed(ctx, name);
        requireApiMode(cluster);
        if (!ctx.state.accessEntries.delete(cluster.name, principalArn)) throw noEntry();
        return { body: {} };
      },
    },
  ],
};
