// The ASL interpreter on small definitions, each about one rule of the Step Functions Developer
// Guide (JSONata states, variables, error handling, timeouts, the payload quota).
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { runToCompletion, startExecution, StatesError, type TaskHandlers } from '../../src/sfn/index.js';

const START = Date.UTC(2026, 10, 29, 12);
const LAMBDA = 'arn:aws:states:::lambda:invoke';

type States = Record<string, Record<string, unknown>>;
const machine = (states: States, extra: Record<string, unknown> = {}) => ({
  QueryLanguage: 'JSONata',
  StartAt: Object.keys(states)[0],
  States: states,
  ...extra,
});

async function run(
  definition: unknown,
  tasks: TaskHandlers = {},
  input: unknown = {},
  options: { random?: () => number } = {},
) {
  const clock = new VirtualClock(START);
  const execution = startExecution({ definition, input, clock, tasks, name: 'e1', random: options.random });
  const result = await runToCompletion(execution, clock);
  return {
    result,
    execution,
    clock,
    at: (type: string, stateName?: string) =>
      execution.history
        .filter((e) => e.type === type && (stateName === undefined || e.stateName === stateName))
        .map((e) => (e.timestamp - START) / 1000),
  };
}

/** A lambda:invoke handler answering from a script, one entry per call: a payload, or an error to throw. */
function scripted(...answers: unknown[]): TaskHandlers['lambdaInvoke'] & { calls: unknown[] } {
  const calls: unknown[] = [];
  const handler = async (args: unknown) => {
    calls.push(args);
    const answer = answers.length > 1 ? answers.shift() : answers[0];
    if (answer instanceof StatesError) throw answer;
    return Promise.resolve(answer);
  };
  return Object.assign(handler, { calls });
}

describe('states and data flow', () => {
  it('should pass data through Pass, Assign and Output, with Output seeing the variables as they were', async () => {
    const { result } = await run(
      machine({
        First: {
          Type: 'Pass',
          Assign: { n: '{% $states.input.n + 1 %}' },
          Output: { seen: '{% $exists($n) %}' },
          Next: 'Second',
        },
        Second: { Type: 'Pass', Output: '{% {"n": $n, "before": $states.input.seen} %}', End: true },
      }),
      {},
      { n: 1 },
    );
    expect(result).toMatchObject({ status: 'SUCCEEDED', output: { n: 2, before: false } });
  });

  it('should take the first Choice rule that holds, with its Assign, else the Default', async () => {
    const definition = machine({
      Pick: {
        Type: 'Choice',
        Choices: [
          { Condition: '{% $states.input.size > 10 %}', Next: 'Big', Assign: { label: 'big' } },
          { Condition: '{% $states.input.size > 5 %}', Next: 'Big', Assign: { label: 'medium' } },
        ],
        Default: 'Small',
      },
      Big: { Type: 'Succeed', Output: '{% $label %}' },
      Small: { Type: 'Succeed', Output: 'small' },
    });
    expect((await run(definition, {}, { size: 7 })).result.output).toBe('medium');
    expect((await run(definition, {}, { size: 1 })).result.output).toBe('small');
  });

  it('should fail with States.NoChoiceMatched without a Default, and States.QueryEvaluationError for a non-boolean condition', async () => {
    const noDefault = machine({
      Pick: { Type: 'Choice', Choices: [{ Condition: '{% false %}', Next: 'End' }] },
      End: { Type: 'Succeed' },
    });
    expect((await run(noDefault)).result).toMatchObject({ status: 'FAILED', error: 'States.NoChoiceMatched' });
    const notBoolean = machine({
      Pick: { Type: 'Choice', Choices: [{ Condition: '{% "yes" %}', Next: 'End' }] },
      End: { Type: 'Succeed' },
    });
    expect((await run(notBoolean)).result).toMatchObject({ status: 'FAILED', error: 'States.QueryEvaluationError' });
  });

  it('should end a Fail state with its Error and Cause, expressions allowed', async () => {
    const { result } = await run(
      machine({ Stop: { Type: 'Fail', Error: 'Custom', Cause: '{% "because " & $states.input.why %}' } }),
      {},
      { why: 'x' },
    );
    expect(result).toMatchObject({ status: 'FAILED', error: 'Custom', cause: 'because x' });
  });

  it('should fail with States.QueryEvaluationError when a field evaluates to nothing', async () => {
    const { result } = await run(
      machine({ P: { Type: 'Pass', Output: { missing: '{% $states.input.nope %}' }, End: true } }),
    );
    expect(result).toMatchObject({ status: 'FAILED', error: 'States.QueryEvaluationError' });
    expect(result.cause).toMatch(/Output\/missing/);
  });

  it('should expose the context object: execution id, name, start time and state entry time', async () => {
    const { result, execution } = await run(
      machine({
        W: { Type: 'Wait', Seconds: 5, Next: 'P' },
        P: {
          Type: 'Pass',
          Output:
            '{% [$states.context.Execution.Id, $states.context.Execution.Name, $states.context.Execution.StartTime, $states.context.State.EnteredTime] %}',
          End: true,
        },
      }),
    );
    expect(result.output).toEqual([
      execution.arn,
      'e1',
      new Date(START).toISOString(),
      new Date(START + 5000).toISOString(),
    ]);
    expect(execution.arn).toBe('arn:aws:states:us-east-1:123456789012:execution:sandbox:e1');
  });
});

describe('time on the virtual clock', () => {
  it('should wait Seconds and until a Timestamp, with $millis() following the clock', async () => {
    const { result, at } = await run(
      machine({
        A: { Type: 'Wait', Seconds: '{% $states.input.s %}', Next: 'B' },
        B: { Type: 'Wait', Timestamp: new Date(START + 90_000).toISOString(), Next: 'C' },
        C: { Type: 'Pass', Output: '{% $millis() %}', End: true },
      }),
      {},
      { s: 30 },
    );
    expect(at('WaitStateExited')).toEqual([30, 90]);
    expect(result).toMatchObject({ status: 'SUCCEEDED', output: START + 90_000 });
  });

  it('should refuse a negative or fractional Seconds', async () => {
    const { result } = await run(machine({ A: { Type: 'Wait', Seconds: '{% -1 %}', End: true } }));
    expect(result).toMatchObject({ status: 'FAILED', error: 'States.QueryEvaluationError' });
  });

  it('should end the execution TIMED_OUT at the state machine’s TimeoutSeconds', async () => {
    const { result } = await run(machine({ A: { Type: 'Wait', Seconds: 600, End: true } }, { TimeoutSeconds: 60 }));
    expect(result).toMatchObject({ status: 'TIMED_OUT', error: 'States.Timeout' });
    expect(result.stopDate - START).toBe(60_000);
  });

  it('should time a task out after its TimeoutSeconds, abort it, and not let States.TaskFailed catch the timeout', async () => {
    let aborted = false;
    const slow: TaskHandlers = {
      lambdaInvoke: async (_args, ctx) => {
        ctx.signal.addEventListener('abort', () => (aborted = true));
        await ctx.sleep(120_000);
        return 'late';
      },
    };
    const definition = machine({
      T: {
        Type: 'Task',
        Resource: LAMBDA,
        Arguments: { FunctionName: 'f' },
        TimeoutSeconds: 30,
        Catch: [{ ErrorEquals: ['States.TaskFailed'], Next: 'Caught' }],
        End: true,
      },
      Caught: { Type: 'Succeed' },
    });
    const { result, at } = await run(definition, slow);
    expect(result).toMatchObject({ status: 'FAILED', error: 'States.Timeout' });
    expect(at('TaskTimedOut')).toEqual([30]);
    expect(aborted).toBe(true);
  });
});

describe('tasks, Retry and Catch', () => {
  it('should wrap a lambda:invoke answer as the optimized integration does', async () => {
    const handler = scripted({ ok: true });
    const { result } = await run(
      machine({
        T: {
          Type: 'Task',
          Resource: LAMBDA,
          Arguments: { FunctionName: 'f', Payload: '{% $states.input %}' },
          Output: '{% $states.result %}',
          End: true,
        },
      }),
      { lambdaInvoke: handler },
      { x: 1 },
    );
    expect(handler.calls).toEqual([{ FunctionName: 'f', Payload: { x: 1 } }]);
    expect(result.output).toMatchObject({ Payload: { ok: true }, StatusCode: 200, ExecutedVersion: '$LATEST' });
  });

  it('should retry at IntervalSeconds × BackoffRate^n, capped by MaxDelaySeconds, then succeed', async () => {
    const handler = scripted(
      new StatesError('Lambda.ServiceException', 'x'),
      new StatesError('Lambda.ServiceException', 'x'),
      new StatesError('Lambda.ServiceException', 'x'),
      'ok',
    );
    const definition = machine({
      T: {
        Type: 'Task',
        Resource: LAMBDA,
        Arguments: { FunctionName: 'f' },
        Retry: [
          {
            ErrorEquals: ['Lambda.ServiceException'],
            IntervalSeconds: 2,
            BackoffRate: 3,
            MaxDelaySeconds: 10,
            MaxAttempts: 3,
          },
        ],
        End: true,
      },
    });
    const { result, at } = await run(definition, { lambdaInvoke: handler });
    expect(result.status).toBe('SUCCEEDED');
    // 2 s, then 6 s, then 18 s capped at 10 s.
    expect(at('TaskScheduled')).toEqual([0, 2, 8, 18]);
  });

  it('should draw FULL jitter from the injected random source', async () => {
    const handler = scripted(new StatesError('E', 'x'), 'ok');
    const definition = machine({
      T: {
        Type: 'Task',
        Resource: LAMBDA,
        Arguments: { FunctionName: 'f' },
        Retry: [{ ErrorEquals: ['E'], IntervalSeconds: 10, JitterStrategy: 'FULL' }],
        End: true,
      },
    });
    const { at } = await run(definition, { lambdaInvoke: handler }, {}, { random: () => 0.25 });
    expect(at('TaskScheduled')).toEqual([0, 2.5]);
  });

  it('should hand an error to Catch once its retrier is spent, with $states.errorOutput for Assign and Output', async () => {
    const handler = scripted(new StatesError('Boom', 'the cause'));
    const definition = machine({
      T: {
        Type: 'Task',
        Resource: LAMBDA,
        Arguments: { FunctionName: 'f' },
        Retry: [
          { ErrorEquals: ['States.TaskFailed'], MaxAttempts: 2, IntervalSeconds: 1 },
          { ErrorEquals: ['States.ALL'], MaxAttempts: 5 },
        ],
        Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Handle', Assign: { failure: '{% $states.errorOutput %}' } }],
        End: true,
      },
      Handle: { Type: 'Pass', Output: '{% {"failure": $failure, "input": $states.input} %}', End: true },
    });
    const { result } = await run(definition, { lambdaInvoke: handler });
    // The first matching retrier decides, even when spent: the States.ALL one is never used.
    expect(handler.calls).toHaveLength(3);
    expect(result.output).toEqual({
      failure: { Error: 'Boom', Cause: 'the cause' },
      input: { Error: 'Boom', Cause: 'the cause' },
    });
  });

  it('should let States.ALL catch States.QueryEvaluationError from Arguments', async () => {
    const definition = machine({
      T: {
        Type: 'Task',
        Resource: LAMBDA,
        Arguments: { FunctionName: '{% $nothing %}' },
        Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Caught' }],
        End: true,
      },
      Caught: { Type: 'Succeed' },
    });
    const { result } = await run(definition, { lambdaInvoke: scripted('never') });
    expect(result).toMatchObject({ status: 'SUCCEEDED', output: { Error: 'States.QueryEvaluationError' } });
  });

  it('should fail the execution with States.DataLimitExceeded for a result over 256 KiB, past a States.ALL catcher', async () => {
    const definition = machine({
      T: {
        Type: 'Task',
        Resource: LAMBDA,
        Arguments: { FunctionName: 'f' },
        Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Caught' }],
        End: true,
      },
      Caught: { Type: 'Succeed' },
    });
    const big = { blob: 'x'.repeat(256 * 1024) };
    expect((await run(definition, { lambdaInvoke: scripted(big) })).result).toMatchObject({
      status: 'FAILED',
      error: 'States.DataLimitExceeded',
    });
    const small = { blob: 'x'.repeat(1024) };
    expect((await run(definition, { lambdaInvoke: scripted(small) })).result.status).toBe('SUCCEEDED');
  });

  it('should route aws-sdk and events:putEvents tasks, failing a PutEvents with failed entries', async () => {
    const sdkCalls: unknown[] = [];
    const tasks: TaskHandlers = {
      awsSdk: (call) => {
        sdkCalls.push(call);
        return Promise.resolve({});
      },
      putEvents: () => Promise.resolve({ Entries: [{ ErrorCode: 'InternalFailure' }], FailedEntryCount: 1 }),
    };
    const definition = machine({
      Sdk: {
        Type: 'Task',
        Resource: 'arn:aws:states:::aws-sdk:autoscaling:completeLifecycleAction',
        Arguments: { InstanceId: 'i-1' },
        Next: 'Put',
      },
      Put: {
        Type: 'Task',
        Resource: 'arn:aws:states:::events:putEvents',
        Arguments: { Entries: [{ Source: 's' }] },
        End: true,
      },
    });
    const { result } = await run(definition, tasks);
    expect(sdkCalls).toEqual([
      { service: 'autoscaling', action: 'completeLifecycleAction', parameters: { InstanceId: 'i-1' } },
    ]);
    expect(result).toMatchObject({ status: 'FAILED', error: 'EventBridge.FailedEntry' });
  });

  it('should record the history of a task: entered, then scheduled, started and how it ended for each attempt, exited', async () => {
    const handler = scripted(new StatesError('E', 'x'), 'ok');
    const { execution } = await run(
      machine({
        T: {
          Type: 'Task',
          Resource: LAMBDA,
          Arguments: { FunctionName: 'f' },
          Retry: [{ ErrorEquals: ['E'] }],
          End: true,
        },
      }),
      { lambdaInvoke: handler },
    );
    expect(execution.history.map((e) => e.type)).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      // Three events an attempt, as Step Functions counts them against the history quota.
      'TaskScheduled',
      'TaskStarted',
      'TaskFailed',
      'TaskScheduled',
      'TaskStarted',
      'TaskSucceeded',
      'TaskStateExited',
      'ExecutionSucceeded',
    ]);
  });

  it('should end ABORTED when stopped while waiting', async () => {
    const clock = new VirtualClock(START);
    const execution = startExecution({
      definition: machine({ W: { Type: 'Wait', Seconds: 60, End: true } }),
      clock,
      tasks: {},
    });
    await execution.idle();
    execution.stop('Operator', 'stopped by hand');
    expect(await execution.result()).toMatchObject({ status: 'ABORTED', error: 'Operator' });
  });
});

describe('definitions the interpreter refuses', () => {
  const refuse = (definition: unknown) => () =>
    startExecution({ definition, clock: new VirtualClock(START), tasks: {} });

  it('should refuse JSONPath definitions, Parallel and Map states, unknown resources and dangling transitions', () => {
    expect(refuse({ StartAt: 'P', States: { P: { Type: 'Pass', End: true } } })).toThrow(/JSONata/);
    expect(refuse(machine({ P: { Type: 'Parallel', Branches: [], End: true } }))).toThrow(
      /Parallel states are not emulated/,
    );
    expect(refuse(machine({ T: { Type: 'Task', Resource: 'arn:aws:states:::sqs:sendMessage', End: true } }))).toThrow(
      /not emulated/,
    );
    expect(refuse(machine({ P: { Type: 'Pass', Next: 'Nowhere' } }))).toThrow(/does not exist/);
    expect(refuse(machine({ P: { Type: 'Pass', InputPath: '$.x', End: true } }))).toThrow(/InputPath/);
  });
});

describe('the history quota', () => {
  it('should fail an execution when its history reaches 25,000 events, as Step Functions does, whatever it is doing', async () => {
    const { result, execution } = await run(
      machine({
        Tick: { Type: 'Pass', Assign: { n: '{% $exists($n) ? $n + 1 : 1 %}' }, Next: 'Pause' },
        Pause: { Type: 'Wait', Seconds: 1, Next: 'Tick' },
      }),
    );
    expect(result).toMatchObject({ status: 'FAILED', error: 'States.Runtime' });
    expect(result.cause).toMatch(/maximum number of history events \(25000\)/);
    // ExecutionStarted, then 4 events a loop: the quota ends it in the 6,250th loop, plus its own end event.
    expect(execution.history).toHaveLength(25_001);
    expect(execution.history.at(-1)?.type).toBe('ExecutionFailed');
  });
});
