// The contract between the drain workflow (Step Functions, infra/) and the drain-step function
// (functions/drain-step.ts). Both sides import these schemas, so the JSON paths in the state
// machine definition and the handler cannot drift apart.
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { InstanceIdSchema } from '../instance-id.js';

export const LifecycleRefSchema = z.object({
  group: z.string().min(1),
  hook: z.string().min(1),
  token: z.string().min(1).optional(),
});

/** What starting a drain puts into the execution (StartExecution input). */
export const DrainWorkflowInputSchema = z.object({
  cluster: z.string().min(1),
  node: z.string().min(1),
  /** uid of the Node when the drain was planned: a re-registered Node is not drained by this execution. */
  nodeUid: z.string().min(1),
  instanceId: InstanceIdSchema.optional(),
  /** ISO 8601; the drain stops there and reports what is left. */
  deadline: z.iso.datetime(),
  reason: z.string(),
  /** The signal (event id) that caused the drain, or `sweep-<minute>` (plan's sweepCause): part of the execution name. */
  cause: z.string().min(1),
  /**
   * The execution's name, as the Node records it (ec2-node-reconciler/drain): the drain takes what is
   * handed over on the Node only from a record of its own. Default: drainExecutionName(cluster, instance or node, cause).
   */
  execution: z.string().min(1).optional(),
  lifecycle: LifecycleRefSchema.optional(),
  /** Which execution of the drain record this is: absent or 0 for the first, n for the n-th chained one. */
  chain: z.number().int().min(0).optional(),
  /**
   * A chained execution resumes from its predecessor's last step output (state, handed-over deadline
   * and lifecycle action, last heartbeat); the drain step itself reads nothing of it.
   */
  resume: z.record(z.string(), z.unknown()).optional(),
});
export type LifecycleRef = z.infer<typeof LifecycleRefSchema>;
export type DrainWorkflowInput = z.infer<typeof DrainWorkflowInputSchema>;

/**
 * The drain-step task's payload: the workflow input plus the previous step's opaque state (absent
 * on the first step; a step with no state re-reads the node's pods, so losing it loses nothing).
 */
export const DrainStepInputSchema = z.object({
  input: DrainWorkflowInputSchema,
  state: z.unknown().optional(),
  /**
   * The lifecycle action the drain works for: the one the previous step reported (handed over on
   * the Node), else the input's. The step records a heartbeat for it at its start, so that retries
   * and long steps never leave the hook without one for long (infra/heartbeat-gap.ts).
   */
  lifecycle: LifecycleRefSchema.optional(),
});
export type DrainStepInput = z.infer<typeof DrainStepInputSchema>;

/**
 * What the workflow tells the drain-step function once it has completed the drain's lifecycle
 * action: the function records the LifecycleActionCompleted Event on the Node (Step Functions cannot
 * reach Kubernetes). The token stays out: it is a credential for an action that is done.
 */
export const LIFECYCLE_COMPLETED_NOTICE = 'lifecycle-completed';
export const DrainNoticeSchema = z.object({
  notice: z.literal(LIFECYCLE_COMPLETED_NOTICE),
  input: DrainWorkflowInputSchema,
  lifecycle: LifecycleRefSchema.omit({ token: true }),
  /** How the drain ended: a DrainEnd, or `error` (the step kept failing) or `unexpected`. */
  outcome: z.string().min(1),
});
export type DrainNotice = z.infer<typeof DrainNoticeSchema>;

/** Whether a drain-step payload is the workflow's notice (it names one) rather than a step. */
export const isDrainNotice = (payload: unknown): boolean =>
  typeof payload === 'object' && payload !== null && 'notice' in payload;

/**
 * How a drain step ends. `continue`: wait and step again. Every other outcome ends the drain:
 * `done` (every pod the drain had to remove is gone), `incomplete` (pods refused or blocked are
 * left), `deadline` (the deadline passed while pods were still to go or terminating),
 * `node-replaced` / `node-gone` (the Node the drain started on was replaced or deleted),
 * `cancelled-by-uncordon` (someone else uncordoned the node: the operator wins).
 */
export const DRAIN_OUTCOMES = [
  'continue',
  'done',
  'incomplete',
  'deadline',
  'node-replaced',
  'node-gone',
  'cancelled-by-uncordon',
] as const;
export type DrainOutcome = (typeof DRAIN_OUTCOMES)[number];
export type DrainEnd = Exclude<DrainOutcome, 'continue'>;

/**
 * Ends after which the lifecycle action is left open for the operator: completing it would end the
 * machine they just chose to keep using. Every other end completes it with CONTINUE.
 */
export const LIFECYCLE_LEFT_OPEN: readonly DrainEnd[] = ['cancelled-by-uncordon'];
export const leavesLifecycleOpen = (outcome: string): boolean =>
  (LIFECYCLE_LEFT_OPEN as readonly string[]).includes(outcome);

/**
 * The command that completes a lifecycle action a drain left open, for the output event and the
 * report: `{group}`, `{hook}` and `{instance}` are filled in (the token stays out of both).
 */
export const COMPLETE_LIFECYCLE_COMMAND =
  'aws autoscaling complete-lifecycle-action --auto-scaling-group-name {group} --lifecycle-hook-name {hook} --instance-id {instance} --lifecycle-action-result CONTINUE';

export function completeLifecycleCommand(values: {
  readonly group: string;
  readonly hook: string;
  readonly instance: string;
}): string {
  return COMPLETE_LIFECYCLE_COMMAND.replace(
    /\{(group|hook|instance)\}/g,
    (_m, key: 'group' | 'hook' | 'instance') => values[key],
  );
}

/**
 * A step that failed for a transient reason is tried again after FIRST × 2^(n−1) seconds (n: failures
 * in a row), at most MAX, and never later than the deadline: the workflow and its local stand-ins retry
 * until the deadline, and only then does the drain end (`deadline`) and its lifecycle action get completed.
 */
export const FAILED_STEP_RETRY = { firstSeconds: 5, maxSeconds: 60 } as const;

/** Seconds to wait after the n-th failure in a row (n ≥ 1), before the deadline's bound. */
export const failedStepDelaySeconds = (failures: number): number =>
  Math.min(FAILED_STEP_RETRY.maxSeconds, FAILED_STEP_RETRY.firstSeconds * 2 ** Math.max(0, failures - 1));

/** Step Functions' limit on a state's input, output and result, and on each variable: 256 KiB. */
export const STATE_PAYLOAD_LIMIT_BYTES = 256 * 1024;

/** Named examples a summary carries at most (the rest are counted). */
export const SUMMARY_EXAMPLES = 10;

const PodCount = z.number().int().min(0);

/** What a drain did, bounded whatever the node holds: counts, reason codes, PDB names and a few named pods. */
export const DrainSummarySchema = z.object({
  /** Pods this drain evicted (or deleted), terminating ones included. */
  evicted: PodCount,
  /** Pods still terminating (evicted by this drain, or terminating before it came). */
  terminating: PodCount,
  /** Pods that went away without this drain's eviction. */
  gone: PodCount,
  /** Pods still on the node that the drain had to remove and did not: refused, blocked, not yet evicted. */
  left: PodCount,
  /** DaemonSet and mirror pods, and pods recreated under the name of an evicted one. */
  skipped: PodCount,
  /** The pods left, by reason code (`blocked-by-pdb`, `unreplicated`, `local-storage`, …). */
  leftByReason: z.record(z.string(), PodCount),
  /** PodDisruptionBudgets that blocked pods, with how many each. */
  blockingPdbs: z.array(z.object({ pdb: z.string(), pods: PodCount })).max(SUMMARY_EXAMPLES),
  /** Some of the pods left: `namespace/name` and reason code. */
  examples: z
    .array(z.object({ pod: z.string(), reason: z.string(), pdb: z.string().optional() }))
    .max(SUMMARY_EXAMPLES),
  /** Pods evicted with a grace period shortened to fit the deadline (gracePeriod: fit-deadline). */
  graceShortened: z.object({
    pods: PodCount,
    examples: z
      .array(z.object({ pod: z.string(), seconds: PodCount, podSeconds: PodCount.optional() }))
      .max(SUMMARY_EXAMPLES),
  }),
});
export type DrainSummary = z.infer<typeof DrainSummarySchema>;

/** What the drain-step task returns; the state machine's Choice reads `outcome`. */
export const DrainStepOutputSchema = z.object({
  outcome: z.enum(DRAIN_OUTCOMES),
  /** Seconds for the Wait state before the next step (>= 1). */
  waitSeconds: z.number().int().min(1),
  state: z.unknown(),
  /** The deadline the step worked to: the input's, or an earlier one set on the Node (DRAIN_DEADLINE_ANNOTATION). */
  deadline: z.iso.datetime(),
  /**
   * The lifecycle action to heartbeat and complete: one handed over to this drain on the Node
   * (LIFECYCLE_ANNOTATION), else the input's. Absent when there is none.
   */
  lifecycle: LifecycleRefSchema.optional(),
  /** ISO 8601: when the step recorded the lifecycle heartbeat at its start; absent when it recorded none. */
  heartbeatAt: z.iso.datetime().optional(),
  /** Bounded: for the output event and metrics, never per-pod messages. */
  summary: DrainSummarySchema,
});
export type DrainStepOutput = z.infer<typeof DrainStepOutputSchema>;

/** The execution a workflow input describes: its own name, or the one derived from it. */
export const executionOf = (input: DrainWorkflowInput): string =>
  input.execution ?? drainExecutionName(input.cluster, input.instanceId ?? input.node, input.cause, input.nodeUid);

/** The n-th chained execution of a drain record (n = 0: the record's own execution). */
export const chainExecutionName = (record: string, chain: number): string =>
  chain === 0 ? record : `${record.slice(0, 80 - CHAIN_SUFFIX_ROOM)}-c${chain}`;

/** Hex digits of the execution name's hash: 64 bits, so that 200,000 drains collide with odds of about 1 in 10⁹. */
const NAME_HASH_DIGITS = 16;

/** Characters a chained execution's name adds to its record's (`-c` and up to 4 digits): chainExecutionName. */
export const CHAIN_SUFFIX_ROOM = 6;

/**
 * The longest name drainExecutionName gives: room is left within Step Functions' 80 characters for
 * LOCAL_DRAIN_PREFIX (6) or a chained execution's suffix (chainExecutionName).
 */
export const DRAIN_NAME_MAX = 74;

/**
 * Step Functions execution names: 1–80 characters of [A-Za-z0-9-_]. Deterministic from (cluster,
 * instance or node, cause, Node uid), so a duplicate event cannot start a second drain; a readable
 * prefix, then 64 bits of a SHA-256 over the whole tuple, so two removals never share a name (a
 * shared name is a drain that never starts: names are unique for 90 days).
 */
export function drainExecutionName(cluster: string, subject: string, cause: string, nodeUid?: string): string {
  const clean = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '-');
  const hash = createHash('sha256')
    .update(JSON.stringify([cluster, subject, cause, nodeUid ?? '']))
    .digest('hex')
    .slice(0, NAME_HASH_DIGITS);
  const readable = `${clean(cluster)}-${clean(subject)}-${clean(cause)}`;
  return `${readable.slice(0, DRAIN_NAME_MAX - NAME_HASH_DIGITS - 1)}-${hash}`;
}
