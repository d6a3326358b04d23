// IAM statements shared by the functions and the drain workflow, made from the permissions of
// packages/model/src/contract/permissions.ts. Every action is named (no wildcard actions); resources are scoped
// wherever the service supports it, and where it does not (EC2 and Auto Scaling Describe*) the
// statement says so, for the cdk-nag acknowledgement.
import { ArnFormat, Stack, Token, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct, IConstruct } from 'constructs';
import { CLUSTER_TAG_EKS, clusterOwnershipTag, DECOMMISSION_TAG } from '@ec2-node-reconciler/model/contract/labels.js';
import type { Permission, PermissionTarget } from '@ec2-node-reconciler/model/contract/permissions.js';
import { wildcardResourceFinding } from './findings.js';

export interface AutoScalingScope {
  readonly clusterName: string;
  /** Named groups: statements on their ARNs. Otherwise: any group tagged as the cluster's. */
  readonly autoScalingGroupNames?: readonly string[];
}

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
export function autoScalingStatements(
  scope: Construct,
  actions: readonly string[],
  options: AutoScalingScope,
): iam.PolicyStatement[] {
  if (options.autoScalingGroupNames) {
    return [
      new iam.PolicyStatement({
        actions: [...actions],
        resources: options.autoScalingGroupNames.map((name) => autoScalingGroupArn(scope, name)),
      }),
    ];
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
      conditions: {
        StringEquals: { [`autoscaling:ResourceTag/${clusterOwnershipTag(options.clusterName)}`]: ['owned', 'shared'] },
      },
    }),
  ];
}

/** The ARN each deployment resource a permission names stands for (`any`: `*`). */
export type PermissionResources = Readonly<
  Record<Exclude<PermissionTarget, 'any' | 'clusterAutoScalingGroups'>, string>
>;

/**
 * The statements granting `permissions`, in their order: one per entry on the resource it names,
 * and the Auto Scaling statements (autoScalingStatements) for the cluster's groups.
 */
export function permissionStatements(
  scope: Construct,
  permissions: readonly Permission[],
  resources: PermissionResources,
  asgScope: AutoScalingScope,
): iam.PolicyStatement[] {
  return permissions.flatMap(({ actions, on }) => {
    if (on === 'clusterAutoScalingGroups') return autoScalingStatements(scope, actions, asgScope);
    return [new iam.PolicyStatement({ actions: [...actions], resources: [on === 'any' ? '*' : resources[on]] })];
  });
}

/**
 * ec2:CreateTags and ec2:DeleteTags on instances, for the decommission tag key only: what an
 * operator's role needs for `ec2-node-reconciler decommission` and `decommission --undo`
 * (NodeReconciler.grantDecommission). The functions never tag.
 */
export function decommissionTagStatement(scope: IConstruct): iam.PolicyStatement {
  return new iam.PolicyStatement({
    actions: ['ec2:CreateTags', 'ec2:DeleteTags'],
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
      reason:
        "Only groups tagged as the cluster's (autoscaling:ResourceTag condition on every statement); pass autoScalingGroupNames to name them instead.",
    });
  }
}
