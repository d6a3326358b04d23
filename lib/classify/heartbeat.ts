import type { LeaseView, NodeView } from '@ec2-node-reconciler/model/observation.js';

/**
 * The newest evidence that the kubelet is alive: the Lease renewTime or the Ready condition's
 * lastHeartbeatTime, whichever is newer. Taking the newer of the two errs towards "alive",
 * which is the safe side for a delete.
 */
export function lastHeartbeat(node: NodeView, lease: LeaseView | undefined): number | undefined {
  const times = [lease?.renewTime, node.readyHeartbeatAt].filter((t): t is number => t !== undefined);
  return times.length === 0 ? undefined : Math.max(...times);
}

/** Fresh: renewed within `graceMs` of `now`. No heartbeat at all is never fresh. */
export function isHeartbeatFresh(heartbeatAt: number | undefined, now: number, graceMs: number): boolean {
  return heartbeatAt !== undefined && now - heartbeatAt <= graceMs;
}
