import {
  CORDON_UNTIL_ANNOTATION,
  CORDONED_AT_ANNOTATION,
  DRAIN_ANNOTATION,
  DRAIN_AT_ANNOTATION,
  DRAIN_CHAIN_ANNOTATION,
  DRAIN_DEADLINE_ANNOTATION,
  DRAIN_FOR_ANNOTATION,
  DRAIN_LAUNCH_ANNOTATION,
  DRAIN_OUTCOME_ANNOTATION,
  DRAIN_RENEWED_ANNOTATION,
  LIFECYCLE_ANNOTATION,
  SHUTDOWN_TAINT_KEY,
} from '@ec2-node-reconciler/model/contract/labels.js';
import { MAX_SETTING_DURATION_MS } from '@ec2-node-reconciler/model/contract/settings.js';
import { DRAIN_PURPOSES, type DrainPurpose } from '@ec2-node-reconciler/model/action.js';
import type { NodeView } from '@ec2-node-reconciler/model/observation.js';
import type { LifecycleRef } from '@ec2-node-reconciler/model/signal.js';
import { LifecycleRefSchema } from '@ec2-node-reconciler/model/contract/drain-workflow.js';

function timeAnnotation(node: NodeView, key: string): number | undefined {
  const at = node.annotations[key];
  if (at === undefined) return undefined;
  const time = Date.parse(at);
  return Number.isNaN(time) ? undefined : time;
}

/**
 * How far ahead a time in one of our annotations (`until`, `drain-deadline`) may be: no setting reaches
 * further. A later one was not written for a window or a drain of ours: invalid, never "hold forever".
 */
export const ANNOTATION_HORIZON_MS = MAX_SETTING_DURATION_MS;

export const isBeyondHorizon = (at: number, now: number): boolean => at - now > ANNOTATION_HORIZON_MS;

/** When the reconciler cordoned the node, from its annotation; undefined when absent or unreadable. */
export const ownCordonTime = (node: NodeView): number | undefined => timeAnnotation(node, CORDONED_AT_ANNOTATION);

/** The time before which our cordon is kept (a maintenance window's end); undefined when none. */
export const cordonHeldUntil = (node: NodeView): number | undefined => timeAnnotation(node, CORDON_UNTIL_ANNOTATION);

export function hasShutdownTaint(node: NodeView): boolean {
  return node.taints.some((t) => t.key === SHUTDOWN_TAINT_KEY);
}

/** The drain that owns the Node's current removal, as the Node records it (one removal, one drain). */
export interface DrainClaim {
  readonly execution: string;
  readonly deadline?: number;
  readonly lifecycle?: LifecycleRef;
  /** When the record was made. */
  readonly at?: number;
  readonly for?: DrainPurpose;
  /** The instance's LaunchTime when the record was made. */
  readonly launchedAt?: number;
  /** How the drain ended, when it wrote that down. */
  readonly outcome?: string;
  /** When its drain last renewed the record (a record of an older version has none). */
  readonly renewedAt?: number;
  /** Which chained execution of the drain runs now: 0 for the first. */
  readonly chain: number;
}

/** The chain annotation: a whole number ≥ 1; absent or unreadable, 0 (the first execution). */
export function chainOf(text: string | undefined): number {
  if (text === undefined || !/^[0-9]+$/.test(text)) return 0;
  const chain = Number(text);
  return Number.isSafeInteger(chain) ? chain : 0;
}

/** The lifecycle action a Node hands its drain; an unreadable one counts as none (the sweep finds the action again). */
export function lifecycleOf(text: string | undefined): LifecycleRef | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = LifecycleRefSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

export function drainClaimOf(node: NodeView): DrainClaim | undefined {
  const execution = node.annotations[DRAIN_ANNOTATION];
  if (execution === undefined || execution === '') return undefined;
  const deadline = timeAnnotation(node, DRAIN_DEADLINE_ANNOTATION);
  const at = timeAnnotation(node, DRAIN_AT_ANNOTATION);
  const launchedAt = timeAnnotation(node, DRAIN_LAUNCH_ANNOTATION);
  const lifecycle = lifecycleOf(node.annotations[LIFECYCLE_ANNOTATION]);
  const purpose = DRAIN_PURPOSES.find((p) => p === node.annotations[DRAIN_FOR_ANNOTATION]);
  const outcome = node.annotations[DRAIN_OUTCOME_ANNOTATION];
  const renewedAt = timeAnnotation(node, DRAIN_RENEWED_ANNOTATION);
  return {
    execution,
    chain: chainOf(node.annotations[DRAIN_CHAIN_ANNOTATION]),
    ...(deadline !== undefined ? { deadline } : {}),
    ...(lifecycle ? { lifecycle } : {}),
    ...(at !== undefined ? { at } : {}),
    ...(purpose !== undefined ? { for: purpose } : {}),
    ...(launchedAt !== undefined ? { launchedAt } : {}),
    ...(outcome !== undefined ? { outcome } : {}),
    ...(renewedAt !== undefined ? { renewedAt } : {}),
  };
}
