export type ClusterStatus = 'CREATING' | 'ACTIVE' | 'DELETING' | 'FAILED' | 'UPDATING' | 'PENDING';

/** An EKS cluster whose endpoint points at the Kubernetes emulator. */
export interface ClusterRecord {
  readonly name: string;
  readonly arn: string;
  readonly createdAt: number;
  readonly version: string;
  readonly platformVersion: string;
  readonly endpoint: string;
  readonly certificateAuthorityData: string;
  readonly roleArn: string;
  readonly status: ClusterStatus;
  readonly vpcId: string;
  readonly subnetIds: readonly string[];
  readonly clusterSecurityGroupId: string;
  readonly oidcIssuer: string;
  readonly authenticationMode: 'API' | 'API_AND_CONFIG_MAP' | 'CONFIG_MAP';
  readonly tags: Readonly<Record<string, string>>;
}

export class ClusterStore {
  private readonly byName = new Map<string, ClusterRecord>();

  put(cluster: ClusterRecord): void {
    this.byName.set(cluster.name, cluster);
  }

  get(name: string): ClusterRecord | undefined {
    return this.byName.get(name);
  }

  all(): readonly ClusterRecord[] {
    return [...this.byName.values()];
  }
}
