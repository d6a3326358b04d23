// The sandbox's Kubernetes API server: authenticated as EKS does (a presigned STS call, the caller's
// role mapped to groups by its access entry), authorized by the shipped RBAC.
import { systemClock, type VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import type { AwsEmulator } from '../aws/index.js';
import { roleKey } from '../aws/iam/index.js';
import { credentialArn, DEFAULT_CREDENTIALS } from '../aws/sigv4.js';
import { startKubeEmulator, type KubeEmulator } from '../kube/index.js';

export function startKubeWorld(world: {
  readonly clock: VirtualClock;
  readonly clusterName: string;
  readonly accountId: string;
  readonly aws: AwsEmulator;
  /** A cluster-admin token, for people and the operator's steps. */
  readonly adminToken: string;
  readonly tls: boolean;
  readonly rbac: Record<string, unknown>[];
}): Promise<KubeEmulator> {
  const { clock, clusterName, aws } = world;
  const creatorArn = credentialArn(DEFAULT_CREDENTIALS, world.accountId);
  return startKubeEmulator({
    clock,
    tls: world.tls,
    auth: {
      tokens: { [world.adminToken]: { user: 'sandbox-admin', groups: ['system:masters'] } },
      // Like EKS: the token is a presigned STS call, validated by STS; the access entry of the caller's role names its groups.
      authenticate: async (token) => {
        // (#15 serve) A token is checked on the signer's clock: the sandbox's clients sign on the
        // virtual clock, clients outside it (`aws eks get-token` against --serve) on the wall clock.
        let verified = await aws.verifyEksToken(token, clusterName);
        if (!verified.ok) verified = await aws.verifyEksToken(token, clusterName, { clock: systemClock });
        if (!verified.ok) return null;
        // The cluster's creator (the sandbox's own credentials) is its admin, as EKS's bootstrapClusterCreatorAdminPermissions makes it.
        if (verified.arn === creatorArn) return { name: verified.arn, groups: ['system:masters'] };
        // The access entry of the caller's role as EKS holds it now (an operator may have deleted or changed it).
        const role = roleKey(verified.arn);
        const entry =
          role === undefined
            ? undefined
            : aws.state.accessEntries.of(clusterName).find((e) => roleKey(e.principalArn) === role);
        const session = /\/([^/]+)$/.exec(verified.arn)?.[1] ?? '';
        return entry
          ? { name: entry.username.replaceAll('{{SessionName}}', session), groups: [...entry.kubernetesGroups] }
          : null;
      },
    },
    rbac: world.rbac,
  });
}
