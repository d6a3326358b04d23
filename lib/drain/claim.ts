// One removal, one drain (docs/design.md §2): the Node records the drain execution that owns its current
// removal. Starting a drain first claims the Node with a guarded patch, so two events racing for
// one machine (a spot warning and a lifecycle action in two batches) start one drain between them;
// a later signal joins the running drain instead, bringing its deadline forward or handing it the
// lifecycle action to complete.
import type { DrainClaimRequest } from '@ec2-node-reconciler/model/action.js';
import type { LifecycleRef } from '@ec2-node-reconciler/model/signal.js';
import {
  DRAIN_ANNOTATION,
  DRAIN_AT_ANNOTATION,
  DRAIN_DEADLINE_ANNOTATION,
  DRAIN_FOR_ANNOTATION,
  DRAIN_LAUNCH_ANNOTATION,
  DRAIN_CHAIN_ANNOTATION,
  DRAIN_OUTCOME_ANNOTATION,
  DRAIN_RECORD_ANNOTATIONS,
  DRAIN_RENEWED_ANNOTATION,
  LIFECYCLE_ANNOTATION,
} from '@ec2-node-reconciler/model/contract/labels.js';
import type { Clock } from '@ec2-node-reconciler/model/clock.js';
import {
  cordonPatch,
  hasOwnCordonMark,
  isCordonedByReconciler,
  isCordonOurWrite,
  STALE_CORDON_ANNOTATIONS,
  readDecidePatch,
  uncordonPatch,
  type CordonOptions,
  type CordonResult,
  type NodePatch,
  type NodeWriteApi,
  type NodeWriteView,
  type ReadOptions,
} from '../kube/node-writes.js';

/** A drain to record as the owner of a Node's removal: the plan's request, as the action carries it. */
export type Claim = DrainClaimRequest;

export type ClaimOptions = Claim & ReadOptions;

export type ClaimResult =
  | { readonly kind: 'not-found' }
  | { readonly kind: 'uid-mismatch'; readonly uid: string }
  /** Another execution owns the removal (it claimed the Node since this run observed it). */
  | { readonly kind: 'claimed-by-other'; readonly execution: string }
  | { readonly kind: 'claimed'; readonly changed: boolean };

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * A lifecycle action as a Node may carry it: group and hook, never the token (which anyone who can
 * read Nodes would see); the drain completes it by instance id, which the API accepts as well.
 */
export const lifecycleAnnotation = (lifecycle: LifecycleRef): string =>
  JSON.stringify({ group: lifecycle.group, hook: lifecycle.hook });

/**
 * Pure: the annotations that record `claim` on the node at `now`; `undefined` when it already does,
 * or the execution that owns the removal instead.
 */
export function claimAnnotations(
  node: NodeWriteView,
  claim: Claim,
  now: number,
): { annotations: NonNullable<NodePatch['annotations']> } | { owner: string } | undefined {
  const current = node.annotations[DRAIN_ANNOTATION];
  if (current === claim.execution) return undefined;
  if (current !== undefined && current !== '' && current !== claim.replaces) return { owner: current };
  return {
    annotations: {
      [DRAIN_ANNOTATION]: claim.execution,
      [DRAIN_DEADLINE_ANNOTATION]: iso(claim.deadline),
      [LIFECYCLE_ANNOTATION]: claim.lifecycle ? lifecycleAnnotation(claim.lifecycle) : null,
      [DRAIN_AT_ANNOTATION]: iso(now),
      [DRAIN_FOR_ANNOTATION]: claim.for,
      [DRAIN_LAUNCH_ANNOTATION]: claim.launchedAt !== undefined && claim.launchedAt > 0 ? iso(claim.launchedAt) : null,
      [DRAIN_OUTCOME_ANNOTATION]: null,
      // Made now, so alive now: its drain renews it from its first step on (lib/plan/drain-liveness.ts).
      [DRAIN_RENEWED_ANNOTATION]: iso(now),
      [DRAIN_CHAIN_ANNOTATION]: null,
    },
  };
}

/** Records `execution` as the owner of the Node's removal, unless another execution already is. */
export async function claimDrain(
  api: NodeWriteApi,
  name: string,
  options: ClaimOptions,
  clock: Clock,
): Promise<ClaimResult> {
  return readDecidePatch<ClaimResult>(api, name, options, (node) => {
    const wanted = claimAnnotations(node, options, clock.now());
    if (wanted !== undefined && 'owner' in wanted)
      return { stop: { kind: 'claimed-by-other', execution: wanted.owner } };
    return { patch: wanted, result: (_patched, changed) => ({ kind: 'claimed', changed }) };
  });
}

export type CordonClaimResult = CordonResult & {
  readonly claim?: Extract<ClaimResult, { kind: 'claimed' | 'claimed-by-other' }>;
};

/**
 * Cordons the node and claims its removal for `claim.execution` in one guarded patch (the event
 * path's one write before it starts the workflow). A removal another execution owns is still
 * cordoned; the claim result says who owns it.
 */
export async function cordonAndClaim(
  api: NodeWriteApi,
  name: string,
  options: CordonOptions,
  claim: Claim,
  clock: Clock,
): Promise<CordonClaimResult> {
  return readDecidePatch<CordonClaimResult>(api, name, options, (node) => {
    const cordoning = cordonPatch(node, options, clock.now());
    const wanted = claimAnnotations(node, claim, clock.now());
    const owner = wanted !== undefined && 'owner' in wanted ? wanted.owner : undefined;
    const claimed = wanted !== undefined && 'annotations' in wanted ? wanted.annotations : undefined;
    const patch: NodePatch | undefined =
      cordoning === undefined && claimed === undefined
        ? undefined
        : { ...cordoning, annotations: { ...cordoning?.annotations, ...claimed } };
    return {
      patch,
      result: (patched, changed) => ({
        kind: 'cordoned',
        changed,
        ours: hasOwnCordonMark(patched),
        node: patched,
        claim:
          owner !== undefined
            ? { kind: 'claimed-by-other', execution: owner }
            : { kind: 'claimed', changed: claimed !== undefined },
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
export async function joinDrain(api: NodeWriteApi, name: string, options: JoinOptions): Promise<JoinResult> {
  return readDecidePatch<JoinResult>(api, name, options, (node) => {
    const current = node.annotations[DRAIN_ANNOTATION];
    if (current !== options.execution) return { stop: { kind: 'claimed-by-other', execution: current ?? '(none)' } };
    const annotations: Record<string, string> = {};
    const known = Date.parse(node.annotations[DRAIN_DEADLINE_ANNOTATION] ?? '');
    if (options.deadline !== undefined && !(known <= options.deadline))
      annotations[DRAIN_DEADLINE_ANNOTATION] = iso(options.deadline);
    if (options.lifecycle && node.annotations[LIFECYCLE_ANNOTATION] === undefined)
      annotations[LIFECYCLE_ANNOTATION] = lifecycleAnnotation(options.lifecycle);
    return {
      patch: Object.keys(annotations).length > 0 ? { annotations } : undefined,
      result: (_patched, changed) => ({ kind: 'joined', changed }),
    };
  });
}

export interface RenewOptions extends ReadOptions {
  /** The drain renewing its record: only a record of its own is renewed. */
  readonly execution: string;
  /** Which chained execution of it runs now (0: the first). */
  readonly chain: number;
}

export type RenewResult =
  | { readonly kind: 'not-found' }
  | { readonly kind: 'uid-mismatch'; readonly uid: string }
  | { readonly kind: 'claimed-by-other'; readonly execution: string }
  | { readonly kind: 'renewed'; readonly changed: boolean };

/**
 * Pure: the patch that renews `execution`'s record on the node at `now` — when its renewal is older
 * than `interval` (or unreadable), or it names another link of the chain than the one running —
 * else undefined (nothing due, or the record is not this drain's, or says how it ended).
 */
export function renewalPatch(
  node: NodeWriteView,
  options: Pick<RenewOptions, 'execution' | 'chain'>,
  now: number,
  interval: number,
): NodePatch | undefined {
  if (node.annotations[DRAIN_ANNOTATION] !== options.execution) return undefined;
  if (node.annotations[DRAIN_OUTCOME_ANNOTATION] !== undefined) return undefined;
  const renewed = Date.parse(node.annotations[DRAIN_RENEWED_ANNOTATION] ?? '');
  const chain = options.chain > 0 ? String(options.chain) : undefined;
  const due = !(now - renewed < interval) || node.annotations[DRAIN_CHAIN_ANNOTATION] !== chain;
  return due
    ? { annotations: { [DRAIN_RENEWED_ANNOTATION]: iso(now), [DRAIN_CHAIN_ANNOTATION]: chain ?? null } }
    : undefined;
}

/**
 * Renews the drain record of `execution` (docs/design.md §5: a record not renewed is dead, and the next
 * removal takes over), with the chained execution that runs it now; nothing when none is due.
 */
export async function renewDrain(
  api: NodeWriteApi,
  name: string,
  options: RenewOptions,
  interval: number,
  clock: Clock,
): Promise<RenewResult> {
  return readDecidePatch<RenewResult>(api, name, options, (node) => {
    const current = node.annotations[DRAIN_ANNOTATION];
    if (current !== options.execution) return { stop: { kind: 'claimed-by-other', execution: current ?? '(none)' } };
    return {
      patch: renewalPatch(node, options, clock.now(), interval),
      result: (_patched, changed) => ({ kind: 'renewed', changed }),
    };
  });
}

export type ForgetResult =
  | { readonly kind: 'not-found' }
  | { readonly kind: 'uid-mismatch'; readonly uid: string }
  | { readonly kind: 'claimed-by-other'; readonly execution: string }
  | { readonly kind: 'forgotten'; readonly changed: boolean };

/**
 * Removes what the Node records of a removal that is over: the drain record of `execution` (when
 * given; a record of another drain is left), and our cordon annotations when the Node is schedulable
 * (an operator uncordoned it: a later `kubectl cordon` of theirs must not read as ours).
 */
export async function forgetDrain(
  api: NodeWriteApi,
  name: string,
  options: ReadOptions & { readonly execution?: string },
): Promise<ForgetResult> {
  return readDecidePatch<ForgetResult>(api, name, options, (node) => {
    const current = node.annotations[DRAIN_ANNOTATION];
    if (options.execution !== undefined && current !== undefined && current !== options.execution)
      return { stop: { kind: 'claimed-by-other', execution: current } };
    const keys = [
      ...(options.execution !== undefined ? DRAIN_RECORD_ANNOTATIONS : []),
      ...(isCordonOurWrite(node) ? [] : STALE_CORDON_ANNOTATIONS),
    ];
    const annotations = Object.fromEntries(
      keys.filter((key) => node.annotations[key] !== undefined).map((key) => [key, null]),
    );
    return {
      patch: Object.keys(annotations).length > 0 ? { annotations } : undefined,
      result: (_patched, changed) => ({ kind: 'forgotten', changed }),
    };
  });
}

/**
 * Records how `execution` ended on the Node it drained. After an operator's uncordon it also drops
 * our cordon annotations: the Node is theirs now, and a cordon of theirs later must not read as ours.
 */
export async function recordOutcome(
  api: NodeWriteApi,
  name: string,
  options: ReadOptions & { readonly execution: string; readonly outcome: string },
): Promise<ForgetResult> {
  return readDecidePatch<ForgetResult>(api, name, options, (node) => {
    const current = node.annotations[DRAIN_ANNOTATION];
    if (current !== options.execution) return { stop: { kind: 'claimed-by-other', execution: current ?? '(none)' } };
    const stale = isCordonOurWrite(node)
      ? []
      : STALE_CORDON_ANNOTATIONS.filter((key) => node.annotations[key] !== undefined);
    const annotations: Record<string, string | null> = { ...Object.fromEntries(stale.map((key) => [key, null])) };
    if (node.annotations[DRAIN_OUTCOME_ANNOTATION] !== options.outcome)
      annotations[DRAIN_OUTCOME_ANNOTATION] = options.outcome;
    return {
      patch: Object.keys(annotations).length > 0 ? { annotations } : undefined,
      result: (_patched, changed) => ({ kind: 'forgotten', changed }),
    };
  });
}

export type CancelRepairResult =
  | { readonly kind: 'not-found' }
  | { readonly kind: 'uid-mismatch'; readonly uid: string }
  /** The Node no longer records this repair (another drain owns it, or it is gone): nothing to cancel. */
  | { readonly kind: 'claimed-by-other'; readonly execution: string }
  /** A removal was handed to the repair drain since (a lifecycle action): the drain must go on for it. */
  | { readonly kind: 'removal-joined' }
  /** `ours`: the cordon was ours, and went with the record. */
  | { readonly kind: 'cancelled'; readonly changed: boolean; readonly ours: boolean };

/**
 * Cancels the repair `execution` of a node that recovered (docs/design.md §1b): our cordon goes, and the drain
 * record with it, in one guarded patch, so the drain (still running or not) finds the node uncordoned
 * and no record of its own to write an outcome to. A cordon that is not ours stays; only the record goes.
 */
export async function cancelRepair(
  api: NodeWriteApi,
  name: string,
  options: ReadOptions & { readonly execution: string },
): Promise<CancelRepairResult> {
  return readDecidePatch<CancelRepairResult>(api, name, options, (node) => {
    const current = node.annotations[DRAIN_ANNOTATION];
    if (current !== options.execution || node.annotations[DRAIN_FOR_ANNOTATION] !== 'repair')
      return { stop: { kind: 'claimed-by-other', execution: current ?? '(none)' } };
    if (node.annotations[LIFECYCLE_ANNOTATION] !== undefined) return { stop: { kind: 'removal-joined' } };
    const ours = isCordonedByReconciler(node);
    const patch = ours ? uncordonPatch(node) : recordRemoval(node);
    return { patch, result: (_patched, changed) => ({ kind: 'cancelled', changed, ours }) };
  });
}

/** The patch that drops the drain record (and our cordon's annotations on a node someone else uncordoned). */
function recordRemoval(node: NodeWriteView): NodePatch | undefined {
  const keys = [...DRAIN_RECORD_ANNOTATIONS, ...(isCordonOurWrite(node) ? [] : STALE_CORDON_ANNOTATIONS)];
  const annotations = Object.fromEntries(
    keys.filter((key) => node.annotations[key] !== undefined).map((key) => [key, null]),
  );
  return Object.keys(annotations).length > 0 ? { annotations } : undefined;
}
