// Whether a drain record on a Node is alive (docs/design.md §5): a drain renews its record about every minute
// while it runs, so a record nobody renewed for RECORD_TTL_MS has lost its drain — a CLI stopped by
// Ctrl-C, a machine that went to sleep — and the next removal takes over, instead of the record
// counting as running until its deadline with nobody to heartbeat or complete a lifecycle action
// handed to it. Pure: the record, what the workflow says of its execution, and the time.
import { chainExecutionName } from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import { LOCAL_DRAIN_PREFIX } from '@ec2-node-reconciler/model/contract/labels.js';
import type { DrainExecutionState } from '@ec2-node-reconciler/model/observation.js';
import type { DrainClaim } from './own-cordon.js';

/** How often a running drain renews its record (the drain step does, at each pass when it is older than this). */
export const RENEW_INTERVAL_MS = 60_000;

/** A record not renewed for this long is dead: twice the renewal interval, so one missed renewal is not death. */
export const RECORD_TTL_MS = 2 * RENEW_INTERVAL_MS;

/** A drain the CLI runs in its own process: no service can be asked about it; its record alone tells. */
export const isLocalDrain = (execution: string): boolean => execution.startsWith(LOCAL_DRAIN_PREFIX);

/**
 * The Step Functions execution that runs the recorded drain now (its current link of the chain);
 * undefined for a local drain, which no service knows.
 */
export const executionToAsk = (claim: Pick<DrainClaim, 'execution' | 'chain'>): string | undefined =>
  isLocalDrain(claim.execution) ? undefined : chainExecutionName(claim.execution, claim.chain);

/**
 * When the record was last shown alive: its renewal, or (a record an older version wrote, which
 * never renews) when it was made.
 */
const lastRenewal = (claim: DrainClaim): number | undefined => claim.renewedAt ?? claim.at;

/** Renewed within RECORD_TTL_MS of `now`. */
export function isRenewed(claim: DrainClaim, now: number): boolean {
  const renewed = lastRenewal(claim);
  return renewed !== undefined && now - renewed < RECORD_TTL_MS;
}

/**
 * What a drain record amounts to now:
 * - a record that says how its drain ended has `ended`, whatever else is said of it;
 * - a local (CLI) drain runs while it renews its record, up to its deadline; one past its deadline
 *   has `ended`; one not renewed is dead: `absent`, so that the next removal starts a drain that
 *   replaces it;
 * - a drain of the workflow is `running` when its current execution runs, or when its record was
 *   renewed lately (between two chained executions, or while the first one starts); otherwise what
 *   the workflow says (`ended`, `absent`, `unknown`).
 * @param workflow what Step Functions said of executionToAsk(claim); undefined when nobody asked
 */
export function recordLiveness(
  claim: DrainClaim,
  workflow: DrainExecutionState | undefined,
  now: number,
): DrainExecutionState {
  if (claim.outcome !== undefined) return { status: 'ended' };
  const renewed = isRenewed(claim, now);
  if (isLocalDrain(claim.execution)) {
    if (!renewed) return { status: 'absent' };
    return claim.deadline !== undefined && now < claim.deadline ? { status: 'running' } : { status: 'ended' };
  }
  if (workflow?.status === 'running' || renewed) return { status: 'running' };
  return workflow ?? { status: 'unknown', error: 'not looked up in this run' };
}
