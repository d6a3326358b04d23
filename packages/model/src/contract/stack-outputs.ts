// The stack's name and its outputs, per cluster, as infra/stack.ts writes them and operators (the
// `out` helper of docs/deploy.md, `ec2-node-reconciler doctor`) read them back from CloudFormation.
import { PRODUCT_NAME } from './product.js';

/** The outputs of one cluster's reconciler, by the name each is written under. */
export const STACK_OUTPUTS = {
  sweepFunctionName: 'SweepFunctionName',
  eventsFunctionName: 'EventsFunctionName',
  drainStepFunctionName: 'DrainStepFunctionName',
  sweepScheduleName: 'SweepScheduleName',
  drainStateMachineArn: 'DrainStateMachineArn',
  outputEventBusName: 'OutputEventBusName',
  queueUrl: 'QueueUrl',
  deadLetterQueueUrl: 'DeadLetterQueueUrl',
  dashboardUrl: 'DashboardUrl',
  eventsRoleArn: 'EventsRoleArn',
  sweepRoleArn: 'SweepRoleArn',
  drainStepRoleArn: 'DrainStepRoleArn',
  /** Only when the functions run in a VPC. */
  functionSecurityGroupIds: 'FunctionSecurityGroupIds',
} as const;

export type StackOutputName = keyof typeof STACK_OUTPUTS;
export type ClusterOutputs = Partial<Record<StackOutputName, string>>;

/** The stack `cdk deploy` makes for these clusters unless `-c stackName=` says otherwise. */
export function defaultStackName(clusterNames: readonly string[]): string {
  // Stack names allow letters, digits and hyphens, at most 128; cluster names may also hold `_`.
  return `${PRODUCT_NAME}-${clusterNames.join('-')}`.replace(/[^A-Za-z0-9-]/g, '-').slice(0, 128);
}

/** Each output's description starts with its cluster's name: `<cluster>: <what it is>`. */
export const outputDescription = (clusterName: string, what: string): string => `${clusterName}: ${what}`;

export interface StackOutput {
  readonly OutputKey?: string;
  readonly OutputValue?: string;
  readonly Description?: string;
}

/**
 * One cluster's outputs among a stack's (a stack may reconcile several clusters). CDK names an
 * output's key after its construct path — the cluster name's letters and digits, the output's name
 * and a hash (`demoSweepFunctionName1A2B3C4D`) — and its description names the cluster, which tells
 * `a-b` from `ab`.
 */
export function clusterOutputs(clusterName: string, outputs: readonly StackOutput[]): ClusterOutputs {
  const prefix = clusterName.replace(/[^A-Za-z0-9]/g, '');
  const found: ClusterOutputs = {};
  for (const [name, written] of Object.entries(STACK_OUTPUTS) as [StackOutputName, string][]) {
    const key = new RegExp(`^${prefix}${written}[0-9A-F]{8}$`);
    const output = outputs.find(
      (o) => key.test(o.OutputKey ?? '') && (o.Description ?? '').startsWith(outputDescription(clusterName, '')),
    );
    if (output?.OutputValue !== undefined) found[name] = output.OutputValue;
  }
  return found;
}
