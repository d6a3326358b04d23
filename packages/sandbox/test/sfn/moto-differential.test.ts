// Oracle for the ASL interpreter, written by others: moto 5's Step Functions interpreter
// (moto/stepfunctions/parser, from LocalStack), run by support/moto_sfn_oracle.py with its JSONata
// routed to the `jsonata` npm package (support/jsonata-server.mjs) and its waits on a virtual clock.
// Both run the synthesized drain workflow with the same mocked task answers; the terminal status,
// error, output, the states entered and every task's arguments must agree.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import {
  runToCompletion,
  startExecution,
  StatesError,
  type TaskContext,
  type TaskHandlers,
} from '../../src/sfn/index.js';
import { describeWithOracle, motoMissing, motoVersion } from '../aws/support/oracles.js';
import { byLogicalId, deployedStack } from '../support/deployment.js';

const START = Date.UTC(2026, 10, 29, 12);
const { deployment } = await deployedStack();
const machine = byLogicalId(deployment.stateMachines, 'ReconcilerDrainWorkflowStateMachine');

type Answer = { readonly Return: unknown } | { readonly Throw: { readonly Error: string; readonly Cause: string } };
interface Case {
  readonly name: string;
  readonly input: Record<string, unknown>;
  /** Per state, the answers of its successive task calls (the last one repeats). */
  readonly mocks: Readonly<Record<string, readonly Answer[]>>;
}

const INPUT = {
  cluster: 'demo',
  node: 'ip-10-0-1-1.ec2.internal',
  nodeUid: 'uid-1',
  instanceId: 'i-0123456789abcdef0',
  deadline: '2026-11-29T13:00:00.000Z',
  reason: 'ASG scale-in',
  cause: 'event-1',
  lifecycle: { group: 'eks-ng-1', hook: 'drain', token: 'token-1' },
};
const { lifecycle: _lifecycle, ...NO_HOOK } = INPUT;

const SUMMARY = {
  evicted: 2,
  terminating: 0,
  gone: 0,
  left: 0,
  skipped: 0,
  leftByReason: {},
  blockingPdbs: [],
  examples: [],
  graceShortened: { pods: 0, examples: [] },
};
const step = (outcome: string, waitSeconds = 30, lifecycle?: Record<string, string>): Answer => ({
  Return: {
    StatusCode: 200,
    Payload: {
      outcome,
      waitSeconds,
      state: { round: 1 },
      deadline: INPUT.deadline,
      ...(lifecycle ? { lifecycle } : {}),
      summary: outcome === 'done' ? SUMMARY : { ...SUMMARY, left: 1, leftByReason: { 'blocked-by-pdb': 1 } },
    },
  },
});
const fail = (error: string, cause = 'transient failure'): Answer => ({ Throw: { Error: error, Cause: cause } });
const OK: Answer = { Return: {} };
const PUT: Answer = { Return: { Entries: [{ EventId: 'event-0' }], FailedEntryCount: 0 } };
const SERVICES = { 'Record lifecycle heartbeat': [OK], 'Complete lifecycle action': [OK], 'Report outcome': [PUT] };

const CASES: readonly Case[] = [
  {
    name: 'drained',
    input: INPUT,
    mocks: {
      ...SERVICES,
      'Drain step': [step('continue', 40), step('continue', 40), step('continue', 40), step('done')],
    },
  },
  { name: 'deadline', input: INPUT, mocks: { ...SERVICES, 'Drain step': [step('continue', 10), step('deadline')] } },
  { name: 'no-hook', input: NO_HOOK, mocks: { ...SERVICES, 'Drain step': [step('continue', 90), step('done')] } },
  { name: 'step-failed', input: INPUT, mocks: { ...SERVICES, 'Drain step': [fail('Error')] } },
  {
    name: 'throttled-then-drained',
    input: INPUT,
    mocks: {
      ...SERVICES,
      'Drain step': [fail('Lambda.TooManyRequestsException'), fail('Lambda.TooManyRequestsException'), step('done')],
    },
  },
  { name: 'unexpected-outcome', input: INPUT, mocks: { ...SERVICES, 'Drain step': [step('paused')] } },
  {
    name: 'heartbeat-fails',
    input: INPUT,
    mocks: {
      ...SERVICES,
      'Record lifecycle heartbeat': [fail('AutoScaling.ValidationErrorException', 'no active action')],
      'Drain step': [step('continue', 70), step('continue', 70), step('done')],
    },
  },
  {
    name: 'complete-fails',
    input: INPUT,
    mocks: {
      ...SERVICES,
      'Complete lifecycle action': [fail('AutoScaling.ValidationErrorException', 'no active action')],
      'Drain step': [step('done')],
    },
  },
  {
    name: 'incomplete',
    input: INPUT,
    mocks: { ...SERVICES, 'Drain step': [step('continue', 20), step('incomplete')] },
  },
  {
    name: 'cancelled-by-uncordon',
    input: INPUT,
    mocks: { ...SERVICES, 'Drain step': [step('cancelled-by-uncordon')] },
  },
  {
    name: 'lifecycle-handed-over',
    input: NO_HOOK,
    mocks: {
      ...SERVICES,
      'Drain step': [
        step('continue', 70, { group: 'eks-ng-2', hook: 'late-hook' }),
        step('continue', 30, { group: 'eks-ng-2', hook: 'late-hook' }),
        step('done', 30, { group: 'eks-ng-2', hook: 'late-hook' }),
      ],
    },
  },
];

interface Outcome {
  readonly status: string;
  readonly error: string | null;
  readonly cause: string | null;
  readonly output: unknown;
  /** `<Type>StateEntered <name>` for each state entered. */
  readonly states: readonly string[];
  /** Each task's arguments, in order. */
  readonly tasks: readonly unknown[];
}

interface MotoResult {
  readonly status: string;
  readonly error: string | null;
  readonly cause: string | null;
  readonly output: unknown;
  readonly history: readonly { readonly type: string; readonly stateName?: string; readonly parameters?: unknown }[];
}

function askMoto(cases: readonly Case[]): Promise<Outcome[]> {
  const script = fileURLToPath(new URL('./support/moto_sfn_oracle.py', import.meta.url));
  const spec = {
    definition: machine.definition,
    name: machine.name,
    start: START,
    node: process.execPath,
    jsonataServer: fileURLToPath(new URL('./support/jsonata-server.mjs', import.meta.url)),
    cases,
  };
  return new Promise((resolve, reject) => {
    const child = spawn('python3', [script], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4000)));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`moto Step Functions oracle exited ${code}: ${stderr}`));
      const results = JSON.parse(stdout) as MotoResult[];
      resolve(
        results.map((r) => ({
          status: r.status,
          error: r.error,
          cause: r.cause,
          output: r.output,
          states: r.history.filter((e) => e.type.endsWith('StateEntered')).map((e) => `${e.type} ${e.stateName ?? ''}`),
          tasks: r.history.filter((e) => e.type === 'TaskScheduled').map((e) => e.parameters),
        })),
      );
    });
    child.stdin.end(JSON.stringify(spec));
  });
}

async function runOurs(c: Case): Promise<Outcome> {
  const clock = new VirtualClock(START);
  const calls = new Map<string, number>();
  const answer = (ctx: TaskContext): unknown => {
    const answers = c.mocks[ctx.stateName] ?? [];
    const index = calls.get(ctx.stateName) ?? 0;
    calls.set(ctx.stateName, index + 1);
    const chosen = answers[Math.min(index, answers.length - 1)];
    if (!chosen) throw new Error(`no mocked answer for ${ctx.stateName}`);
    if ('Throw' in chosen) throw new StatesError(chosen.Throw.Error, chosen.Throw.Cause);
    return chosen.Return;
  };
  const tasks: TaskHandlers = {
    // The mock is the integration's whole answer; the handler returns the function's payload, which the interpreter wraps.
    lambdaInvoke: (_args, ctx) => Promise.resolve((answer(ctx) as { Payload: unknown }).Payload),
    awsSdk: (_call, ctx) => Promise.resolve(answer(ctx)),
    putEvents: (_args, ctx) => Promise.resolve(answer(ctx) as { Entries: []; FailedEntryCount: number }),
  };
  const execution = startExecution({
    definition: machine.definition,
    input: c.input,
    clock,
    tasks,
    stateMachineArn: machine.arn,
    name: c.name,
  });
  const result = await runToCompletion(execution, clock);
  return {
    status: result.status,
    error: result.error ?? null,
    cause: result.cause ?? null,
    output: result.output ?? null,
    states: execution.history
      .filter((e) => e.type.endsWith('StateEntered'))
      .map((e) => `${e.type} ${e.stateName ?? ''}`),
    tasks: execution.history.filter((e) => e.type === 'TaskScheduled').map((e) => e.parameters),
  };
}

const missing = motoMissing();

describeWithOracle(
  `ASL interpreter vs moto's Step Functions interpreter (moto ${missing ? 'missing' : motoVersion()})`,
  missing,
  () => {
    let motoOutcomes: Outcome[] = [];
    beforeAll(async () => {
      motoOutcomes = await askMoto(CASES);
    }, 120_000);

    it.each(CASES.map((c, index) => [c.name, c, index] as const))(
      'should run the drain workflow path %s as moto does',
      async (_name, c, index) => {
        const ours = await runOurs(c);
        expect(ours).toEqual(motoOutcomes[index]);
      },
    );

    it('should have covered every terminal state of the definition', () => {
      const reached = new Set(motoOutcomes.map((o) => o.states.at(-1)));
      expect([...reached].sort()).toEqual(['FailStateEntered Not drained', 'SucceedStateEntered Drained']);
    });
  },
);
