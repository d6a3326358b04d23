// A repair completes when its drain ends (docs/design.md §1b): the drain step that sees the end marks the
// machine Unhealthy for its Auto Scaling group to replace, instead of leaving it drained and idle
// until a sweep comes by. The sweep keeps its own path (lib/plan/repair/plan-repair.ts) for a drain whose step
// could not do it; both go by one rule (lib/plan/repair/drain-end.ts).
import {
  DRAIN_ANNOTATION,
  DRAIN_FOR_ANNOTATION,
  LIFECYCLE_ANNOTATION,
} from '@ec2-node-reconciler/model/contract/labels.js';
import type { DrainEnd, DrainWorkflowInput } from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import type { NodeEvent } from '../kube/events.js';
import type { InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import type { NodeView } from '@ec2-node-reconciler/model/observation.js';
import { ec2InstanceIdOf } from '@ec2-node-reconciler/model/provider-id.js';
import { badConditions } from '../classify/node-health.js';
import { repairDrainVerdict } from '../plan/repair/drain-end.js';
import { REPAIR_EVENT_REASONS } from '../report/notify.js';
import type { BlockedPod } from '../drain/pod-report.js';
import { errorText } from '@ec2-node-reconciler/model/error-text.js';
import { isOurCordonGone } from '../kube/node-writes.js';

export interface RepairCompletionDeps {
  /** The Node as it is now (with its conditions), or undefined when it is gone. */
  readonly getNode: (name: string) => Promise<NodeView | undefined>;
  /** SetInstanceHealth Unhealthy (AutoScalingAdapter.markUnhealthy). */
  readonly markUnhealthy: (instanceId: InstanceId) => Promise<void>;
  readonly recordEvent: (event: NodeEvent) => Promise<void>;
  readonly now: () => number;
  /** heartbeatGrace: a Ready True whose heartbeat is older is no recovery. */
  readonly heartbeatGraceMs: number;
}

export type RepairCompletion =
  | { readonly kind: 'replaced'; readonly instanceId: InstanceId; readonly eventError?: string }
  | { readonly kind: 'blocked'; readonly reason: string; readonly eventError?: string }
  /** The Node could not be read, or SetInstanceHealth failed: the next sweep marks the machine (its replace path goes by the same rule). */
  | { readonly kind: 'failed'; readonly error: string }
  /** Not this step's to do: not a repair drain, not ended so, or not the machine the input names. */
  | { readonly kind: 'not-ours'; readonly why: string };

const pdbsOf = (blocked: readonly BlockedPod[]): string[] =>
  [...new Set(blocked.flatMap((b) => (b.pdb !== undefined ? [b.pdb] : [])))].sort();

/**
 * After a drain ended with `outcome`: when the Node still records this execution as its repair (the
 * sweep made that record only for its own instances in an Auto Scaling group), is still the Node the
 * drain started on, still names the input's instance, is still cordoned and still unhealthy, mark the
 * instance Unhealthy, or say why the repair is blocked. Everything else is left to the next sweep.
 */
export async function completeRepair(
  input: DrainWorkflowInput,
  execution: string,
  outcome: DrainEnd,
  blocked: readonly BlockedPod[],
  deps: RepairCompletionDeps,
): Promise<RepairCompletion> {
  const { instanceId } = input;
  if (instanceId === undefined) return { kind: 'not-ours', why: 'the drain names no instance' };
  if (outcome !== 'done' && outcome !== 'deadline' && outcome !== 'incomplete')
    return { kind: 'not-ours', why: `the drain ended ${outcome}` };
  let node: NodeView | undefined;
  try {
    node = await deps.getNode(input.node);
  } catch (error) {
    return { kind: 'failed', error: `reading node ${input.node}: ${errorText(error)}` };
  }
  if (node === undefined || node.uid !== input.nodeUid)
    return { kind: 'not-ours', why: 'the Node is gone or another one' };
  if (node.annotations[DRAIN_ANNOTATION] !== execution || node.annotations[DRAIN_FOR_ANNOTATION] !== 'repair')
    return { kind: 'not-ours', why: 'the Node does not record this drain as its repair' };
  // A removal joined the repair drain: the machine goes anyway, and the workflow completes its lifecycle action.
  if (node.annotations[LIFECYCLE_ANNOTATION] !== undefined)
    return { kind: 'not-ours', why: 'a removal joined the repair drain' };
  if (node.providerID === undefined || ec2InstanceIdOf(node.providerID) !== instanceId)
    return { kind: 'not-ours', why: `the Node does not name ${instanceId}` };
  if (isOurCordonGone(node)) return { kind: 'not-ours', why: 'the Node was uncordoned (our cordon is not on it)' };
  // Recovered meanwhile: the sweep cancels the repair (docs/design.md §1b); nothing is marked here.
  if (badConditions(node, node.readyHeartbeatAt, deps.now(), deps.heartbeatGraceMs).length === 0)
    return { kind: 'not-ours', why: 'the Node is healthy again' };

  const verdict = repairDrainVerdict(outcome, node);
  if (verdict.kind === 'blocked') {
    const pdbs = pdbsOf(blocked);
    const reason = `repair of ${instanceId} blocked: ${verdict.why}${pdbs.length > 0 ? `; PodDisruptionBudget ${pdbs.join(', ')}` : ''}. To replace it anyway: aws autoscaling set-instance-health --instance-id ${instanceId} --health-status Unhealthy; to keep it: kubectl uncordon ${node.name}`;
    const eventError = await recordQuietly(deps, {
      node: node.name,
      uid: node.uid,
      reason: REPAIR_EVENT_REASONS.blocked,
      message: reason,
      type: 'Warning',
    });
    return { kind: 'blocked', reason, ...(eventError !== undefined ? { eventError } : {}) };
  }
  if (verdict.kind !== 'replace') return { kind: 'not-ours', why: `the drain ended ${outcome}` };
  try {
    await deps.markUnhealthy(instanceId);
  } catch (error) {
    return { kind: 'failed', error: errorText(error) };
  }
  const eventError = await recordQuietly(deps, {
    node: node.name,
    uid: node.uid,
    reason: REPAIR_EVENT_REASONS.replace,
    message: `repair: its drain ${execution} ended (${outcome}): marked ${instanceId} Unhealthy, its Auto Scaling group replaces it`,
    type: 'Normal',
  });
  return { kind: 'replaced', instanceId, ...(eventError !== undefined ? { eventError } : {}) };
}

/** An Event that cannot be recorded never undoes what was done: its error is returned, for the log. */
async function recordQuietly(deps: RepairCompletionDeps, event: NodeEvent): Promise<string | undefined> {
  try {
    await deps.recordEvent(event);
    return undefined;
  } catch (error) {
    return errorText(error);
  }
}
