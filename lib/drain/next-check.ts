// When a drain step looks at its node again: the first back-off or grace period to end, the poll
// interval, never past the deadline, each Node at its own offset so that a storm's drains spread out.
import { podKey } from './api.js';
import { isUnfinished, type PodReport } from './pod-report.js';
import type { PassTime, StepContext } from './step-context.js';
import type { Listing } from './step-listing.js';
import { isRetryStage } from './state.js';

/** Kubelets report a little after the grace period ends: look again just after it. */
const GRACE_END_MARGIN_MS = 100;
/**
 * Drains a storm starts together (an SQS batch's) evict together and would all look again the
 * moment their pods' grace periods end: each Node looks at its own offset within this spread
 * instead (a digest of its name, so a drain's timing repeats), and a few hundred drains send their
 * checks over a second rather than in one burst on the API server's seats. kubectl polls once a
 * second: no look comes later than kubectl's would.
 */
const GRACE_END_SPREAD_MS = 900;

/** FNV-1a of the Node's name, as an offset within GRACE_END_SPREAD_MS. */
export function checkOffsetMs(node: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < node.length; i++) hash = Math.imul(hash ^ node.charCodeAt(i), 0x01000193) >>> 0;
  return hash % GRACE_END_SPREAD_MS;
}

/** How long until the next check: the first back-off or grace period to end, the poll interval, never past the deadline. */
export function nextCheckAfter(
  { request, state, settings }: StepContext,
  reports: readonly PodReport[],
  listing: Listing,
  graceEnds: readonly number[],
  { now, deadline }: PassTime,
): number {
  const waits = [...state.pods.values()].flatMap((r) =>
    isRetryStage(r.stage) && listing.listedUid.get(podKey(r)) === r.uid ? [(r.retryAt ?? now) - now] : [],
  );
  if (
    reports.some(
      (r) => isUnfinished(r) && (r.status === 'terminating' || r.status === 'waiting' || r.status === 'pending'),
    )
  )
    waits.push(settings.pollIntervalMs);
  // A grace period ending before the next poll is worth a look just after it (kubectl polls every second);
  // one already over (a kubelet that does not answer) is not worth more than the usual poll.
  const margin = GRACE_END_MARGIN_MS + checkOffsetMs(request.node);
  for (const end of graceEnds) if (end > now) waits.push(end - now + margin);
  return Math.max(0, Math.min(deadline - now, ...(waits.length > 0 ? waits : [settings.pollIntervalMs])));
}
