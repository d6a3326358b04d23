import type { EKSClient } from '@aws-sdk/client-eks';
import type { LazyClient } from './clients.js';

export interface ClusterEndpoint {
  readonly server: string;
  /** Base64 PEM of the cluster CA, as DescribeCluster returns it. */
  readonly certificateAuthority?: string;
}

/**
 * The cluster's API endpoint and CA from eks:DescribeCluster, cached for the life of a warm
 * container: they change only when the cluster is replaced.
 */
export class ClusterEndpointCache {
  private cached: Promise<ClusterEndpoint> | undefined;

  constructor(
    private readonly eks: LazyClient<Pick<EKSClient, 'send'>>,
    private readonly clusterName: string,
  ) {}

  /** @param via the client to ask through when it is not cached yet (a run's counted view, so the report shows the call). */
  endpoint(via: LazyClient<Pick<EKSClient, 'send'>> = this.eks): Promise<ClusterEndpoint> {
    this.cached ??= this.describe(via).catch((error: unknown) => {
      // A failed lookup must not poison the warm container.
      this.cached = undefined;
      throw error;
    });
    return this.cached;
  }

  private async describe(via: LazyClient<Pick<EKSClient, 'send'>>): Promise<ClusterEndpoint> {
    const [eks, { DescribeClusterCommand }] = await Promise.all([via(), import('@aws-sdk/client-eks')]);
    const { cluster } = await eks.send(new DescribeClusterCommand({ name: this.clusterName }));
    if (!cluster?.endpoint)
      throw new Error(
        `describing EKS cluster ${this.clusterName}: no endpoint (status ${cluster?.status ?? 'unknown'})`,
      );
    return {
      server: cluster.endpoint,
      ...(cluster.certificateAuthority?.data ? { certificateAuthority: cluster.certificateAuthority.data } : {}),
    };
  }
}
