import { describe, expect, it } from 'vitest';
import type { HistoryEvent } from '@aws-sdk/client-sfn';
import { drainStepOf, type DrainExecution, type DrainExecutionAnswer } from '../../lib/aws/drain-executions.js';
import {
  CORDON_REASON_ANNOTATION,
  DRAIN_ANNOTATION,
  DRAIN_AT_ANNOTATION,
  DRAIN_DEADLINE_ANNOTATION,
  DRAIN_FOR_ANNOTATION,
  DRAIN_OUTCOME_ANNOTATION,
  DRAIN_RENEWED_ANNOTATION,
  LIFECYCLE_ANNOTATION,
} from '@ec2-node-reconciler/model/contract/labels.js';
import type { DrainStepOutput } from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import type { NodeView } from '@ec2-node-reconciler/model/observation.js';
import { ASK_THE_WORKFLOW, listDrains, type DrainListing } from '../../cli/observe/drain-list.js';
import { aDrainSummary, aNode, MINUTE, NOW } from '../support/world.js';

const iso = (ms: number): string => new Date(ms).toISOString();

/** A Node whose drain record names `execution`, made `agoMs` before NOW with a deadline `inMs` after it. */
function recording(
  n: number,
  execution: string,
  over: {
    agoMs?: number;
    inMs?: number;
    outcome?: string;
    reason?: string;
    lifecycle?: string;
    /** How long ago its drain renewed the record; never, when absent. */
    renewedAgoMs?: number;
  } = {},
): NodeView {
  const node = aNode(n);
  return {
    ...node,
    unschedulable: true,
    annotations: {
      [DRAIN_ANNOTATION]: execution,
      [DRAIN_AT_ANNOTATION]: iso(NOW - (over.agoMs ?? 5 * MINUTE)),
      [DRAIN_DEADLINE_ANNOTATION]: iso(NOW + (over.inMs ?? 10 * MINUTE)),
      [DRAIN_FOR_ANNOTATION]: 'removal',
      ...(over.reason !== undefined ? { [CORDON_REASON_ANNOTATION]: over.reason } : {}),
      ...(over.outcome !== undefined ? { [DRAIN_OUTCOME_ANNOTATION]: over.outcome } : {}),
      ...(over.lifecycle !== undefined ? { [LIFECYCLE_ANNOTATION]: over.lifecycle } : {}),
      ...(over.renewedAgoMs !== undefined ? { [DRAIN_RENEWED_ANNOTATION]: iso(NOW - over.renewedAgoMs) } : {}),
    },
  };
}

const BLOCKED = aDrainSummary({
  left: 2,
  leftByReason: { 'blocked-by-pdb': 2 },
  blockingPdbs: [{ pdb: 'payments/ledger', pods: 2 }],
});

function anExecution(name: string, over: Partial<DrainExecution> = {}): DrainExecution {
  return {
    name,
    status: 'RUNNING',
    startedAt: NOW - 5 * MINUTE,
    input: {
      cluster: 'demo',
      node: 'ip-10-0-0-9.ec2.internal',
      nodeUid: 'uid-9',
      deadline: iso(NOW + 40 * MINUTE),
      reason: 'Auto Scaling group ng-a is terminating the instance',
      cause: 'evt-1',
      lifecycle: { group: 'ng-a', hook: 'drain-hook', token: 'secret-token' },
    },
    lastStep: { outcome: 'continue', deadline: iso(NOW + 40 * MINUTE), summary: BLOCKED, at: NOW - 5_000 },
    ...over,
  };
}

const found = (execution: DrainExecution): DrainExecutionAnswer => ({ kind: 'found', execution });
const workflow = (
  answers: Record<string, DrainExecutionAnswer>,
  recent: string[] = Object.keys(answers),
): DrainListing['workflow'] => ({ recent, answers: new Map(Object.entries(answers)) });

describe('listDrains', () => {
  it('should list a running workflow drain with what its last step left and the budget blocking it, the Node’s deadline governing', () => {
    const node = recording(1, 'demo-i-1-evt-1', { inMs: 20 * MINUTE });

    const rows = listDrains({
      nodes: [node, aNode(2)],
      workflow: workflow({ 'demo-i-1-evt-1': found(anExecution('demo-i-1-evt-1')) }),
      now: NOW,
    });

    expect(rows).toEqual([
      {
        execution: 'demo-i-1-evt-1',
        node: node.name,
        runs: 'workflow',
        status: 'running',
        reason: 'Auto Scaling group ng-a is terminating the instance',
        cause: 'evt-1',
        for: 'removal',
        startedAt: NOW - 5 * MINUTE,
        deadline: NOW + 20 * MINUTE,
        lifecycle: { group: 'ng-a', hook: 'drain-hook' },
        podsLeft: 2,
        leftByReason: { 'blocked-by-pdb': 2 },
        blockingPdbs: [{ pdb: 'payments/ledger', pods: 2 }],
        lastStepAt: NOW - 5_000,
        recordedOnNode: true,
      },
    ]);
  });

  it('should never carry a lifecycle action’s token', () => {
    const rows = listDrains({
      nodes: [],
      workflow: workflow({ e: found(anExecution('e', { status: 'SUCCEEDED', stoppedAt: NOW })) }),
      now: NOW,
    });

    expect(JSON.stringify(rows)).not.toContain('secret-token');
    expect(rows[0]?.lifecycle).toEqual({ group: 'ng-a', hook: 'drain-hook' });
  });

  it('should say how an ended execution ended: its last step’s outcome, and the error it failed with', () => {
    const failed = anExecution('e', {
      status: 'FAILED',
      stoppedAt: NOW - MINUTE,
      error: 'DrainIncomplete',
      cause: 'The drain ended incomplete',
      lastStep: { outcome: 'incomplete', deadline: iso(NOW), summary: BLOCKED, at: NOW - MINUTE },
    });

    const [row] = listDrains({ nodes: [], workflow: workflow({ e: found(failed) }), now: NOW });

    expect(row).toMatchObject({
      status: 'failed',
      outcome: 'incomplete',
      error: 'DrainIncomplete: The drain ended incomplete',
      podsLeft: 2,
      recordedOnNode: false,
      node: 'ip-10-0-0-9.ec2.internal',
    });
  });

  it('should list a drain the CLI runs as local: running while renewed, until its outcome is written or its deadline passes', () => {
    const rows = listDrains({
      nodes: [
        recording(1, 'local-manual-a', { reason: 'disk replacement', renewedAgoMs: 30_000 }),
        recording(2, 'local-manual-b', { outcome: 'done' }),
        recording(3, 'local-manual-c', { agoMs: 30 * MINUTE, inMs: -MINUTE, renewedAgoMs: 30_000 }),
        recording(4, 'local-manual-d', { renewedAgoMs: 3 * MINUTE }),
      ],
      now: NOW,
    });

    expect(rows.map((r) => [r.execution, r.runs, r.status, r.outcome, r.reason, r.podsLeft])).toEqual([
      ['local-manual-a', 'local', 'running', undefined, 'disk replacement', undefined],
      ['local-manual-b', 'local', 'ended', 'done', undefined, undefined],
      ['local-manual-d', 'local', 'ended', undefined, undefined, undefined],
      ['local-manual-c', 'local', 'ended', undefined, undefined, undefined],
    ]);
    // Not renewed for two minutes: its CLI stopped (Ctrl-C), and it says so.
    expect(rows.find((r) => r.execution === 'local-manual-d')?.error).toContain('the CLI that ran it stopped');
  });

  it('should, without Step Functions to ask, list a workflow drain as unknown unless the Node says how it ended', () => {
    const rows = listDrains({
      nodes: [recording(1, 'demo-i-1-evt-1'), recording(2, 'demo-i-2-evt-2', { agoMs: 9 * MINUTE, outcome: 'done' })],
      now: NOW,
    });

    expect(rows.map((r) => [r.execution, r.status, r.outcome, r.error])).toEqual([
      ['demo-i-1-evt-1', 'unknown', undefined, ASK_THE_WORKFLOW],
      ['demo-i-2-evt-2', 'ended', 'done', undefined],
    ]);
  });

  it('should tell an execution Step Functions does not know, and one it could not be asked about, from one it answered', () => {
    const rows = listDrains({
      nodes: [recording(1, 'gone'), recording(2, 'throttled', { agoMs: MINUTE })],
      workflow: workflow({ gone: { kind: 'absent' }, throttled: { kind: 'error', error: 'ThrottlingException' } }, []),
      now: NOW,
    });

    expect(rows.map((r) => [r.execution, r.status, r.error])).toEqual([
      ['throttled', 'unknown', 'asking Step Functions failed: ThrottlingException'],
      ['gone', 'absent', undefined],
    ]);
  });

  it('should list each recent execution once, running ones first, then the most recent', () => {
    const rows = listDrains({
      nodes: [recording(1, 'on-node')],
      workflow: workflow({
        'on-node': found(anExecution('on-node')),
        older: found(anExecution('older', { status: 'SUCCEEDED', startedAt: NOW - 3 * MINUTE })),
        newer: found(anExecution('newer', { status: 'ABORTED', startedAt: NOW - MINUTE })),
      }),
      now: NOW,
    });

    expect(rows.map((r) => [r.execution, r.status, r.recordedOnNode])).toEqual([
      ['on-node', 'running', true],
      ['newer', 'aborted', false],
      ['older', 'succeeded', false],
    ]);
  });
});

describe('drainStepOf', () => {
  const output: DrainStepOutput = {
    outcome: 'continue',
    waitSeconds: 5,
    state: { opaque: true },
    deadline: iso(NOW),
    summary: BLOCKED,
  };
  const event = (over: Partial<HistoryEvent>): HistoryEvent => ({
    id: 7,
    type: 'TaskSucceeded',
    timestamp: new Date(NOW),
    taskSucceededEventDetails: {
      resourceType: 'lambda',
      resource: 'invoke',
      output: JSON.stringify({ ExecutedVersion: '$LATEST', Payload: output, StatusCode: 200 }),
    },
    ...over,
  });

  it('should read the drain step’s output from a lambda:invoke task’s result', () => {
    expect(drainStepOf(event({}))).toEqual({ outcome: 'continue', deadline: iso(NOW), summary: BLOCKED, at: NOW });
  });

  it('should read nothing from other tasks, other events, or a payload that is not a drain step’s', () => {
    expect(
      drainStepOf(
        event({
          taskSucceededEventDetails: { resourceType: 'aws-sdk:autoscaling', resource: 'completeLifecycleAction' },
        }),
      ),
    ).toBeUndefined();
    expect(drainStepOf(event({ type: 'TaskStateExited' }))).toBeUndefined();
    expect(
      drainStepOf(
        event({
          taskSucceededEventDetails: { resourceType: 'lambda', resource: 'invoke', output: '{"Payload":{"x":1}}' },
        }),
      ),
    ).toBeUndefined();
  });
});
