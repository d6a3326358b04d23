// The drain workflow of DESIGN §5: a Step Functions Standard state machine that loops
//   drain step → outcome? → (heartbeat) → wait → drain step …
// until the step reports done or deadline, completes the ASG lifecycle action (CONTINUE) when the
// drain came from one, and ends with an output event. Written in JSONata with workflow variables:
// `$input` is the execution input (DrainWorkflowInput), `$step` the last DrainStepOutput.
//
// Standard, not Express: Standard executions are exactly-once and their names are unique for 90
// days, which is what makes the deterministic execution names of lib/workflow/contract.ts dedupe
// duplicate events. Express executions would accept the same name twice.
import { Aws, Duration, Validations, type RemovalPolicy } from 'aws-cdk-lib';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { OUTPUT_EVENT_SOURCE, type OutputDetailType } from '../lib/workflow/contract.js';
import { invokeGrantFinding, wildcardResourceFinding } from './findings.js';
import { acknowledgeAutoScalingFindings, autoScalingStatements, type AutoScalingScope } from './permissions.js';

/** Outcomes the drain step may return (DrainStepOutputSchema.outcome). */
export const STEP_OUTCOMES = ['done', 'deadline', 'continue'] as const;

const DRAINED: OutputDetailType = 'Node Drained';
const DRAIN_FAILED: OutputDetailType = 'Drain Failed';

/** Wraps a JSONata expression for Step Functions. */
const jsonata = (expression: string): string => `{% ${expression} %}`;

/**
 * The DrainStepInput payload. One JSONata object constructor, not one expression per field: a key
 * whose value is undefined (no `state` on the first step) is dropped by JSONata, whereas a
 * Step Functions field that evaluates to undefined fails the state.
 */
export const DRAIN_STEP_PAYLOAD = jsonata("{'input': $input, 'state': $step.state}");

/**
 * Arguments of the lifecycle calls: the token when the signal carried one, else the instance id
 * (a drain the sweep found in Terminating:Wait has no token). The API takes either.
 */
export function lifecycleArguments(extra: Record<string, string> = {}): string {
  const fixed = Object.entries(extra)
    .map(([key, value]) => `, '${key}': '${value}'`)
    .join('');
  return jsonata(
    "$merge([{'AutoScalingGroupName': $input.lifecycle.group, 'LifecycleHookName': $input.lifecycle.hook" +
      fixed +
      "}, $exists($input.lifecycle.token) ? {'LifecycleActionToken': $input.lifecycle.token} : {'InstanceId': $input.instanceId}])",
  );
}

/**
 * The output event's detail. The lifecycle token is left out (it is a credential for the action);
 * undefined keys (no instanceId, no summary after a failed first step) are dropped by JSONata.
 */
export const OUTPUT_DETAIL = jsonata(
  [
    '{',
    "'cluster': $input.cluster, 'node': $input.node, 'nodeUid': $input.nodeUid, 'instanceId': $input.instanceId,",
    "'reason': $input.reason, 'cause': $input.cause, 'deadline': $input.deadline, 'outcome': $outcome,",
    // `x ? x` is undefined, hence dropped, when x is null: no `"error": null` on a successful drain.
    "'summary': $step.summary, 'error': $failure ? $failure,",
    "'lifecycle': $exists($input.lifecycle) ? {'group': $input.lifecycle.group, 'hook': $input.lifecycle.hook, 'completed': $lifecycleCompleted},",
    "'execution': $states.context.Execution.Id",
    '}',
  ].join(' '),
);

export interface DrainWorkflowProps extends AutoScalingScope {
  readonly drainStepFunction: lambda.IFunction;
  readonly outputBus: events.IEventBus;
  /** An execution still running after this ends TIMED_OUT. */
  readonly maxDrainDuration: Duration;
  /** Least time between two lifecycle heartbeats while a drain waits. */
  readonly heartbeatInterval: Duration;
  readonly tracing: boolean;
  readonly logRetention: logs.RetentionDays;
  readonly removalPolicy: RemovalPolicy;
}

export class DrainWorkflow extends Construct {
  readonly stateMachine: sfn.StateMachine;

  constructor(scope: Construct, id: string, props: DrainWorkflowProps) {
    super(scope, id);
    const heartbeatMs = props.heartbeatInterval.toMilliseconds();

    // Every variable is assigned here, so no later expression reads an unassigned one.
    const start = sfn.Pass.jsonata(this, 'Start', {
      stateName: 'Start drain',
      assign: {
        input: jsonata('$states.input'),
        step: {},
        outcome: 'running',
        failure: null,
        lifecycleCompleted: false,
        heartbeatAt: jsonata('$millis()'),
      },
    });

    const drainStep = tasks.LambdaInvoke.jsonata(this, 'DrainStep', {
      stateName: 'Drain step',
      lambdaFunction: props.drainStepFunction,
      payload: sfn.TaskInput.fromText(DRAIN_STEP_PAYLOAD),
      assign: { step: jsonata('$states.result.Payload') },
      // Everything later states read is in `$step`; a constant output keeps the execution history small
      // (an expression here would fail the state if the handler ever left a field out).
      outputs: {},
      retryOnServiceExceptions: true,
    });
    // Throttling when many drains run at once (a scale-in, a Spot reclaim wave): CDK's service
    // exception retry does not cover it, and giving up would fail a drain that only had to wait.
    drainStep.addRetry({ errors: ['Lambda.TooManyRequestsException'], maxAttempts: 8, interval: Duration.seconds(5), backoffRate: 2, maxDelay: Duration.minutes(1) });
    // A handler error (an unreachable API server, a bug) gets two more tries before the drain fails.
    drainStep.addRetry({ errors: ['States.TaskFailed', 'States.Timeout'], maxAttempts: 2, interval: Duration.seconds(10), backoffRate: 2 });

    const heartbeat = lifecycleCall(this, 'Record lifecycle heartbeat', {
      action: 'recordLifecycleActionHeartbeat',
      arguments: lifecycleArguments(),
      assign: { heartbeatAt: jsonata('$millis()') },
    });
    const complete = lifecycleCall(this, 'Complete lifecycle action', {
      action: 'completeLifecycleAction',
      // CONTINUE at deadline too: the machine is going either way, and ABANDON would only skip other hooks.
      arguments: lifecycleArguments({ LifecycleActionResult: 'CONTINUE' }),
      assign: { lifecycleCompleted: true },
    });

    const report = putOutputEvent(this, 'ReportOutcome', {
      stateName: 'Report outcome',
      bus: props.outputBus,
      detailType: jsonata(`$outcome = 'done' ? '${DRAINED}' : '${DRAIN_FAILED}'`),
    });
    const reportFailure = putOutputEvent(this, 'ReportFailure', {
      stateName: 'Report failure',
      bus: props.outputBus,
      detailType: DRAIN_FAILED,
    });

    const drained = new sfn.Succeed(this, 'Drained', { stateName: 'Drained' });
    // A drain that ran out of time is a failed execution, so ExecutionsFailed counts every drain that did not finish.
    const deadlinePassed = sfn.Fail.jsonata(this, 'DeadlinePassed', {
      stateName: 'Deadline passed',
      error: 'DrainDeadlinePassed',
      cause: 'The deadline passed with pods left on the node; see the Drain Failed event for the summary.',
    });
    const stepFailed = sfn.Fail.jsonata(this, 'StepFailed', {
      stateName: 'Drain step failed',
      error: 'DrainStepFailed',
      cause: 'The drain step kept failing; see the Drain Failed event and the drain-step function logs.',
    });
    const unexpected = sfn.Fail.jsonata(this, 'UnexpectedOutcome', {
      stateName: 'Unexpected outcome',
      error: 'UnexpectedDrainStepOutcome',
      cause: `The drain step returned an outcome other than ${STEP_OUTCOMES.join(', ')} (see lib/workflow/contract.ts).`,
    });

    const wait = sfn.Wait.jsonata(this, 'Wait', {
      stateName: 'Wait',
      time: sfn.WaitTime.seconds(jsonata('$step.waitSeconds')),
    });
    const heartbeatDue = sfn.Choice.jsonata(this, 'HeartbeatDue', { stateName: 'Heartbeat due?' })
      .when(sfn.Condition.jsonata(jsonata(`$exists($input.lifecycle) and ($millis() - $heartbeatAt) >= ${heartbeatMs}`)), heartbeat)
      .otherwise(wait);
    // A failed heartbeat does not stop the drain (the action may have been completed by someone else);
    // the timestamp still moves so that a failing call is not repeated every loop.
    heartbeat.addCatch(wait, { errors: ['States.ALL'], assign: { heartbeatAt: jsonata('$millis()') } });
    heartbeat.next(wait);
    wait.next(drainStep);

    const finish = sfn.Choice.jsonata(this, 'LifecycleHook', { stateName: 'Lifecycle hook?' })
      .when(sfn.Condition.jsonata(jsonata('$exists($input.lifecycle)')), complete)
      .otherwise(report);
    complete.addCatch(report, { errors: ['States.ALL'], assign: { lifecycleCompleted: false } });
    complete.next(report);
    report.next(
      sfn.Choice.jsonata(this, 'WasDrained', { stateName: 'Drained?' })
        .when(sfn.Condition.jsonata(jsonata("$outcome = 'done'")), drained)
        .otherwise(deadlinePassed),
    );

    drainStep.addCatch(reportFailure, { errors: ['States.ALL'], assign: { outcome: 'error', failure: jsonata('$states.errorOutput') } });
    reportFailure.next(stepFailed);

    const outcome = sfn.Choice.jsonata(this, 'Outcome', { stateName: 'Drain outcome?' })
      .when(sfn.Condition.jsonata(jsonata("$step.outcome = 'done'")), finish, { assign: { outcome: 'done' } })
      .when(sfn.Condition.jsonata(jsonata("$step.outcome = 'deadline'")), finish, { assign: { outcome: 'deadline' } })
      .when(sfn.Condition.jsonata(jsonata("$step.outcome = 'continue'")), heartbeatDue)
      .otherwise(unexpected);

    const logGroup = new logs.LogGroup(this, 'Logs', { retention: props.logRetention, removalPolicy: props.removalPolicy });
    this.stateMachine = new sfn.StateMachine(this, 'StateMachine', {
      stateMachineType: sfn.StateMachineType.STANDARD,
      queryLanguage: sfn.QueryLanguage.JSONATA,
      comment: 'ec2-node-reconciler drain: step, wait and loop until done or the deadline; complete the ASG lifecycle action; report.',
      definitionBody: sfn.DefinitionBody.fromChainable(start.next(drainStep).next(outcome)),
      timeout: props.maxDrainDuration,
      tracingEnabled: props.tracing,
      // Execution data stays in the execution history (90 days), not in a second copy in the logs.
      logs: { destination: logGroup, level: sfn.LogLevel.ALL, includeExecutionData: false },
    });
    for (const statement of autoScalingStatements(this, ['autoscaling:RecordLifecycleActionHeartbeat', 'autoscaling:CompleteLifecycleAction'], props)) {
      this.stateMachine.addToRolePolicy(statement);
    }
    this.acknowledgeFindings(props);
  }

  /** cdk-nag findings on what CDK generates for the state machine, each with its reason. */
  private acknowledgeFindings(props: DrainWorkflowProps): void {
    // On the role, so that the acknowledgements cover its default policy, whatever CDK names it.
    const validations = Validations.of(this.stateMachine.role);
    validations.acknowledge({
      id: invokeGrantFinding(props.drainStepFunction),
      reason: 'CDK grants lambda:InvokeFunction on the drain-step function and its versions/aliases (ARN:*); no other function.',
    });
    validations.acknowledge({
      id: wildcardResourceFinding(this, '*'),
      reason: `CloudWatch Logs delivery actions (logs:CreateLogDelivery and co.)${props.tracing ? ' and X-Ray segment upload' : ''} support no resource-level permissions; Step Functions needs them for the execution logs.`,
    });
    acknowledgeAutoScalingFindings(this.stateMachine.role, props);
    if (!props.tracing) {
      Validations.of(this.stateMachine).acknowledge({
        id: 'AwsSolutions-SF2',
        reason: 'X-Ray tracing is opt-in (prop tracing): the execution history and the ALL-level execution logs already show each drain step by step.',
      });
    }
  }
}

interface LifecycleCallProps {
  readonly action: 'recordLifecycleActionHeartbeat' | 'completeLifecycleAction';
  readonly arguments: string;
  readonly assign: Record<string, unknown>;
}

/**
 * An AWS SDK integration with Arguments as a single JSONata expression (CallAwsService takes only
 * an object, which cannot leave out the token or the instance id). IAM comes from the caller.
 */
function lifecycleCall(scope: Construct, stateName: string, props: LifecycleCallProps): sfn.CustomState {
  // A CustomState takes its state name from the construct id.
  const state = new sfn.CustomState(scope, stateName, {
    stateJson: {
      Type: 'Task',
      Resource: `arn:${Aws.PARTITION}:states:::aws-sdk:autoscaling:${props.action}`,
      Arguments: props.arguments,
      Assign: props.assign,
    },
  });
  // Throttling and transient errors; a ValidationError (no such action any more) fails fast enough.
  state.addRetry({ errors: ['States.ALL'], maxAttempts: 3, interval: Duration.seconds(2), backoffRate: 2 });
  return state;
}

interface PutOutputEventProps {
  readonly stateName: string;
  readonly bus: events.IEventBus;
  readonly detailType: string;
}

function putOutputEvent(scope: Construct, id: string, props: PutOutputEventProps): tasks.EventBridgePutEvents {
  const task = tasks.EventBridgePutEvents.jsonata(scope, id, {
    stateName: props.stateName,
    entries: [
      {
        eventBus: props.bus,
        source: OUTPUT_EVENT_SOURCE,
        detailType: props.detailType,
        detail: sfn.TaskInput.fromText(OUTPUT_DETAIL),
      },
    ],
  });
  task.addRetry({ errors: ['States.ALL'], maxAttempts: 3, interval: Duration.seconds(2), backoffRate: 2 });
  return task;
}
