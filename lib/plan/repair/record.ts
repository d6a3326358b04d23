// The repair a Node records (its drain record, `for: repair`), read the one way the census, the checks
// and the recovery share: whether it is open, cancelled by the operator, or taken back after it ended.
import { leavesLifecycleOpen } from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import { isOurCordonGone } from '../../kube/node-writes.js';
import type { NodeView } from '@ec2-node-reconciler/model/observation.js';
import type { DrainClaim } from '../own-cordon.js';
import type { RecordedDrain } from '../pair.js';

/** A drain that ended because someone else uncordoned the node: the operator took the node back. */
export const cancelledByOperator = (claim: DrainClaim): boolean =>
  claim.outcome !== undefined && leavesLifecycleOpen(claim.outcome);

/** Whether the recorded drain runs, or may (the workflow could not say). */
export const isDrainLive = (drain: RecordedDrain): boolean =>
  drain.state.status === 'running' || drain.state.status === 'unknown';

/** A repair the Node records that is not over: its drain runs or ended, and its machine is not replaced yet. */
export function isOpenRepair(drain: RecordedDrain): boolean {
  return drain.claim.for === 'repair' && !cancelledByOperator(drain.claim) && drain.state.status !== 'absent';
}

/** A repair the Node records that nobody else cancelled, whatever its drain's state: a recovered node has it cancelled. */
export const isCancellableRepair = (drain: RecordedDrain): boolean =>
  drain.claim.for === 'repair' && !cancelledByOperator(drain.claim);

/**
 * A repair whose drain is over and whose node is schedulable again: someone uncordoned it after the
 * drain ended (the drain itself notices only an uncordon while it runs). Pods may run there again, so
 * the machine is the operator's, and is not marked.
 */
export const uncordonedSinceDrain = (node: NodeView, drain: RecordedDrain): boolean =>
  drain.claim.for === 'repair' && isOurCordonGone(node) && !isDrainLive(drain);

/** An open repair the operator has not taken back since its drain ended: its machine is the next to replace. */
export const isRepairToFinish = (node: NodeView, drain: RecordedDrain): boolean =>
  isOpenRepair(drain) && !uncordonedSinceDrain(node, drain);
