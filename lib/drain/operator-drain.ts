// The operator's own drain (the CLI's `drain NODE` and `decommission --now`): the operator's cordon,
// recorded on the Node like a workflow's drain (for: manual), so that the deployed reconciler neither
// starts a second drain beside it nor counts it as the drain of a removal that comes later.
import { LOCAL_DRAIN_PREFIX } from '../contract/labels.js';
import { claimDrain } from './claim.js';
import { runDrain } from './driver.js';
import type { DrainDeps } from './step.js';
import type { DrainStepResult } from './step-result.js';

export interface OperatorDrain {
  readonly node: string;
  readonly reason: string;
  /** How long the drain may take. */
  readonly timeoutMs: number;
  /** The Node incarnation the operator means (decommission knows it from the instance). */
  readonly expectedUid?: string;
  /** Drain only the pods this label selector selects (kubectl drain --pod-selector). @default every pod */
  readonly podSelector?: string;
  /** Seconds each pod is given to terminate (kubectl drain --grace-period). @default - the pod's own */
  readonly gracePeriodSeconds?: number;
}

/**
 * Records the drain on the Node unless another drain's record is there (a running workflow drain:
 * this one then runs beside it without a record, as the operator asked), and drains.
 */
export async function runOperatorDrain(deps: DrainDeps, drain: OperatorDrain): Promise<DrainStepResult> {
  const now = deps.clock.now();
  const deadline = now + drain.timeoutMs;
  const execution = `${LOCAL_DRAIN_PREFIX}manual-${drain.node}-${new Date(now)
    .toISOString()
    .replace(/[^0-9]/g, '')
    .slice(0, 14)}`.slice(0, 253);
  const claimed = await claimDrain(
    deps.api,
    drain.node,
    {
      execution,
      deadline,
      for: 'manual',
      ...(drain.expectedUid !== undefined ? { expectedUid: drain.expectedUid } : {}),
    },
    deps.clock,
  );
  return runDrain(deps, {
    node: drain.node,
    deadline,
    // The operator's cordon, not the reconciler's: no sweep reverses it.
    cordon: {
      reason: drain.reason,
      by: 'operator',
      ...(drain.expectedUid !== undefined ? { expectedUid: drain.expectedUid } : {}),
    },
    ...(claimed.kind === 'claimed' ? { execution } : {}),
    ...(drain.podSelector !== undefined ? { podSelector: drain.podSelector } : {}),
    ...(drain.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: drain.gracePeriodSeconds } : {}),
  });
}
