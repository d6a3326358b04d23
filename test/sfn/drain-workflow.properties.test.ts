// Issue #26's property, over generated fault schedules: the drain workflow exactly as `cdk synth`
// writes it, run by the interpreter on a virtual clock against a modelled machine (pods held by a
// PodDisruptionBudget until some moment) and modelled faults — drain-step attempts that Lambda
// refuses, that fail for a transient reason (after running a while) or for a permanent one, failing
// heartbeats, completions and output events. Whatever the schedule:
//   - the lifecycle action is never completed before the drain's deadline while pods that the drain
//     must remove are still on the machine, unless the drain failed permanently;
//   - it is completed at most once, and always (by the deadline or soon after) for a drain that has one;
//   - every execution ends with exactly one outcome event (Node Drained or Drain Failed).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { toInstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import type { DrainStepOutput, DrainWorkflowInput } from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import { isDrainNotice } from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import { PERMANENT_STEP_ERROR } from '../../lib/drain/step-failure.js';
import {
  runToCompletion,
  startExecution,
  StatesError,
  type TaskHandlers,
} from '@ec2-node-reconciler/sandbox/sfn/index.js';
import { byLogicalId, deployedStack } from '@ec2-node-reconciler/sandbox/test/support/deployment.js';
import { aDrainSummary } from '../support/world.js';

const START = Date.UTC(2026, 10, 29, 12);
const { deployment } = await deployedStack();
const machine = byLogicalId(deployment.stateMachines, 'ReconcilerDrainWorkflowStateMachine');

/** What one attempt of the drain step meets. */
type Attempt =
  | { readonly kind: 'runs' }
  | { readonly kind: 'throttled' }
  | { readonly kind: 'transient'; readonly seconds: number }
  | { readonly kind: 'permanent' };

interface World {
  /** Minutes from the start to the drain's deadline. */
  readonly deadlineMinutes: number;
  /** Seconds from the start until the PodDisruptionBudget lets the machine's pods go. */
  readonly podsHeldSeconds: number;
  readonly lifecycle: boolean;
  /** The drain step's attempts in order; past the end, every attempt runs. */
  readonly attempts: readonly Attempt[];
  /** Heartbeat calls that fail, by call number. */
  readonly heartbeatFails: readonly boolean[];
  /** Completion calls that fail before one goes through (within its retries). */
  readonly completeFailures: number;
  /** Output-event calls that fail before one goes through (within its retries). */
  readonly putFailures: number;
}

const attempt: fc.Arbitrary<Attempt> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'runs' } as const) },
  { weight: 3, arbitrary: fc.constant({ kind: 'throttled' } as const) },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 50 }).map((seconds) => ({ kind: 'transient', seconds }) as const) },
  { weight: 1, arbitrary: fc.constant({ kind: 'permanent' } as const) },
);

const world: fc.Arbitrary<World> = fc.record({
  deadlineMinutes: fc.integer({ min: 1, max: 6 }),
  podsHeldSeconds: fc.integer({ min: 0, max: 480 }),
  lifecycle: fc.boolean(),
  attempts: fc.array(attempt, { maxLength: 40 }),
  heartbeatFails: fc.array(fc.boolean(), { maxLength: 10 }),
  completeFailures: fc.integer({ min: 0, max: 3 }),
  putFailures: fc.integer({ min: 0, max: 3 }),
});

const SUMMARY = aDrainSummary();

interface Run {
  readonly deadline: number;
  /** When the pods left the machine (undefined: never). */
  readonly podsGoneAt: number | undefined;
  readonly completions: number[];
  readonly events: string[];
  readonly permanentAt: number | undefined;
  readonly status: string;
}

async function run(w: World): Promise<Run> {
  const clock = new VirtualClock(START);
  const deadline = START + w.deadlineMinutes * 60_000;
  const input: DrainWorkflowInput = {
    cluster: 'demo',
    node: 'ip-10-0-1-1.ec2.internal',
    nodeUid: 'uid-1',
    instanceId: toInstanceId('i-0123456789abcdef0'),
    deadline: new Date(deadline).toISOString(),
    reason: 'scale-in',
    cause: 'event-1',
    ...(w.lifecycle ? { lifecycle: { group: 'ng-a', hook: 'drain', token: 'token-1' } } : {}),
  };
  let attempts = 0;
  let heartbeats = 0;
  let completeCalls = 0;
  let putCalls = 0;
  let podsGoneAt: number | undefined;
  let permanentAt: number | undefined;
  const completions: number[] = [];
  const events: string[] = [];
  const tasks: TaskHandlers = {
    lambdaInvoke: async (args, ctx) => {
      if (isDrainNotice(args.Payload)) return { recorded: 'LifecycleActionCompleted' };
      const next = w.attempts[attempts++] ?? { kind: 'runs' };
      if (next.kind === 'throttled') throw new StatesError('Lambda.TooManyRequestsException', 'Rate Exceeded.');
      if (next.kind === 'transient') {
        await ctx.sleep(next.seconds * 1000);
        throw new StatesError('KubeTransportError', '{"errorMessage":"connect ECONNREFUSED"}');
      }
      if (next.kind === 'permanent') {
        permanentAt ??= ctx.now();
        throw new StatesError(PERMANENT_STEP_ERROR, '{"errorMessage":"HTTP 403 Forbidden"}');
      }
      // The machine as the real step sees it: its pods go once the PDB lets them, and a drain with
      // pods left past its deadline ends there.
      const now = ctx.now();
      if (now >= START + w.podsHeldSeconds * 1000) podsGoneAt ??= now;
      const outcome = podsGoneAt !== undefined ? 'done' : now >= deadline ? 'deadline' : 'continue';
      const output: DrainStepOutput = {
        outcome,
        waitSeconds: 5,
        state: { round: attempts },
        deadline: input.deadline,
        ...(input.lifecycle ? { lifecycle: input.lifecycle } : {}),
        summary: outcome === 'done' ? SUMMARY : { ...SUMMARY, left: 1, leftByReason: { 'blocked-by-pdb': 1 } },
      };
      return output;
    },
    awsSdk: (call, ctx) => {
      if (call.action === 'recordLifecycleActionHeartbeat') {
        if (w.heartbeatFails[heartbeats++] === true)
          return Promise.reject(new StatesError('AutoScaling.AutoScalingException', 'Rate exceeded'));
        return Promise.resolve({});
      }
      if (call.action === 'completeLifecycleAction') {
        if (completeCalls++ < w.completeFailures)
          return Promise.reject(new StatesError('AutoScaling.AutoScalingException', 'Rate exceeded'));
        completions.push(ctx.now());
        return Promise.resolve({});
      }
      return Promise.reject(new Error(`unexpected call ${call.service}:${call.action}`));
    },
    putEvents: (args) => {
      if (putCalls++ < w.putFailures) return Promise.reject(new StatesError('EventBridge.InternalException', 'oops'));
      const { Entries } = args as { Entries: { DetailType: string }[] };
      events.push(...Entries.map((e) => e.DetailType));
      return Promise.resolve({ Entries: Entries.map((_, n) => ({ EventId: `ev-${n}` })), FailedEntryCount: 0 });
    },
  };
  const execution = startExecution({
    definition: machine.definition,
    input,
    clock,
    tasks,
    stateMachineArn: machine.arn,
    name: 'demo-i-0123456789abcdef0-event-1',
    random: () => 0.5,
  });
  const result = await runToCompletion(execution, clock);
  return { deadline, podsGoneAt, completions, events, permanentAt, status: result.status };
}

describe('the drain workflow over generated fault schedules (issue #26)', () => {
  it('should never complete the lifecycle action before the deadline while pods remain, unless the drain failed permanently; and always end with one outcome event', async () => {
    let completedEarlyByDone = 0;
    let endedAtDeadline = 0;
    let permanent = 0;
    await fc.assert(
      fc.asyncProperty(world, async (w) => {
        const r = await run(w);
        // Every execution ends with exactly one outcome event, and is not cut short by a quota.
        expect(r.events).toHaveLength(1);
        expect(['SUCCEEDED', 'FAILED']).toContain(r.status);
        if (!w.lifecycle) {
          expect(r.completions).toEqual([]);
          return;
        }
        // Completed once, whatever the faults (completion retries outlast the failures generated).
        expect(r.completions).toHaveLength(1);
        const at = r.completions[0] ?? 0;
        const podsGone = r.podsGoneAt !== undefined && r.podsGoneAt <= at;
        const failedPermanently = r.permanentAt !== undefined && r.permanentAt <= at;
        expect(podsGone || at >= r.deadline || failedPermanently, JSON.stringify({ w, r })).toBe(true);
        if (podsGone && at < r.deadline) completedEarlyByDone++;
        else if (failedPermanently) permanent++;
        else endedAtDeadline++;
      }),
      { numRuns: 10_000 },
    );
    // The schedules reach every kind of end (the property is not vacuous).
    expect(completedEarlyByDone).toBeGreaterThan(100);
    expect(endedAtDeadline).toBeGreaterThan(100);
    expect(permanent).toBeGreaterThan(100);
  }, 600_000);
});
