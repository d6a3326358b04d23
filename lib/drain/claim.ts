// One removal, one drain (DESIGN §2): the Node records the drain execution that owns its current
// removal. Starting a drain first claims the Node with a guarded patch, so two events racing for
// one machine (a spot warning and a lifecycle action in two batches) start one drain between them;
// a later signal joins the running drain instead, bringing its deadline forward or handing it the
// lifecycle action to complete.
import type { LifecycleRef } from '../model/signal.js';
import { DRAIN_ANNOTATION, DRAIN_DEADLINE_ANNOTATION, LIFECYCLE_ANNOTATION } from '../model/labels.js';
import type { Clock } from '../model/clock.js';
import type { DrainApi, DrainNode, NodePatch } from './api.js';
import { cordonPatch, isOwnCordon, readDecidePatch, type CordonOptions, type CordonResult, type ReadOptions } from './cordon.js';

export interface Claim {
  /** The execution that is to own the removal. */
  readonly execution: string;
  /** A claim whose execution never started (the workflow does not know it): it may be taken over. */
  readonly replaces?: string;
  /** Epoch ms. */
  readonly deadline: number;
  readonly lifecycle?: LifecycleRef;
}

export type ClaimOptions = Claim & ReadOptions;

export type ClaimResult =
  | { readonly kind: 'not-found' }
  | { readonly kind: 'uid-mismatch'; readonly uid: string }
  /** Another execution owns the removal (it claimed the Node since this run observed it). */
  | { readonly kind: 'claimed-by-other'; readonly execution: string }
  | { readonly kind: 'claimed'; readonly changed: boolean };

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * Pure: the annotations that record `claim` on the node; `undefined` when it already does, or the
 * execution that owns the removal instead.
 */
export function claimAnnotations(node: DrainNode, claim: Claim): { annotations: NonNullable<NodePatch['annotations']> } | { owner: string } | undefined {
  const current = node.annotations[DRAIN_ANNOTATION];
  if (current === claim.execution) return undefined;
  if (current !== undefined && current !== '' && current !== claim.replaces) return { owner: current };
  return {
    annotations: {
      [DRAIN_ANNOTATION]: claim.execution,
      [DRAIN_DEADLINE_ANNOTATION]: iso(claim.deadline),
      [LIFECYCLE_ANNOTATION]: claim.lifecycle ? JSON.stringify(claim.lifecycle) : null,
    },
  };
}

/** Records `execution` as the owner of the Node's removal, unless another execution already is. */
export async function claimDrain(api: DrainApi, name: string, options: ClaimOptions): Promise<ClaimResult> {
  return readDecidePatch<ClaimResult>(api, name, options, (node) => {
    const wanted = claimAnnotations(node, options);
    if (wanted !== undefined && 'owner' in wanted) return { stop: { kind: 'claimed-by-other', execution: wanted.owner } };
    return { patch: wanted, result: (_patched, changed) => ({ kind: 'claimed', changed }) };
  });
}

export type CordonClaimResult = CordonResult & { readonly claim?: Extract<ClaimResult, { kind: 'claimed' | 'claimed-by-other' }> };

/**
 * Cordons the node and claims its removal for `claim.execution` in one guarded patch (the event
 * path's one write before it starts the workflow). A removal another execution owns is still
 * cordoned; the claim result says who owns it.
 */
export async function cordonAndClaim(api: DrainApi, name: string, options: CordonOptions, claim: Claim, clock: Clock): Promise<CordonClaimResult> {
  return readDecidePatch<CordonClaimResult>(api, name, options, (node) => {
    const cordoning = cordonPatch(node, options, clock.now());
    const wanted = claimAnnotations(node, claim);
    const owner = wanted !== undefined && 'owner' in wanted ? wanted.owner : undefined;
    const claimed = wanted !== undefined && 'annotations' in wanted ? wanted.annotations : undefined;
    const patch: NodePatch | undefined =
      cordoning === undefined && claimed === undefined ? undefined : { ...cordoning, annotations: { ...cordoning?.annotations, ...claimed } };
    return {
      patch,
      result: (patched, changed) => ({
        kind: 'cordoned',
        changed,
        ours: isOwnCordon(patched),
        node: patched,
        claim: owner !== undefined ? { kind: 'claimed-by-other', execution: owner } : { kind: 'claimed', changed: claimed !== undefined },
      }),
    };
  });
}

export interface JoinOptions extends ReadOptions {
  /** The running execution that owns the removal. */
  readonly execution: string;
  /** An earlier deadline for it, epoch ms: a deadline is only ever brought forward. */
  readonly deadline?: number;
  /** A lifecycle action for it to complete when it ends (kept if it already has one). */
  readonly lifecycle?: LifecycleRef;
}

export type JoinResult =
  | { readonly kind: 'not-found' }
  | { readonly kind: 'uid-mismatch'; readonly uid: string }
  | { readonly kind: 'claimed-by-other'; readonly execution: string }
  | { readonly kind: 'joined'; readonly changed: boolean };

/** Hands the running drain of the Node's removal an earlier deadline or a lifecycle action. */
export async function joinDrain(api: DrainApi, name: string, options: JoinOptions): Promise<JoinResult> {
  return readDecidePatch<JoinResult>(api, name, options, (node) => {
    const current = node.annotations[DRAIN_ANNOTATION];
    if (current !== options.execution) return { stop: { kind: 'claimed-by-other', execution: current ?? '(none)' } };
    const annotations: Record<string, string> = {};
    const known = Date.parse(node.annotations[DRAIN_DEADLINE_ANNOTATION] ?? '');
    if (options.deadline !== undefined && !(known <= options.deadline)) annotations[DRAIN_DEADLINE_ANNOTATION] = iso(options.deadline);
    if (options.lifecycle && node.annotations[LIFECYCLE_ANNOTATION] === undefined) annotations[LIFECYCLE_ANNOTATION] = JSON.stringify(options.lifecycle);
    return {
      patch: Object.keys(annotations).length > 0 ? { annotations } : undefined,
      result: (_patched, changed) => ({ kind: 'joined', changed }),
    };
  });
}

export type ForgetResult =
  | { readonly kind: 'not-found' }
  | { readonly kind: 'uid-mismatch'; readonly uid: string }
  | { readonly kind: 'claimed-by-other'; readonly execution: string }
  | { readonly kind: 'forgotten'; readonly changed: boolean };

/** Removes the record of `execution`'s removal (its drain has ended and nothing slates the machine any more). */
export async function forgetDrain(api: DrainApi, name: string, options: ReadOptions & { readonly execution: string }): Promise<ForgetResult> {
  return readDecidePatch<ForgetResult>(api, name, options, (node) => {
    const current = node.annotations[DRAIN_ANNOTATION];
    if (current === undefined) return { patch: undefined, result: () => ({ kind: 'forgotten', changed: false }) };
    if (current !== options.execution) return { stop: { kind: 'claimed-by-other', execution: current } };
    return {
      patch: { annotations: { [DRAIN_ANNOTATION]: null, [DRAIN_DEADLINE_ANNOTATION]: null, [LIFECYCLE_ANNOTATION]: null } },
      result: (_patched, changed) => ({ kind: 'forgotten', changed }),
    };
  });
}
