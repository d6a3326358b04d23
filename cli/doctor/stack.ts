// The stack: deployed, settled, and carrying the outputs the other checks read.
import {
  clusterOutputs,
  defaultStackName,
  STACK_OUTPUTS,
  type ClusterOutputs,
  type StackOutput,
  type StackOutputName,
} from '@ec2-node-reconciler/model/contract/stack-outputs.js';
import { couldNotRead, failed, passed, unknown, type Check, type Read } from './check.js';

export interface StackFacts {
  readonly status: string;
  readonly outputs: readonly StackOutput[];
}

/** The outputs the other checks need; FunctionSecurityGroupIds and DashboardUrl are optional. */
export const NEEDED_OUTPUTS: readonly StackOutputName[] = [
  'sweepFunctionName',
  'eventsFunctionName',
  'drainStepFunctionName',
  'sweepScheduleName',
  'drainStateMachineArn',
  'outputEventBusName',
  'queueUrl',
  'deadLetterQueueUrl',
  'eventsRoleArn',
  'sweepRoleArn',
  'drainStepRoleArn',
];

export interface StackCheck {
  readonly check: Check;
  /** The cluster's outputs, when the stack is there to read them from (possibly some missing). */
  readonly outputs?: ClusterOutputs;
}

/** The command that deploys this cluster's stack, as the README's Deploy section writes it (the app requires the region). */
export const deployCommand = (cluster: string, stack: string, region: string): string =>
  `npx cdk deploy -c clusterName=${cluster} -c region=${region}${stack === defaultStackName([cluster]) ? '' : ` -c stackName=${stack}`}`;

/** A stack whose status says it is (still) what it was deployed as. */
const SETTLED = /^(CREATE|UPDATE|IMPORT)_COMPLETE$|^UPDATE_ROLLBACK_COMPLETE$/;

export function checkStack(
  stackName: string,
  cluster: string,
  region: string,
  read: Read<StackFacts | undefined>,
): StackCheck {
  if (!read.ok)
    return { check: couldNotRead('stack', stackName, read.error, `cloudformation:DescribeStacks on ${stackName}`) };
  if (read.value === undefined)
    return {
      check: failed(
        'stack',
        stackName,
        'no such stack in this account and region',
        `deploy it (${deployCommand(cluster, stackName, region)}), or name yours with --stack`,
      ),
    };
  const { status } = read.value;
  const outputs = clusterOutputs(cluster, read.value.outputs);
  if (/_IN_PROGRESS$/.test(status))
    return {
      check: unknown('stack', stackName, `${status}: a deployment is under way`, 'run doctor again when it has ended'),
      outputs,
    };
  if (!SETTLED.test(status))
    return {
      check: failed(
        'stack',
        stackName,
        status,
        `see why: aws cloudformation describe-stack-events --stack-name ${stackName}; then ${deployCommand(cluster, stackName, region)}`,
      ),
      outputs,
    };
  const missing = NEEDED_OUTPUTS.filter((name) => outputs[name] === undefined);
  if (missing.length > 0)
    return {
      check: failed(
        'stack',
        stackName,
        `${status}, but no output ${missing.map((m) => STACK_OUTPUTS[m]).join(', ')} for cluster ${cluster} (another cluster's stack, or an older version)`,
        `pass the stack of cluster ${cluster} with --stack, or redeploy: ${deployCommand(cluster, stackName, region)}`,
      ),
      outputs,
    };
  return { check: passed('stack', stackName, `${status}, the outputs of cluster ${cluster}`), outputs };
}
