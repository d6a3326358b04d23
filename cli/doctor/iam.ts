// IAM as AWS would decide it for each function role: every action the role's function calls
// (packages/model/src/contract/permissions.ts, the list the stack grants from) simulated on the resource it calls it
// on (iam:SimulatePrincipalPolicy), the cluster's Auto Scaling groups with their tags as condition
// context — so a policy edited by hand, a statement lost or a group tagged for another cluster shows.
import { CLUSTER_TAG_EKS } from '@ec2-node-reconciler/model/contract/labels.js';
import type { Permission, PermissionTarget } from '@ec2-node-reconciler/model/contract/permissions.js';
import { couldNotRead, failed, passed, type Check, type Read } from './check.js';

export interface ContextEntry {
  readonly key: string;
  readonly values: readonly string[];
}

/** One SimulatePrincipalPolicy call: actions on resources, with the condition context they would carry. */
export interface Simulation {
  readonly actions: readonly string[];
  /** Undefined: `*` (actions with no resource type). */
  readonly resourceArns?: readonly string[];
  readonly context: readonly ContextEntry[];
  /** What the actions are on, for messages (`the cluster`, `group eks-workers`). */
  readonly on: string;
}

/** An Auto Scaling group of the cluster, as DescribeAutoScalingGroups gives it. */
export interface ClusterGroup {
  readonly name: string;
  readonly arn: string;
  readonly tags: Readonly<Record<string, string>>;
}

export interface SimulationResources {
  readonly cluster: string;
  readonly clusterArn: string;
  readonly drainStateMachineArn: string;
  readonly outputBusArn: string;
  readonly signalQueueArn: string;
  /** The cluster's groups; none found: a group tagged `eks:cluster-name=<cluster>` stands for them. */
  readonly groups: readonly ClusterGroup[];
  readonly region: string;
  readonly accountId: string;
}

/** Groups simulated at most; a cluster with more is represented by the first ones, by name. */
export const MAX_SIMULATED_GROUPS = 10;

/** The group that stands for the cluster's when none was found: what the stack's tag conditions admit. */
export function representativeGroup(
  resources: Pick<SimulationResources, 'cluster' | 'region' | 'accountId'>,
): ClusterGroup {
  const name = 'ec2-node-reconciler-doctor';
  return {
    name,
    arn: `arn:aws:autoscaling:${resources.region}:${resources.accountId}:autoScalingGroup:00000000-0000-4000-8000-000000000000:autoScalingGroupName/${name}`,
    tags: { [CLUSTER_TAG_EKS]: resources.cluster },
  };
}

const tagContext = (tags: Readonly<Record<string, string>>): ContextEntry[] =>
  Object.entries(tags).flatMap(([key, value]) => [
    { key: `autoscaling:ResourceTag/${key}`, values: [value] },
    { key: `aws:ResourceTag/${key}`, values: [value] },
  ]);

/** `https://sqs.<region>.amazonaws.com/<account>/<name>` → `arn:<partition>:sqs:<region>:<account>:<name>`. */
export function queueArnOf(queueUrl: string, partition: string): string | undefined {
  const match = /^https:\/\/sqs\.([a-z0-9-]+)\.[^/]+\/(\d{12})\/([^/?]+)$/.exec(queueUrl);
  return match ? `arn:${partition}:sqs:${match[1] ?? ''}:${match[2] ?? ''}:${match[3] ?? ''}` : undefined;
}

function executionArn(stateMachineArn: string): string {
  return `${stateMachineArn.replace(':stateMachine:', ':execution:')}:ec2-node-reconciler-doctor`;
}

/** The simulations that cover a role's permissions, in the order the permissions are listed. */
export function simulationsFor(permissions: readonly Permission[], resources: SimulationResources): Simulation[] {
  const groups =
    resources.groups.length > 0 ? resources.groups.slice(0, MAX_SIMULATED_GROUPS) : [representativeGroup(resources)];
  const on: Readonly<Record<Exclude<PermissionTarget, 'any' | 'clusterAutoScalingGroups'>, [string, string]>> = {
    cluster: [resources.clusterArn, `cluster ${resources.cluster}`],
    drainStateMachine: [resources.drainStateMachineArn, 'the drain workflow'],
    drainExecutions: [executionArn(resources.drainStateMachineArn), 'the drain workflow’s executions'],
    outputBus: [resources.outputBusArn, 'the output bus'],
    signalQueue: [resources.signalQueueArn, 'the signal queue'],
  };
  return permissions.flatMap((permission): Simulation[] => {
    const actions = permission.actions;
    if (permission.on === 'any') return [{ actions, context: [], on: '*' }];
    if (permission.on === 'clusterAutoScalingGroups')
      return groups.map((group) => ({
        actions,
        resourceArns: [group.arn],
        context: tagContext(group.tags),
        on:
          resources.groups.length > 0
            ? `group ${group.name}`
            : `a group tagged ${CLUSTER_TAG_EKS}=${resources.cluster}`,
      }));
    const [arn, label] = on[permission.on];
    return [{ actions, resourceArns: [arn], context: [], on: label }];
  });
}

export type SimulatedDecision = 'allowed' | 'explicitDeny' | 'implicitDeny';

export interface SimulationResult {
  readonly simulation: Simulation;
  /** Each action's decision (the most restrictive over the resources). */
  readonly decisions: Read<Readonly<Record<string, SimulatedDecision>>>;
}

/** Passed when every action of every simulation is allowed; failed naming each refusal and how to restore the policy. */
export function checkIam(input: {
  readonly subject: string;
  readonly roleArn: string;
  readonly stackName: string;
  readonly results: readonly SimulationResult[];
}): Check {
  const unread = input.results.find((r) => !r.decisions.ok);
  if (unread !== undefined && !unread.decisions.ok)
    return couldNotRead(
      'iam',
      input.subject,
      unread.decisions.error,
      `iam:SimulatePrincipalPolicy on ${input.roleArn}`,
    );
  const denied: string[] = [];
  let allowed = 0;
  for (const { simulation, decisions } of input.results) {
    if (!decisions.ok) continue;
    for (const action of simulation.actions) {
      const decision = decisions.value[action] ?? 'implicitDeny';
      if (decision === 'allowed') allowed += 1;
      else denied.push(`${action} on ${simulation.on}${decision === 'explicitDeny' ? ' (explicit deny)' : ''}`);
    }
  }
  if (denied.length > 0)
    return failed(
      'iam',
      input.subject,
      `${input.roleArn}: denied ${denied.join(', ')}`,
      `put the stack's policy back with aws iam put-role-policy (what changed: aws cloudformation detect-stack-drift --stack-name ${input.stackName}, then describe-stack-resource-drifts; a cdk deploy of an unchanged template changes nothing)`,
    );
  return passed('iam', input.subject, `${allowed} action(s) allowed where the function calls them`);
}
