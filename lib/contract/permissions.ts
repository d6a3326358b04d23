// The IAM actions each part of the reconciler calls, and on what — spelled once: the stack grants
// exactly these (infra/node-reconciler.ts, infra/drain-workflow.ts turn each entry into a statement
// on the resource it names), and `ec2-node-reconciler doctor` simulates exactly these for each
// function role (iam:SimulatePrincipalPolicy), on the same resources.

/**
 * What a permission is on. `any`: actions that support no resource-level permissions; the others
 * are the deployment's own resources (the cluster, the drain workflow and its executions, the output
 * bus) and the cluster's Auto Scaling groups (the named ones, or those tagged as the cluster's).
 */
export type PermissionTarget =
  'any' | 'cluster' | 'drainStateMachine' | 'drainExecutions' | 'outputBus' | 'clusterAutoScalingGroups';

export interface Permission {
  readonly actions: readonly string[];
  readonly on: PermissionTarget;
}

/**
 * Lifecycle and health actions the event and sweep functions take on Auto Scaling groups (all support
 * the autoScalingGroup resource type): completing an action a sweep found, or one whose drain already
 * ended, and the opt-in mark-unhealthy. They never heartbeat: the drain workflow and its step do.
 */
export const ASG_MUTATIONS = ['autoscaling:CompleteLifecycleAction', 'autoscaling:SetInstanceHealth'] as const;

/** The lifecycle heartbeat, recorded by the drain-step function at the start of each invocation and by the workflow while it waits. */
export const LIFECYCLE_HEARTBEAT = 'autoscaling:RecordLifecycleActionHeartbeat';

/**
 * Read-only lookups the event and sweep functions make that support no resource-level permissions
 * (Service Authorization Reference): instances and their scheduled events, the groups' members with
 * each one's lifecycle state and health (DescribeAutoScalingGroups), and the group's terminate hooks
 * (a sweep completes only ours, lib/observe/enrich.ts).
 */
export const UNSCOPABLE_READS = [
  'ec2:DescribeInstances',
  'ec2:DescribeInstanceStatus',
  'autoscaling:DescribeAutoScalingGroups',
  'autoscaling:DescribeLifecycleHooks',
] as const;

/** The event and sweep functions run the same pipeline (DESIGN §2), so they share one policy. */
export const RECONCILER_PERMISSIONS: readonly Permission[] = [
  { actions: UNSCOPABLE_READS, on: 'any' },
  { actions: ASG_MUTATIONS, on: 'clusterAutoScalingGroups' },
  // The cluster's endpoint and CA, for the Kubernetes API.
  { actions: ['eks:DescribeCluster'], on: 'cluster' },
  { actions: ['states:StartExecution'], on: 'drainStateMachine' },
  // One removal, one drain: whether the drain a Node names still runs.
  { actions: ['states:DescribeExecution'], on: 'drainExecutions' },
  { actions: ['events:PutEvents'], on: 'outputBus' },
];

/** The drain step reaches the cluster, and keeps the lifecycle action it drains for alive at the start of every invocation. */
export const DRAIN_STEP_PERMISSIONS: readonly Permission[] = [
  { actions: ['eks:DescribeCluster'], on: 'cluster' },
  { actions: [LIFECYCLE_HEARTBEAT], on: 'clusterAutoScalingGroups' },
];

/** The drain workflow's own role: heartbeats while it waits, and the lifecycle action completed at its end. */
export const DRAIN_WORKFLOW_PERMISSIONS: readonly (Permission & { readonly on: 'clusterAutoScalingGroups' })[] = [
  { actions: [LIFECYCLE_HEARTBEAT, 'autoscaling:CompleteLifecycleAction'], on: 'clusterAutoScalingGroups' },
];

/** Each function role's permissions, by function (the keys of infra/functions.ts FUNCTION_KINDS). */
export const FUNCTION_PERMISSIONS = {
  events: RECONCILER_PERMISSIONS,
  sweep: RECONCILER_PERMISSIONS,
  drainStep: DRAIN_STEP_PERMISSIONS,
} as const satisfies Readonly<Record<string, readonly Permission[]>>;
