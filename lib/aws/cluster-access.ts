import { DescribeClusterCommand, type EKSClient } from '@aws-sdk/client-eks';

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
    private readonly eks: EKSClient,
    private readonly clusterName: string,
  ) {}

  endpoint(): Promise<ClusterEndpoint> {
    this.cached ??= this.describe().catch((error: unknown) => {
      // A failed lookup must not poison the warm container.
      this.cached = undefined;
      throw error;
    });
    return this.cached;
  }

  private async describe(): Promise<ClusterEndpoint> {
    const { cluster } = await this.eks.send(new DescribeClusterCommand({ name: this.clusterName }));
    if (!cluster?.endpoint) throw new Error(`describing EKS cluster ${this.clusterName}: no endpoint (status ${cluster?.status ?? 'unknown'})`);
    return { server: cluster.endpoint, ...(cluster.certificateAuthority?.data ? { certificateAuthority: cluster.certificateAuthority.data } : {}) };
  }
}
