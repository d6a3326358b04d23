// The operator's own drain (the CLI's `drain NODE` and `decommission --now`): the operator's cordon,
// recorded on the Node like a workflow's drain (for: manual), so that the deployed reconciler neither
// starts a second drain beside it nor counts it as the drain of a removal that comes later. A removal
// that comes while it runs (a scale-in) hands it its lifecycle action on the Node: it then holds the
// action as the workflow would, heartbeating it while it drains and completing it at the end.
import { LOCAL_DRAIN_PREFIX } from '@ec2-node-reconciler/model/contract/labels.js';
import { nodeInstanceId } from '@ec2-node-reconciler/model/provider-id.js';
import { claimDrain } from '../../lib/drain/claim.js';
import { runDrain } from './driver.js';
import { endHeldLifecycle, LifecycleHeartbeats, type HeldLifecycleEnd, type LifecycleCalls } from './held-lifecycle.js';
import type { DrainDeps } from '../../lib/drain/step.js';
import { outcomeOf, type DrainStepResult } from '../../lib/drain/step-result.js';

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

export interface OperatorDrainEnd extends DrainStepResult {
  /** The lifecycle action handed to this drain on the Node, and what became of it. */
  readonly held?: HeldLifecycleEnd;
  /** Lifecycle heartbeats that failed (each retried at the next pass). */
  readonly heartbeatErrors?: readonly string[];
  /** Why a lifecycle action handed over could not be held: no instance is known for the Node, or no AWS access was given. */
  readonly unheld?: string;
}

/**
 * Records the drain on the Node unless another drain's record is there (a running workflow drain:
 * this one then runs beside it without a record, as the operator asked), and drains. A lifecycle
 * action handed to it meanwhile is heartbeaten and completed through `lifecycle`.
 */
export async function runOperatorDrain(
  deps: DrainDeps,
  drain: OperatorDrain,
  lifecycle?: LifecycleCalls,
): Promise<OperatorDrainEnd> {
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
  const recorded = claimed.kind === 'claimed';
  // The machine a handed-over action is about: the Node's (the action carries no instance, only its hook).
  const node = recorded ? await deps.api.getNode(drain.node) : undefined;
  const instanceId = node ? nodeInstanceId(node) : undefined;
  const heartbeats = lifecycle ? new LifecycleHeartbeats(lifecycle, deps.clock) : undefined;
  // Checked at every pass and before every wait, as the local workflow does.
  let handed: DrainStepResult['lifecycle'];
  const beat = (): void => {
    if (handed && instanceId) heartbeats?.beat(instanceId, handed);
  };
  const onProgress = (progress: DrainStepResult): void => {
    deps.onProgress?.(progress);
    handed = progress.lifecycle ?? handed;
    beat();
  };
  const sleep = (ms: number): Promise<void> => {
    beat();
    return deps.sleep(ms);
  };
  const result = await runDrain(
    { ...deps, onProgress, sleep },
    {
      node: drain.node,
      deadline,
      // The operator's cordon, not the reconciler's: no sweep reverses it.
      cordon: {
        reason: drain.reason,
        by: 'operator',
        ...(drain.expectedUid !== undefined ? { expectedUid: drain.expectedUid } : {}),
      },
      ...(recorded ? { execution } : {}),
      ...(drain.podSelector !== undefined ? { podSelector: drain.podSelector } : {}),
      ...(drain.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: drain.gracePeriodSeconds } : {}),
    },
  );
  await heartbeats?.settled();
  const heartbeatErrors = heartbeats && heartbeats.errors.length > 0 ? { heartbeatErrors: heartbeats.errors } : {};
  const ref = result.lifecycle;
  if (!ref) return { ...result, ...heartbeatErrors };
  if (!lifecycle || !instanceId || !node)
    return {
      ...result,
      unheld: !lifecycle
        ? 'no AWS access to complete it'
        : `no EC2 instance is known for node ${drain.node} (no providerID, and not a resource-based name)`,
    };
  const held = await endHeldLifecycle(
    lifecycle,
    { node: drain.node, nodeUid: node.uid, instanceId },
    ref,
    outcomeOf(result.status),
  );
  return { ...result, held, ...heartbeatErrors };
}
