// The interpreter running the drain workflow exactly as `cdk synth` writes it (read from the
// synthesized template, ARNs resolved), with stub tasks: each terminal state is reached, every end
// but an operator's uncordon completes the lifecycle action (the one handed over on the Node first),
// and the heartbeat gap issue #15 describes shows as it would in a real account.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../lib/model/clock.js';
import { toInstanceId } from '../../../lib/model/instance-id.js';
import { runToCompletion, startExecution, StatesError, type TaskHandlers } from '../../../lib/sandbox/sfn/index.js';
import type { DrainStepOutput, DrainWorkflowInput } from '../../../lib/workflow/contract.js';
import { byLogicalId, deployedStack } from '../support/deployment.js';

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

const SUMMARY: DrainStepOutput['summary'] = { evicted: 3, terminating: 0, gone: 0, left: 0, skipped: 1, leftByReason: {}, blockingPdbs: [], examples: [], graceShortened: { pods: 0, examples: [] } };

const step = (outcome: DrainStepOutput['outcome'], waitSeconds = 30, over: Partial<DrainStepOutput> = {}): DrainStepOutput => ({
  outcome,
  waitSeconds,
  state: { round: 1 },
  deadline: INPUT.deadline,
  summary: outcome === 'done' ? SUMMARY : { ...SUMMARY, left: 2, leftByReason: { 'blocked-by-pdb': 2 } },
  ...over,
});

interface Stubs {
  readonly tasks: TaskHandlers;
  readonly sdk: { action: string; at: number; parameters: unknown }[];
  readonly events: { detailType: string; detail: Record<string, unknown> }[];
  readonly steps: unknown[];
}

/** Tasks that answer like the real services: the drain step from a script (a step may take virtual time). */
function stubs(clock: VirtualClock, script: readonly (DrainStepOutput | StatesError | { outcome: string; waitSeconds: number; state: unknown; summary: unknown })[], stepSeconds = 0): Stubs {
  const sdk: Stubs['sdk'] = [];
  const events: Stubs['events'] = [];
  const steps: unknown[] = [];
  let index = 0;
  const tasks: TaskHandlers = {
    lambdaInvoke: async (args, ctx) => {
      expect(args.FunctionName).toBe(drainStep.arn);
      steps.push(args.Payload);
      if (stepSeconds > 0) await ctx.sleep(stepSeconds * 1000);
      const answer = script[Math.min(index++, script.length - 1)];
      if (answer instanceof StatesError) throw answer;
      return answer;
    },
    awsSdk: (call) => {
      expect(call.service).toBe('autoscaling');
      sdk.push({ action: call.action, at: clock.now(), parameters: call.parameters });
      return Promise.resolve({});
    },
    putEvents: (args) => {
      // The optimized integration takes Detail as JSON (an object), unlike the PutEvents API's string.
      const { Entries } = args as { Entries: { DetailType: string; Detail: Record<string, unknown>; Source: string; EventBusName: string }[] };
      for (const entry of Entries) events.push({ detailType: entry.DetailType, detail: entry.Detail });
      return Promise.resolve({ Entries: Entries.map((_, n) => ({ EventId: `ev-${n}` })), FailedEntryCount: 0 });
    },
  };
  return { tasks, sdk, events, steps };
}

async function drain(script: Parameters<typeof stubs>[1], input: DrainWorkflowInput = INPUT, stepSeconds = 0) {
  const clock = new VirtualClock(START);
  const stub = stubs(clock, script, stepSeconds);
  const execution = startExecution({ definition: machine.definition, input, clock, tasks: stub.tasks, stateMachineArn: machine.arn, name: 'demo-i-0123456789abcdef0-event-1' });
  const result = await runToCompletion(execution, clock);
  const states = execution.history.filter((e) => e.type.endsWith('StateEntered')).map((e) => e.stateName);
  return { ...stub, result, execution, states };
}

describe('the synthesized drain workflow', () => {
  it('should be valid ASL for asl-validator', () => {
    const require = createRequire(import.meta.url);
    const validate = require('asl-validator') as (definition: unknown) => { isValid: boolean; errorsText: (separator?: string) => string };
    const verdict = validate(machine.definition);
    expect(verdict.errorsText('\n')).toBe('');
    expect(verdict.isValid).toBe(true);
    // The oracle is not blind: a dangling Next is refused.
    expect(validate({ ...machine.definition, StartAt: 'Nowhere' }).isValid).toBe(false);
  });

  it('should drain, heartbeat while waiting, complete the lifecycle action and end Drained', async () => {
    const { result, sdk, events, steps, states } = await drain([step('continue', 40), step('continue', 40), step('continue', 40), step('done')]);
    expect(result.status).toBe('SUCCEEDED');
    expect(states.at(-1)).toBe('Drained');
    // Steps at 0, 40, 80 and 120 s: the heartbeat is due (60 s interval) after the step at 80 s.
    expect(sdk.map((c) => [c.action, (c.at - START) / 1000])).toEqual([
      ['recordLifecycleActionHeartbeat', 80],
      ['completeLifecycleAction', 120],
    ]);
    expect(sdk[1]?.parameters).toEqual({ AutoScalingGroupName: 'eks-ng-1', LifecycleHookName: 'drain', LifecycleActionResult: 'CONTINUE', LifecycleActionToken: 'token-1' });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ detailType: 'Node Drained', detail: { outcome: 'done', lifecycle: { group: 'eks-ng-1', hook: 'drain', completed: true } } });
    // The step gets the workflow input, then the previous step's state.
    expect(steps[0]).toEqual({ input: INPUT });
    expect(steps[1]).toEqual({ input: INPUT, state: { round: 1 } });
  });

  it('should complete the action and end Deadline passed when the step reports the deadline', async () => {
    const { result, sdk, events } = await drain([step('deadline')]);
    expect(result).toMatchObject({ status: 'FAILED', error: 'DrainDeadlinePassed' });
    expect(sdk[0]?.parameters).toEqual(expect.objectContaining({ LifecycleActionToken: 'token-1' }));
    expect(sdk.map((c) => c.action)).toEqual(['completeLifecycleAction']);
    expect(events.map((e) => e.detailType)).toEqual(['Drain Failed']);
  });

  it('should drain without lifecycle calls when the drain came from no hook', async () => {
    const { lifecycle: _lifecycle, ...noHook } = INPUT;
    const { result, sdk, events } = await drain([step('continue', 120), step('continue', 120), step('done')], noHook);
    expect(result.status).toBe('SUCCEEDED');
    expect(sdk).toEqual([]);
    expect(events[0]?.detail.lifecycle).toBeUndefined();
  });

  it('should complete the lifecycle action and report Drain Failed when the step fails its tries', async () => {
    const { result, sdk, events, steps, states } = await drain([new StatesError('Error', '{"errorMessage":"api server unreachable"}')]);
    expect(result).toMatchObject({ status: 'FAILED', error: 'DrainStepFailed' });
    expect(steps).toHaveLength(3); // one try and two retries (States.TaskFailed)
    expect(states).toContain('Complete lifecycle action');
    expect(sdk.map((c) => c.action)).toEqual(['completeLifecycleAction']);
    expect(events.map((e) => e.detailType)).toEqual(['Drain Failed']);
  });

  it('should complete the lifecycle action and report Drain Failed on an outcome the contract does not have', async () => {
    const { result, sdk, events } = await drain([{ outcome: 'paused', waitSeconds: 5, state: {}, summary: SUMMARY }]);
    expect(result).toMatchObject({ status: 'FAILED', error: 'UnexpectedDrainStepOutcome' });
    expect(sdk.map((c) => c.action)).toEqual(['completeLifecycleAction']);
    expect(events.map((e) => e.detailType)).toEqual(['Drain Failed']);
  });

  it('should leave the lifecycle action open after an operator uncordoned the node, and say so', async () => {
    const { result, sdk, events } = await drain([step('continue', 30), step('cancelled-by-uncordon')]);
    expect(result).toMatchObject({ status: 'FAILED', error: 'DrainCancelledByUncordon' });
    expect(sdk.map((c) => c.action)).not.toContain('completeLifecycleAction');
    expect(events.map((e) => e.detailType)).toEqual(['Drain Failed']);
  });

  it('should heartbeat and complete the lifecycle action the Node handed over to the drain, when its input had none', async () => {
    const { lifecycle: _lifecycle, ...noHook } = INPUT;
    const handedOver = { group: 'eks-ng-2', hook: 'late-hook' };
    const { result, sdk } = await drain([step('continue', 70, { lifecycle: handedOver }), step('continue', 30, { lifecycle: handedOver }), step('done', 30, { lifecycle: handedOver })], noHook);
    expect(result.status).toBe('SUCCEEDED');
    expect(sdk.map((c) => c.action)).toEqual(['recordLifecycleActionHeartbeat', 'completeLifecycleAction']);
    expect(sdk[1]?.parameters).toEqual({ AutoScalingGroupName: 'eks-ng-2', LifecycleHookName: 'late-hook', LifecycleActionResult: 'CONTINUE', InstanceId: INPUT.instanceId });
  });

  it('should still complete the lifecycle action and report Drain Failed when a step answers over the 256 KiB payload limit', async () => {
    const huge = step('continue', 30, { state: { padding: 'x'.repeat(300 * 1024) } });
    const { result, sdk, events, states } = await drain([huge]);
    expect(states).toContain('Complete lifecycle action');
    expect(sdk.map((c) => c.action)).toEqual(['completeLifecycleAction']);
    expect(events.map((e) => e.detailType)).toEqual(['Drain Failed']);
    expect(result.status).toBe('FAILED');
  });

  it('should let heartbeats lapse past half a 300 s hook timeout while the step is retried (issue #15)', async () => {
    // Each step runs 100 s (the function's 120 s timeout allows it); two fail, then the drain goes on.
    const failing = new StatesError('Error', 'transient');
    const { result, sdk } = await drain([failing, failing, step('continue', 30), step('continue', 30), step('done')], INPUT, 100);
    expect(result.status).toBe('SUCCEEDED');
    const heartbeats = [START, ...sdk.map((c) => c.at)];
    const gaps = heartbeats.slice(1).map((at, n) => (at - (heartbeats[n] ?? at)) / 1000);
    // 100 s + 10 s + 100 s + 20 s + 100 s before the first heartbeat: over 150 s, half the README's 300 s.
    expect(Math.max(...gaps)).toBeGreaterThan(150);
  });
});
