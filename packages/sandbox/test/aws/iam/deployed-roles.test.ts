// The emulator enforcing the policies the project's stack really synthesizes, on calls made with
// SDK v3 clients signed as each role's session: what the deployed world will meet. The group tag
// conditions are the point: the stack scopes lifecycle and health calls to groups tagged as the
// cluster's, and a group of another cluster must be refused, whatever its members are called.
import {
  AutoScalingClient,
  CompleteLifecycleActionCommand,
  DescribeAutoScalingGroupsCommand,
  DescribeLifecycleHooksCommand,
  RecordLifecycleActionHeartbeatCommand,
  SetInstanceHealthCommand,
} from '@aws-sdk/client-auto-scaling';
import {
  CreateTagsCommand,
  DescribeInstancesCommand,
  DescribeInstanceStatusCommand,
  EC2Client,
} from '@aws-sdk/client-ec2';
import { DescribeClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DECOMMISSION_TAG } from '@ec2-node-reconciler/model/contract/labels.js';
import type { AwsEmulator } from '../../../src/aws/index.js';
import { IamAuthorizer } from '../../../src/aws/iam/index.js';
import { byLogicalId, deployedStack, ENV } from '../../support/deployment.js';
import { anInstance, errorOf, instanceId, startWorld, type World } from '../support/world.js';

const { deployment } = await deployedStack();
const [MACHINE] = deployment.stateMachines;
const [BUS] = deployment.eventBuses;
if (!MACHINE || !BUS) throw new Error('the stack has a drain state machine and an output bus');
const DRAIN_STEP = byLogicalId(deployment.functions, 'ReconcilerFunctionsDrainStep');
const SWEEP = byLogicalId(deployment.functions, 'ReconcilerFunctionsSweep');

/** Clients signed as a role's session, named as Lambda names it: after the function. */
function clientsOf(aws: AwsEmulator, roleLogicalId: string, sessionName: string) {
  const role = byLogicalId(deployment.roles, roleLogicalId);
  const credentials = aws.sessionCredentials(role.arn, sessionName);
  const config = { endpoint: aws.endpoint, region: aws.region, maxAttempts: 1, credentials };
  return {
    arn: credentials.arn ?? '',
    ec2: new EC2Client(config),
    autoScaling: new AutoScalingClient(config),
    eks: new EKSClient(config),
    events: new EventBridgeClient(config),
    sfn: new SFNClient(config),
    lambda: new LambdaClient(config),
    destroy(): void {
      [this.ec2, this.autoScaling, this.eks, this.events, this.sfn, this.lambda].forEach((c) => c.destroy());
    },
  };
}
type RoleClients = ReturnType<typeof clientsOf>;

const complete = (clients: RoleClients, group: string, n: number) =>
  clients.autoScaling.send(
    new CompleteLifecycleActionCommand({
      AutoScalingGroupName: group,
      LifecycleHookName: 'drain',
      InstanceId: instanceId(n),
      LifecycleActionResult: 'CONTINUE',
    }),
  );

let world: World;
let sweep: RoleClients;
let workflow: RoleClients;
let drainStep: RoleClients;
beforeEach(async () => {
  const iam = new IamAuthorizer();
  for (const role of deployment.roles) iam.attach(role.arn, ...role.policies);
  const waiting = (group: string) => ({ group, lifecycleState: 'Terminating:Wait' as const, hook: 'drain' });
  world = await startWorld({
    iam,
    accountId: ENV.accountId,
    region: ENV.region,
    seed: {
      // ng-x's members say demo, the group itself another cluster: the group's tags are what IAM reads.
      autoScalingGroups: [{ name: 'ng-x', tags: { 'eks:cluster-name': 'other' } }],
      instances: [
        // An EKS managed node group of demo: the group carries eks:cluster-name (derived from its members).
        anInstance(1, {
          tags: { 'eks:cluster-name': 'demo', 'kubernetes.io/cluster/demo': 'owned' },
          autoScaling: waiting('eks-ng-demo'),
        }),
        // An eksctl (self-managed) group of demo: only the ownership tag.
        anInstance(2, { tags: { 'kubernetes.io/cluster/demo': 'shared' }, autoScaling: waiting('eksctl-ng-demo') }),
        // Another cluster's managed node group, in the same account.
        anInstance(3, { tags: { 'eks:cluster-name': 'other' }, autoScaling: waiting('eks-ng-other') }),
        anInstance(4, { autoScaling: waiting('ng-x') }),
      ],
      clusters: [
        { name: 'demo', endpoint: 'https://127.0.0.1:6443' },
        { name: 'other', endpoint: 'https://127.0.0.1:6444' },
      ],
      stateMachines: [{ name: MACHINE.name }],
      eventBuses: [BUS.name],
    },
  });
  world.aws.state.functions.register(DRAIN_STEP.name, () => Promise.resolve({ outcome: 'done' }));
  world.aws.state.functions.register(SWEEP.name, () => Promise.resolve({}));
  sweep = clientsOf(world.aws, 'ReconcilerFunctionsSweepRole', SWEEP.name);
  workflow = clientsOf(world.aws, 'ReconcilerDrainWorkflowStateMachineRole', 'drain-execution');
  drainStep = clientsOf(world.aws, 'ReconcilerFunctionsDrainStepRole', DRAIN_STEP.name);
});
afterEach(async () => {
  [sweep, workflow, drainStep].forEach((c) => c.destroy());
  await world.close();
});

describe('the stack’s Auto Scaling statements, enforced on group tags', () => {
  it('should let the sweep complete a lifecycle action of a group tagged eks:cluster-name=demo or kubernetes.io/cluster/demo', async () => {
    await complete(sweep, 'eks-ng-demo', 1);
    await complete(sweep, 'eksctl-ng-demo', 2);

    expect(world.aws.state.autoScaling.completions.map((c) => c.group)).toEqual(['eks-ng-demo', 'eksctl-ng-demo']);
  });

  it('should refuse the sweep a lifecycle action of another cluster’s group, even when its members are tagged demo', async () => {
    const other = await errorOf(complete(sweep, 'eks-ng-other', 3));
    const relabelled = await errorOf(complete(sweep, 'ng-x', 4));

    expect(other).toMatchObject({ name: 'AccessDenied', status: 403 });
    expect(other.message).toMatch(
      new RegExp(
        `^User: ${sweep.arn} is not authorized to perform: autoscaling:CompleteLifecycleAction on resource: arn:aws:autoscaling:${ENV.region}:${ENV.accountId}:autoScalingGroup:[0-9a-f-]{36}:autoScalingGroupName/eks-ng-other because no identity-based policy allows`,
      ),
    );
    expect(relabelled).toMatchObject({ name: 'AccessDenied', status: 403 });
    expect(world.aws.state.autoScaling.completions).toEqual([]);
    expect(world.aws.counters.denied('autoscaling', 'CompleteLifecycleAction')).toBe(2);
  });

  it('should scope SetInstanceHealth by the tags of the instance’s group', async () => {
    await sweep.autoScaling.send(
      new SetInstanceHealthCommand({ InstanceId: instanceId(1), HealthStatus: 'Unhealthy' }),
    );
    const error = await errorOf(
      sweep.autoScaling.send(new SetInstanceHealthCommand({ InstanceId: instanceId(3), HealthStatus: 'Unhealthy' })),
    );

    expect(error.name).toBe('AccessDenied');
    expect(world.aws.state.autoScaling.healthChanges.map((h) => h.instanceId)).toEqual([instanceId(1)]);
  });

  it('should let the drain workflow heartbeat and complete on the cluster’s groups only', async () => {
    await workflow.autoScaling.send(
      new RecordLifecycleActionHeartbeatCommand({
        AutoScalingGroupName: 'eks-ng-demo',
        LifecycleHookName: 'drain',
        InstanceId: instanceId(1),
      }),
    );
    await complete(workflow, 'eks-ng-demo', 1);
    const error = await errorOf(
      workflow.autoScaling.send(
        new RecordLifecycleActionHeartbeatCommand({
          AutoScalingGroupName: 'eks-ng-other',
          LifecycleHookName: 'drain',
          InstanceId: instanceId(3),
        }),
      ),
    );

    expect(error.name).toBe('AccessDenied');
    expect(world.aws.state.autoScaling.completions.map((c) => c.instanceId)).toEqual([instanceId(1)]);
  });
});

describe('the rest of the reconciler policy, through the server', () => {
  it('should allow the sweep its reads, DescribeLifecycleHooks included (issue #15 found it denied)', async () => {
    await sweep.ec2.send(new DescribeInstancesCommand({}));
    await sweep.ec2.send(new DescribeInstanceStatusCommand({}));
    await sweep.autoScaling.send(new DescribeAutoScalingGroupsCommand({}));
    const hooks = await sweep.autoScaling.send(
      new DescribeLifecycleHooksCommand({ AutoScalingGroupName: 'eks-ng-demo' }),
    );

    expect(hooks.LifecycleHooks?.map((h) => h.LifecycleHookName)).toEqual(['drain']);
    expect(world.aws.requestLog.filter({ denied: true })).toEqual([]);
  });

  it('should not let the sweep tag instances: only the operator’s decommission does', async () => {
    const tag = await errorOf(
      sweep.ec2.send(
        new CreateTagsCommand({ Resources: [instanceId(1)], Tags: [{ Key: DECOMMISSION_TAG, Value: 'operator' }] }),
      ),
    );

    expect(tag).toMatchObject({ name: 'UnauthorizedOperation', status: 403 });
    expect(world.aws.state.instanceView(instanceId(1))?.tags[DECOMMISSION_TAG]).toBeUndefined();
  });

  it('should scope DescribeCluster, StartExecution, DescribeExecution and PutEvents to the stack’s own cluster, machine and bus', async () => {
    await sweep.eks.send(new DescribeClusterCommand({ name: 'demo' }));
    const started = await sweep.sfn.send(
      new StartExecutionCommand({ stateMachineArn: MACHINE.arn, name: 'demo-i-1', input: '{}' }),
    );
    await sweep.sfn.send(new DescribeExecutionCommand({ executionArn: started.executionArn }));
    await sweep.events.send(
      new PutEventsCommand({
        Entries: [{ EventBusName: BUS.name, Source: 'ec2-node-reconciler', DetailType: 'Node Deleted', Detail: '{}' }],
      }),
    );

    expect((await errorOf(sweep.eks.send(new DescribeClusterCommand({ name: 'other' })))).name).toBe(
      'AccessDeniedException',
    );
    expect(
      (
        await errorOf(
          sweep.events.send(new PutEventsCommand({ Entries: [{ Source: 's', DetailType: 'd', Detail: '{}' }] })),
        )
      ).status,
    ).toBe(400);
    expect(world.aws.requestLog.filter({ denied: true }).map((e) => `${e.service}:${e.operation}`)).toEqual([
      'eks:DescribeCluster',
      'events:PutEvents',
    ]);
  });

  it('should let the workflow invoke the drain step and not the sweep; the drain step reach its cluster and nothing of EC2', async () => {
    await workflow.lambda.send(new InvokeCommand({ FunctionName: DRAIN_STEP.arn, Payload: '{}' }));
    const sweepInvoke = await errorOf(
      workflow.lambda.send(new InvokeCommand({ FunctionName: SWEEP.name, Payload: '{}' })),
    );
    await drainStep.eks.send(new DescribeClusterCommand({ name: 'demo' }));
    const describe = await errorOf(drainStep.ec2.send(new DescribeInstancesCommand({})));

    expect(sweepInvoke).toMatchObject({ name: 'AccessDeniedException', status: 403 });
    expect(describe).toMatchObject({ name: 'UnauthorizedOperation', status: 403 });
    expect(world.aws.state.functions.invocations.map((i) => i.functionName)).toEqual([DRAIN_STEP.name]);
  });
});
