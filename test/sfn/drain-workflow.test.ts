// The interpreter running the drain workflow exactly as `cdk synth` writes it (read from the
// synthesized template, ARNs resolved), with stub tasks: each terminal state is reached, every end
// but an operator's uncordon completes the lifecycle action (the one handed over on the Node first),
// and no gap between lifecycle heartbeats exceeds the worst case the construct computes, retries
// included (issue #15 found gaps over 150 s, half the 300 s hook timeout the README advised).
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { toInstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import {
  runToCompletion,
  startExecution,
  StatesError,
  type TaskHandlers,
} from '@ec2-node-reconciler/sandbox/sfn/index.js';
import {
  chainExecutionName,
  isDrainNotice,
  LIFECYCLE_COMPLETED_NOTICE,
  type DrainStepOutput,
  type DrainWorkflowInput,
} from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import { HEARTBEAT_START_SECONDS } from '../../infra/heartbeat-gap.js';
import {
  CHAIN_RETRY_LOOPS,
  END_HISTORY_EVENTS,
  LOOPS_PER_EXECUTION,
  MAX_HISTORY_EVENTS_PER_LOOP,
} from '../../infra/drain-workflow.js';
import { HISTORY_EVENT_LIMIT } from '@ec2-node-reconciler/sandbox/sfn/interpreter.js';
import { byLogicalId, deployedStack } from '@ec2-node-reconciler/sandbox/test/support/deployment.js';
import { aDrainSummary } from '../support/world.js';

const START = Date.UTC(2026, 10, 29, 12);
const { deployment } = await deployedStack();
const machine = byLogicalId(deployment.stateMachines, 'ReconcilerDrainWorkflowStateMachine');
const drainStep = byLogicalId(deployment.functions, 'ReconcilerFunctionsDrainStep');

const INPUT: DrainWorkflowInput = {
  cluster: 'demo',
  node: 'ip-10-0-1-1.ec2.internal',
  nodeUid: 'uid-1',
  instanceId: toInstanceId('i-0123456789abcdef0'),
  deadline: new Date(START + 3_600_000).toISOString(),
  reason: 'ASG scale-in',
  cause: 'event-1',
  lifecycle: { group: 'eks-ng-1', hook: 'drain', token: 'token-1' },
};

const SUMMARY = aDrainSummary({ evicted: 3, skipped: 1 });

const step = (
  outcome: DrainStepOutput['outcome'],
  waitSeconds = 30,
  over: Partial<DrainStepOutput> = {},
): DrainStepOutput => ({
  outcome,
  waitSeconds,
  state: { round: 1 },
  deadline: INPUT.deadline,
  summary: outcome === 'done' ? SUMMARY : { ...SUMMARY, left: 2, leftByReason: { 'blocked-by-pdb': 2 } },
  ...over,
});

interface Stubs {
  readonly tasks: TaskHandlers;
  /** Lifecycle calls: the workflow's (`by: 'workflow'`) and the heartbeats the drain step records at its start (`by: 'step'`). */
  readonly sdk: { action: string; at: number; parameters: unknown; by: 'workflow' | 'step' }[];
  readonly events: { detailType: string; detail: Record<string, unknown> }[];
  readonly steps: unknown[];
  /** The notices the workflow sent the drain-step function (LifecycleActionCompleted on the Node). */
  readonly notices: unknown[];
  /** StartExecution calls of the workflow continuing itself in a chained execution. */
  readonly chains: { Name: string; Input: DrainWorkflowInput; at: number }[];
}

/** An attempt Lambda refused: the handler never ran (no heartbeat). */
const throttled = (): StatesError => new StatesError('Lambda.TooManyRequestsException', 'Rate Exceeded.');
/** An attempt whose handler ran (and heartbeated) for `seconds`, then failed. */
class Failing {
  constructor(
    readonly seconds: number,
    readonly error = new StatesError('Error', '{"errorMessage":"api server unreachable"}'),
  ) {}
}
type ScriptEntry =
  DrainStepOutput | StatesError | Failing | { outcome: string; waitSeconds: number; state: unknown; summary: unknown };

/**
 * Tasks that answer like the real services: the drain step from a script (a step may take virtual
 * time). Like functions/drain-step.ts, an attempt whose handler runs records the lifecycle heartbeat
 * of its payload at its start and says so (`heartbeatAt`); a Lambda service error never ran it.
 */
function stubs(clock: VirtualClock, script: readonly ScriptEntry[], stepSeconds = 0): Stubs {
  const sdk: Stubs['sdk'] = [];
  const events: Stubs['events'] = [];
  const steps: unknown[] = [];
  const notices: unknown[] = [];
  const chains: Stubs['chains'] = [];
  let index = 0;
  const tasks: TaskHandlers = {
    lambdaInvoke: async (args, ctx) => {
      expect(args.FunctionName).toBe(drainStep.arn);
      if (isDrainNotice(args.Payload)) {
        notices.push(args.Payload);
        return { recorded: 'LifecycleActionCompleted' };
      }
      const answer = script[Math.min(index++, script.length - 1)];
      if (answer instanceof StatesError && answer.error.startsWith('Lambda.')) throw answer;
      steps.push(args.Payload);
      const lifecycle = (args.Payload as { lifecycle?: unknown }).lifecycle;
      const startedAt = clock.now();
      if (lifecycle !== undefined)
        sdk.push({ action: 'recordLifecycleActionHeartbeat', at: startedAt, parameters: lifecycle, by: 'step' });
      const seconds = answer instanceof Failing ? answer.seconds : stepSeconds;
      if (seconds > 0) await ctx.sleep(seconds * 1000);
      if (answer instanceof Failing) throw answer.error;
      if (answer instanceof StatesError) throw answer;
      return lifecycle === undefined ? answer : { ...answer, heartbeatAt: new Date(startedAt).toISOString() };
    },
    awsSdk: (call) => {
      if (call.service === 'sfn') {
        expect(call.action).toBe('startExecution');
        const { Name, Input, StateMachineArn } = call.parameters as {
          Name: string;
          Input: string;
          StateMachineArn: string;
        };
        expect(StateMachineArn).toBe(machine.arn);
        chains.push({ Name, Input: JSON.parse(Input) as DrainWorkflowInput, at: clock.now() });
        return Promise.resolve({ ExecutionArn: `${machine.arn}:${Name}`, StartDate: new Date(clock.now()) });
      }
      expect(call.service).toBe('autoscaling');
      sdk.push({ action: call.action, at: clock.now(), parameters: call.parameters, by: 'workflow' });
      return Promise.resolve({});
    },
    putEvents: (args) => {
      // The optimized integration takes Detail as JSON (an object), unlike the PutEvents API's string.
      const { Entries } = args as {
        Entries: { DetailType: string; Detail: Record<string, unknown>; Source: string; EventBusName: string }[];
      };
      for (const entry of Entries) events.push({ detailType: entry.DetailType, detail: entry.Detail });
      return Promise.resolve({ Entries: Entries.map((_, n) => ({ EventId: `ev-${n}` })), FailedEntryCount: 0 });
    },
  };
  return { tasks, sdk, events, steps, notices, chains };
}

type SdkCall = Parameters<NonNullable<TaskHandlers['awsSdk']>>[0];

/** The stubs' tasks with the AWS SDK calls `refuses` picks failing with `error()`; `refused()` counts them. */
function refusingSdk(
  tasks: TaskHandlers,
  refuses: (call: SdkCall) => boolean,
  error: () => StatesError,
): { readonly tasks: TaskHandlers; readonly refused: () => number } {
  const { awsSdk } = tasks;
  if (!awsSdk) throw new Error('the stubs call the lifecycle APIs');
  let refused = 0;
  return {
    tasks: {
      ...tasks,
      awsSdk: async (call, ctx) => {
        if (!refuses(call)) return awsSdk(call, ctx);
        refused++;
        throw error();
      },
    },
    refused: () => refused,
  };
}

async function drain(
  script: Parameters<typeof stubs>[1],
  input: DrainWorkflowInput = INPUT,
  stepSeconds = 0,
  startAt = START,
) {
  const clock = new VirtualClock(startAt);
  const stub = stubs(clock, script, stepSeconds);
  const execution = startExecution({
    definition: machine.definition,
    input,
    clock,
    tasks: stub.tasks,
    stateMachineArn: machine.arn,
    name: input.chain ? `demo-i-0123456789abcdef0-event-1-c${input.chain}` : 'demo-i-0123456789abcdef0-event-1',
  });
  const result = await runToCompletion(execution, clock);
  const states = execution.history.filter((e) => e.type.endsWith('StateEntered')).map((e) => e.stateName);
  const workflow = (action: string) => stub.sdk.filter((c) => c.by === 'workflow' && c.action === action);
  const heartbeats = [
    startAt,
    ...stub.sdk.filter((c) => c.action === 'recordLifecycleActionHeartbeat').map((c) => c.at),
  ];
  const gaps = heartbeats.slice(1).map((at, n) => (at - (heartbeats[n] ?? at)) / 1000);
  return { ...stub, result, execution, states, workflow, maxGap: Math.max(0, ...gaps) };
}

describe('the synthesized drain workflow', () => {
  it('should be valid ASL for asl-validator', () => {
    const require = createRequire(import.meta.url);
    const validate = require('asl-validator') as (definition: unknown) => {
      isValid: boolean;
      errorsText: (separator?: string) => string;
    };
    const verdict = validate(machine.definition);
    expect(verdict.errorsText('\n')).toBe('');
    expect(verdict.isValid).toBe(true);
    // The oracle is not blind: a dangling Next is refused.
    expect(validate({ ...machine.definition, StartAt: 'Nowhere' }).isValid).toBe(false);
  });

  it('should drain, heartbeat at every step, complete the lifecycle action and end Drained', async () => {
    const { result, sdk, events, steps, notices, states, workflow } = await drain([
      step('continue', 40),
      step('continue', 40),
      step('continue', 40),
      step('done'),
    ]);
    expect(result.status).toBe('SUCCEEDED');
    expect(states.at(-1)).toBe('Drained');
    // Steps at 0, 40, 80 and 120 s, each heartbeating at its start: the workflow's own heartbeat
    // (due when the last one would be 60 s old by the end of the wait) is never due.
    expect(sdk.map((c) => [c.by, c.action, (c.at - START) / 1000])).toEqual([
      ['step', 'recordLifecycleActionHeartbeat', 0],
      ['step', 'recordLifecycleActionHeartbeat', 40],
      ['step', 'recordLifecycleActionHeartbeat', 80],
      ['step', 'recordLifecycleActionHeartbeat', 120],
      ['workflow', 'completeLifecycleAction', 120],
    ]);
    expect(workflow('completeLifecycleAction')[0]?.parameters).toEqual({
      AutoScalingGroupName: 'eks-ng-1',
      LifecycleHookName: 'drain',
      LifecycleActionResult: 'CONTINUE',
      LifecycleActionToken: 'token-1',
    });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      detailType: 'Node Drained',
      detail: { outcome: 'done', lifecycle: { group: 'eks-ng-1', hook: 'drain', completed: true } },
    });
    // Once completed, the Node is told (by the drain-step function), before the output event; never the token.
    expect(notices).toEqual([
      {
        notice: LIFECYCLE_COMPLETED_NOTICE,
        input: INPUT,
        lifecycle: { group: 'eks-ng-1', hook: 'drain' },
        outcome: 'done',
      },
    ]);
    expect(states.slice(-5, -1)).toEqual([
      'Complete lifecycle action',
      'Record lifecycle completed',
      'Report outcome',
      'Drained?',
    ]);
    // The step gets the workflow input and the lifecycle action to heartbeat, then the previous step's state.
    expect(steps[0]).toEqual({ input: INPUT, lifecycle: INPUT.lifecycle });
    expect(steps[1]).toEqual({ input: INPUT, state: { round: 1 }, lifecycle: INPUT.lifecycle });
  });

  it('should heartbeat from the workflow while it waits when the step recorded none (its heartbeat call failed)', async () => {
    // A step answer without heartbeatAt: the workflow goes by its own last heartbeat.
    const clock = new VirtualClock(START);
    const stub = stubs(clock, [step('continue', 40), step('continue', 40), step('continue', 40), step('done')]);
    const { lambdaInvoke } = stub.tasks;
    if (!lambdaInvoke) throw new Error('the stubs invoke the drain step');
    const tasks: TaskHandlers = {
      ...stub.tasks,
      lambdaInvoke: async (args, ctx) => {
        const { heartbeatAt: _dropped, ...answer } = (await lambdaInvoke(args, ctx)) as { heartbeatAt?: string };
        return answer;
      },
    };
    const execution = startExecution({
      definition: machine.definition,
      input: INPUT,
      clock,
      tasks,
      stateMachineArn: machine.arn,
      name: 'no-step-heartbeat',
    });
    await runToCompletion(execution, clock);
    // Due after the step at 40 s (40 s old + a 40 s wait ≥ 60 s), and again at 80 s.
    expect(stub.sdk.filter((c) => c.by === 'workflow').map((c) => [c.action, (c.at - START) / 1000])).toEqual([
      ['recordLifecycleActionHeartbeat', 40],
      ['recordLifecycleActionHeartbeat', 80],
      ['completeLifecycleAction', 120],
    ]);
  });

  it('should complete the action and end Deadline passed when the step reports the deadline', async () => {
    const { result, events, workflow, notices } = await drain([step('deadline')]);
    expect(notices).toEqual([expect.objectContaining({ outcome: 'deadline' })]);
    expect(result).toMatchObject({ status: 'FAILED', error: 'DrainDeadlinePassed' });
    expect(workflow('completeLifecycleAction')[0]?.parameters).toEqual(
      expect.objectContaining({ LifecycleActionToken: 'token-1', LifecycleActionResult: 'CONTINUE' }),
    );
    expect(workflow('completeLifecycleAction')).toHaveLength(1);
    expect(events.map((e) => e.detailType)).toEqual(['Drain Failed']);
  });

  it('should drain without lifecycle calls when the drain came from no hook', async () => {
    const { lifecycle: _lifecycle, ...noHook } = INPUT;
    const { result, sdk, events } = await drain([step('continue', 120), step('continue', 120), step('done')], noHook);
    expect(result.status).toBe('SUCCEEDED');
    expect(sdk).toEqual([]);
    expect(events[0]?.detail.lifecycle).toBeUndefined();
  });

  it('should retry a step that keeps failing for a transient reason until the deadline, heartbeating, and only then complete the action', async () => {
    const { result, events, steps, states, workflow, notices, maxGap } = await drain([
      new StatesError('Error', '{"errorMessage":"api server unreachable"}'),
    ]);
    expect(result).toMatchObject({ status: 'FAILED', error: 'DrainDeadlinePassed' });
    expect(notices).toEqual([expect.objectContaining({ outcome: 'deadline' })]);
    // Tried again and again for the hour, with a capped backoff (5, 10, 20, 40, then every 60 s).
    expect(steps.length).toBeGreaterThan(60);
    expect(states).toContain('Deadline passed?');
    const [completion] = workflow('completeLifecycleAction');
    expect(workflow('completeLifecycleAction')).toHaveLength(1);
    expect(completion?.at).toBeGreaterThanOrEqual(Date.parse(INPUT.deadline));
    expect(completion?.parameters).toEqual(expect.objectContaining({ LifecycleActionResult: 'CONTINUE' }));
    expect(events.map((e) => e.detailType)).toEqual(['Drain Failed']);
    expect(events[0]?.detail).toMatchObject({
      outcome: 'deadline',
      error: { Error: 'Error' },
      lifecycle: { completed: true },
    });
    expect(maxGap).toBeLessThanOrEqual(heartbeatGapBound());
  });

  it('should go on after an 80 s outage and end Drained, never completing the action while the step failed', async () => {
    // Each failed attempt takes 2 s; 80 s of them, then the API server is back.
    const outage = Array.from({ length: 12 }, () => new Failing(2));
    const { result, workflow, events } = await drain([...outage, step('continue', 30), step('done')]);
    expect(result.status).toBe('SUCCEEDED');
    expect(workflow('completeLifecycleAction')).toHaveLength(1);
    expect(events[0]).toMatchObject({ detailType: 'Node Drained', detail: { outcome: 'done' } });
    // The last step went on: no failure is reported on a drain that ended well.
    expect(events[0]?.detail.error).toBeUndefined();
  });

  it('should end at once, completing the action, when the step fails permanently (a refused request)', async () => {
    const { result, events, steps, workflow, notices } = await drain([
      new StatesError('DrainStepPermanentError', '{"errorMessage":"PATCH /api/v1/nodes/n: HTTP 403 Forbidden"}'),
    ]);
    expect(result).toMatchObject({ status: 'FAILED', error: 'DrainStepFailed' });
    expect(steps).toHaveLength(1); // never retried
    expect(notices).toEqual([expect.objectContaining({ outcome: 'error' })]);
    expect(workflow('completeLifecycleAction')).toHaveLength(1);
    expect(events[0]?.detail).toMatchObject({ outcome: 'error', error: { Error: 'DrainStepPermanentError' } });
  });

  it('should complete the lifecycle action and report Drain Failed on an outcome the contract does not have', async () => {
    const { result, events, workflow } = await drain([
      { outcome: 'paused', waitSeconds: 5, state: {}, summary: SUMMARY },
    ]);
    expect(result).toMatchObject({ status: 'FAILED', error: 'UnexpectedDrainStepOutcome' });
    expect(workflow('completeLifecycleAction')[0]?.parameters).toEqual(
      expect.objectContaining({ LifecycleActionResult: 'CONTINUE' }),
    );
    expect(events.map((e) => e.detailType)).toEqual(['Drain Failed']);
    expect(events[0]?.detail).toMatchObject({ outcome: 'unexpected', lifecycle: { completed: true } });
  });

  it('should keep trying while Lambda refuses the step (2 minutes of throttling), heartbeating from the workflow, then drain', async () => {
    // 6 refusals a try (the service retrier's), for about two minutes, then the step runs.
    const refusals = Array.from({ length: 6 * 3 }, throttled);
    const { result, steps, workflow, maxGap } = await drain([...refusals, step('continue', 30), step('done')]);
    expect(result.status).toBe('SUCCEEDED');
    expect(steps).toHaveLength(2);
    expect(workflow('recordLifecycleActionHeartbeat').length).toBeGreaterThan(0);
    expect(workflow('completeLifecycleAction')).toHaveLength(1);
    expect(maxGap).toBeLessThanOrEqual(heartbeatGapBound());
  });

  it('should end at the deadline, completing the action, when Lambda refuses the step until then', async () => {
    const { result, events, steps, workflow } = await drain([throttled()]);
    expect(result).toMatchObject({ status: 'FAILED', error: 'DrainDeadlinePassed' });
    expect(steps).toEqual([]); // no attempt ran the handler
    expect(workflow('completeLifecycleAction')).toHaveLength(1);
    expect(workflow('completeLifecycleAction')[0]?.at).toBeGreaterThanOrEqual(Date.parse(INPUT.deadline));
    expect(events.map((e) => e.detailType)).toEqual(['Drain Failed']);
  });

  it('should retry a failing completion, then report why in the event and fail the execution, drained or not', async () => {
    for (const [outcome, error] of [
      ['done', 'LifecycleActionNotCompleted'],
      ['deadline', 'DrainDeadlinePassed'],
    ] as const) {
      const clock = new VirtualClock(START);
      const stub = stubs(clock, [step(outcome)]);
      const { tasks, refused: completions } = refusingSdk(
        stub.tasks,
        (call) => call.action === 'completeLifecycleAction',
        () => new StatesError('AutoScaling.AutoScalingException', 'Rate exceeded'),
      );
      const execution = startExecution({
        definition: machine.definition,
        input: INPUT,
        clock,
        tasks,
        stateMachineArn: machine.arn,
        name: `complete-fails-${outcome}`,
      });
      const result = await runToCompletion(execution, clock);
      expect(completions(), outcome).toBe(4); // one try and three retries
      expect(stub.notices, outcome).toEqual([]); // not completed: nothing to tell the Node
      expect(result, outcome).toMatchObject({ status: 'FAILED', error });
      expect(stub.events, outcome).toHaveLength(1);
      expect(stub.events[0]?.detail.lifecycle, outcome).toEqual({
        group: 'eks-ng-1',
        hook: 'drain',
        completed: false,
        error: { Error: 'AutoScaling.AutoScalingException', Cause: 'Rate exceeded' },
        completeWith: `aws autoscaling complete-lifecycle-action --auto-scaling-group-name eks-ng-1 --lifecycle-hook-name drain --instance-id ${INPUT.instanceId ?? ''} --lifecycle-action-result CONTINUE`,
      });
    }
  });

  it('should leave the lifecycle action open after an operator uncordoned the node, and say so', async () => {
    const { result, sdk, events, notices } = await drain([step('continue', 30), step('cancelled-by-uncordon')]);
    expect(result).toMatchObject({ status: 'FAILED', error: 'DrainCancelledByUncordon' });
    expect(sdk.map((c) => c.action)).not.toContain('completeLifecycleAction');
    expect(notices).toEqual([]);
    expect(events[0]?.detail.lifecycle).toMatchObject({ completed: false });
    expect(events.map((e) => e.detailType)).toEqual(['Drain Failed']);
  });

  it('should end Drained all the same when telling the Node fails (an Event never fails the drain)', async () => {
    const clock = new VirtualClock(START);
    const stub = stubs(clock, [step('done')]);
    const { lambdaInvoke } = stub.tasks;
    if (!lambdaInvoke) throw new Error('the stubs invoke the drain step');
    let notices = 0;
    const tasks: TaskHandlers = {
      ...stub.tasks,
      lambdaInvoke: (args, ctx) => {
        if (!isDrainNotice(args.Payload)) return lambdaInvoke(args, ctx);
        notices++;
        return Promise.reject(new StatesError('Error', '{"errorMessage":"events is forbidden"}'));
      },
    };
    const execution = startExecution({
      definition: machine.definition,
      input: INPUT,
      clock,
      tasks,
      stateMachineArn: machine.arn,
      name: 'notice-fails',
    });
    const result = await runToCompletion(execution, clock);
    expect(notices).toBe(3); // one try and two retries
    expect(result.status).toBe('SUCCEEDED');
    expect(stub.events).toEqual([
      expect.objectContaining({
        detailType: 'Node Drained',
        detail: expect.objectContaining({ outcome: 'done' }) as unknown,
      }),
    ]);
  });

  it('should heartbeat and complete the lifecycle action the Node handed over to the drain, when its input had none', async () => {
    const { lifecycle: _lifecycle, ...noHook } = INPUT;
    const handedOver = { group: 'eks-ng-2', hook: 'late-hook' };
    const { result, sdk, steps, workflow, notices } = await drain(
      [
        step('continue', 70, { lifecycle: handedOver }),
        step('continue', 30, { lifecycle: handedOver }),
        step('done', 30, { lifecycle: handedOver }),
      ],
      noHook,
    );
    expect(result.status).toBe('SUCCEEDED');
    // The first step has nothing to heartbeat; the next ones heartbeat what the Node handed over.
    expect(steps.map((p) => (p as { lifecycle?: unknown }).lifecycle)).toEqual([undefined, handedOver, handedOver]);
    expect(sdk.filter((c) => c.by === 'step').map((c) => (c.at - START) / 1000)).toEqual([60, 90]);
    expect(workflow('completeLifecycleAction')[0]?.parameters).toEqual({
      AutoScalingGroupName: 'eks-ng-2',
      LifecycleHookName: 'late-hook',
      LifecycleActionResult: 'CONTINUE',
      InstanceId: INPUT.instanceId,
    });
    expect(notices).toEqual([expect.objectContaining({ lifecycle: handedOver })]);
  });

  it('should still complete the lifecycle action and report Drain Failed when a step answers over the 256 KiB payload limit', async () => {
    const huge = step('continue', 30, { state: { padding: 'x'.repeat(300 * 1024) } });
    const { result, events, states, workflow } = await drain([huge]);
    expect(states).toContain('Complete lifecycle action');
    expect(workflow('completeLifecycleAction')).toHaveLength(1);
    expect(events.map((e) => e.detailType)).toEqual(['Drain Failed']);
    expect(result.status).toBe('FAILED');
  });

  it('should keep heartbeats within half a 300 s hook timeout while the step is retried (issue #15 measured over 150 s)', async () => {
    // Each step runs 50 s (the function's budget); two fail, then the drain goes on.
    const { result, maxGap } = await drain(
      [new Failing(50), new Failing(50), step('continue', 30), step('continue', 30), step('done')],
      INPUT,
      50,
    );
    expect(result.status).toBe('SUCCEEDED');
    expect(maxGap).toBeLessThanOrEqual(150);
  });

  it('should keep the worst gap the retry budget allows within the computed bound, and that bound under half a 300 s hook timeout', async () => {
    // The worst: an attempt heartbeats at its start, runs into the task's timeout; the longest retry
    // delay; then Lambda refuses the next attempts until the service retrier is spent.
    const { result, maxGap, sdk } = await drain([
      new Failing(1),
      new Failing(3600),
      ...Array.from({ length: 6 }, throttled),
      step('done'),
    ]);
    expect(result.status).toBe('SUCCEEDED');
    const bound = heartbeatGapBound();
    expect(bound).toBeLessThanOrEqual(150);
    expect(maxGap).toBeLessThanOrEqual(bound);
    // The bound is not loose: this path comes within the handler's start allowance of it.
    expect(maxGap).toBeGreaterThanOrEqual(bound - HEARTBEAT_START_SECONDS);
    expect(sdk.filter((c) => c.by === 'step').map((c) => (c.at - START) / 1000)).toEqual([
      0,
      1 + 5,
      1 + 5 + 70 + 10 + 51,
    ]);
  });

  it('should stay within the bound while the workflow waits between steps that heartbeat late in their run', async () => {
    // Long steps with the longest wait: the workflow's own heartbeat covers the wait.
    const { result, maxGap, workflow } = await drain(
      [step('continue', 600), step('continue', 600), step('done')],
      INPUT,
      50,
    );
    expect(result.status).toBe('SUCCEEDED');
    expect(workflow('recordLifecycleActionHeartbeat').length).toBeGreaterThan(0);
    expect(maxGap).toBeLessThanOrEqual(heartbeatGapBound());
  });

  it('should continue a 2-day PDB-held drain in chained executions, each within the history quota, and end it once with its outcome', async () => {
    const twoDays = { ...INPUT, deadline: new Date(START + 2 * 86_400_000).toISOString() };
    // Pods held by a PDB: the step goes on every minute until the second day, then the budget frees them.
    const held = step('continue', 60, { deadline: twoDays.deadline, state: { held: true } });
    let input: DrainWorkflowInput = twoDays;
    let startAt = START;
    const runs: Awaited<ReturnType<typeof drain>>[] = [];
    for (let hop = 0; hop < 20; hop++) {
      const last = startAt >= START + 36 * 3_600_000;
      const run = await drain(last ? [step('done', 60, { deadline: twoDays.deadline })] : [held], input, 0, startAt);
      runs.push(run);
      expect(run.execution.history.length, `execution ${hop}`).toBeLessThan(HISTORY_EVENT_LIMIT);
      const [next] = run.chains;
      if (!next) break;
      expect(run.result.status).toBe('SUCCEEDED');
      expect(run.states.at(-1)).toBe('Continued in a new execution');
      // A hop neither completes the action nor reports an end.
      expect(run.workflow('completeLifecycleAction')).toEqual([]);
      expect(run.events).toEqual([]);
      expect(next.Name).toBe(chainExecutionName('demo-i-0123456789abcdef0-event-1', hop + 1));
      expect(next.Input).toMatchObject({
        execution: 'demo-i-0123456789abcdef0-event-1',
        chain: hop + 1,
        deadline: twoDays.deadline,
        lifecycle: INPUT.lifecycle,
        resume: { state: { held: true }, deadline: twoDays.deadline },
      });
      input = next.Input;
      startAt = next.at;
    }
    const end = runs.at(-1);
    expect(runs.length).toBeGreaterThan(2);
    expect(end?.result.status).toBe('SUCCEEDED');
    // The chained execution's first step resumes from the state its predecessor handed over.
    expect(end?.steps[0]).toMatchObject({ input: { chain: runs.length - 1 }, state: { held: true } });
    expect(end?.workflow('completeLifecycleAction')).toHaveLength(1);
    expect(end?.events).toEqual([expect.objectContaining({ detailType: 'Node Drained' })]);
    // Across hops no lifecycle heartbeat gap exceeds the bound.
    for (const run of runs) expect(run.maxGap).toBeLessThanOrEqual(heartbeatGapBound());
  });

  it('should end the drain with its outcome and hook decision when continuing it keeps failing, before the history quota', async () => {
    const twoDays = { ...INPUT, deadline: new Date(START + 2 * 86_400_000).toISOString() };
    const clock = new VirtualClock(START);
    const stub = stubs(clock, [step('continue', 60, { deadline: twoDays.deadline })]);
    const { tasks, refused } = refusingSdk(
      stub.tasks,
      (call) => call.service === 'sfn',
      () => new StatesError('Sfn.AccessDeniedException', 'not authorized to perform: states:StartExecution'),
    );
    const execution = startExecution({
      definition: machine.definition,
      input: twoDays,
      clock,
      tasks,
      stateMachineArn: machine.arn,
      name: 'chain-refused',
    });
    const result = await runToCompletion(execution, clock);
    expect(refused()).toBeGreaterThan(CHAIN_RETRY_LOOPS);
    expect(execution.history.length).toBeLessThan(HISTORY_EVENT_LIMIT);
    expect(result).toMatchObject({ status: 'FAILED', error: 'DrainStepFailed' });
    expect(stub.sdk.filter((c) => c.action === 'completeLifecycleAction')).toHaveLength(1);
    expect(stub.events).toEqual([
      expect.objectContaining({
        detailType: 'Drain Failed',
        detail: expect.objectContaining({
          outcome: 'error',
          error: expect.objectContaining({ Error: 'DrainChainFailed' }) as unknown,
        }) as unknown,
      }),
    ]);
  });

  it('should continue in a chained execution an hour before the execution timeout when steps are slow', async () => {
    const twoDays = { ...INPUT, deadline: new Date(START + 2 * 86_400_000).toISOString() };
    // Steps of 5 minutes: the history quota is far, the execution's 24 h timeout is not.
    const run = await drain([step('continue', 60, { deadline: twoDays.deadline })], twoDays, 300);
    expect(run.result.status).toBe('SUCCEEDED');
    expect(run.chains).toHaveLength(1);
    const hoursIn = ((run.chains[0]?.at ?? 0) - START) / 3_600_000;
    expect(hoursIn).toBeGreaterThanOrEqual(23);
    expect(hoursIn).toBeLessThan(24);
  });

  it('should add at most MAX_HISTORY_EVENTS_PER_LOOP history events a loop, every retrier spent and heartbeats failing', async () => {
    // Each try: two handler failures (States.TaskFailed's retries), then Lambda refuses the rest (the
    // service retrier's six retries and one more): 9 attempts, then the backoff loop.
    const worstTry = [new Failing(1), new Failing(1), ...Array.from({ length: 7 }, throttled)];
    const clock = new VirtualClock(START);
    const stub = stubs(clock, [...Array.from({ length: 12 }, () => worstTry).flat(), step('done')]);
    const { tasks } = refusingSdk(
      stub.tasks,
      (call) => call.action === 'recordLifecycleActionHeartbeat',
      () => new StatesError('AutoScaling.Throttling', 'Rate exceeded'),
    );
    const execution = startExecution({
      definition: machine.definition,
      input: { ...INPUT, deadline: new Date(START + 86_400_000).toISOString() },
      clock,
      tasks,
      stateMachineArn: machine.arn,
      name: 'worst-loop',
    });
    await runToCompletion(execution, clock);
    const waits = execution.history.flatMap((e, n) => (e.type === 'WaitStateEntered' ? [n] : []));
    const perLoop = waits.slice(1).map((at, n) => at - (waits[n] ?? at));
    expect(perLoop.length).toBeGreaterThanOrEqual(10);
    expect(Math.max(...perLoop)).toBeLessThanOrEqual(MAX_HISTORY_EVENTS_PER_LOOP);
    // Not loose: the worst loop comes close to the bound.
    expect(Math.max(...perLoop)).toBeGreaterThan(MAX_HISTORY_EVENTS_PER_LOOP - 15);
    expect(LOOPS_PER_EXECUTION * MAX_HISTORY_EVENTS_PER_LOOP + END_HISTORY_EVENTS).toBeLessThan(HISTORY_EVENT_LIMIT);
  });
});

/**
 * The bound, computed here from the synthesized definition (the oracle recomputes it, it does not
 * ask infra): the step task's TimeoutSeconds, the largest States.TaskFailed retry delay and the total
 * of the Lambda service retrier, or the heartbeat interval and the longest wait when larger, plus the
 * handler's start allowance.
 */
function heartbeatGapBound(): number {
  const states = (
    machine.definition as {
      States: Record<
        string,
        {
          TimeoutSeconds?: number;
          Retry?: {
            ErrorEquals: string[];
            IntervalSeconds: number;
            MaxAttempts: number;
            BackoffRate: number;
            MaxDelaySeconds?: number;
          }[];
          Seconds?: string;
          Choices?: { Condition: string }[];
        }
      >;
    }
  ).States;
  const task = states['Drain step'];
  const delays = (r: { IntervalSeconds: number; MaxAttempts: number; BackoffRate: number; MaxDelaySeconds?: number }) =>
    Array.from({ length: r.MaxAttempts }, (_, n) =>
      Math.min(r.MaxDelaySeconds ?? Infinity, r.IntervalSeconds * r.BackoffRate ** n),
    );
  const service = task?.Retry?.find((r) => r.ErrorEquals.includes('Lambda.TooManyRequestsException'));
  const handler = task?.Retry?.find((r) => r.ErrorEquals.includes('States.TaskFailed'));
  const maxWait = Number(/\$min\(\[\$waitFor, (\d+)\]\)/.exec(states['Wait']?.Seconds ?? '')?.[1]);
  const intervalMs = Number(/>= (\d+)/.exec(states['Heartbeat due?']?.Choices?.[0]?.Condition ?? '')?.[1]);
  if (!task?.TimeoutSeconds || !service || !handler || !maxWait || !intervalMs)
    throw new Error('the drain step task, its retriers, the wait and the interval are in the definition');
  const serviceTotal = delays(service).reduce((a, b) => a + b, 0);
  return (
    Math.max(task.TimeoutSeconds + Math.max(...delays(handler)), intervalMs / 1000, maxWait) +
    serviceTotal +
    HEARTBEAT_START_SECONDS
  );
}
