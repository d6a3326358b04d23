import type { Action } from '@ec2-node-reconciler/model/action.js';

/**
 * How one action ended:
 * - done / unchanged: carried out, or already as wanted (idempotent);
 * - moot: the target is gone or is no longer the object planned for (404, uid mismatch, 409);
 * - started / already-running: a drain workflow;
 * - dry-run: not carried out, by setting;
 * - failed: an error, recorded; the run went on with the other actions.
 */
export type OutcomeKind = 'done' | 'unchanged' | 'moot' | 'started' | 'already-running' | 'dry-run' | 'failed';

export interface ActionOutcome {
  readonly action: Action;
  readonly outcome: OutcomeKind;
  readonly detail?: string;
}
