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

/**
 * An EKS access entry: which Kubernetes groups (and username) the API server gives an IAM
 * principal's sessions. A STANDARD entry created without a username gets EKS's default one.
 */
export interface AccessEntryRecord {
  readonly clusterName: string;
  readonly principalArn: string;
  readonly accessEntryArn: string;
  readonly kubernetesGroups: readonly string[];
  readonly username: string;
  readonly type: string;
  readonly createdAt: number;
  readonly modifiedAt: number;
  readonly tags: Readonly<Record<string, string>>;
}

/** The username EKS gives a STANDARD entry when none is asked for: the session's ARN, its name templated. */
export function defaultAccessEntryUsername(principalArn: string): string {
  const role = /^arn:(aws[\w-]*):iam::(\d{12}):role\/(?:[^/]+\/)*([^/]+)$/.exec(principalArn);
  if (!role) return principalArn;
  const [, partition = 'aws', account = '', name = ''] = role;
  return `arn:${partition}:sts::${account}:assumed-role/${name}/{{SessionName}}`;
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

export class AccessEntryStore {
  private readonly byCluster = new Map<string, Map<string, AccessEntryRecord>>();

  put(entry: AccessEntryRecord): void {
    const entries = this.byCluster.get(entry.clusterName) ?? new Map<string, AccessEntryRecord>();
    entries.set(entry.principalArn, entry);
    this.byCluster.set(entry.clusterName, entries);
  }

  get(clusterName: string, principalArn: string): AccessEntryRecord | undefined {
    return this.byCluster.get(clusterName)?.get(principalArn);
  }

  /** Whether there was one to delete. */
  delete(clusterName: string, principalArn: string): boolean {
    return this.byCluster.get(clusterName)?.delete(principalArn) ?? false;
  }

  /** A cluster's entries, by principal ARN. */
  of(clusterName: string): readonly AccessEntryRecord[] {
    return [...(this.byCluster.get(clusterName)?.values() ?? [])].sort((a, b) =>
      a.principalArn.localeCompare(b.principalArn),
    );
  }
}
