// How the functions get into the cluster: an EKS access entry (type STANDARD) maps each function
// role to the Kubernetes group `ec2-node-reconciler`, and the RBAC manifest of packages/model/src/contract/rbac.ts binds
// that group to exactly the permissions of docs/design.md §6. The manifest is applied here when the caller
// hands over a cluster construct with a kubectl provider; otherwise `kubectl apply` it once.
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as eks from 'aws-cdk-lib/aws-eks';
import type * as iam from 'aws-cdk-lib/aws-iam';
import { Construct, type IConstruct } from 'constructs';
import { RECONCILER_GROUP, rbacManifests } from '@ec2-node-reconciler/model/contract/rbac.js';

/**
 * What the construct needs from a cluster construct: `aws-eks` and `aws-eks-v2` clusters (created or
 * imported with a kubectl provider) both fit.
 */
export interface ReconcilerCluster extends ec2.IConnectable {
  readonly clusterName: string;
  addManifest(id: string, ...manifest: Record<string, unknown>[]): IConstruct;
}

export interface ClusterAccessProps {
  readonly clusterName: string;
  /** The function roles, by a name used in construct ids. */
  readonly roles: Readonly<Record<string, iam.IRole>>;
  /** Create the access entries (the cluster's authentication mode must include API). */
  readonly createAccessEntries: boolean;
  /** Apply the RBAC manifest to it and open its security group to the functions. */
  readonly cluster?: ReconcilerCluster;
  /** The functions' security groups (VPC placement). */
  readonly securityGroups: readonly ec2.ISecurityGroup[];
}

export class ClusterAccess extends Construct {
  readonly accessEntries: readonly eks.CfnAccessEntry[];
  /** The applied manifest, when a cluster was given. */
  readonly manifest?: IConstruct;

  constructor(scope: Construct, id: string, props: ClusterAccessProps) {
    super(scope, id);
    this.accessEntries = props.createAccessEntries
      ? Object.entries(props.roles).map(
          ([name, role]) =>
            new eks.CfnAccessEntry(this, `${name}AccessEntry`, {
              clusterName: props.clusterName,
              principalArn: role.roleArn,
              type: 'STANDARD',
              kubernetesGroups: [RECONCILER_GROUP],
            }),
        )
      : [];

    if (props.cluster) {
      this.manifest = props.cluster.addManifest(`${id}Rbac`, ...rbacManifests());
      // A private endpoint accepts the functions only if the cluster security group lets them in.
      for (const group of props.securityGroups) {
        props.cluster.connections.allowFrom(
          group,
          ec2.Port.tcp(443),
          'ec2-node-reconciler functions to the Kubernetes API',
        );
      }
    }
  }
}
