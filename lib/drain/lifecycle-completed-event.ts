// The Kubernetes Event a drain's end leaves when it completes the lifecycle action it held: recorded by
// the deployed workflow's notice (lib/lambda/drain-step-task.ts) and by a drain run in this process
// (held-lifecycle.ts). It lives with the drain, below the reports that list it among the reasons.
import type { NodeEvent } from '../kube/events.js';

/** The Event's reason (docs/observability.md; report/notify.ts lists it with the actions' reasons). */
export const LIFECYCLE_COMPLETED_REASON = 'LifecycleActionCompleted';

/**
 * The Event of a lifecycle action completed at the end of a drain (by the drain workflow, or by the
 * CLI's local drain): on the Node the drain started on.
 */
export function lifecycleCompletedEvent(
  drain: { readonly node: string; readonly nodeUid: string; readonly instanceId?: string },
  lifecycle: { readonly group: string; readonly hook: string },
  outcome: string,
): NodeEvent {
  return {
    node: drain.node,
    uid: drain.nodeUid,
    reason: LIFECYCLE_COMPLETED_REASON,
    type: 'Normal',
    message: `completed lifecycle action ${lifecycle.group}/${lifecycle.hook} of ${drain.instanceId ?? 'the instance'} with CONTINUE: its drain ended ${outcome}`,
  };
}
