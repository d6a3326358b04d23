// The evaluator reading the policies the project's CDK stack really synthesizes: each AWS call the
// product makes, by the role that makes it. What is denied here is denied in a real account. Issue
// #15 found the sweep denied DescribeLifecycleHooks and three grants nothing calls; both are fixed and
// held here: every call a role makes is allowed, and what was removed is denied.
import { describe, expect, it } from 'vitest';
import {
  IamAuthorizer,
  resourceTagKeys,
  requestTagKeys,
  type AuthorizationRequest,
} from '../../../src/aws/iam/index.js';
import { DECOMMISSION_TAG } from '@ec2-node-reconciler/model/contract/labels.js';
import { byLogicalId, deployedStack, ENV } from '../../support/deployment.js';

const { deployment } = await deployedStack();
const authorizer = new IamAuthorizer();
for (const role of deployment.roles) authorizer.attach(role.arn, ...role.policies);

/** The session a role's credentials report (Lambda names the session after the function). */
const session = (rolePrefix: string) => {
  const role = byLogicalId(deployment.roles, rolePrefix);
  return `arn:aws:sts::${ENV.accountId}:assumed-role/${role.name}/session`;
};
const EVENTS = session('ReconcilerFunctionsEventsRole');
const SWEEP = session('ReconcilerFunctionsSweepRole');
const DRAIN_STEP = session('ReconcilerFunctionsDrainStepRole');
const WORKFLOW = session('ReconcilerDrainWorkflowStateMachineRole');
const SCHEDULER = session('ReconcilerSweepScheduleRole');

const arn = (service: string, resource: string) => `arn:aws:${service}:${ENV.region}:${ENV.accountId}:${resource}`;
const GROUP = arn('autoscaling', 'autoScalingGroup:6d2c-uuid:autoScalingGroupName/eks-ng-1');
const INSTANCE = arn('ec2', 'instance/i-0123456789abcdef0');
const DEMO_GROUP_TAGS = resourceTagKeys('autoscaling', { 'eks:cluster-name': 'demo' });

const decide = (principal: string, action: string, resources?: string[], context?: AuthorizationRequest['context']) =>
  authorizer.authorize({ principal, action, resources, context });

describe('IAM of the synthesized stack', () => {
  it('should allow the sweep and the events function autoscaling:DescribeLifecycleHooks, which both need to complete only our hooks (issues #15, #27)', () => {
    expect(decide(SWEEP, 'autoscaling:DescribeLifecycleHooks')).toMatchObject({ allowed: true, kind: 'allow' });
    // An event names its hook, but whether that hook is ours takes the group's other hooks (docs/design.md §1c).
    expect(decide(EVENTS, 'autoscaling:DescribeLifecycleHooks')).toMatchObject({ allowed: true, kind: 'allow' });
    expect(decide(DRAIN_STEP, 'autoscaling:DescribeLifecycleHooks').allowed).toBe(false);
  });

  it.each([['ec2:DescribeInstances'], ['sts:GetCallerIdentity']])(
    'should allow the sweep and events roles %s (no resource type)',
    (action) => {
      expect(decide(SWEEP, action).allowed).toBe(true);
      expect(decide(EVENTS, action).allowed).toBe(true);
    },
  );

  it.each([['ec2:DescribeInstanceStatus'], ['autoscaling:DescribeAutoScalingGroups']])(
    'should allow %s (no resource type) to the sweep only, which alone observes the whole fleet',
    (action) => {
      expect(decide(SWEEP, action).allowed).toBe(true);
      expect(decide(EVENTS, action).allowed).toBe(false);
    },
  );

  it('should allow lifecycle and health calls only on groups tagged as the cluster’s', () => {
    for (const action of ['autoscaling:CompleteLifecycleAction', 'autoscaling:SetInstanceHealth']) {
      expect(decide(SWEEP, action, [GROUP], DEMO_GROUP_TAGS).allowed).toBe(true);
      expect(
        decide(SWEEP, action, [GROUP], resourceTagKeys('autoscaling', { 'kubernetes.io/cluster/demo': 'owned' }))
          .allowed,
      ).toBe(true);
      expect(
        decide(SWEEP, action, [GROUP], resourceTagKeys('autoscaling', { 'eks:cluster-name': 'other' })).allowed,
      ).toBe(false);
      expect(decide(SWEEP, action, [GROUP]).allowed).toBe(false);
    }
  });

  it('should deny every role CreateTags, even for the decommission key: only the operator’s `decommission` tags (issue #15)', () => {
    for (const role of [EVENTS, SWEEP, DRAIN_STEP, WORKFLOW]) {
      expect(
        decide(role, 'ec2:CreateTags', [INSTANCE], requestTagKeys({ [DECOMMISSION_TAG]: 'by operator' })).allowed,
      ).toBe(false);
    }
  });

  it('should scope DescribeCluster, StartExecution and PutEvents to the stack’s own cluster, state machine and bus', () => {
    const [machine] = deployment.stateMachines;
    const [bus] = deployment.eventBuses;
    if (!machine || !bus) throw new Error('the stack has a state machine and an output bus');
    expect(decide(SWEEP, 'eks:DescribeCluster', [arn('eks', 'cluster/demo')]).allowed).toBe(true);
    expect(decide(SWEEP, 'eks:DescribeCluster', [arn('eks', 'cluster/other')]).allowed).toBe(false);
    expect(decide(EVENTS, 'states:StartExecution', [machine.arn]).allowed).toBe(true);
    expect(decide(EVENTS, 'states:StartExecution', [arn('states', 'stateMachine:other')]).allowed).toBe(false);
    expect(decide(SWEEP, 'events:PutEvents', [bus.arn]).allowed).toBe(true);
    expect(decide(SWEEP, 'events:PutEvents', [arn('events', 'event-bus/default')]).allowed).toBe(false);
  });

  it('should give the drain-step role DescribeCluster and the lifecycle heartbeat on the cluster’s groups, nothing of the reconciler policy', () => {
    expect(decide(DRAIN_STEP, 'eks:DescribeCluster', [arn('eks', 'cluster/demo')]).allowed).toBe(true);
    expect(decide(DRAIN_STEP, 'ec2:DescribeInstances').allowed).toBe(false);
    // It heartbeats at the start of every invocation, for the cluster's groups only.
    expect(decide(DRAIN_STEP, 'autoscaling:RecordLifecycleActionHeartbeat', [GROUP], DEMO_GROUP_TAGS).allowed).toBe(
      true,
    );
    expect(
      decide(
        DRAIN_STEP,
        'autoscaling:RecordLifecycleActionHeartbeat',
        [GROUP],
        resourceTagKeys('autoscaling', { 'kubernetes.io/cluster/demo': 'shared' }),
      ).allowed,
    ).toBe(true);
    expect(
      decide(
        DRAIN_STEP,
        'autoscaling:RecordLifecycleActionHeartbeat',
        [GROUP],
        resourceTagKeys('autoscaling', { 'eks:cluster-name': 'other' }),
      ).allowed,
    ).toBe(false);
    expect(decide(DRAIN_STEP, 'autoscaling:CompleteLifecycleAction', [GROUP], DEMO_GROUP_TAGS).allowed).toBe(false);
  });

  it('should let the workflow role invoke the drain step, heartbeat, complete and publish', () => {
    const drainStep = byLogicalId(deployment.functions, 'ReconcilerFunctionsDrainStep');
    const [bus] = deployment.eventBuses;
    expect(decide(WORKFLOW, 'lambda:InvokeFunction', [drainStep.arn]).allowed).toBe(true);
    expect(
      decide(WORKFLOW, 'lambda:InvokeFunction', [byLogicalId(deployment.functions, 'ReconcilerFunctionsSweep').arn])
        .allowed,
    ).toBe(false);
    expect(decide(WORKFLOW, 'autoscaling:RecordLifecycleActionHeartbeat', [GROUP], DEMO_GROUP_TAGS).allowed).toBe(true);
    expect(decide(WORKFLOW, 'autoscaling:CompleteLifecycleAction', [GROUP], DEMO_GROUP_TAGS).allowed).toBe(true);
    expect(decide(WORKFLOW, 'events:PutEvents', [bus?.arn ?? '']).allowed).toBe(true);
  });

  it('should let the schedule role invoke the sweep function only', () => {
    expect(
      decide(SCHEDULER, 'lambda:InvokeFunction', [byLogicalId(deployment.functions, 'ReconcilerFunctionsSweep').arn])
        .allowed,
    ).toBe(true);
    expect(
      decide(SCHEDULER, 'lambda:InvokeFunction', [byLogicalId(deployment.functions, 'ReconcilerFunctionsEvents').arn])
        .allowed,
    ).toBe(false);
  });

  it('should no longer grant what issue #15 found unused: ec2:DescribeTags, and lifecycle heartbeats to the events and sweep roles', () => {
    for (const role of [EVENTS, SWEEP]) {
      expect(decide(role, 'ec2:DescribeTags').allowed).toBe(false);
      expect(decide(role, 'autoscaling:RecordLifecycleActionHeartbeat', [GROUP], DEMO_GROUP_TAGS).allowed).toBe(false);
    }
  });
});
