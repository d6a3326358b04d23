// The drain workflow of docs/design.md §5: a Step Functions Standard state machine that loops
//   drain step → outcome? → (heartbeat) → wait → drain step …
// until the step reports an end (done, incomplete, deadline, node-replaced, node-gone,
// cancelled-by-uncordon), fails permanently, or keeps failing for a transient reason until the
// deadline (retried with capped backoff meanwhile); a drain longer than one execution holds (its
// timeout, 25,000 history events) continues in a chained execution of the same record and deadline.
// At its end it completes the ASG lifecycle action (CONTINUE) when the drain has
// one — on every end but an operator's uncordon — and has the drain-step function tell the Node so
// (LifecycleActionCompleted), and ends with an output event. Written in
// JSONata with workflow variables: `$input` is the execution input (DrainWorkflowInput), `$step`
// the last DrainStepOutput.
//
// Standard, not Express: Standard executions are exactly-once and their names are unique for 90
// days, which is what makes the deterministic execution names of packages/model/src/contract/drain-workflow.ts dedupe
// duplicate events. Express executions would accept the same name twice.
import { Aws, Duration, Validations, type RemovalPolicy } from 'aws-cdk-lib';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import {
  CHAIN_SUFFIX_ROOM,
  COMPLETE_LIFECYCLE_COMMAND,
  DRAIN_OUTCOMES,
  FAILED_STEP_RETRY,
  LIFECYCLE_COMPLETED_NOTICE,
  LIFECYCLE_LEFT_OPEN,
  type DrainEnd,
} from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import { PERMANENT_STEP_ERROR } from '../lib/drain/step-failure.js';
import { OUTPUT_EVENT_SOURCE, type OutputDetailType } from '@ec2-node-reconciler/model/contract/output-events.js';
import { invokeGrantFinding, wildcardResourceFinding } from './findings.js';
import {
  HANDLER_ERRORS,
  LAMBDA_SERVICE_ERRORS,
  worstHeartbeatGap,
  type AslRetrier,
  type HeartbeatGap,
} from './heartbeat-gap.js';
import {
  DRAIN_WORKFLOW_CHAIN_PERMISSION,
  DRAIN_WORKFLOW_PERMISSIONS,
} from '@ec2-node-reconciler/model/contract/permissions.js';
import { acknowledgeAutoScalingFindings, autoScalingStatements, type AutoScalingScope } from './permissions.js';
import { vendedLogGroupName } from './vended-logs.js';

/** Outcomes the drain step may return (DrainStepOutputSchema.outcome). */
export const STEP_OUTCOMES = DRAIN_OUTCOMES;

/** The error a drain execution that did not drain fails with, by how it ended (`error`: the step kept failing). */
export const FAILURE_ERRORS: Record<Exclude<DrainEnd, 'done'> | 'error' | 'unexpected', string> = {
  incomplete: 'DrainIncomplete',
  deadline: 'DrainDeadlinePassed',
  'node-replaced': 'DrainNodeReplaced',
  'node-gone': 'DrainNodeGone',
  'cancelled-by-uncordon': 'DrainCancelledByUncordon',
  error: 'DrainStepFailed',
  unexpected: 'UnexpectedDrainStepOutcome',
};

/** The error of an execution that drained the node but could not complete its lifecycle action. */
export const LIFECYCLE_NOT_COMPLETED = 'LifecycleActionNotCompleted';

const DRAINED: OutputDetailType = 'Node Drained';
const DRAIN_FAILED: OutputDetailType = 'Drain Failed';

/** Wraps a JSONata expression for Step Functions. */
const jsonata = (expression: string): string => `{% ${expression} %}`;

/**
 * The lifecycle action of the drain: one handed over to it on the Node (the step's `lifecycle`),
 * else the input's. The step reports its lifecycle only once it has run, hence the fallback.
 */
export const LIFECYCLE = '($exists($step.lifecycle) ? $step.lifecycle : $input.lifecycle)';

/**
 * The DrainStepInput payload: the input, the previous step's state, and the lifecycle action the
 * step heartbeats at its start. One JSONata object constructor, not one expression per field: a key
 * whose value is undefined (no `state` on the first step, no lifecycle action) is dropped by JSONata,
 * whereas a Step Functions field that evaluates to undefined fails the state.
 */
export const DRAIN_STEP_PAYLOAD = jsonata(`{'input': $input, 'state': $step.state, 'lifecycle': ${LIFECYCLE}}`);

/**
 * The DrainNotice payload after the lifecycle action was completed: the drain-step function records
 * the LifecycleActionCompleted Event on the Node. Group and hook only: the token stays in the workflow.
 */
export const LIFECYCLE_NOTICE_PAYLOAD = jsonata(
  `{'notice': '${LIFECYCLE_COMPLETED_NOTICE}', 'input': $input, 'lifecycle': {'group': ${LIFECYCLE}.group, 'hook': ${LIFECYCLE}.hook}, 'outcome': $outcome}`,
);

/** The notice task's bound: recording one Event, a cold start included. */
export const NOTICE_TIMEOUT = Duration.seconds(60);

/**
 * The longest Wait between two steps, whatever the step asks (it asks for a few seconds, at most its
 * failed-eviction retry delay): a bound the heartbeat gap can be computed from.
 */
export const MAX_WAIT_SECONDS = 60;

/**
 * The Wait's seconds, at most MAX_WAIT_SECONDS: `$waitFor` is what the step asked for after a
 * `continue`, or the backoff after a failed step.
 */
const WAIT_SECONDS = `$min([$waitFor, ${MAX_WAIT_SECONDS}])`;

/** The deadline the drain works to, epoch ms: the last step's (an earlier one may have been handed over), else the input's. */
const DEADLINE_MS = '$toMillis($exists($step.deadline) ? $step.deadline : $input.deadline)';

/**
 * Seconds before trying a failed step again (the failure count before this one is `$failures`):
 * FAILED_STEP_RETRY's backoff, never past the deadline, at least a second.
 */
const FAILED_STEP_WAIT = `$max([1, $min([${FAILED_STEP_RETRY.firstSeconds} * $power(2, $min([$failures, 10])), ${FAILED_STEP_RETRY.maxSeconds}, $ceil((${DEADLINE_MS} - $millis()) / 1000)])])`;

/** The drain record's name: the input's (a chained execution's), else this execution's own. */
const RECORD = '($exists($input.execution) ? $input.execution : $states.context.Execution.Name)';

/** Which execution of the record this is: 0 for the first, n for the n-th chained one. */
const CHAIN = '($exists($input.chain) ? $input.chain : 0)';

/** The next chained execution's name (chainExecutionName in packages/model/src/contract/drain-workflow.ts). */
export const CHAINED_NAME = `$substring(${RECORD}, 0, ${80 - CHAIN_SUFFIX_ROOM}) & '-c' & $string(${CHAIN} + 1)`;

/**
 * The chained execution's input: the same record, deadline and lifecycle action, and the last step's
 * output to resume from (its state, handed-over deadline and lifecycle action, and the last heartbeat).
 */
export const CHAINED_INPUT = jsonata(
  `$string($merge([$input, {'execution': ${RECORD}, 'chain': ${CHAIN} + 1, 'resume': $merge([$step, {'heartbeatAt': $fromMillis($heartbeatAt)}])}]))`,
);

/** An attempt of the drain step runs at most the function's timeout; the task gives it this much more before it counts as States.Timeout. */
export const STEP_TASK_MARGIN = Duration.seconds(10);

/**
 * The history events one loop of the workflow can add at worst (Step Functions stops an execution at
 * 25,000): the drain step with every retry of every retrier (3 events an attempt, 2 for the state),
 * the catch's Choice, the chain Choice, the heartbeat Choice, a heartbeat with its retries, the Wait.
 * Checked against the synthesized definition by test/infra/drain-workflow.test.ts.
 */
export const MAX_HISTORY_EVENTS_PER_LOOP = 60;

/** Step Functions' quota on one execution's history. */
export const HISTORY_EVENT_LIMIT = 25_000;

/** History events kept for the end: completing the action, the notice, the output event, chaining (with retries). */
export const END_HISTORY_EVENTS = 120;

/**
 * Loops one execution runs before the drain continues in a chained one: what the history quota
 * holds at worst, with a fifth kept back (a chaining that failed and is tried again next loop).
 */
export const LOOPS_PER_EXECUTION = Math.floor(
  ((HISTORY_EVENT_LIMIT - END_HISTORY_EVENTS) * 0.8) / MAX_HISTORY_EVENTS_PER_LOOP,
);

/**
 * Loops a failing chaining is tried again before the drain gives up: at most 76 events each (a loop and
 * the chaining's four attempts), within the fifth of the history kept back (about 4,976 events).
 */
export const CHAIN_RETRY_LOOPS = 40;

/** A chaining still failing this close to the execution's timeout ends the drain (outcome `error`). */
export const CHAIN_GIVE_UP_BEFORE_TIMEOUT = Duration.minutes(15);

/** The failure a drain that could not continue in a chained execution reports. */
export const CHAIN_FAILED = 'DrainChainFailed';

/**
 * How long an execution runs before the drain continues in a chained one: an hour less than its
 * timeout (a loop — a step of at most 15 minutes, its retries and a wait — fits), at least half of it.
 */
export function chainAfter(executionTimeout: Duration): Duration {
  const ms = executionTimeout.toMilliseconds();
  return Duration.millis(Math.max(ms / 2, ms - 3_600_000));
}

/**
 * Lambda refused or lost the invocation (throttled when many drains run at once, a service error):
 * the handler did not run, so the attempt recorded no heartbeat. Retried briefly, with a budget the
 * heartbeat gap accounts for (1+2+4+8+16+20 = 51 s); then the failed step is tried again after a
 * backoff (FAILED_STEP_RETRY), heartbeating from the workflow, until the deadline.
 */
export const SERVICE_RETRY: sfn.RetryProps = {
  errors: [...LAMBDA_SERVICE_ERRORS],
  maxAttempts: 6,
  interval: Duration.seconds(1),
  backoffRate: 2,
  maxDelay: Duration.seconds(20),
};

/**
 * The handler failed for a transient reason (an unreachable API server, throttled) or timed out: two
 * quick tries, each heartbeating at its start, before the backoff loop takes over. A permanent failure
 * (PERMANENT_STEP_ERROR) is matched first by a retrier of no attempts, so it is never retried.
 */
export const HANDLER_RETRY: sfn.RetryProps = {
  errors: [...HANDLER_ERRORS],
  maxAttempts: 2,
  interval: Duration.seconds(5),
  backoffRate: 2,
};

/**
 * Arguments of the lifecycle calls: the token when the signal carried one, else the instance id
 * (a drain the sweep found in Terminating:Wait has no token). The API takes either.
 */
export function lifecycleArguments(extra: Record<string, string> = {}): string {
  const fixed = Object.entries(extra)
    .map(([key, value]) => `, '${key}': '${value}'`)
    .join('');
  return jsonata(
    `$merge([{'AutoScalingGroupName': ${LIFECYCLE}.group, 'LifecycleHookName': ${LIFECYCLE}.hook` +
      fixed +
      `}, $exists(${LIFECYCLE}.token) ? {'LifecycleActionToken': ${LIFECYCLE}.token} : {'InstanceId': $input.instanceId}])`,
  );
}

/** COMPLETE_LIFECYCLE_COMMAND as a JSONata string expression over the drain's lifecycle action. */
const COMPLETE_COMMAND = `'${COMPLETE_LIFECYCLE_COMMAND.replace('{group}', `' & ${LIFECYCLE}.group & '`)
  .replace('{hook}', `' & ${LIFECYCLE}.hook & '`)
  .replace('{instance}', "' & $input.instanceId & '")}'`;

/** Ends after which the lifecycle action is left to the operator, as a JSONata condition on `$outcome`. */
const LEFT_OPEN = LIFECYCLE_LEFT_OPEN.map((o) => `$outcome = '${o}'`).join(' or ');

/**
 * The output event's detail. The lifecycle token is left out (it is a credential for the action);
 * undefined keys (no instanceId, no summary after a failed first step) are dropped by JSONata. A
 * lifecycle action not completed comes with the command that completes it.
 */
export const OUTPUT_DETAIL = jsonata(
  [
    '{',
    "'cluster': $input.cluster, 'node': $input.node, 'nodeUid': $input.nodeUid, 'instanceId': $input.instanceId,",
    "'reason': $input.reason, 'cause': $input.cause, 'deadline': $exists($step.deadline) ? $step.deadline : $input.deadline, 'outcome': $outcome,",
    // `x ? x` is undefined, hence dropped, when x is null: no `"error": null` on a successful drain.
    "'summary': $step.summary, 'error': $failure ? $failure,",
    // Why completing failed (after its retries), when it did: the hook then waits for its timeout.
    `'lifecycle': $exists(${LIFECYCLE}) ? {'group': ${LIFECYCLE}.group, 'hook': ${LIFECYCLE}.hook, 'completed': $lifecycleCompleted, 'error': $lifecycleError ? $lifecycleError, 'completeWith': $lifecycleCompleted = false ? ${COMPLETE_COMMAND}},`,
    "'execution': $states.context.Execution.Id",
    '}',
  ].join(' '),
);

export interface DrainWorkflowProps extends AutoScalingScope {
  readonly drainStepFunction: lambda.IFunction;
  /** The drain-step function's timeout: an attempt's longest run. */
  readonly drainStepTimeout: Duration;
  readonly outputBus: events.IEventBus;
  /**
   * Each execution's TimeoutSeconds. A drain that outlasts it (or LOOPS_PER_EXECUTION loops) goes on
   * in a chained execution an hour before (chainAfter), so no drain ends TIMED_OUT without its outcome.
   */
  readonly maxDrainDuration: Duration;
  /** The workflow heartbeats before a wait when the last heartbeat would otherwise be this old by its end. */
  readonly heartbeatInterval: Duration;
  readonly tracing: boolean;
  readonly logRetention: logs.RetentionDays;
  readonly removalPolicy: RemovalPolicy;
}

export class DrainWorkflow extends Construct {
  readonly stateMachine: sfn.StateMachine;
  /** The longest a drain may go without a lifecycle heartbeat, retries included (infra/heartbeat-gap.ts). */
  readonly heartbeatGap: HeartbeatGap;

  constructor(scope: Construct, id: string, props: DrainWorkflowProps) {
    super(scope, id);
    const heartbeatMs = props.heartbeatInterval.toMilliseconds();

    // Every variable is assigned here, so no later expression reads an unassigned one. A chained
    // execution resumes from the step output its predecessor handed it (`resume`).
    const start = sfn.Pass.jsonata(this, 'Start', {
      stateName: 'Start drain',
      assign: {
        input: jsonata('$states.input'),
        step: jsonata('$exists($states.input.resume) ? $states.input.resume : {}'),
        outcome: 'running',
        failure: null,
        failures: 0,
        loops: 0,
        waitFor: 1,
        lifecycleCompleted: false,
        lifecycleError: null,
        heartbeatAt: jsonata(
          '$exists($states.input.resume.heartbeatAt) ? $toMillis($states.input.resume.heartbeatAt) : $millis()',
        ),
      },
    });

    const drainStep = tasks.LambdaInvoke.jsonata(this, 'DrainStep', {
      stateName: 'Drain step',
      lambdaFunction: props.drainStepFunction,
      payload: sfn.TaskInput.fromText(DRAIN_STEP_PAYLOAD),
      // The step recorded a heartbeat at its start when it says so: the workflow's next one is due from then.
      assign: {
        step: jsonata('$states.result.Payload'),
        failures: 0,
        heartbeatAt: jsonata(
          '$exists($states.result.Payload.heartbeatAt) ? $toMillis($states.result.Payload.heartbeatAt) : $heartbeatAt',
        ),
      },
      // Everything later states read is in `$step`; a constant output keeps the execution history small
      // (an expression here would fail the state if the handler ever left a field out).
      outputs: {},
      // An attempt is bounded (the heartbeat gap is computed from it), even if Lambda never answers.
      taskTimeout: sfn.Timeout.duration(props.drainStepTimeout.plus(STEP_TASK_MARGIN)),
      // Replaced by SERVICE_RETRY, whose budget is bounded: CDK's default retries service errors for 126 s.
      retryOnServiceExceptions: false,
    });
    // A permanent failure is never retried (a retrier of no attempts passes it to the catchers); then
    // the attempts that never ran the handler, then the ones that did: ASL takes the first match, and
    // States.TaskFailed would match Lambda's errors too.
    drainStep.addRetry({ errors: [PERMANENT_STEP_ERROR], maxAttempts: 0 });
    drainStep.addRetry(SERVICE_RETRY);
    drainStep.addRetry(HANDLER_RETRY);

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

    // The Node is told that its lifecycle action was completed (the function records the Event); a
    // notice that fails is caught: an Event never fails the drain, nor delays its output event for long.
    const notice = tasks.LambdaInvoke.jsonata(this, 'LifecycleNotice', {
      stateName: 'Record lifecycle completed',
      lambdaFunction: props.drainStepFunction,
      payload: sfn.TaskInput.fromText(LIFECYCLE_NOTICE_PAYLOAD),
      outputs: {},
      taskTimeout: sfn.Timeout.duration(NOTICE_TIMEOUT),
      retryOnServiceExceptions: false,
    });
    notice.addRetry({ errors: ['States.ALL'], maxAttempts: 2, interval: Duration.seconds(2), backoffRate: 2 });

    const report = putOutputEvent(this, 'ReportOutcome', {
      stateName: 'Report outcome',
      bus: props.outputBus,
      detailType: jsonata(`$outcome = 'done' ? '${DRAINED}' : '${DRAIN_FAILED}'`),
    });

    const drained = new sfn.Succeed(this, 'Drained', { stateName: 'Drained' });
    // A drain that did not drain is a failed execution, so ExecutionsFailed counts every one of them;
    // the error says how it ended, the Drain Failed event says what was left and why.
    const notDrained = sfn.Fail.jsonata(this, 'NotDrained', {
      stateName: 'Not drained',
      // A drain that drained but could not complete its lifecycle action fails too, so the alarm sees it.
      error: jsonata(
        `$outcome = 'done' ? '${LIFECYCLE_NOT_COMPLETED}' : $lookup(${JSON.stringify(FAILURE_ERRORS).replace(/"/g, "'")}, $outcome)`,
      ),
      cause: jsonata(
        `$outcome = 'done' ? 'The node drained, but completing its lifecycle action failed: see lifecycle.error in the Node Drained event.' : 'The drain ended ' & $outcome & ': see the Drain Failed event for what was left and why, and the drain-step function logs.'`,
      ),
    });

    const wait = sfn.Wait.jsonata(this, 'Wait', {
      stateName: 'Wait',
      time: sfn.WaitTime.seconds(jsonata(WAIT_SECONDS)),
      assign: { loops: jsonata('$loops + 1') },
    });
    // Due when, by the end of the wait, the last heartbeat (the step's or the workflow's) would be heartbeatInterval old.
    const heartbeatDue = sfn.Choice.jsonata(this, 'HeartbeatDue', { stateName: 'Heartbeat due?' })
      .when(
        sfn.Condition.jsonata(
          jsonata(`$exists(${LIFECYCLE}) and ($millis() - $heartbeatAt + ${WAIT_SECONDS} * 1000) >= ${heartbeatMs}`),
        ),
        heartbeat,
      )
      .otherwise(wait);
    // A failed heartbeat does not stop the drain (the action may have been completed by someone else);
    // the timestamp still moves so that a failing call is not repeated every loop.
    heartbeat.addCatch(wait, { errors: ['States.ALL'], assign: { heartbeatAt: jsonata('$millis()') } });
    heartbeat.next(wait);
    wait.next(drainStep);

    // Every end completes the lifecycle action (the machine goes either way), except an operator's
    // uncordon: completing it would end the machine they chose to keep using.
    const finish = sfn.Choice.jsonata(this, 'LifecycleHook', { stateName: 'Lifecycle hook?' })
      .when(sfn.Condition.jsonata(jsonata(`$exists(${LIFECYCLE}) and $not(${LEFT_OPEN})`)), complete)
      .otherwise(report);
    // Completing failed after its retries: the output event says why (and how to complete it), and the execution fails.
    complete.addCatch(report, {
      errors: ['States.ALL'],
      assign: { lifecycleCompleted: false, lifecycleError: jsonata('$states.errorOutput') },
    });
    complete.next(notice);
    notice.addCatch(report, { errors: ['States.ALL'] });
    notice.next(report);
    report.next(
      sfn.Choice.jsonata(this, 'WasDrained', { stateName: 'Drained?' })
        .when(sfn.Condition.jsonata(jsonata("$outcome = 'done' and $lifecycleError = null")), drained)
        .otherwise(notDrained),
    );

    // A drain longer than one execution holds goes on in a chained one: same record, deadline and
    // lifecycle action, resumed from the last step. StartExecution is idempotent for the same name and
    // input, and an answer lost after it started is ExecutionAlreadyExists: continued all the same.
    // Chaining that keeps failing is tried again at the next loop, within the history kept back for it.
    const chain = new sfn.CustomState(this, 'Continue in a new execution', {
      stateJson: {
        Type: 'Task',
        Resource: `arn:${Aws.PARTITION}:states:::aws-sdk:sfn:startExecution`,
        Arguments: {
          StateMachineArn: jsonata('$states.context.StateMachine.Id'),
          Name: jsonata(CHAINED_NAME),
          Input: CHAINED_INPUT,
        },
        Output: { continuedAs: jsonata(CHAINED_NAME) },
      },
    });
    chain.addRetry({ errors: ['States.ALL'], maxAttempts: 3, interval: Duration.seconds(2), backoffRate: 2 });
    const continued = new sfn.Succeed(this, 'Continued', { stateName: 'Continued in a new execution' });
    // The output names the execution that continues the drain: whoever asks about this one follows it
    // (lib/aws/drain-launcher.ts), so a hop never reads as the drain's end.
    chain.addCatch(continued, {
      errors: ['Sfn.ExecutionAlreadyExistsException', 'Sfn.ExecutionAlreadyExists'],
      outputs: { continuedAs: jsonata(CHAINED_NAME) },
    });
    chain.addCatch(heartbeatDue, { errors: ['States.ALL'] });
    chain.next(continued);
    const elapsed = '($millis() - $toMillis($states.context.Execution.StartTime))';
    const chainDue = sfn.Choice.jsonata(this, 'ChainDue', { stateName: 'Continue in a new execution?' })
      // Chaining kept failing (the history kept back for it, or the execution's timeout, nearly spent): the
      // drain ends here with its outcome event and its hook decision, rather than be cut off without them.
      .when(
        sfn.Condition.jsonata(
          jsonata(
            `$loops >= ${LOOPS_PER_EXECUTION + CHAIN_RETRY_LOOPS} or ${elapsed} >= ${props.maxDrainDuration.toMilliseconds() - CHAIN_GIVE_UP_BEFORE_TIMEOUT.toMilliseconds()}`,
          ),
        ),
        finish,
        {
          assign: {
            outcome: 'error',
            failure: {
              Error: CHAIN_FAILED,
              Cause:
                'The drain could not continue in a chained execution (StartExecution kept failing): see the execution history.',
            },
          },
        },
      )
      .when(
        sfn.Condition.jsonata(
          jsonata(
            `$loops >= ${LOOPS_PER_EXECUTION} or ${elapsed} >= ${chainAfter(props.maxDrainDuration).toMilliseconds()}`,
          ),
        ),
        chain,
      )
      .otherwise(heartbeatDue);

    // The payload safety net: a step result over the 256 KiB limit raises States.DataLimitExceeded,
    // which States.ALL does not match. Caught by name, it ends the drain like a permanent failure:
    // lifecycle action completed, Drain Failed event (`$step` is still the previous step's).
    const failed = { outcome: 'error', failure: jsonata('$states.errorOutput') };
    drainStep.addCatch(finish, { errors: ['States.DataLimitExceeded'], assign: failed });
    drainStep.addCatch(finish, { errors: [PERMANENT_STEP_ERROR], assign: failed });
    // Any other failure is transient: tried again after a backoff until the deadline; only then does the
    // drain end (`deadline`), so an outage never hands the machine back while its pods are still on it.
    const deadlinePassed = sfn.Choice.jsonata(this, 'DeadlinePassed', { stateName: 'Deadline passed?' })
      .when(sfn.Condition.jsonata(jsonata(`$millis() >= ${DEADLINE_MS}`)), finish, {
        assign: { outcome: 'deadline' },
      })
      .otherwise(chainDue);
    drainStep.addCatch(deadlinePassed, {
      errors: ['States.ALL'],
      assign: {
        failure: jsonata('$states.errorOutput'),
        failures: jsonata('$failures + 1'),
        waitFor: jsonata(FAILED_STEP_WAIT),
      },
    });

    const outcome = sfn.Choice.jsonata(this, 'Outcome', { stateName: 'Drain outcome?' });
    for (const end of STEP_OUTCOMES) {
      if (end !== 'continue')
        outcome.when(sfn.Condition.jsonata(jsonata(`$step.outcome = '${end}'`)), finish, { assign: { outcome: end } });
    }
    // An outcome the contract does not have (a handler of another version) ends the drain too, named.
    const unexpected = sfn.Pass.jsonata(this, 'UnexpectedOutcome', {
      stateName: 'Unexpected outcome',
      assign: { outcome: 'unexpected' },
    }).next(finish);
    outcome
      .when(sfn.Condition.jsonata(jsonata("$step.outcome = 'continue'")), chainDue, {
        // A step that went on is no failure to report: a later end says what it ended by.
        assign: { waitFor: jsonata('$step.waitSeconds'), failure: null },
      })
      .otherwise(unexpected);

    const logGroup = new logs.LogGroup(this, 'Logs', {
      logGroupName: vendedLogGroupName(this, 'states'),
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });
    this.stateMachine = new sfn.StateMachine(this, 'StateMachine', {
      stateMachineType: sfn.StateMachineType.STANDARD,
      queryLanguage: sfn.QueryLanguage.JSONATA,
      comment:
        'ec2-node-reconciler drain: step, wait and loop until done or the deadline; complete the ASG lifecycle action; report.',
      definitionBody: sfn.DefinitionBody.fromChainable(start.next(drainStep).next(outcome)),
      timeout: props.maxDrainDuration,
      tracingEnabled: props.tracing,
      // Execution data stays in the execution history (90 days), not in a second copy in the logs.
      logs: { destination: logGroup, level: sfn.LogLevel.ALL, includeExecutionData: false },
    });
    for (const { actions } of DRAIN_WORKFLOW_PERMISSIONS) {
      for (const statement of autoScalingStatements(this, actions, props)) this.stateMachine.addToRolePolicy(statement);
    }
    // Its own policy, attached after the state machine exists: in the role's default policy, the
    // statement naming the state machine would be a dependency of the state machine itself (a cycle).
    new iam.Policy(this, 'ChainPolicy', {
      roles: [this.stateMachine.role],
      statements: [
        new iam.PolicyStatement({
          actions: [...DRAIN_WORKFLOW_CHAIN_PERMISSION.actions],
          resources: [this.stateMachine.stateMachineArn],
        }),
      ],
    });
    this.acknowledgeFindings(props);
    this.heartbeatGap = worstHeartbeatGap({
      stepTask: stepTaskJson(drainStep),
      heartbeatIntervalSeconds: props.heartbeatInterval.toSeconds(),
      maxWaitSeconds: MAX_WAIT_SECONDS,
    });
  }

  /** cdk-nag findings on what CDK generates for the state machine, each with its reason. */
  private acknowledgeFindings(props: DrainWorkflowProps): void {
    // On the role, so that the acknowledgements cover its default policy, whatever CDK names it.
    const validations = Validations.of(this.stateMachine.role);
    validations.acknowledge({
      id: invokeGrantFinding(props.drainStepFunction),
      reason:
        'CDK grants lambda:InvokeFunction on the drain-step function and its versions/aliases (ARN:*); no other function.',
    });
    validations.acknowledge({
      id: wildcardResourceFinding(this, '*'),
      reason: `CloudWatch Logs delivery actions (logs:CreateLogDelivery and co.)${props.tracing ? ' and X-Ray segment upload' : ''} support no resource-level permissions; Step Functions needs them for the execution logs.`,
    });
    acknowledgeAutoScalingFindings(this.stateMachine.role, props);
    if (!props.tracing) {
      Validations.of(this.stateMachine).acknowledge({
        id: 'AwsSolutions-SF2',
        reason:
          'X-Ray tracing is opt-in (prop tracing): the execution history and the ALL-level execution logs already show each drain step by step.',
      });
    }
  }
}

/** The drain step's Retry and TimeoutSeconds as the definition renders them. */
function stepTaskJson(task: sfn.State): { Retry?: AslRetrier[]; TimeoutSeconds?: number } {
  const json = task.toStateJson() as { Retry?: AslRetrier[]; TimeoutSeconds?: number };
  return {
    ...(json.Retry ? { Retry: json.Retry } : {}),
    ...(json.TimeoutSeconds !== undefined ? { TimeoutSeconds: json.TimeoutSeconds } : {}),
  };
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
