import { CORDONED_AT_ANNOTATION, CORDONED_BY_ANNOTATION, CORDONED_BY_VALUE, SHUTDOWN_TAINT_KEY } from '../model/labels.js';
import type { NodeView } from '../model/observation.js';

/** True only for a cordon the reconciler made and recorded; an operator's cordon is never ours. */
export function isOwnCordon(node: NodeView): boolean {
  return node.unschedulable && node.annotations[CORDONED_BY_ANNOTATION] === CORDONED_BY_VALUE;
}

/** When the reconciler cordoned the node, from its annotation; undefined when absent or unreadable. */
export function ownCordonTime(node: NodeView): number | undefined {
  const at = node.annotations[CORDONED_AT_ANNOTATION];
  if (at === undefined) return undefined;
  const time = Date.parse(at);
  return Number.isNaN(time) ? undefined : time;
}

export function hasShutdownTaint(node: NodeView): boolean {
  return node.taints.some((t) => t.key === SHUTDOWN_TAINT_KEY);
}
