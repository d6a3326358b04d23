// The contract between the drain workflow (Step Functions, infra/) and the drain-step function
// (functions/drain-step.ts). Both sides import these schemas, so the JSON paths in the state
// machine definition and the handler cannot drift apart.
import { z } from 'zod';
import { InstanceIdSchema } from '../model/instance-id.js';

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
  /** The signal (event id) that caused the drain, or `sweep-<hour>` (plan's sweepCause): part of the execution name. */
  cause: z.string().min(1),
  lifecycle: LifecycleRefSchema.optional(),
});
export type DrainWorkflowInput = z.infer<typeof DrainWorkflowInputSchema>;

/**
 * The drain-step task's payload: the workflow input plus the previous step's opaque state (absent
 * on the first step; a step with no state re-reads the node's pods, so losing it loses nothing).
 */
export const DrainStepInputSchema = z.object({
  input: DrainWorkflowInputSchema,
  state: z.unknown().optional(),
});
export type DrainStepInput = z.infer<typeof DrainStepInputSchema>;

/** What the drain-step task returns; the state machine's Choice reads `outcome`. */
export const DrainStepOutputSchema = z.object({
  /** done: every pod to evict is gone; deadline: the deadline passed first; continue: wait and step again. */
  outcome: z.enum(['done', 'deadline', 'continue']),
  /** Seconds for the Wait state before the next step (>= 1). */
  waitSeconds: z.number().int().min(1),
  state: z.unknown(),
  /** Counts for the output event and metrics. */
  summary: z.object({
    evicted: z.number().int().min(0),
    remaining: z.number().int().min(0),
    blocked: z.array(z.object({ pod: z.string(), reason: z.string() })),
  }),
});
export type DrainStepOutput = z.infer<typeof DrainStepOutputSchema>;

/**
 * Step Functions execution names: 1–80 characters of [A-Za-z0-9-_]. Deterministic from
 * (cluster, instance or node, cause), so a duplicate event cannot start a second drain.
 */
export function drainExecutionName(cluster: string, subject: string, cause: string): string {
  const clean = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '-');
  const name = `${clean(cluster)}-${clean(subject)}-${clean(cause)}`;
  if (name.length <= 80) return name;
  // Long names keep a readable prefix and a hash of the whole, so distinct causes stay distinct.
  let hash = 0x811c9dc5;
  for (const ch of name) hash = Math.imul(hash ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return `${name.slice(0, 71)}-${hash.toString(16).padStart(8, '0')}`;
}

/**
 * The signal queue as deployed: a record the events function fails comes back after the visibility
 * timeout (six times the function's 60 s timeout, Lambda's advice for SQS sources), and after
 * maxReceiveCount receives it goes to the dead-letter queue. The sandbox's queue behaves the same.
 */
export const SIGNAL_QUEUE = { eventsFunctionTimeoutSeconds: 60, visibilityTimeoutSeconds: 360, maxReceiveCount: 3 } as const;

/** Output events on the reconciler's own bus (source and detail-types). */
export const OUTPUT_EVENT_SOURCE = 'ec2-node-reconciler';
export const OUTPUT_DETAIL_TYPES = ['Node Deleted', 'Node Drained', 'Drain Failed', 'Divergence Detected'] as const;
export type OutputDetailType = (typeof OUTPUT_DETAIL_TYPES)[number];

/** Environment the functions read at cold start (validated there). */
export const FUNCTION_ENV = {
  clusterName: 'CLUSTER_NAME',
  settings: 'RECONCILER_SETTINGS',
  drainStateMachineArn: 'DRAIN_STATE_MACHINE_ARN',
  outputEventBusName: 'OUTPUT_EVENT_BUS_NAME',
  /** Comma-separated: the Auto Scaling groups configured as the cluster's (their instances are ours). */
  autoScalingGroupNames: 'AUTO_SCALING_GROUP_NAMES',
} as const;
