// The drains an operator asks about (`ec2-node-reconciler drains`): those the Nodes record (which
// execution drains them, to which deadline, for which lifecycle action) and those the deployed
// workflow ran lately, one row each, with what the last drain step left and which budgets blocked it.
// Pure: the Nodes and Step Functions' answers in, rows out.
import { CORDON_REASON_ANNOTATION, LOCAL_DRAIN_PREFIX } from '@ec2-node-reconciler/model/contract/labels.js';
import type { DrainExecution, DrainExecutionAnswer } from '../../lib/aws/drain-executions.js';
import type { DrainPurpose } from '@ec2-node-reconciler/model/action.js';
import type { NodeView } from '@ec2-node-reconciler/model/observation.js';
import { executionToAsk, recordLiveness } from '../../lib/plan/drain-liveness.js';
import { drainClaimOf, type DrainClaim } from '../../lib/plan/own-cordon.js';

/**
 * `running`, or how the workflow's execution ended (`succeeded`, `failed`, `timed-out`, `aborted`);
 * `ended` for a drain run by a CLI process, which no service can be asked about (it ran until its
 * outcome was written on the Node, or its deadline, or its CLI stopped renewing the record); `absent` when Step Functions does not know the
 * execution a Node records (its start failed, or it is older than the service keeps); `unknown`
 * when nobody could be asked (no --drain-state-machine) or asking failed.
 */
export type DrainListStatus =
  'running' | 'succeeded' | 'failed' | 'timed-out' | 'aborted' | 'ended' | 'absent' | 'unknown';

const WORKFLOW_STATUS: Readonly<Record<string, DrainListStatus>> = {
  RUNNING: 'running',
  PENDING_REDRIVE: 'running',
  SUCCEEDED: 'succeeded',
  FAILED: 'failed',
  TIMED_OUT: 'timed-out',
  ABORTED: 'aborted',
};

export interface DrainRow {
  /** The execution's name (a local drain's starts with LOCAL_DRAIN_PREFIX). */
  readonly execution: string;
  readonly node?: string;
  /** Who runs it: the deployed workflow, or a CLI process (`drain`, `sweep`, `event`, `decommission --now`). */
  readonly runs: 'workflow' | 'local';
  readonly status: DrainListStatus;
  /** How it ended, in the drain step's words (`done`, `incomplete`, `deadline`, …); absent while running. */
  readonly outcome?: string;
  /** Why it drains: the workflow input's reason, else the cordon reason on the Node. */
  readonly reason?: string;
  /** The signal that caused it (an event id, `sweep-<minute>`), from the workflow input. */
  readonly cause?: string;
  readonly for?: DrainPurpose;
  readonly startedAt?: number;
  readonly stoppedAt?: number;
  /** The governing deadline: the Node's record (which a later signal may bring forward), else the last step's or the input's. */
  readonly deadline?: number;
  /** The lifecycle action it completes (never its token). */
  readonly lifecycle?: { readonly group: string; readonly hook: string };
  /** Pods the last drain step left on the node (refused, blocked, not yet evicted); absent when unknown. */
  readonly podsLeft?: number;
  /** The pods left, by reason code (`blocked-by-pdb`, `unreplicated`, …). */
  readonly leftByReason?: Readonly<Record<string, number>>;
  /** PodDisruptionBudgets that blocked evictions at the last step, with how many pods each. */
  readonly blockingPdbs?: readonly { readonly pdb: string; readonly pods: number }[];
  /** When the last drain step reported (what podsLeft and blockingPdbs are as of). */
  readonly lastStepAt?: number;
  /** Whether the Node still records this drain as the owner of its removal. */
  readonly recordedOnNode: boolean;
  /** Why the status is unknown or the workflow failed (its error and cause), or asking failed. */
  readonly error?: string;
}

export interface DrainListing {
  readonly nodes: readonly NodeView[];
  /**
   * What Step Functions said: the executions it ran lately (names, most recent first) and its answer
   * for each execution asked about. Absent when no state machine was given.
   */
  readonly workflow?: {
    readonly recent: readonly string[];
    readonly answers: ReadonlyMap<string, DrainExecutionAnswer>;
  };
  readonly now: number;
}

/** What the execution alone says: its input, how it ended, and what its last step left. */
function fromExecution(execution: DrainExecution): Omit<DrainRow, 'execution' | 'runs' | 'recordedOnNode'> {
  const { input, lastStep } = execution;
  const status = WORKFLOW_STATUS[execution.status] ?? 'unknown';
  const deadline = Date.parse(lastStep?.deadline ?? input?.deadline ?? '');
  const failure = [execution.error, execution.cause].filter((part) => part !== undefined).join(': ');
  const outcome = status !== 'running' && lastStep && lastStep.outcome !== 'continue' ? lastStep.outcome : undefined;
  return {
    ...(input ? { node: input.node, reason: input.reason, cause: input.cause } : {}),
    status,
    ...(outcome !== undefined ? { outcome } : {}),
    startedAt: execution.startedAt,
    ...(execution.stoppedAt !== undefined ? { stoppedAt: execution.stoppedAt } : {}),
    ...(Number.isFinite(deadline) ? { deadline } : {}),
    ...(input?.lifecycle ? { lifecycle: { group: input.lifecycle.group, hook: input.lifecycle.hook } } : {}),
    ...(lastStep
      ? {
          podsLeft: lastStep.summary.left,
          leftByReason: lastStep.summary.leftByReason,
          blockingPdbs: lastStep.summary.blockingPdbs,
          lastStepAt: lastStep.at,
        }
      : {}),
    ...(failure !== '' ? { error: failure } : {}),
  };
}

/** The hint for a drain of the deployed workflow nobody could ask about. */
export const ASK_THE_WORKFLOW =
  'a drain of the deployed workflow: pass --drain-state-machine <DrainStateMachineArn> to ask Step Functions about it';

/**
 * What Step Functions' answer adds to a drain a Node records, or why it adds nothing. Not asked, the
 * record alone tells a drain that ended (the drain step writes its outcome on the Node), not one that runs.
 */
function workflowPart(
  claim: DrainClaim,
  workflow: DrainListing['workflow'],
): Omit<DrainRow, 'execution' | 'runs' | 'recordedOnNode'> {
  if (workflow === undefined)
    return claim.outcome !== undefined ? { status: 'ended' } : { status: 'unknown', error: ASK_THE_WORKFLOW };
  // The execution that runs the record's drain now (a long drain continues in chained executions).
  const answer = workflow.answers.get(executionToAsk(claim) ?? claim.execution);
  if (answer === undefined || answer.kind === 'error')
    return { status: 'unknown', error: `asking Step Functions failed: ${answer?.error ?? 'no answer'}` };
  if (answer.kind === 'absent') return { status: 'absent' };
  return fromExecution(answer.execution);
}

/** A drain a Node records: the record, with what Step Functions says of it (a local drain: the record alone). */
function recordedRow(node: NodeView, claim: DrainClaim, listing: DrainListing): DrainRow {
  const local = claim.execution.startsWith(LOCAL_DRAIN_PREFIX);
  const record = {
    node: node.name,
    ...(node.annotations[CORDON_REASON_ANNOTATION] !== undefined
      ? { reason: node.annotations[CORDON_REASON_ANNOTATION] }
      : {}),
    ...(claim.for !== undefined ? { for: claim.for } : {}),
    ...(claim.at !== undefined ? { startedAt: claim.at } : {}),
    ...(claim.deadline !== undefined ? { deadline: claim.deadline } : {}),
    ...(claim.lifecycle ? { lifecycle: { group: claim.lifecycle.group, hook: claim.lifecycle.hook } } : {}),
    ...(claim.outcome !== undefined ? { outcome: claim.outcome } : {}),
  };
  if (local) {
    // Alive while its CLI renews the record (lib/plan/drain-liveness.ts); a record nobody renews lost its CLI.
    const state = recordLiveness(claim, undefined, listing.now);
    const renewed = claim.renewedAt ?? claim.at;
    return {
      execution: claim.execution,
      runs: 'local',
      ...record,
      status: state.status === 'running' ? 'running' : 'ended',
      ...(state.status === 'absent'
        ? {
            error: `not renewed since ${renewed !== undefined ? new Date(renewed).toISOString() : 'it was made'}: the CLI that ran it stopped, and the next removal takes over`,
          }
        : {}),
      recordedOnNode: true,
    };
  }
  const asked = workflowPart(claim, listing.workflow);
  // The Node's record governs the deadline and the lifecycle action (a later signal may have changed them).
  return {
    execution: claim.execution,
    runs: 'workflow',
    ...record,
    ...asked,
    node: node.name,
    ...(record.deadline !== undefined ? { deadline: record.deadline } : {}),
    ...(record.lifecycle ? { lifecycle: record.lifecycle } : {}),
    ...(asked.reason === undefined && record.reason !== undefined ? { reason: record.reason } : {}),
    ...(asked.outcome === undefined && record.outcome !== undefined ? { outcome: record.outcome } : {}),
    recordedOnNode: true,
  };
}

const RANK: Readonly<Record<DrainListStatus, number>> = {
  running: 0,
  unknown: 1,
  absent: 2,
  failed: 3,
  'timed-out': 3,
  aborted: 3,
  ended: 3,
  succeeded: 3,
};

/**
 * One row per drain: each a Node records (with what Step Functions says of it), then each the
 * workflow ran lately that no Node records any more. Running drains first, then the most recent.
 */
export function listDrains(listing: DrainListing): DrainRow[] {
  const rows: DrainRow[] = [];
  for (const node of listing.nodes) {
    const claim = drainClaimOf(node);
    if (claim) rows.push(recordedRow(node, claim, listing));
  }
  const listed = new Set(rows.map((row) => row.execution));
  for (const name of listing.workflow?.recent ?? []) {
    if (listed.has(name)) continue;
    listed.add(name);
    const answer = listing.workflow?.answers.get(name);
    if (answer?.kind === 'absent') continue;
    rows.push({
      execution: name,
      runs: 'workflow',
      ...(answer?.kind === 'found'
        ? fromExecution(answer.execution)
        : { status: 'unknown' as const, error: `asking Step Functions failed: ${answer?.error ?? 'no answer'}` }),
      recordedOnNode: false,
    });
  }
  return rows.sort(
    (a, b) =>
      RANK[a.status] - RANK[b.status] ||
      (b.startedAt ?? 0) - (a.startedAt ?? 0) ||
      a.execution.localeCompare(b.execution),
  );
}
