// IAM statements shared by the functions and the drain workflow. Every action is named (no
// wildcard actions); resources are scoped wherever the service supports it, and where it does not
// (EC2 and Auto Scaling Describe*) the statement says so, for the cdk-nag acknowledgement.
import { ArnFormat, Stack, Token, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct, IConstruct } from 'constructs';
import { CLUSTER_TAG_EKS, clusterOwnershipTag, DECOMMISSION_TAG } from '../lib/model/labels.js';
import { wildcardResourceFinding } from './findings.js';

/** Lifecycle and health actions on Auto Scaling groups; all support the autoScalingGroup resource type. */
export const ASG_MUTATIONS = ['autoscaling:CompleteLifecycleAction', 'autoscaling:RecordLifecycleActionHeartbeat', 'autoscaling:SetInstanceHealth'] as const;

/** Read-only lookups that support no resource-level permissions (Service Authorization Reference). */
export const UNSCOPABLE_READS = ['ec2:DescribeInstances', 'ec2:DescribeInstanceStatus', 'ec2:DescribeTags', 'autoscaling:DescribeAutoScalingGroups'] as const;

export interface AutoScalingScope {
  readonly clusterName: string;
  /** Named groups: statements on their ARNs. Otherwise: any group tagged as the cluster's. */
  readonly autoScalingGroupNames?: readonly string[];
}

/**
 * Statements allowing `actions` on the cluster's Auto Scaling groups: on the named groups' ARNs, or,
 * without names, on groups carrying the cluster's tag — `eks:cluster-name` (EKS managed node
 * groups) or `kubernetes.io/cluster/<name>` (eksctl and self-managed groups). IAM ORs statements,
 * so two statements express "either tag".
 */
/** `arn:<partition>:autoscaling:<region>:<account>:autoScalingGroup:<uuid>:autoScalingGroupName/<name>`, any uuid. */
export function autoScalingGroupArn(scope: IConstruct, name: string): string {
  return Stack.of(scope).formatArn({
    service: 'autoscaling',
    resource: 'autoScalingGroup',
    resourceName: `*:autoScalingGroupName/${name}`,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
}

/** `arn:<partition>:ec2:<region>:<account>:instance/<id>`. */
export function instanceArn(scope: IConstruct, id: string): string {
  return Stack.of(scope).formatArn({ service: 'ec2', resource: 'instance', resourceName: id });
}

/**
 * Statements allowing `actions` on the cluster's Auto Scaling groups: on the named groups' ARNs, or,
 * without names, on groups carrying the cluster's tag — `eks:cluster-name` (EKS managed node
 * groups) or `kubernetes.io/cluster/<name>` (eksctl and self-managed groups). IAM ORs statements,
 * so two statements express "either tag".
 */
export function autoScalingStatements(scope: Construct, actions: readonly string[], options: AutoScalingScope): iam.PolicyStatement[] {
  if (options.autoScalingGroupNames) {
    return [new iam.PolicyStatement({ actions: [...actions], resources: options.autoScalingGroupNames.map((name) => autoScalingGroupArn(scope, name)) })];
  }
  const anyGroup = autoScalingGroupArn(scope, '*');
  const byEksTag = new iam.PolicyStatement({
    actions: [...actions],
    resources: [anyGroup],
    conditions: { StringEquals: { [`autoscaling:ResourceTag/${CLUSTER_TAG_EKS}`]: options.clusterName } },
  });
  // The ownership tag has the cluster name in its key, and a condition key must be known at synth:
  // with a token name only the eks:cluster-name tag (EKS managed node groups) can scope the groups.
  if (Token.isUnresolved(options.clusterName)) return [byEksTag];
  return [
    byEksTag,
    new iam.PolicyStatement({
      actions: [...actions],
      resources: [anyGroup],
      conditions: { StringEquals: { [`autoscaling:ResourceTag/${clusterOwnershipTag(options.clusterName)}`]: ['owned', 'shared'] } },
    }),
  ];
}

/** ec2:CreateTags on instances, for the decommission tag key only. */
export function decommissionTagStatement(scope: Construct): iam.PolicyStatement {
  return new iam.PolicyStatement({
    actions: ['ec2:CreateTags'],
    resources: [instanceArn(scope, '*')],
    conditions: {
      'ForAllValues:StringEquals': { 'aws:TagKeys': [DECOMMISSION_TAG] },
      // ForAllValues is true for an empty key set: require the key set to be present.
      Null: { 'aws:TagKeys': 'false' },
    },
  });
}

/**
 * Acknowledges, on `target`, the cdk-nag findings the Auto Scaling statements raise: a group ARN
 * always holds a `*` for the group's UUID, which is unknown until the group exists.
 */
export function acknowledgeAutoScalingFindings(target: IConstruct, options: AutoScalingScope): void {
  const validations = Validations.of(target);
  if (options.autoScalingGroupNames) {
    for (const name of options.autoScalingGroupNames) {
      validations.acknowledge({
        id: wildcardResourceFinding(target, autoScalingGroupArn(target, name)),
        reason: `Only the group named ${name}: the * stands for the group's UUID, which changes when the group is recreated.`,
      });
    }
  } else {
    validations.acknowledge({
      id: wildcardResourceFinding(target, autoScalingGroupArn(target, '*')),
      reason: "Only groups tagged as the cluster's (autoscaling:ResourceTag condition on every statement); pass autoScalingGroupNames to name them instead.",
    });
  }
}
