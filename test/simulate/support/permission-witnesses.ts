// One witness per permission of the stack: a scenario that passes with every permission and fails
// (an expectation, or a call refused) when that one permission is taken out. The cheapest scenario
// that needs it, measured; test/simulate/least-privilege.test.ts runs the table and holds it to
// exactly the permissions the synthesized template and the shipped RBAC manifest contain.
import type { Denial } from '@ec2-node-reconciler/sandbox/simulate/denials.js';
import type { Deployment } from '@ec2-node-reconciler/sandbox/deployment/template.js';
import { STATE_MACHINE_LOG_DELIVERY_ACTIONS } from '@ec2-node-reconciler/sandbox/simulate/sandbox.js';
import { kindOfPrincipal, withoutIamAction, type RoleKind } from './permissions.js';

export interface Witness {
  /** A file of test/scenarios, or a scenario written for the witness. */
  readonly scenario: string | { readonly name: string; readonly yaml: string };
  /** What the witness's world lacks besides the permission under test, in both runs (its premise). */
  readonly premise?: (deployment: Deployment) => Deployment;
  /** Refusals the premise causes, expected in the run with every other permission. */
  readonly expectedDenial?: (denial: Denial, deployment: Deployment) => boolean;
  /** Why this scenario needs the permission, when the scenario's name does not say. */
  readonly why?: string;
}

const scenario = (file: string, why?: string): Witness => ({ scenario: file, ...(why ? { why } : {}) });

// The cheapest scenarios that exercise each path (wall time of a run on a quiet 2-core machine).
const EVENT_DELETES = scenario('state-change-terminated-deletes.yaml'); // ~0.1 s: event → DescribeInstances, GET node/lease, DELETE, Event, Node Deleted
const ANY = scenario('state-change-running-ignored.yaml'); // ~0.05 s: the stack deployed, one event its rules drop
const SWEEP_TAINTS = scenario('stopped-machine-restarted-taint-removed.yaml'); // ~0.1 s: two sweeps, GET and PATCH node, Events
const DRAIN = scenario('drain-without-force-leaves-refused-pods.yaml'); // ~0.3 s: a drain through the workflow
const SWEEP_LIFECYCLE = scenario('sweep-asg-terminating-wait-completes-hook.yaml'); // ~0.4 s: a lifecycle drain the sweep found
const MARK_UNHEALTHY = scenario('unregistered-machine-marked-unhealthy-replaced.yaml'); // ~0.2 s: groups, hooks, SetInstanceHealth, the group's lifecycle event
const REPEATED_EVENT = scenario('live-machine-stale-lease-never-deleted.yaml'); // ~0.2 s: a repeated Kubernetes Event (GET, PATCH)

/**
 * The workflow's own lifecycle heartbeat is the fallback for a drain step whose heartbeat failed:
 * here the step may not heartbeat at all (its refusals are the premise), the drain outlasts the
 * hook's 120 s, and only the workflow's heartbeats keep the action for the reconciler to complete.
 */
const WORKFLOW_HEARTBEAT: Witness = {
  scenario: {
    name: 'workflow-heartbeats-for-a-step-that-cannot',
    yaml: `
name: workflow-heartbeats-for-a-step-that-cannot
start: 2026-11-29T12:00:00Z
cluster: { name: demo, region: us-east-1, accountId: "111122223333" }
instances:
  - { id: i-0a0000000000f1601, state: running, zone: us-east-1a, launchedAgo: 9d, tags: { eks:cluster-name: demo },
      autoScaling: { group: ng-a, hook: drain-hook, heartbeatTimeout: 120s, defaultResult: ABANDON } }
nodes:
  - { name: ip-10-16-0-1.ec2.internal, providerID: "aws:///us-east-1a/i-0a0000000000f1601", createdAgo: 9d }
pods:
  - { name: ledger-0, namespace: money, node: ip-10-16-0-1.ec2.internal, owner: StatefulSet/ledger, terminationGracePeriodSeconds: 300 }
steps:
  - event:
      inline:
        { version: "0", id: 5b7c1d2e-0000-4000-8000-00000000f161, detail-type: EC2 Instance-terminate Lifecycle Action, source: aws.autoscaling, account: "111122223333", time: "2026-11-29T12:00:00Z", region: us-east-1,
          resources: ["arn:aws:autoscaling:us-east-1:111122223333:autoScalingGroup:d1e2f3a4-0000-4000-8000-000000000016:autoScalingGroupName/ng-a"],
          detail: { LifecycleActionToken: 87654321-4321-4321-4321-21098765f161, AutoScalingGroupName: ng-a, LifecycleHookName: drain-hook, EC2InstanceId: i-0a0000000000f1601, LifecycleTransition: "autoscaling:EC2_INSTANCE_TERMINATING", Origin: AutoScalingGroup, Destination: EC2 } }
  - settle: {}
expect:
  nodes:
    ip-10-16-0-1.ec2.internal: drained
  lifecycleActions:
    - { instance: i-0a0000000000f1601, result: CONTINUE }
  drainsStarted: 1
  deletions: 0
`,
  },
  premise: withoutIamAction('drainStep', 'autoscaling:RecordLifecycleActionHeartbeat'),
  expectedDenial: (denial, deployment) =>
    denial.call === 'autoscaling:RecordLifecycleActionHeartbeat' &&
    kindOfPrincipal(deployment, denial.by) === 'drainStep',
};

const iam = (role: RoleKind, action: string) => `iam ${role} ${action}`;

/** Permission key (permissionKey) → its witness. */
export const WITNESSES: Readonly<Record<string, Witness>> = {
  // The events function: its log group, its queue (the event source mapping), and the event path.
  [iam('events', 'logs:CreateLogStream')]: EVENT_DELETES,
  [iam('events', 'logs:PutLogEvents')]: EVENT_DELETES,
  [iam('events', 'sqs:ReceiveMessage')]: EVENT_DELETES,
  [iam('events', 'sqs:DeleteMessage')]: EVENT_DELETES,
  [iam('events', 'sqs:GetQueueAttributes')]: EVENT_DELETES,
  [iam('events', 'ec2:DescribeInstances')]: EVENT_DELETES,
  [iam('events', 'eks:DescribeCluster')]: EVENT_DELETES,
  [iam('events', 'events:PutEvents')]: scenario(
    'state-change-terminated-deletes.yaml',
    'Node Deleted on the output bus',
  ),
  [iam('events', 'autoscaling:CompleteLifecycleAction')]: scenario('excluded-node-lifecycle-completed.yaml'),
  [iam('events', 'autoscaling:DescribeLifecycleHooks')]: scenario(
    'excluded-node-lifecycle-completed.yaml',
    'whose lifecycle action it is: the group’s terminate hooks',
  ),
  [iam('events', 'states:StartExecution')]: scenario('capacity-reservation-interruption-drains.yaml'),
  [iam('events', 'states:DescribeExecution')]: scenario(
    'drained-removal-not-drained-again.yaml',
    'the Node records a drain: is it still running?',
  ),
  // The sweep function.
  [iam('sweep', 'logs:CreateLogStream')]: SWEEP_TAINTS,
  [iam('sweep', 'logs:PutLogEvents')]: SWEEP_TAINTS,
  [iam('sweep', 'ec2:DescribeInstances')]: SWEEP_TAINTS,
  [iam('sweep', 'ec2:DescribeInstanceStatus')]: SWEEP_TAINTS,
  [iam('sweep', 'eks:DescribeCluster')]: SWEEP_TAINTS,
  [iam('sweep', 'autoscaling:DescribeAutoScalingGroups')]: scenario('unlinked-node-never-marked-unhealthy.yaml'),
  // A member terminated out of its group's warm pool waits in Warmed:Terminating:Wait, which only DescribeWarmPool lists.
  [iam('sweep', 'autoscaling:DescribeWarmPool')]: scenario(
    'warm-pool-terminating-found-by-sweep.yaml',
    'the warm pool’s members: one waits on our hook',
  ),
  // Which hook of a group in Terminating:Wait is ours (the unregistered machine's hook now comes by event).
  [iam('sweep', 'autoscaling:DescribeLifecycleHooks')]: SWEEP_LIFECYCLE,
  [iam('sweep', 'autoscaling:SetInstanceHealth')]: MARK_UNHEALTHY,
  [iam('sweep', 'autoscaling:CreateOrUpdateTags')]: scenario(
    'repair-back-off-after-failed-replacements.yaml',
    "the repair back-off's record on the group",
  ),
  // A machine in Terminating:Wait with no Node: the sweep completes its action at once. (After a mark, the
  // group's own lifecycle event reaches the events function first.)
  [iam('sweep', 'autoscaling:CompleteLifecycleAction')]: SWEEP_LIFECYCLE,
  [iam('sweep', 'states:StartExecution')]: DRAIN,
  [iam('sweep', 'states:DescribeExecution')]: scenario(
    'repair-max-parallel-second-waits.yaml',
    'a repair drain in flight: is it still running?',
  ),
  [iam('sweep', 'events:PutEvents')]: scenario('identity-conflict-two-nodes-one-instance.yaml', 'Divergence Detected'),
  // The drain-step function.
  [iam('drainStep', 'logs:CreateLogStream')]: DRAIN,
  [iam('drainStep', 'logs:PutLogEvents')]: DRAIN,
  [iam('drainStep', 'eks:DescribeCluster')]: DRAIN,
  [iam('drainStep', 'autoscaling:RecordLifecycleActionHeartbeat')]: SWEEP_LIFECYCLE,
  [iam('drainStep', 'autoscaling:SetInstanceHealth')]: scenario(
    'repair-replaced-when-its-drain-ends.yaml',
    'the step that sees a repair drain end marks the machine Unhealthy',
  ),
  // The drain workflow.
  [iam('drainWorkflow', 'lambda:InvokeFunction')]: DRAIN,
  [iam('drainWorkflow', 'states:StartExecution')]: scenario(
    'lifecycle-long-drain-continues-in-chained-execution.yaml',
    'a drain longer than one execution holds continues in a chained execution of the workflow',
  ),
  [iam('drainWorkflow', 'events:PutEvents')]: scenario(
    'drain-without-force-leaves-refused-pods.yaml',
    'Drain Failed on the output bus',
  ),
  [iam('drainWorkflow', 'autoscaling:CompleteLifecycleAction')]: SWEEP_LIFECYCLE,
  [iam('drainWorkflow', 'autoscaling:RecordLifecycleActionHeartbeat')]: WORKFLOW_HEARTBEAT,
  ...Object.fromEntries(
    STATE_MACHINE_LOG_DELIVERY_ACTIONS.map((action) => [
      iam('drainWorkflow', action),
      { ...ANY, why: 'the state machine logs to CloudWatch Logs: checked as it is created' },
    ]),
  ),
  // The sweep schedule.
  [iam('sweepSchedule', 'lambda:InvokeFunction')]: SWEEP_TAINTS,
  // The RBAC manifest (every role's group).
  'rbac core/nodes get': SWEEP_TAINTS,
  'rbac core/nodes list': SWEEP_TAINTS,
  'rbac core/nodes patch': SWEEP_TAINTS,
  'rbac core/nodes delete': EVENT_DELETES,
  'rbac core/pods list': DRAIN,
  'rbac core/pods/eviction create': DRAIN,
  'rbac apps/daemonsets get': scenario(
    'drain-without-force-leaves-refused-pods.yaml',
    'a DaemonSet pod is told from an orphan',
  ),
  'rbac core/events create': SWEEP_TAINTS,
  'rbac core/events get': REPEATED_EVENT,
  'rbac core/events patch': REPEATED_EVENT,
  'rbac coordination.k8s.io/leases get in kube-node-lease': EVENT_DELETES,
  'rbac coordination.k8s.io/leases list in kube-node-lease': SWEEP_TAINTS,
};
