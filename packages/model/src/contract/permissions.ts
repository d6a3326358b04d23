// The IAM actions each part of the reconciler calls, and on what — spelled once: the stack grants
// exactly these (infra/node-reconciler.ts, infra/drain-workflow.ts turn each entry into a statement
// on the resource it names), and `ec2-node-reconciler doctor` simulates exactly these for each
// function role (iam:SimulatePrincipalPolicy), on the same resources.

/**
 * What a permission is on. `any`: actions that support no resource-level permissions; the others
 * are the deployment's own resources (the cluster, the drain workflow and its executions, the output
 * bus, the signal queue) and the cluster's Auto Scaling groups (the named ones, or those tagged as the cluster's).
 */
export type PermissionTarget =
  | 'any'
  | 'cluster'
  | 'drainStateMachine'
  | 'drainExecutions'
  | 'outputBus'
  | 'signalQueue'
  | 'clusterAutoScalingGroups';

export interface Permission {
  readonly actions: readonly string[];
  readonly on: PermissionTarget;
}

/**
 * Lifecycle and health actions the sweep function takes on Auto Scaling groups (all support the
 * autoScalingGroup resource type): completing an action it found in Terminating:Wait, or one whose
 * drain already ended, and the opt-in mark-unhealthy (repair, unregistered machines: only a sweep
 * sees a whole group, lib/plan/plan.ts; the drain step marks a repair whose drain it saw end, DRAIN_STEP_PERMISSIONS).
 * Neither function heartbeats: the drain workflow and its step do.
 */
export const SWEEP_ASG_MUTATIONS = [
  'autoscaling:CompleteLifecycleAction',
  'autoscaling:SetInstanceHealth',
  // The repair back-off's record on the group (REPAIR_FAILURES_TAG, lib/plan/repair/backoff.ts).
  'autoscaling:CreateOrUpdateTags',
] as const;

/** The events function completes a lifecycle action its event names when no drain is needed (an excluded node, a drain that ended). */
export const EVENT_ASG_MUTATIONS = ['autoscaling:CompleteLifecycleAction'] as const;

/** The lifecycle heartbeat, recorded by the drain-step function at the start of each invocation and by the workflow while it waits. */
export const LIFECYCLE_HEARTBEAT = 'autoscaling:RecordLifecycleActionHeartbeat';

/**
 * Read-only lookups the sweep makes that support no resource-level permissions (Service
 * Authorization Reference): instances and their scheduled events, the groups' members with each
 * one's lifecycle state and health (DescribeAutoScalingGroups), the members of a group's warm pool
 * (DescribeWarmPool: a member terminated out of the pool waits in Warmed:Terminating:Wait), and the
 * group's terminate hooks (a sweep completes only ours, lib/observe/enrich.ts).
 */
export const SWEEP_READS = [
  'ec2:DescribeInstances',
  'ec2:DescribeInstanceStatus',
  'autoscaling:DescribeAutoScalingGroups',
  'autoscaling:DescribeWarmPool',
  'autoscaling:DescribeLifecycleHooks',
] as const;

/**
 * An event observes only its instances (lib/observe/signals.ts): DescribeInstances by id; and, for a
 * lifecycle action, its group's terminate hooks, to complete only ours by the sweep's rule
 * (lib/observe/terminate-hooks.ts, docs/design.md §1c). Neither supports resource-level permissions.
 */
export const EVENT_READS = ['ec2:DescribeInstances', 'autoscaling:DescribeLifecycleHooks'] as const;

/**
 * What Lambda's event source mapping needs of the events function's role to consume the signal
 * queue: the three the Lambda and SQS guides name (AWSLambdaSQSQueueExecutionRole's), not CDK's
 * grantConsumeMessages, which adds sqs:ChangeMessageVisibility and sqs:GetQueueUrl that nothing calls.
 * The stack grants them with the queue's grant (its role's default policy), not in EventsPolicy.
 */
export const EVENT_SOURCE_QUEUE_PERMISSION = {
  actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'],
  on: 'signalQueue',
} as const satisfies Permission;

/** What both reconciling functions call alike: the cluster, the drain workflow, the output bus. */
const PIPELINE_PERMISSIONS: readonly Permission[] = [
  // The cluster's endpoint and CA, for the Kubernetes API.
  { actions: ['eks:DescribeCluster'], on: 'cluster' },
  { actions: ['states:StartExecution'], on: 'drainStateMachine' },
  // One removal, one drain: whether the drain a Node names still runs.
  { actions: ['states:DescribeExecution'], on: 'drainExecutions' },
  { actions: ['events:PutEvents'], on: 'outputBus' },
];

/**
 * The event and sweep functions run the same pipeline (docs/design.md §2) over different scopes: the reads
 * and Auto Scaling mutations of their own scope (an event observes its instances only; only a sweep
 * sees whole groups). These are their policies (EventsPolicy, SweepPolicy).
 */
export const EVENTS_POLICY_PERMISSIONS: readonly Permission[] = [
  { actions: EVENT_READS, on: 'any' },
  { actions: EVENT_ASG_MUTATIONS, on: 'clusterAutoScalingGroups' },
  ...PIPELINE_PERMISSIONS,
];
export const SWEEP_POLICY_PERMISSIONS: readonly Permission[] = [
  { actions: SWEEP_READS, on: 'any' },
  { actions: SWEEP_ASG_MUTATIONS, on: 'clusterAutoScalingGroups' },
  ...PIPELINE_PERMISSIONS,
];

/**
 * The drain step reaches the cluster, keeps the lifecycle action it drains for alive at the start of
 * every invocation, and marks a repaired machine Unhealthy when it sees its repair drain end
 * (lib/lambda/repair-completion.ts: only a drain the Node records as the sweep's repair of that instance).
 */
export const DRAIN_STEP_PERMISSIONS: readonly Permission[] = [
  { actions: ['eks:DescribeCluster'], on: 'cluster' },
  { actions: [LIFECYCLE_HEARTBEAT, 'autoscaling:SetInstanceHealth'], on: 'clusterAutoScalingGroups' },
];

/** The drain workflow's own role: heartbeats while it waits, and the lifecycle action completed at its end. */
export const DRAIN_WORKFLOW_PERMISSIONS: readonly (Permission & { readonly on: 'clusterAutoScalingGroups' })[] = [
  { actions: [LIFECYCLE_HEARTBEAT, 'autoscaling:CompleteLifecycleAction'], on: 'clusterAutoScalingGroups' },
];

/**
 * The drain workflow continues a long drain in a chained execution of itself (infra/drain-workflow.ts):
 * StartExecution on its own state machine, granted in a policy of its own (the role's default policy
 * would make the state machine depend on a statement that names it).
 */
export const DRAIN_WORKFLOW_CHAIN_PERMISSION = {
  actions: ['states:StartExecution'],
  on: 'drainStateMachine',
} as const satisfies Permission;

/** Each function role's permissions, by function (the keys of infra/functions.ts FUNCTION_KINDS). */
export const FUNCTION_PERMISSIONS = {
  events: [...EVENTS_POLICY_PERMISSIONS, EVENT_SOURCE_QUEUE_PERMISSION],
  sweep: SWEEP_POLICY_PERMISSIONS,
  drainStep: DRAIN_STEP_PERMISSIONS,
} as const satisfies Readonly<Record<string, readonly Permission[]>>;
