// The drain workflow's definition, read as a graph: the loop of docs/design.md §5, the contract of
// packages/model/src/contract/drain-workflow.ts, the lifecycle calls and the output events.
import { App, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as events from 'aws-cdk-lib/aws-events';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { describe, expect, it } from 'vitest';
import {
  DrainWorkflow,
  FAILURE_ERRORS,
  LIFECYCLE,
  LIFECYCLE_NOT_COMPLETED,
  LIFECYCLE_NOTICE_PAYLOAD,
  CHAIN_RETRY_LOOPS,
  LOOPS_PER_EXECUTION,
  MAX_WAIT_SECONDS,
  STEP_OUTCOMES,
} from '../../infra/drain-workflow.js';
import { LAMBDA_SERVICE_ERRORS, worstHeartbeatGap } from '../../infra/heartbeat-gap.js';
import {
  DRAIN_OUTCOMES,
  DrainNoticeSchema,
  DrainStepInputSchema,
  DrainStepOutputSchema,
  LIFECYCLE_COMPLETED_NOTICE,
} from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import { OUTPUT_DETAIL_TYPES, OUTPUT_EVENT_SOURCE } from '@ec2-node-reconciler/model/contract/output-events.js';
import { PERMANENT_STEP_ERROR } from '../../lib/drain/step-failure.js';
import { joinedJson, only } from './support/template.js';

interface State {
  readonly Type: string;
  readonly Next?: string;
  readonly End?: boolean;
  readonly Default?: string;
  readonly Choices?: { Condition: string; Next: string; Assign?: Record<string, unknown> }[];
  readonly Catch?: { ErrorEquals: string[]; Next: string; Assign?: Record<string, unknown> }[];
  readonly Retry?: {
    ErrorEquals: string[];
    MaxAttempts?: number;
    IntervalSeconds?: number;
    BackoffRate?: number;
    MaxDelaySeconds?: number;
  }[];
  readonly TimeoutSeconds?: number;
  readonly Resource?: string;
  readonly Arguments?: unknown;
  readonly Assign?: Record<string, unknown>;
  readonly Seconds?: string;
  readonly Error?: string;
  readonly Cause?: string;
}

interface Definition {
  readonly StartAt: string;
  readonly States: Record<string, State>;
  readonly TimeoutSeconds?: number;
  readonly QueryLanguage?: string;
}

function build(
  props: {
    heartbeatInterval?: Duration;
    maxDrainDuration?: Duration;
    autoScalingGroupNames?: string[];
    drainStepTimeout?: Duration;
  } = {},
): { definition: Definition; workflow: DrainWorkflow } {
  const stack = new Stack(new App(), 'Workflow');
  const drainStepFunction = new lambda.Function(stack, 'DrainStep', {
    runtime: lambda.Runtime.NODEJS_24_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline('exports.handler = async () => ({})'),
  });
  const workflow = new DrainWorkflow(stack, 'Drain', {
    clusterName: 'demo',
    autoScalingGroupNames: props.autoScalingGroupNames,
    drainStepFunction,
    drainStepTimeout: props.drainStepTimeout ?? Duration.minutes(1),
    outputBus: new events.EventBus(stack, 'Bus'),
    maxDrainDuration: props.maxDrainDuration ?? Duration.days(1),
    heartbeatInterval: props.heartbeatInterval ?? Duration.minutes(1),
    tracing: false,
    logRetention: logs.RetentionDays.ONE_WEEK,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const [, machine] = only(Template.fromStack(stack), 'AWS::StepFunctions::StateMachine');
  return { definition: joinedJson(machine.Properties?.DefinitionString) as Definition, workflow };
}

const definition = (props: Parameters<typeof build>[0] = {}): Definition => build(props).definition;

const DEFINITION = definition();
const { States: STATES } = DEFINITION;

function state(name: string): State {
  const found = STATES[name];
  if (!found) throw new Error(`no state ${name}; states: ${Object.keys(STATES).join(', ')}`);
  return found;
}

function successors(s: State): string[] {
  return [s.Next, s.Default, ...(s.Choices ?? []).map((c) => c.Next), ...(s.Catch ?? []).map((c) => c.Next)].filter(
    (n): n is string => n !== undefined,
  );
}

/** Every `{% … %}` expression in the definition. */
function expressions(value: unknown): string[] {
  if (typeof value === 'string') return [...value.matchAll(/\{%(.*?)%\}/gs)].map((m) => (m[1] ?? '').trim());
  if (Array.isArray(value)) return value.flatMap(expressions);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(expressions);
  return [];
}

describe('drain workflow', () => {
  it('should be written in JSONata with a timeout', () => {
    expect(DEFINITION.QueryLanguage).toBe('JSONata');
    expect(DEFINITION.TimeoutSeconds).toBe(86_400);
    expect(definition({ maxDrainDuration: Duration.hours(6) }).TimeoutSeconds).toBe(21_600);
  });

  it('should reach every state from the start, and every transition should name a state', () => {
    const seen = new Set<string>();
    const queue = [DEFINITION.StartAt];
    while (queue.length > 0) {
      const name = queue.pop() ?? '';
      if (seen.has(name)) continue;
      seen.add(name);
      queue.push(...successors(state(name)));
    }
    expect([...seen].sort()).toEqual(Object.keys(STATES).sort());
  });

  it('should end only in Drained (succeeded) or Not drained, failing with an error named after how the drain ended', () => {
    const terminal = Object.entries(STATES).filter(([, s]) => successors(s).length === 0);
    expect(Object.fromEntries(terminal.map(([name, s]) => [name, s.Type]))).toEqual({
      Drained: 'Succeed',
      'Not drained': 'Fail',
      // Not an end of the drain: it goes on in a chained execution, which ends in one of the other two.
      'Continued in a new execution': 'Succeed',
    });
    const error = state('Not drained').Error ?? '';
    for (const [outcome, name] of Object.entries(FAILURE_ERRORS)) expect(error).toContain(`'${outcome}':'${name}'`);
    // Every end of the contract but done, a failing step and an unexpected outcome.
    expect(Object.keys(FAILURE_ERRORS).sort()).toEqual(
      [...DRAIN_OUTCOMES.filter((o) => o !== 'continue' && o !== 'done'), 'error', 'unexpected'].sort(),
    );
    expect(error).toContain('$outcome');
  });

  it('should loop drain step → outcome → continue here? → heartbeat due → wait → drain step', () => {
    expect(DEFINITION.StartAt).toBe('Start drain');
    expect(state('Start drain').Next).toBe('Drain step');
    expect(state('Drain step').Next).toBe('Drain outcome?');
    const onContinue = state('Drain outcome?').Choices?.find((c) => c.Condition.includes("'continue'"));
    expect(onContinue?.Next).toBe('Continue in a new execution?');
    // The wait is what the step asked for; a step that went on clears an earlier failure.
    expect(onContinue?.Assign).toEqual({ waitFor: '{% $step.waitSeconds %}', failure: null });
    expect(state('Continue in a new execution?').Default).toBe('Heartbeat due?');
    expect(state('Heartbeat due?').Default).toBe('Wait');
    expect(state('Record lifecycle heartbeat').Next).toBe('Wait');
    expect(state('Wait').Next).toBe('Drain step');
    expect(state('Wait').Assign).toEqual({ loops: '{% $loops + 1 %}' });
    // Within a bound the heartbeat gap is computed from.
    expect(state('Wait').Seconds).toBe(`{% $min([$waitFor, ${MAX_WAIT_SECONDS}]) %}`);
    expect(Object.keys(DrainStepOutputSchema.shape)).toContain('waitSeconds');
  });

  it('should go on in a chained execution of the same record after LOOPS_PER_EXECUTION loops or an hour before its timeout', () => {
    const [giveUp, due] = state('Continue in a new execution?').Choices ?? [];
    // A chaining that kept failing ends the drain with its outcome, before the history or the timeout would.
    expect(giveUp).toMatchObject({ Next: 'Lifecycle hook?', Assign: { outcome: 'error' } });
    expect(giveUp?.Condition).toContain(`$loops >= ${LOOPS_PER_EXECUTION + CHAIN_RETRY_LOOPS}`);
    expect(giveUp?.Condition).toContain(`>= ${24 * 3_600_000 - 15 * 60_000}`);
    expect(due?.Next).toBe('Continue in a new execution');
    expect(due?.Condition).toContain(`$loops >= ${LOOPS_PER_EXECUTION}`);
    expect(due?.Condition).toContain(`>= ${23 * 3_600_000}`);
    expect(
      definition({ maxDrainDuration: Duration.hours(6) }).States['Continue in a new execution?']?.Choices?.[1]
        ?.Condition,
    ).toContain(`>= ${5 * 3_600_000}`);
    const chain = state('Continue in a new execution');
    expect(chain.Resource).toMatch(/:states:::aws-sdk:sfn:startExecution$/);
    expect(chain.Arguments).toMatchObject({ StateMachineArn: '{% $states.context.StateMachine.Id %}' });
    expect(chain.Next).toBe('Continued in a new execution');
    // Started already (an answer lost): continued all the same; any other failure: tried again next loop.
    expect(chain.Catch?.map((c) => [c.ErrorEquals, c.Next])).toEqual([
      [['Sfn.ExecutionAlreadyExistsException', 'Sfn.ExecutionAlreadyExists'], 'Continued in a new execution'],
      [['States.ALL'], 'Heartbeat due?'],
    ]);
    // The chained execution resumes: the Start state takes the predecessor's last step and heartbeat.
    expect(state('Start drain').Assign).toMatchObject({
      step: '{% $exists($states.input.resume) ? $states.input.resume : {} %}',
    });
  });

  it('should branch on exactly the outcomes of the contract, ending the drain on every one but continue, and on any other', () => {
    expect([...STEP_OUTCOMES].sort()).toEqual([...DrainStepOutputSchema.shape.outcome.options].sort());
    const choices = state('Drain outcome?').Choices ?? [];
    expect(choices.map((c) => /'([\w-]+)'/.exec(c.Condition)?.[1]).sort()).toEqual([...STEP_OUTCOMES].sort());
    for (const outcome of STEP_OUTCOMES.filter((o) => o !== 'continue')) {
      const choice = choices.find((c) => c.Condition === `{% $step.outcome = '${outcome}' %}`);
      expect(choice, outcome).toMatchObject({ Next: 'Lifecycle hook?', Assign: { outcome } });
    }
    expect(state('Drain outcome?').Default).toBe('Unexpected outcome');
    expect(state('Unexpected outcome')).toMatchObject({
      Type: 'Pass',
      Assign: { outcome: 'unexpected' },
      Next: 'Lifecycle hook?',
    });
  });

  it('should send the drain step the DrainStepInput of the contract', () => {
    const drainStep = state('Drain step');
    expect(drainStep.Resource).toMatch(/:states:::lambda:invoke$/);
    const payload = (drainStep.Arguments as { Payload: string }).Payload;
    const keys = [...payload.matchAll(/'(\w+)':/g)].map((m) => m[1]);
    expect(keys.sort()).toEqual(Object.keys(DrainStepInputSchema.shape).sort());
    expect(drainStep.Assign).toEqual({
      step: '{% $states.result.Payload %}',
      failures: 0,
      // A heartbeat the step recorded at its start counts: the workflow's next one is due from then.
      heartbeatAt:
        '{% $exists($states.result.Payload.heartbeatAt) ? $toMillis($states.result.Payload.heartbeatAt) : $heartbeatAt %}',
    });
    // The step heartbeats the drain's lifecycle action: the one handed over on the Node first.
    expect(payload).toContain(`'lifecycle': ${LIFECYCLE}`);
  });

  it('should retry a failing drain step with backoff until the deadline, then end it at the deadline', () => {
    const drainStep = state('Drain step');
    const retried = (drainStep.Retry ?? []).flatMap((r) => r.ErrorEquals);
    expect(retried).toEqual(
      expect.arrayContaining(['Lambda.ServiceException', 'Lambda.TooManyRequestsException', 'States.TaskFailed']),
    );
    expect(drainStep.Catch?.at(-1)).toEqual({
      ErrorEquals: ['States.ALL'],
      Next: 'Deadline passed?',
      Assign: {
        failure: '{% $states.errorOutput %}',
        failures: '{% $failures + 1 %}',
        waitFor: expect.stringContaining('$power(2, $min([$failures, 10]))') as unknown,
      },
    });
    const deadline = state('Deadline passed?');
    expect(deadline.Choices).toEqual([
      {
        Condition: '{% $millis() >= $toMillis($exists($step.deadline) ? $step.deadline : $input.deadline) %}',
        Next: 'Lifecycle hook?',
        Assign: { outcome: 'deadline' },
      },
    ]);
    expect(deadline.Default).toBe('Continue in a new execution?');
  });

  it('should end the drain at once on a permanent failure, never retrying it', () => {
    const drainStep = state('Drain step');
    expect(drainStep.Retry?.[0]).toEqual({ ErrorEquals: [PERMANENT_STEP_ERROR], MaxAttempts: 0 });
    expect(drainStep.Catch?.find((c) => c.ErrorEquals.includes(PERMANENT_STEP_ERROR))).toEqual({
      ErrorEquals: [PERMANENT_STEP_ERROR],
      Next: 'Lifecycle hook?',
      Assign: { outcome: 'error', failure: '{% $states.errorOutput %}' },
    });
  });

  it('should catch a step output over the payload limit (States.DataLimitExceeded, which States.ALL does not match) and still end with the hook completed and Drain Failed', () => {
    const catchers = state('Drain step').Catch ?? [];
    expect(catchers.map((c) => c.ErrorEquals)).toEqual([
      ['States.DataLimitExceeded'],
      [PERMANENT_STEP_ERROR],
      ['States.ALL'],
    ]);
    expect(catchers[0]).toEqual({
      ErrorEquals: ['States.DataLimitExceeded'],
      Next: 'Lifecycle hook?',
      Assign: { outcome: 'error', failure: '{% $states.errorOutput %}' },
    });
    // A payload error is never retried: the same state would be as large again.
    expect((state('Drain step').Retry ?? []).flatMap((r) => r.ErrorEquals)).not.toContain('States.DataLimitExceeded');
  });

  it('should bound every attempt and retry the ones that never ran the handler briefly, before States.TaskFailed (which matches them too)', () => {
    const drainStep = state('Drain step');
    expect(drainStep.TimeoutSeconds).toBe(70);
    expect(definition({ drainStepTimeout: Duration.minutes(2) }).States['Drain step']?.TimeoutSeconds).toBe(130);
    const [permanent, service, handler, ...rest] = drainStep.Retry ?? [];
    expect(permanent?.MaxAttempts).toBe(0);
    expect(rest).toEqual([]);
    expect(service).toEqual({
      ErrorEquals: [...LAMBDA_SERVICE_ERRORS],
      IntervalSeconds: 1,
      MaxAttempts: 6,
      BackoffRate: 2,
      MaxDelaySeconds: 20,
    });
    expect(handler).toEqual({
      ErrorEquals: ['States.TaskFailed', 'States.Timeout'],
      IntervalSeconds: 5,
      MaxAttempts: 2,
      BackoffRate: 2,
    });
  });

  it('should compute the worst gap between lifecycle heartbeats from the rendered step task: 70 s attempt + 10 s retry delay + 51 s of service retries + 5 s', () => {
    const { workflow } = build();
    expect(workflow.heartbeatGap).toEqual({
      seconds: 136,
      attemptSeconds: 70,
      handlerRetryDelaySeconds: 10,
      serviceRetrySeconds: 51,
    });
    // Half of a 300 s hook timeout holds.
    expect(workflow.heartbeatGap.seconds).toBeLessThanOrEqual(150);
    // A longer heartbeat interval dominates the gap; a longer function timeout lengthens it.
    expect(build({ heartbeatInterval: Duration.minutes(5) }).workflow.heartbeatGap.seconds).toBe(300 + 51 + 5);
    expect(build({ drainStepTimeout: Duration.minutes(2) }).workflow.heartbeatGap.seconds).toBe(130 + 10 + 51 + 5);
  });

  it('should refuse to compute a gap for a step task without a bound or with a service retrier behind States.TaskFailed', () => {
    const retrier = { ErrorEquals: ['States.TaskFailed'], IntervalSeconds: 5 };
    const service = { ErrorEquals: [...LAMBDA_SERVICE_ERRORS] };
    expect(() =>
      worstHeartbeatGap({ stepTask: { Retry: [service, retrier] }, heartbeatIntervalSeconds: 60, maxWaitSeconds: 60 }),
    ).toThrow(/no TimeoutSeconds/);
    expect(() =>
      worstHeartbeatGap({
        stepTask: { Retry: [retrier, service], TimeoutSeconds: 70 },
        heartbeatIntervalSeconds: 60,
        maxWaitSeconds: 60,
      }),
    ).toThrow(/ahead of States.TaskFailed/);
    expect(() =>
      worstHeartbeatGap({
        stepTask: { Retry: [retrier], TimeoutSeconds: 70 },
        heartbeatIntervalSeconds: 60,
        maxWaitSeconds: 60,
      }),
    ).toThrow(/ahead of States.TaskFailed/);
    // ASL's defaults: 1 s, 3 attempts, rate 2 → 7 s.
    expect(
      worstHeartbeatGap({
        stepTask: { Retry: [service], TimeoutSeconds: 10 },
        heartbeatIntervalSeconds: 10,
        maxWaitSeconds: 10,
      }).serviceRetrySeconds,
    ).toBe(7);
  });

  it('should heartbeat only for a lifecycle drain and only when the last heartbeat would be an interval old by the end of the wait', () => {
    const [due] = state('Heartbeat due?').Choices ?? [];
    expect(due?.Next).toBe('Record lifecycle heartbeat');
    expect(due?.Condition).toContain(`$exists(${LIFECYCLE})`);
    expect(due?.Condition).toContain(
      `($millis() - $heartbeatAt + $min([$waitFor, ${MAX_WAIT_SECONDS}]) * 1000) >= 60000`,
    );
    const [slower] = definition({ heartbeatInterval: Duration.minutes(5) }).States['Heartbeat due?']?.Choices ?? [];
    expect(slower?.Condition).toContain('>= 300000');
    // A failed heartbeat does not stop the drain.
    expect(state('Record lifecycle heartbeat').Catch).toEqual([
      expect.objectContaining({ ErrorEquals: ['States.ALL'], Next: 'Wait' }),
    ]);
  });

  it('should call the lifecycle APIs directly, by token when there is one, else by instance id', () => {
    const heartbeat = state('Record lifecycle heartbeat');
    const complete = state('Complete lifecycle action');
    expect(heartbeat.Resource).toMatch(/:states:::aws-sdk:autoscaling:recordLifecycleActionHeartbeat$/);
    expect(complete.Resource).toMatch(/:states:::aws-sdk:autoscaling:completeLifecycleAction$/);
    for (const call of [heartbeat, complete]) {
      const args = String(call.Arguments);
      expect(args).toContain(
        `$exists(${LIFECYCLE}.token) ? {'LifecycleActionToken': ${LIFECYCLE}.token} : {'InstanceId': $input.instanceId}`,
      );
      expect(args).toContain(`'AutoScalingGroupName': ${LIFECYCLE}.group`);
      expect(args).toContain(`'LifecycleHookName': ${LIFECYCLE}.hook`);
    }
    // The step's lifecycle (one handed over on the Node) before the input's.
    expect(LIFECYCLE).toBe('($exists($step.lifecycle) ? $step.lifecycle : $input.lifecycle)');
    expect(String(complete.Arguments)).toContain("'LifecycleActionResult': 'CONTINUE'");
    expect(String(heartbeat.Arguments)).not.toContain('LifecycleActionResult');
  });

  it('should complete the lifecycle action at every end but an operator’s uncordon, and report even when completing fails', () => {
    const hook = state('Lifecycle hook?');
    expect(hook.Choices).toEqual([
      {
        Condition: `{% $exists(${LIFECYCLE}) and $not($outcome = 'cancelled-by-uncordon') %}`,
        Next: 'Complete lifecycle action',
      },
    ]);
    expect(hook.Default).toBe('Report outcome');
    expect(state('Complete lifecycle action').Next).toBe('Record lifecycle completed');
    // Completing is retried, then the failure is caught: the event says why, and the execution fails.
    expect(state('Complete lifecycle action').Retry).toEqual([
      expect.objectContaining({ ErrorEquals: ['States.ALL'], MaxAttempts: 3 }),
    ]);
    expect(state('Complete lifecycle action').Catch).toEqual([
      expect.objectContaining({
        Next: 'Report outcome',
        Assign: { lifecycleCompleted: false, lifecycleError: '{% $states.errorOutput %}' },
      }),
    ]);
  });

  it('should have the drain-step function tell the Node of a completed lifecycle action, without the token, and report whatever comes of it', () => {
    const notice = state('Record lifecycle completed');
    expect(notice.Resource).toMatch(/:states:::lambda:invoke$/);
    const payload = (notice.Arguments as { Payload: string }).Payload;
    expect(payload).toBe(LIFECYCLE_NOTICE_PAYLOAD);
    expect(payload).not.toContain('token');
    expect(notice.TimeoutSeconds).toBe(60);
    expect(notice.Next).toBe('Report outcome');
    expect(notice.Catch).toEqual([expect.objectContaining({ ErrorEquals: ['States.ALL'], Next: 'Report outcome' })]);
    // The payload is the contract's notice, whatever the drain's lifecycle action and outcome.
    const sample = {
      notice: LIFECYCLE_COMPLETED_NOTICE,
      input: { cluster: 'c', node: 'n', nodeUid: 'u', deadline: '2026-11-29T12:00:00Z', reason: 'r', cause: 'c' },
      lifecycle: { group: 'g', hook: 'h' },
      outcome: 'error',
    };
    expect(DrainNoticeSchema.safeParse(sample).success).toBe(true);
    expect(payload).toContain(`'notice': '${LIFECYCLE_COMPLETED_NOTICE}'`);
  });

  it('should end with an output event of the contract: Node Drained at done, Drain Failed otherwise', () => {
    for (const name of ['Report outcome']) {
      const report = state(name);
      expect(report.Resource).toMatch(/:states:::events:putEvents$/);
      const [entry] = (report.Arguments as { Entries: { Source: string; DetailType: string; Detail: string }[] })
        .Entries;
      expect(entry?.Source).toBe(OUTPUT_EVENT_SOURCE);
      const ternary = /\? '([^']+)' : '([^']+)'/.exec(entry?.DetailType ?? '');
      for (const type of ternary ? ternary.slice(1) : [entry?.DetailType]) expect(OUTPUT_DETAIL_TYPES).toContain(type);
      // The lifecycle token authorises completing the action: it stays out of events.
      expect(entry?.Detail).not.toContain('token');
    }
    expect(state('Report outcome').Next).toBe('Drained?');
    expect(state('Drained?')).toMatchObject({
      Choices: [{ Condition: "{% $outcome = 'done' and $lifecycleError = null %}", Next: 'Drained' }],
      Default: 'Not drained',
    });
    expect(state('Not drained').Error).toContain(`$outcome = 'done' ? '${LIFECYCLE_NOT_COMPLETED}'`);
  });

  it('should say in the output event how the drain ended, and give the command that completes a lifecycle action left open', () => {
    const [entry] = (state('Report outcome').Arguments as { Entries: { Detail: string }[] }).Entries;
    const detail = entry?.Detail ?? '';
    expect(detail).toContain("'outcome': $outcome");
    expect(detail).toContain("'completed': $lifecycleCompleted");
    expect(detail).toContain("'error': $lifecycleError ? $lifecycleError");
    expect(detail).toContain(
      `'completeWith': $lifecycleCompleted = false ? 'aws autoscaling complete-lifecycle-action --auto-scaling-group-name ' & ${LIFECYCLE}.group & ' --lifecycle-hook-name ' & ${LIFECYCLE}.hook & ' --instance-id ' & $input.instanceId & ' --lifecycle-action-result CONTINUE'`,
    );
    expect(detail).toContain("'deadline': $exists($step.deadline) ? $step.deadline : $input.deadline");
  });

  it('should read only variables the first state assigns', () => {
    const assigned = new Set(Object.keys(state('Start drain').Assign ?? {}));
    const all = expressions(STATES);
    const used = new Set(
      all.flatMap((e) => [...e.replace(/'[^']*'/g, '').matchAll(/\$(\w+)(?!\w*\()/g)].map((m) => m[1] ?? '')),
    );
    used.delete('states');
    expect([...used].filter((v) => !assigned.has(v))).toEqual([]);
    // Every assignment elsewhere writes one of them, so no state sees a variable appear mid-way.
    const writes = Object.values(STATES).flatMap((s) => [
      s.Assign,
      ...(s.Choices ?? []).map((c) => c.Assign),
      ...(s.Catch ?? []).map((c) => c.Assign),
    ]);
    for (const assign of writes) for (const key of Object.keys(assign ?? {})) expect(assigned).toContain(key);
  });

  it('should have balanced brackets and quotes in every JSONata expression', () => {
    for (const expression of expressions(STATES)) {
      const stripped = expression.replace(/'[^']*'/g, "''");
      expect(stripped.split("'").length % 2, expression).toBe(1);
      const stack: string[] = [];
      const pairs: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
      for (const ch of stripped) {
        if ('([{'.includes(ch)) stack.push(ch);
        else if (ch in pairs) expect(stack.pop(), expression).toBe(pairs[ch]);
      }
      expect(stack, expression).toEqual([]);
    }
  });
});
