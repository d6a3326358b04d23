// IAM statements shared by the functions and the drain workflow. Every action is named (no
// wildcard actions); resources are scoped wherever the service supports it, and where it does not
// (EC2 and Auto Scaling Describe*) the statement says so, for the cdk-nag acknowledgement.
import { ArnFormat, Stack, Token, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct, IConstruct } from 'constructs';
import { CLUSTER_TAG_EKS, clusterOwnershipTag, DECOMMISSION_TAG } from '../lib/contract/labels.js';
import { wildcardResourceFinding } from './findings.js';

/**
 * Lifecycle and health actions the sweep function takes on Auto Scaling groups (all support the
 * autoScalingGroup resource type): completing an action it found in Terminating:Wait, or one whose
 * drain already ended, and the opt-in mark-unhealthy (repair, unregistered machines: only a sweep
 * sees a whole group, lib/plan/plan.ts). Neither function heartbeats: the drain workflow and its step do.
 */
export const SWEEP_ASG_MUTATIONS = ['autoscaling:CompleteLifecycleAction', 'autoscaling:SetInstanceHealth'] as const;

/** The events function completes a lifecycle action its event names when no drain is needed (an excluded node, a drain that ended). */
export const EVENT_ASG_MUTATIONS = ['autoscaling:CompleteLifecycleAction'] as const;

/** The lifecycle heartbeat, recorded by the drain-step function at the start of each invocation and by the workflow while it waits. */
export const LIFECYCLE_HEARTBEAT = 'autoscaling:RecordLifecycleActionHeartbeat';

/**
 * Read-only lookups the sweep makes that support no resource-level permissions (Service
 * Authorization Reference): instances and their scheduled events, the groups' members with each
 * one's lifecycle state and health (DescribeAutoScalingGroups), and the group's terminate hooks (a
 * sweep completes only ours, lib/observe/enrich.ts).
 */
export const SWEEP_READS = [
  'ec2:DescribeInstances',
  'ec2:DescribeInstanceStatus',
  'autoscaling:DescribeAutoScalingGroups',
  'autoscaling:DescribeLifecycleHooks',
] as const;

/** An event observes only its instances (lib/observe/signals.ts): DescribeInstances by id, no resource-level permissions. */
export const EVENT_READS = ['ec2:DescribeInstances'] as const;

/**
 * What Lambda's event source mapping needs of the events function's role to consume the signal
 * queue: the three the Lambda and SQS guides name (AWSLambdaSQSQueueExecutionRole's), not CDK's
 * grantConsumeMessages, which adds sqs:ChangeMessageVisibility and sqs:GetQueueUrl that nothing calls.
 */
export const EVENT_SOURCE_QUEUE_ACTIONS = [
  'sqs:ReceiveMessage',
  'sqs:DeleteMessage',
  'sqs:GetQueueAttributes',
] as const;

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
