// ReconcilerStack: one NodeReconciler per cluster name, with the outputs an operator needs
// (the function to invoke by hand, the bus to subscribe to, the roles to map in aws-auth).
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import {
  outputDescription,
  STACK_OUTPUTS,
  type StackOutputName,
} from '@ec2-node-reconciler/model/contract/stack-outputs.js';
import { InvalidPropsError } from './invalid-props.js';
import { NodeReconciler, type NodeReconcilerProps } from './node-reconciler.js';
import { importVpcPlacement, vpcPlacementProblems } from './vpc-placement.js';

export interface ReconcilerStackProps extends StackProps {
  /** The EKS clusters to reconcile; one reconciler each. */
  readonly clusterNames: readonly string[];

  /**
   * Props shared by every reconciler in the stack. The VPC placement is given by id instead
   * (`vpcId`, `subnetIds`, `securityGroupIds`): the stack imports it.
   *
   * @default - the NodeReconciler defaults
   */
  readonly reconciler?: Omit<
    NodeReconcilerProps,
    'clusterName' | 'cluster' | 'vpc' | 'vpcSubnets' | 'securityGroups' | 'alarmTopic'
  >;

  /**
   * ARN of the SNS topic every reconciler's alarms notify on ALARM and OK (imported: the topic is yours).
   *
   * @default - the alarms notify nobody
   */
  readonly alarmTopicArn?: string;

  /**
   * VPC to run every reconciler's functions in, for clusters whose API endpoint is private. Imported
   * by id (no lookup: synth stays offline); requires `subnetIds`.
   *
   * @default - the functions run outside any VPC, and reach the cluster's public endpoint
   */
  readonly vpcId?: string;

  /**
   * Subnets of `vpcId` for the functions: private, with a route to the AWS APIs (NAT or interface endpoints).
   *
   * @default - none; required with `vpcId`
   */
  readonly subnetIds?: readonly string[];

  /**
   * Security groups of `vpcId` for the functions; the cluster's security group must admit them on 443.
   *
   * @default - one new security group per reconciler, allowing all outbound traffic (stack output FunctionSecurityGroupIds)
   */
  readonly securityGroupIds?: readonly string[];
}

export class ReconcilerStack extends Stack {
  /** The reconcilers by cluster name. */
  readonly reconcilers: ReadonlyMap<string, NodeReconciler>;

  constructor(scope: Construct, id: string, props: ReconcilerStackProps) {
    super(scope, id, {
      description: `ec2-node-reconciler: keeps EC2 instances and Kubernetes Nodes in correspondence (${props.clusterNames.join(', ')})`,
      ...props,
    });
    if (props.clusterNames.length === 0)
      throw new InvalidPropsError('ReconcilerStack', ['clusterNames: empty; name at least one cluster']);
    const duplicates = props.clusterNames.filter((name, index) => props.clusterNames.indexOf(name) !== index);
    if (duplicates.length > 0)
      throw new InvalidPropsError('ReconcilerStack', [`clusterNames: lists ${duplicates.join(', ')} more than once`]);
    const placementProblems = vpcPlacementProblems(props);
    if (placementProblems.length > 0) throw new InvalidPropsError('ReconcilerStack', placementProblems);
    const placement = importVpcPlacement(this, props);
    const alarmTopic =
      props.alarmTopicArn === undefined ? undefined : sns.Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn);

    const reconcilers = new Map<string, NodeReconciler>();
    for (const clusterName of props.clusterNames) {
      // The cluster name is the construct id, so adding a cluster later leaves the others' logical ids alone.
      const reconciler = new NodeReconciler(this, clusterName, {
        ...props.reconciler,
        ...placement,
        ...(alarmTopic === undefined ? {} : { alarmTopic }),
        clusterName,
      });
      reconcilers.set(clusterName, reconciler);
      const output = (name: StackOutputName, value: string, description: string) =>
        new CfnOutput(reconciler, STACK_OUTPUTS[name], {
          value,
          description: outputDescription(clusterName, description),
        });
      output(
        'sweepFunctionName',
        reconciler.sweepFunction.functionName,
        'sweep function (ec2-node-reconciler invoke calls it)',
      );
      output('eventsFunctionName', reconciler.eventsFunction.functionName, 'events function (fed by the signal queue)');
      output(
        'drainStepFunctionName',
        reconciler.drainStepFunction.functionName,
        'drain-step function (called by the drain workflow)',
      );
      output('sweepScheduleName', reconciler.sweepSchedule.scheduleName, 'schedule of the periodic sweep');
      output('drainStateMachineArn', reconciler.drainStateMachine.stateMachineArn, 'drain workflow');
      output(
        'outputEventBusName',
        reconciler.outputBus.eventBusName,
        'bus with Node Deleted, Node Drained, Drain Failed, Divergence Detected',
      );
      output('queueUrl', reconciler.queue.queueUrl, 'signal queue');
      output('deadLetterQueueUrl', reconciler.deadLetterQueue.queueUrl, 'dead-letter queue');
      output(
        'dashboardUrl',
        `https://console.aws.amazon.com/cloudwatch/home?region=${this.region}#dashboards:name=${reconciler.observability.dashboard.dashboardName}`,
        'CloudWatch dashboard',
      );
      output(
        'eventsRoleArn',
        reconciler.roles.events.roleArn,
        'events function role (Kubernetes group ec2-node-reconciler)',
      );
      output(
        'sweepRoleArn',
        reconciler.roles.sweep.roleArn,
        'sweep function role (Kubernetes group ec2-node-reconciler)',
      );
      output(
        'drainStepRoleArn',
        reconciler.roles.drainStep.roleArn,
        'drain-step function role (Kubernetes group ec2-node-reconciler)',
      );
      const securityGroups = reconciler.functionSecurityGroups;
      if (securityGroups.length > 0) {
        output(
          'functionSecurityGroupIds',
          securityGroups.map((group) => group.securityGroupId).join(','),
          "functions' security groups (the cluster security group must admit them on 443)",
        );
      }
    }
    this.reconcilers = reconcilers;
  }
}
