// ReconcilerStack: one NodeReconciler per cluster name, with the outputs an operator needs
// (the function to invoke by hand, the bus to subscribe to, the roles to map in aws-auth).
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { NodeReconciler, type NodeReconcilerProps } from './node-reconciler.js';

export interface ReconcilerStackProps extends StackProps {
  /** The EKS clusters to reconcile; one reconciler each. */
  readonly clusterNames: readonly string[];
  /**
   * Props shared by every reconciler in the stack.
   *
   * @default - the NodeReconciler defaults
   */
  readonly reconciler?: Omit<NodeReconcilerProps, 'clusterName' | 'cluster'>;
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
      throw new Error('ReconcilerStack: clusterNames is empty; name at least one cluster');
    const duplicates = props.clusterNames.filter((name, index) => props.clusterNames.indexOf(name) !== index);
    if (duplicates.length > 0)
      throw new Error(`ReconcilerStack: clusterNames lists ${duplicates.join(', ')} more than once`);

    const reconcilers = new Map<string, NodeReconciler>();
    for (const clusterName of props.clusterNames) {
      // The cluster name is the construct id, so adding a cluster later leaves the others' logical ids alone.
      const reconciler = new NodeReconciler(this, clusterName, { ...props.reconciler, clusterName });
      reconcilers.set(clusterName, reconciler);
      const output = (id: string, value: string, description: string) =>
        new CfnOutput(reconciler, id, { value, description: `${clusterName}: ${description}` });
      output(
        'SweepFunctionName',
        reconciler.sweepFunction.functionName,
        'sweep function (ec2-node-reconciler invoke calls it)',
      );
      output('DrainStateMachineArn', reconciler.drainStateMachine.stateMachineArn, 'drain workflow');
      output(
        'OutputEventBusName',
        reconciler.outputBus.eventBusName,
        'bus with Node Deleted, Node Drained, Drain Failed, Divergence Detected',
      );
      output('QueueUrl', reconciler.queue.queueUrl, 'signal queue');
      output('DeadLetterQueueUrl', reconciler.deadLetterQueue.queueUrl, 'dead-letter queue');
      output(
        'DashboardUrl',
        `https://console.aws.amazon.com/cloudwatch/home?region=${this.region}#dashboards:name=${reconciler.observability.dashboard.dashboardName}`,
        'CloudWatch dashboard',
      );
      output(
        'EventsRoleArn',
        reconciler.roles.events.roleArn,
        'events function role (Kubernetes group ec2-node-reconciler)',
      );
      output(
        'SweepRoleArn',
        reconciler.roles.sweep.roleArn,
        'sweep function role (Kubernetes group ec2-node-reconciler)',
      );
      output(
        'DrainStepRoleArn',
        reconciler.roles.drainStep.roleArn,
        'drain-step function role (Kubernetes group ec2-node-reconciler)',
      );
    }
    this.reconcilers = reconcilers;
  }
}
