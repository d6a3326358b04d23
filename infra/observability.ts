// The CloudWatch dashboard and alarms of one reconciler: the functions' own metrics (EMF, see
// metrics.ts) next to what AWS/Lambda, AWS/SQS and AWS/States say about the same moving parts.
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { CLUSTER_DIMENSION, CONDITION_DIMENSION, METRIC_NAMES, METRIC_NAMESPACE, SERVICE_DIMENSION, SERVICE_NAME, type MetricName } from './metrics.js';

const FIVE_MINUTES = Duration.minutes(5);

export interface ObservabilityProps {
  readonly clusterName: string;
  /** The functions by the name their widgets and alarms carry. */
  readonly functions: Readonly<Record<'events' | 'sweep' | 'drainStep', lambda.IFunction>>;
  readonly queue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue;
  readonly stateMachine: sfn.IStateMachine;
  /** Every alarm notifies it (ALARM and OK); none when absent. */
  readonly alarmTopic?: sns.ITopic;
}

export class Observability extends Construct {
  readonly dashboard: cloudwatch.Dashboard;
  /** The alarms by purpose, for callers who wire them elsewhere (composite alarms, paging). */
  readonly alarms: ReadonlyMap<string, cloudwatch.Alarm>;

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    const name = `ec2-node-reconciler-${props.clusterName}`;
    // A label turns an alarm's metric into a one-item metric-math query: alarms get none.
    const metric = (metricName: MetricName, label?: string, statistic = 'Sum') =>
      new cloudwatch.Metric({
        namespace: METRIC_NAMESPACE,
        metricName,
        dimensionsMap: { [CLUSTER_DIMENSION]: props.clusterName, [SERVICE_DIMENSION]: SERVICE_NAME },
        statistic,
        period: FIVE_MINUTES,
        label,
      });
    const functionEntries = Object.entries(props.functions);

    const alarms = new Map<string, cloudwatch.Alarm>();
    const alarm = (key: string, alarmProps: Omit<cloudwatch.AlarmProps, 'alarmName' | 'evaluationPeriods' | 'treatMissingData'>) => {
      const created = new cloudwatch.Alarm(this, key, {
        ...alarmProps,
        alarmName: `${name}-${key}`,
        evaluationPeriods: 1,
        // No data means nothing happened: the functions emit nothing while all is well.
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
      if (props.alarmTopic) {
        created.addAlarmAction(new actions.SnsAction(props.alarmTopic));
        created.addOkAction(new actions.SnsAction(props.alarmTopic));
      }
      alarms.set(key, created);
      return created;
    };

    alarm('DeadLetterQueueNotEmpty', {
      alarmDescription:
        'Events could not be processed (or delivered) and were moved to the dead-letter queue. Read the messages and the events function logs; redrive them after the fix.',
      metric: props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: 'Maximum' }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });
    for (const [kind, fn] of functionEntries) {
      alarm(`${capitalize(kind)}FunctionErrors`, {
        alarmDescription: `The ${kind} function failed (uncaught error or timeout). See its log group.`,
        metric: fn.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }),
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      });
    }
    alarm('DrainFailures', {
      alarmDescription:
        'A drain did not finish: deadline passed with pods left, the drain step kept failing, or the execution timed out or was aborted. See the Drain Failed events and the execution history.',
      metric: new cloudwatch.MathExpression({
        expression: 'FILL(failed, 0) + FILL(timedOut, 0) + FILL(aborted, 0)',
        usingMetrics: {
          failed: props.stateMachine.metricFailed({ period: FIVE_MINUTES, statistic: 'Sum' }),
          timedOut: props.stateMachine.metricTimedOut({ period: FIVE_MINUTES, statistic: 'Sum' }),
          aborted: props.stateMachine.metricAborted({ period: FIVE_MINUTES, statistic: 'Sum' }),
        },
        label: 'Drains not finished',
        period: FIVE_MINUTES,
      }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });
    alarm('BreakerTripped', {
      alarmDescription:
        'The circuit breaker refused a run that would delete too many Nodes (maxDeletions / maxDeletionPercent). Check the Divergence Detected event: wrong region or credentials, or an EC2 outage.',
      metric: metric(METRIC_NAMES.breakerTripped),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });
    this.alarms = alarms;

    const byFunction = (pick: (fn: lambda.IFunction) => cloudwatch.IMetric) => functionEntries.map(([, fn]) => pick(fn));
    const graph = (title: string, left: cloudwatch.IMetric[], right: cloudwatch.IMetric[] = []) =>
      new cloudwatch.GraphWidget({ title, left, right, width: 8, height: 6 });

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: name,
      defaultInterval: Duration.hours(3),
      widgets: [
        [new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: [...alarms.values()], width: 24, height: 3 })],
        [
          graph('Events processed', [
            metric(METRIC_NAMES.eventsProcessed, 'Events processed'),
            props.queue.metricNumberOfMessagesReceived({ period: FIVE_MINUTES, label: 'Queue: received' }),
          ]),
          graph(
            'Queue',
            [props.queue.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: 'Maximum', label: 'Visible' })],
            [props.queue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, statistic: 'Maximum', label: 'Oldest message (s)' })],
          ),
          graph('Dead-letter queue depth', [
            props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: 'Maximum', label: 'DLQ visible' }),
          ]),
        ],
        [
          graph(
            'Actions',
            [
              metric(METRIC_NAMES.nodesDeleted, 'Nodes deleted'),
              metric(METRIC_NAMES.nodesCordoned, 'Nodes cordoned'),
              metric(METRIC_NAMES.drainsStarted, 'Drains started'),
            ],
            [metric(METRIC_NAMES.actionsFailed, 'Actions failed')],
          ),
          graph(
            'Drains',
            [
              metric(METRIC_NAMES.drainsCompleted, 'Completed'),
              metric(METRIC_NAMES.drainsTimedOut, 'Timed out'),
              metric(METRIC_NAMES.drainsIncomplete, 'Incomplete'),
              metric(METRIC_NAMES.evictionsBlocked, 'Evictions blocked'),
            ],
            [
              props.stateMachine.metricStarted({ period: FIVE_MINUTES, label: 'Executions started' }),
              props.stateMachine.metricFailed({ period: FIVE_MINUTES, label: 'Executions failed' }),
            ],
          ),
          graph('Divergences by condition', [
            new cloudwatch.MathExpression({
              // SEARCH picks up every Condition value the functions emit, present and future.
              expression: `SEARCH('{${METRIC_NAMESPACE},${CLUSTER_DIMENSION},${CONDITION_DIMENSION},${SERVICE_DIMENSION}} MetricName="${METRIC_NAMES.divergences}" ${CLUSTER_DIMENSION}="${props.clusterName}"', 'Sum', 300)`,
              label: '',
              period: FIVE_MINUTES,
            }),
            metric(METRIC_NAMES.breakerTripped, 'Breaker tripped'),
          ]),
        ],
        [
          graph(
            'Errors',
            byFunction((fn) => fn.metricErrors({ period: FIVE_MINUTES, label: `${fn.node.id} errors` })),
            byFunction((fn) => fn.metricThrottles({ period: FIVE_MINUTES, label: `${fn.node.id} throttles` })),
          ),
          graph(
            'Function durations (p99, ms)',
            byFunction((fn) => fn.metricDuration({ period: FIVE_MINUTES, statistic: 'p99', label: fn.node.id })),
          ),
          graph(
            'Sweep and drain durations',
            [metric(METRIC_NAMES.sweepDurationMs, 'Sweep (ms, max)', 'Maximum')],
            [props.stateMachine.metricTime({ period: FIVE_MINUTES, statistic: 'Maximum', label: 'Drain execution (ms, max)' })],
          ),
        ],
        [
          // Repair (DESIGN §1b): what it started, replaced and cancelled, and when it stood down.
          graph(
            'Repairs',
            [
              metric(METRIC_NAMES.repairsStarted, 'Repair drains started'),
              metric(METRIC_NAMES.nodesRepaired, 'Machines marked Unhealthy (replaced)'),
              metric(METRIC_NAMES.repairsCancelled, 'Cancelled (recovered)'),
            ],
            [metric(METRIC_NAMES.repairsBlocked, 'Stood down (group too unhealthy)')],
          ),
        ],
      ],
    });
  }
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
