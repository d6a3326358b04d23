// What `doctor` reads of a deployment in AWS, each read made with the SDK and handed back as plain
// facts (cli/doctor's shapes) or the error it met — never thrown: one failed read makes one check
// unknown, not the whole run. A read of something that does not exist gives `undefined`.
import type { AutoScalingClient } from '@aws-sdk/client-auto-scaling';
import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import type { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import type { EKSClient } from '@aws-sdk/client-eks';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { IAMClient } from '@aws-sdk/client-iam';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { STSClient } from '@aws-sdk/client-sts';
import { CLUSTER_TAG_EKS, clusterOwnershipTag } from '@ec2-node-reconciler/model/contract/labels.js';
import type { AccessEntryFacts } from '../doctor/access.js';
import type { AccountConcurrency } from '../doctor/concurrency.js';
import { readFailed, readOk, type Read } from '../doctor/check.js';
import type { MappingFacts, QueueFacts, RuleFacts, ScheduleFacts } from '../doctor/delivery.js';
import type { EndpointFacts } from '../doctor/endpoint.js';
import type { FunctionFacts } from '../doctor/functions.js';
import type { ClusterGroup, Simulation, SimulatedDecision } from '../doctor/iam.js';
import type { LogLine } from '../doctor/last-sweep.js';
import type { StackFacts } from '../doctor/stack.js';
import { errorText } from '@ec2-node-reconciler/model/error-text.js';
import { once, type AwsClientOptions, type LazyClient } from '../../lib/aws/clients.js';

export interface DeploymentClients {
  readonly sts: LazyClient<STSClient>;
  readonly cloudFormation: LazyClient<CloudFormationClient>;
  readonly eks: LazyClient<EKSClient>;
  readonly iam: LazyClient<IAMClient>;
  readonly autoScaling: LazyClient<AutoScalingClient>;
  readonly eventBridge: LazyClient<EventBridgeClient>;
  readonly sqs: LazyClient<SQSClient>;
  readonly scheduler: LazyClient<SchedulerClient>;
  readonly lambda: LazyClient<LambdaClient>;
  readonly logs: LazyClient<CloudWatchLogsClient>;
}

/** The clients doctor reads with (standard retries: a read, not a sweep). */
export function createDeploymentClients(options: Omit<AwsClientOptions, 'maxAttempts'>): DeploymentClients {
  const config = {
    region: options.region,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
  };
  return {
    sts: once(async () => new (await import('@aws-sdk/client-sts')).STSClient(config)),
    cloudFormation: once(async () => new (await import('@aws-sdk/client-cloudformation')).CloudFormationClient(config)),
    eks: once(async () => new (await import('@aws-sdk/client-eks')).EKSClient(config)),
    iam: once(async () => new (await import('@aws-sdk/client-iam')).IAMClient(config)),
    autoScaling: once(async () => new (await import('@aws-sdk/client-auto-scaling')).AutoScalingClient(config)),
    eventBridge: once(async () => new (await import('@aws-sdk/client-eventbridge')).EventBridgeClient(config)),
    sqs: once(async () => new (await import('@aws-sdk/client-sqs')).SQSClient(config)),
    scheduler: once(async () => new (await import('@aws-sdk/client-scheduler')).SchedulerClient(config)),
    lambda: once(async () => new (await import('@aws-sdk/client-lambda')).LambdaClient(config)),
    logs: once(async () => new (await import('@aws-sdk/client-cloudwatch-logs')).CloudWatchLogsClient(config)),
  };
}

const errorName = (error: unknown): string => (error instanceof Error ? error.name : '');

/** Runs a read; `missing` tells an error that means "there is none" (NotFound) from a failure. */
async function read<T>(run: () => Promise<T>, missing?: (error: unknown) => boolean): Promise<Read<T | undefined>> {
  try {
    return readOk(await run());
  } catch (error) {
    if (missing?.(error) === true) return readOk(undefined);
    return readFailed(errorText(error));
  }
}

/** A read that cannot be "missing": undefined never comes back. */
async function readAll<T>(run: () => Promise<T>): Promise<Read<T>> {
  try {
    return readOk(await run());
  } catch (error) {
    return readFailed(errorText(error));
  }
}

const notFound = (error: unknown): boolean =>
  ['ResourceNotFoundException', 'NotFoundException', 'NoSuchEntity', 'QueueDoesNotExist'].includes(errorName(error));

/** Who the credentials are: the first thing doctor asks, so that missing credentials end the run at once. */
export async function callerIdentity(
  clients: DeploymentClients,
): Promise<{ readonly arn: string; readonly account: string }> {
  const { GetCallerIdentityCommand } = await import('@aws-sdk/client-sts');
  const answer = await (await clients.sts()).send(new GetCallerIdentityCommand({}));
  return { arn: answer.Arn ?? '', account: answer.Account ?? '' };
}

export async function readStack(clients: DeploymentClients, stackName: string): Promise<Read<StackFacts | undefined>> {
  const { DescribeStacksCommand } = await import('@aws-sdk/client-cloudformation');
  return read(
    async () => {
      const answer = await (await clients.cloudFormation()).send(new DescribeStacksCommand({ StackName: stackName }));
      const stack = answer.Stacks?.[0];
      return stack === undefined ? undefined : { status: stack.StackStatus ?? '', outputs: stack.Outputs ?? [] };
    },
    // CloudFormation answers a stack nobody deployed with ValidationError "Stack with id … does not exist".
    (error) => errorName(error) === 'ValidationError' && /does not exist/.test((error as Error).message),
  );
}

export interface ClusterFacts {
  readonly arn: string;
  readonly authenticationMode: string;
  readonly endpoint: EndpointFacts;
}

export async function readCluster(clients: DeploymentClients, name: string): Promise<Read<ClusterFacts | undefined>> {
  const { DescribeClusterCommand } = await import('@aws-sdk/client-eks');
  return read(async () => {
    const { cluster } = await (await clients.eks()).send(new DescribeClusterCommand({ name }));
    if (cluster === undefined) return undefined;
    const vpc = cluster.resourcesVpcConfig;
    return {
      arn: cluster.arn ?? '',
      // A cluster that answers without accessConfig predates access entries: CONFIG_MAP.
      authenticationMode: cluster.accessConfig?.authenticationMode ?? 'CONFIG_MAP',
      endpoint: {
        publicAccess: vpc?.endpointPublicAccess ?? false,
        privateAccess: vpc?.endpointPrivateAccess ?? false,
        publicAccessCidrs: vpc?.publicAccessCidrs ?? [],
        ...(vpc?.vpcId !== undefined ? { vpcId: vpc.vpcId } : {}),
      },
    };
  }, notFound);
}

export async function readAccessEntry(
  clients: DeploymentClients,
  cluster: string,
  principalArn: string,
): Promise<Read<AccessEntryFacts | undefined>> {
  const { DescribeAccessEntryCommand } = await import('@aws-sdk/client-eks');
  return read(async () => {
    const { accessEntry } = await (
      await clients.eks()
    ).send(new DescribeAccessEntryCommand({ clusterName: cluster, principalArn }));
    if (accessEntry === undefined) return undefined;
    return {
      type: accessEntry.type ?? 'STANDARD',
      kubernetesGroups: accessEntry.kubernetesGroups ?? [],
      username: accessEntry.username ?? principalArn,
    };
  }, notFound);
}

const tagsOf = (tags: readonly { Key?: string; Value?: string }[] | undefined): Record<string, string> =>
  Object.fromEntries((tags ?? []).flatMap((t) => (t.Key === undefined ? [] : [[t.Key, t.Value ?? '']])));

/**
 * The cluster's Auto Scaling groups: the ones named (the deployment's autoScalingGroupNames), else
 * every group carrying the cluster's tag (`eks:cluster-name`, or `kubernetes.io/cluster/<name>`).
 */
export async function readClusterGroups(
  clients: DeploymentClients,
  cluster: string,
  names: readonly string[] | undefined,
): Promise<Read<readonly ClusterGroup[]>> {
  const { paginateDescribeAutoScalingGroups } = await import('@aws-sdk/client-auto-scaling');
  return readAll(async () => {
    const client = await clients.autoScaling();
    const groups: ClusterGroup[] = [];
    const input = names === undefined ? {} : { AutoScalingGroupNames: [...names] };
    for await (const page of paginateDescribeAutoScalingGroups({ client }, input)) {
      for (const group of page.AutoScalingGroups ?? []) {
        const tags = tagsOf(group.Tags);
        const ours =
          names !== undefined || tags[CLUSTER_TAG_EKS] === cluster || tags[clusterOwnershipTag(cluster)] !== undefined;
        if (ours && group.AutoScalingGroupName !== undefined && group.AutoScalingGroupARN !== undefined)
          groups.push({ name: group.AutoScalingGroupName, arn: group.AutoScalingGroupARN, tags });
      }
    }
    return groups.sort((a, b) => a.name.localeCompare(b.name));
  });
}

const DECISIONS: readonly SimulatedDecision[] = ['allowed', 'implicitDeny', 'explicitDeny'];
const worse = (a: SimulatedDecision, b: SimulatedDecision): SimulatedDecision =>
  DECISIONS.indexOf(a) >= DECISIONS.indexOf(b) ? a : b;
const asDecision = (value: string | undefined): SimulatedDecision =>
  value === 'allowed' || value === 'explicitDeny' ? value : 'implicitDeny';

/**
 * One SimulatePrincipalPolicy call. IAM has answered one result per action (the most restrictive over
 * the resources) or, formerly, one per action and resource: either way each action gets the worst
 * decision of its results and of their resource-specific results.
 */
export async function simulate(
  clients: DeploymentClients,
  roleArn: string,
  simulation: Simulation,
): Promise<Read<Readonly<Record<string, SimulatedDecision>>>> {
  const { paginateSimulatePrincipalPolicy } = await import('@aws-sdk/client-iam');
  return readAll(async () => {
    const client = await clients.iam();
    const decisions: Record<string, SimulatedDecision> = {};
    const input = {
      PolicySourceArn: roleArn,
      ActionNames: [...simulation.actions],
      ...(simulation.resourceArns !== undefined ? { ResourceArns: [...simulation.resourceArns] } : {}),
      ...(simulation.context.length > 0
        ? {
            ContextEntries: simulation.context.map((c) => ({
              ContextKeyName: c.key,
              ContextKeyValues: [...c.values],
              ContextKeyType: 'string' as const,
            })),
          }
        : {}),
    };
    for await (const page of paginateSimulatePrincipalPolicy({ client }, input)) {
      for (const result of page.EvaluationResults ?? []) {
        const action = result.EvalActionName ?? '';
        let decision = asDecision(result.EvalDecision);
        for (const specific of result.ResourceSpecificResults ?? [])
          decision = worse(decision, asDecision(specific.EvalResourceDecision));
        decisions[action] = action in decisions ? worse(decisions[action] ?? 'allowed', decision) : decision;
      }
    }
    return decisions;
  });
}

/** The rules with a target of the queue, each described with its targets. */
export async function readQueueRules(
  clients: DeploymentClients,
  queueArn: string,
): Promise<Read<readonly RuleFacts[]>> {
  const { ListRuleNamesByTargetCommand, DescribeRuleCommand, ListTargetsByRuleCommand } =
    await import('@aws-sdk/client-eventbridge');
  return readAll(async () => {
    const client = await clients.eventBridge();
    const names: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(new ListRuleNamesByTargetCommand({ TargetArn: queueArn, NextToken: token }));
      names.push(...(page.RuleNames ?? []));
      token = page.NextToken;
    } while (token !== undefined);
    return Promise.all(
      names.map(async (name): Promise<RuleFacts> => {
        const [rule, targets] = await Promise.all([
          client.send(new DescribeRuleCommand({ Name: name })),
          client.send(new ListTargetsByRuleCommand({ Rule: name })),
        ]);
        return {
          name,
          state: rule.State ?? 'ENABLED',
          ...(rule.EventPattern !== undefined ? { eventPattern: rule.EventPattern } : {}),
          targets: (targets.Targets ?? []).map((t) => ({
            arn: t.Arn ?? '',
            ...(t.DeadLetterConfig?.Arn !== undefined ? { deadLetterArn: t.DeadLetterConfig.Arn } : {}),
          })),
        };
      }),
    );
  });
}

export async function readQueue(clients: DeploymentClients, url: string): Promise<Read<QueueFacts>> {
  const { GetQueueAttributesCommand } = await import('@aws-sdk/client-sqs');
  return readAll(async () => {
    const { Attributes: a = {} } = await (
      await clients.sqs()
    ).send(
      new GetQueueAttributesCommand({
        QueueUrl: url,
        AttributeNames: [
          'QueueArn',
          'ApproximateNumberOfMessages',
          'ApproximateNumberOfMessagesNotVisible',
          'RedrivePolicy',
        ],
      }),
    );
    let deadLetterTargetArn: string | undefined;
    if (a.RedrivePolicy !== undefined) {
      const policy: unknown = JSON.parse(a.RedrivePolicy);
      const target =
        typeof policy === 'object' && policy !== null && 'deadLetterTargetArn' in policy
          ? policy.deadLetterTargetArn
          : undefined;
      if (typeof target === 'string') deadLetterTargetArn = target;
    }
    return {
      arn: a.QueueArn ?? '',
      visible: Number(a.ApproximateNumberOfMessages ?? 0),
      notVisible: Number(a.ApproximateNumberOfMessagesNotVisible ?? 0),
      ...(deadLetterTargetArn !== undefined ? { deadLetterTargetArn } : {}),
    };
  });
}

export async function readMappings(
  clients: DeploymentClients,
  queueArn: string,
): Promise<Read<readonly MappingFacts[]>> {
  const { paginateListEventSourceMappings } = await import('@aws-sdk/client-lambda');
  return readAll(async () => {
    const client = await clients.lambda();
    const mappings: MappingFacts[] = [];
    for await (const page of paginateListEventSourceMappings({ client }, { EventSourceArn: queueArn }))
      for (const m of page.EventSourceMappings ?? [])
        mappings.push({ uuid: m.UUID ?? '', functionArn: m.FunctionArn ?? '', state: m.State ?? '' });
    return mappings;
  });
}

export async function readSchedule(clients: DeploymentClients, name: string): Promise<Read<ScheduleFacts | undefined>> {
  const { GetScheduleCommand } = await import('@aws-sdk/client-scheduler');
  return read(async () => {
    const schedule = await (await clients.scheduler()).send(new GetScheduleCommand({ Name: name }));
    return {
      state: schedule.State ?? '',
      expression: schedule.ScheduleExpression ?? '',
      targetArn: schedule.Target?.Arn ?? '',
    };
  }, notFound);
}

export async function readFunction(clients: DeploymentClients, name: string): Promise<Read<FunctionFacts | undefined>> {
  const { GetFunctionConfigurationCommand } = await import('@aws-sdk/client-lambda');
  return read(async () => {
    const c = await (await clients.lambda()).send(new GetFunctionConfigurationCommand({ FunctionName: name }));
    const subnets = c.VpcConfig?.SubnetIds ?? [];
    return {
      state: c.State ?? '',
      ...(c.StateReason !== undefined ? { stateReason: c.StateReason } : {}),
      ...(c.LastUpdateStatus !== undefined ? { lastUpdateStatus: c.LastUpdateStatus } : {}),
      role: c.Role ?? '',
      ...(subnets.length > 0
        ? {
            vpc: {
              subnetIds: subnets,
              securityGroupIds: c.VpcConfig?.SecurityGroupIds ?? [],
              ...(c.VpcConfig?.VpcId !== undefined && c.VpcConfig.VpcId !== '' ? { vpcId: c.VpcConfig.VpcId } : {}),
            },
          }
        : {}),
      logGroup: c.LoggingConfig?.LogGroup ?? `/aws/lambda/${name}`,
      environment: c.Environment?.Variables ?? {},
    };
  }, notFound);
}

/** Log events of a group since `startTime` containing `phrase` (a quoted filter-pattern term). */
export async function readLogLines(
  clients: DeploymentClients,
  logGroup: string,
  phrase: string,
  startTime: number,
): Promise<Read<readonly LogLine[]>> {
  const { paginateFilterLogEvents } = await import('@aws-sdk/client-cloudwatch-logs');
  return readAll(async () => {
    const client = await clients.logs();
    const lines: LogLine[] = [];
    const input = { logGroupName: logGroup, startTime, filterPattern: JSON.stringify(phrase) };
    for await (const page of paginateFilterLogEvents({ client }, input))
      for (const e of page.events ?? []) lines.push({ timestamp: e.timestamp ?? 0, message: e.message ?? '' });
    return lines;
  });
}

/** The account's Lambda concurrency in the region: its quota and what no function reserves. */
export async function readAccountConcurrency(clients: DeploymentClients): Promise<Read<AccountConcurrency>> {
  const { GetAccountSettingsCommand } = await import('@aws-sdk/client-lambda');
  return readAll(async () => {
    const answer = await (await clients.lambda()).send(new GetAccountSettingsCommand({}));
    const limit = answer.AccountLimit?.ConcurrentExecutions;
    const unreserved = answer.AccountLimit?.UnreservedConcurrentExecutions;
    if (limit === undefined || unreserved === undefined) throw new Error('GetAccountSettings answered no AccountLimit');
    return { limit, unreserved };
  });
}

/** A function's reserved concurrency; undefined when it reserves none. */
export async function readReservedConcurrency(
  clients: DeploymentClients,
  name: string,
): Promise<Read<number | undefined>> {
  const { GetFunctionConcurrencyCommand } = await import('@aws-sdk/client-lambda');
  return read(async () => {
    const answer = await (await clients.lambda()).send(new GetFunctionConcurrencyCommand({ FunctionName: name }));
    return answer.ReservedConcurrentExecutions;
  });
}
