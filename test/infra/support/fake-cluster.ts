import { Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Construct, type IConstruct } from 'constructs';
import type { ReconcilerCluster } from '../../../infra/cluster-access.js';

/** A cluster construct that records the manifests applied to it, with a real security group. */
export class FakeCluster extends Construct implements ReconcilerCluster {
  readonly clusterName: string;
  readonly connections: ec2.Connections;
  readonly securityGroup: ec2.SecurityGroup;
  readonly manifests: Record<string, unknown>[][] = [];

  constructor(scope: Construct, id: string, props: { readonly clusterName: string; readonly vpc: ec2.IVpc }) {
    super(scope, id);
    this.clusterName = props.clusterName;
    this.securityGroup = new ec2.SecurityGroup(this, 'ClusterSecurityGroup', {
      vpc: props.vpc,
      description: 'cluster',
    });
    this.connections = new ec2.Connections({ securityGroups: [this.securityGroup] });
  }

  addManifest(id: string, ...manifest: Record<string, unknown>[]): IConstruct {
    this.manifests.push(manifest);
    return new Construct(this, id);
  }
}

/** A small VPC with private subnets and no NAT (nothing is deployed in tests). */
export function testVpc(scope: Construct): ec2.Vpc {
  const vpc = new ec2.Vpc(scope, 'Vpc', {
    maxAzs: 2,
    natGateways: 0,
    subnetConfiguration: [{ name: 'private', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }],
  });
  // The user's VPC, not the reconciler's: its flow logs are not under test.
  Validations.of(vpc).acknowledge({
    id: 'AwsSolutions-VPC7',
    reason: 'A test fixture standing in for the VPC the user brings.',
  });
  return vpc;
}
