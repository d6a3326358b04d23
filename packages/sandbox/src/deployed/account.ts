// What `cdk deploy` leaves in the account besides running code, for the AWS APIs to answer about:
// the stack and its outputs (CloudFormation), the access entries (EKS), the rules and their targets
// (EventBridge), the queues with their live counts (SQS), the schedules (Scheduler) and the event
// source mappings (Lambda). The world then reads them back where AWS would: the API server takes a
// role for what its access entry says now, a rule routes events while it is enabled — so an
// operator's `aws eks delete-access-entry` or `aws events disable-rule` breaks the world for real.
import { stableUuid } from '../aws/ids.js';
import type { AwsState } from '../aws/state/index.js';
import type { QueueCounts } from '../aws/state/queues.js';
import { defaultAccessEntryUsername } from '../aws/state/clusters.js';
import { stackIdOf } from '../deployment/intrinsics.js';
import type { Deployment } from '../deployment/template.js';

export interface LiveResources {
  /** A queue's counts right now, by ARN (the deployed world moves the messages). */
  readonly queueCounts: (queueArn: string) => QueueCounts | undefined;
  /** The function an event source mapping's `FunctionName` (a name or ARN) stands for. */
  readonly functionArn: (nameOrArn: string) => string;
}

/** Records the deployment in the account, created at `at`. */
export function recordDeployment(state: AwsState, deployment: Deployment, live: LiveResources, at: number): void {
  const { stackName, accountId } = deployment.env;
  state.stacks.put({
    name: stackName,
    id: stackIdOf(deployment.env),
    status: 'CREATE_COMPLETE',
    ...(deployment.description !== undefined ? { description: deployment.description } : {}),
    createdAt: at,
    outputs: deployment.outputs.map((o) => ({
      key: o.key,
      value: o.value,
      ...(o.description !== undefined ? { description: o.description } : {}),
    })),
  });

  for (const entry of deployment.accessEntries) {
    const cluster = state.clusters.get(entry.clusterName);
    if (!cluster) continue;
    const principalName = /:role\/(?:[^/]+\/)*([^/]+)$/.exec(entry.principalArn)?.[1] ?? '';
    state.accessEntries.put({
      clusterName: entry.clusterName,
      principalArn: entry.principalArn,
      accessEntryArn: cluster.arn.replace(
        /:cluster\/.*$/,
        `:access-entry/${cluster.name}/role/${accountId}/${principalName}/${stableUuid(`access-entry:${entry.principalArn}`)}`,
      ),
      kubernetesGroups: entry.kubernetesGroups,
      username: entry.username ?? defaultAccessEntryUsername(entry.principalArn),
      type: entry.type,
      createdAt: at,
      modifiedAt: at,
      tags: {},
    });
  }

  for (const rule of deployment.rules)
    state.eventBus.putRule({
      name: rule.name,
      arn: rule.arn,
      eventBusName: rule.eventBusName,
      ...(rule.eventPattern !== undefined ? { eventPattern: JSON.stringify(rule.eventPattern) } : {}),
      state: rule.enabled ? 'ENABLED' : 'DISABLED',
      ...(rule.description !== undefined ? { description: rule.description } : {}),
      targets: rule.targets.map((t) => ({
        id: t.id,
        arn: t.arn,
        ...(t.roleArn !== undefined ? { roleArn: t.roleArn } : {}),
        ...(t.input !== undefined ? { input: t.input } : {}),
        ...(t.deadLetterArn !== undefined ? { deadLetterArn: t.deadLetterArn } : {}),
        maximumRetryAttempts: t.maximumRetryAttempts,
        maximumEventAgeSeconds: t.maximumEventAgeSeconds,
      })),
    });

  for (const queue of deployment.queues)
    state.queues.put({
      name: queue.name,
      url: queue.url,
      arn: queue.arn,
      createdAt: at,
      attributes: {
        VisibilityTimeout: String(queue.visibilityTimeoutSeconds),
        MessageRetentionPeriod: String(queue.retentionSeconds),
        SqsManagedSseEnabled: 'true',
        ...(queue.deadLetter
          ? {
              RedrivePolicy: JSON.stringify({
                deadLetterTargetArn: queue.deadLetter.targetArn,
                maxReceiveCount: queue.deadLetter.maxReceiveCount,
              }),
            }
          : {}),
      },
      counts: () => live.queueCounts(queue.arn) ?? { visible: 0, notVisible: 0, delayed: 0 },
    });

  for (const schedule of deployment.schedules)
    state.schedules.put({
      name: schedule.name,
      groupName: schedule.groupName,
      arn: schedule.arn,
      expression: schedule.expression,
      ...(schedule.timezone !== undefined ? { timezone: schedule.timezone } : {}),
      state: schedule.enabled ? 'ENABLED' : 'DISABLED',
      ...(schedule.description !== undefined ? { description: schedule.description } : {}),
      target: {
        arn: schedule.targetArn,
        roleArn: schedule.roleArn,
        ...(schedule.input !== undefined ? { input: schedule.input } : {}),
        maximumRetryAttempts: schedule.maximumRetryAttempts,
        maximumEventAgeSeconds: schedule.maximumEventAgeSeconds,
      },
      flexibleTimeWindow: schedule.flexibleTimeWindow,
      createdAt: at,
      modifiedAt: at,
    });

  for (const mapping of deployment.eventSourceMappings)
    state.functions.eventSourceMappings.push({
      uuid: stableUuid(`event-source-mapping:${mapping.logicalId}`),
      eventSourceArn: mapping.eventSourceArn,
      functionArn: live.functionArn(mapping.functionName),
      batchSize: mapping.batchSize,
      batchingWindowSeconds: mapping.batchingWindowSeconds,
      functionResponseTypes: mapping.reportBatchItemFailures ? ['ReportBatchItemFailures'] : [],
      ...(mapping.maximumConcurrency !== undefined ? { maximumConcurrency: mapping.maximumConcurrency } : {}),
      state: mapping.enabled ? 'Enabled' : 'Disabled',
      lastModified: at,
    });
}
