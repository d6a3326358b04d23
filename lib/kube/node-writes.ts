// Every write the reconciler makes to a Node, in one place: cordon, uncordon, the drain's taint, the
// shutdown taint, the drain records (lib/drain/claim.ts decides those, through the same loop) and
// delete. Each is one guarded read → decide → patch: the patch carries the uid and resourceVersion
// the decision was made on, so a Node changed or re-registered since is a conflict, never a write
// on stale state. `act` and the drain engine both write through here.
import type { NodeTarget } from '@ec2-node-reconciler/model/action.js';
import type { Clock } from '@ec2-node-reconciler/model/clock.js';
import {
  CORDON_REASON_ANNOTATION,
  CORDON_UNTIL_ANNOTATION,
  CORDONED_AT_ANNOTATION,
  CORDONED_BY_ANNOTATION,
  CORDONED_BY_OPERATOR_VALUE,
  CORDONED_BY_VALUE,
  DRAIN_ANNOTATION,
  FIELD_MANAGER,
  DRAIN_OUTCOME_ANNOTATION,
  DRAIN_RECORD_ANNOTATIONS,
  EXCLUDE_FROM_LB_LABEL,
  LABEL_PREFIX,
  SHUTDOWN_TAINT_KEY,
} from '@ec2-node-reconciler/model/contract/labels.js';
import type { NodeView, Taint } from '@ec2-node-reconciler/model/observation.js';
import { httpStatus, KubeTransportError, statusMessage } from './client.js';

/** What a write reads of a Node: the slice of the one projection (NodeView) that cordons and taints decide on. */
export type NodeWriteView = Pick<
  NodeView,
  | 'name'
  | 'uid'
  | 'resourceVersion'
  | 'providerID'
  | 'unschedulable'
  | 'cordonWriters'
  | 'annotations'
  | 'labels'
  | 'taints'
>;

/**
 * A strategic-merge patch of a Node. `null` removes a key. `taints` replaces the whole list (Node
 * taints carry no merge key), so a patch that sets it also sets `resourceVersion`: a concurrent
 * writer then gets a conflict instead of losing its taint.
 */
export interface NodePatch {
  readonly unschedulable?: boolean | null;
  readonly annotations?: Readonly<Record<string, string | null>>;
  readonly labels?: Readonly<Record<string, string | null>>;
  readonly taints?: readonly Taint[];
  /** Preconditions: the server refuses (409) a patch for another incarnation or a changed object. */
  readonly uid?: string;
  readonly resourceVersion?: string;
}

/** The Node calls a write needs: NodeClient implements them for real clusters and the emulator, tests in memory. */
export interface NodeWriteApi {
  /** The node, or undefined when it does not exist. */
  getNode(name: string): Promise<NodeWriteView | undefined>;
  /** Throws a KubeApiError (the HTTP status and the server's Status) when the server refuses. */
  patchNode(name: string, patch: NodePatch): Promise<NodeWriteView>;
}

export interface NodeDeleteApi {
  /** DELETE with the preconditions; throws a KubeApiError when the server refuses. */
  deleteNode(name: string, preconditions: { readonly uid: string; readonly resourceVersion: string }): Promise<void>;
}

export const isConflict = (error: unknown): boolean => httpStatus(error) === 409;
export const isNotFound = (error: unknown): boolean => httpStatus(error) === 404;
/**
 * A write the server may not have served (5xx, 429) or whose answer never came (a reset, a timeout):
 * whether it applied is unknown, so it is decided again on a fresh read, never sent again blind.
 */
const isTransientWriteFailure = (error: unknown): boolean => {
  const status = httpStatus(error);
  if (status !== undefined) return status === 429 || (status >= 500 && status <= 504);
  return error instanceof KubeTransportError && error.transient;
};

/** Set when the reconciler added EXCLUDE_FROM_LB_LABEL, so uncordon removes only a label it added. */
export const EXCLUDED_FROM_LB_ANNOTATION = `${LABEL_PREFIX}/excluded-from-lb`;

/** Taints under our prefix are ours: uncordon removes them and nothing else. */
const OWN_TAINT_PREFIX = `${LABEL_PREFIX}/`;
export const DRAIN_TAINT_KEY = `${LABEL_PREFIX}/draining`;

type CordonFields = Pick<NodeView, 'unschedulable' | 'cordonWriters' | 'annotations'>;

/** Our cordon's annotations, left on a Node whose cordon is no longer ours: they no longer describe anything. */
export const STALE_CORDON_ANNOTATIONS = [
  CORDONED_BY_ANNOTATION,
  CORDON_REASON_ANNOTATION,
  CORDONED_AT_ANNOTATION,
  CORDON_UNTIL_ANNOTATION,
] as const;

/** The marks of our cordon: they describe a cordon, and go when it goes. */
const CORDON_MARKS = [...STALE_CORDON_ANNOTATIONS, EXCLUDED_FROM_LB_ANNOTATION] as const;

/**
 * Names in managedFields that say nothing about who wrote a field: the API server's bucket for the
 * oldest managers past its cap of ten (`ancient-changes`), the one for fields set before tracking
 * began (`before-first-apply`), and an entry without a name (after a reset).
 */
const ANONYMOUS_MANAGERS = new Set(['ancient-changes', 'before-first-apply', '']);

/**
 * Who else wrote the cordon the Node carries: the named field managers other than ours that own
 * spec.unschedulable (metadata.managedFields). Only such positive evidence makes a cordon someone
 * else's: fields nobody owns (managedFields reset) or owned by a bucket (past the cap of ten managers)
 * leave our mark to say, as a Node without managed fields does.
 */
export const otherCordonWriters = (node: Pick<NodeView, 'cordonWriters'>): readonly string[] =>
  (node.cordonWriters ?? []).filter((w) => w !== FIELD_MANAGER && !ANONYMOUS_MANAGERS.has(w));

/**
 * Cordoned, and by no one but us as far as the Node's managedFields tell: a cordon someone wrote
 * after ours went (an operator's uncordon, then their `kubectl cordon`), or asserts beside ours (a
 * server-side apply), is theirs, though our mark may still be on the Node.
 */
export const isCordonOurWrite = (node: Pick<NodeView, 'unschedulable' | 'cordonWriters'>): boolean =>
  node.unschedulable && otherCordonWriters(node).length === 0;

/**
 * Our cordon is no longer on the Node: it was uncordoned, or cordoned again by someone else since
 * (our mark stays behind; the write is theirs). The operator's word that our cordon and the drain or
 * repair it served are over.
 */
export const isOurCordonGone = (node: CordonFields): boolean =>
  !node.unschedulable || (node.annotations[CORDONED_BY_ANNOTATION] !== undefined && !isCordonOurWrite(node));

/**
 * The Node carries the reconciler's cordon mark (made for a signal), whether or not it is still
 * cordoned: what uncordon cleans up, so a mark left behind by someone else's uncordon goes too.
 */
export const hasOwnCordonMark = (node: Pick<NodeView, 'annotations'>): boolean =>
  node.annotations[CORDONED_BY_ANNOTATION] === CORDONED_BY_VALUE;

/**
 * Cordoned now, by the reconciler for a signal: the only cordon a sweep may reverse. An operator's
 * cordon, made by hand or through the CLI, never is.
 */
export const isCordonedByReconciler = (node: CordonFields): boolean => isCordonOurWrite(node) && hasOwnCordonMark(node);

export interface ReadOptions {
  /** The node's uid when the caller knows it: a node re-registered under the same name is left alone. */
  readonly expectedUid?: string;
  /**
   * The node as the caller just read it: a plain cordon or uncordon is decided from it instead of
   * reading it again; its patch carries the observed uid and resourceVersion, so a node changed or
   * re-registered since is a conflict (read again, decide again), never a decision on stale state.
   */
  readonly observed?: NodeWriteView;
}

export interface CordonOptions extends ReadOptions {
  /** Why (written to the reason annotation). */
  readonly reason: string;
  /** A taint to add, e.g. `{ key: DRAIN_TAINT_KEY, value: 'spot-interruption', effect: 'NoSchedule' }`; its key must start with `ec2-node-reconciler/`. */
  readonly taint?: Taint;
  /** Label the node `node.kubernetes.io/exclude-from-external-load-balancers` so load balancers stop sending it traffic before its pods go. */
  readonly excludeFromLoadBalancers?: boolean;
  /**
   * Whose decision the cordon is: the reconciler's for a signal (a sweep may reverse it), or an
   * operator's made through the CLI (`drain`, `decommission --now`: never reversed by a sweep).
   * @default 'reconciler'
   */
  readonly by?: 'reconciler' | 'operator';
  /** Epoch ms before which a sweep keeps the cordon (a maintenance window's end). */
  readonly until?: number;
}

export type Missing = { readonly kind: 'not-found' } | { readonly kind: 'uid-mismatch'; readonly uid: string };

export type CordonResult =
  | Missing
  | {
      readonly kind: 'cordoned';
      /** Whether a patch was sent (false: the node already was as wanted). */
      readonly changed: boolean;
      /** Whether the cordon is ours (false: an operator's cordon we leave as theirs). */
      readonly ours: boolean;
      readonly node: NodeWriteView;
    };

export type UncordonResult =
  | Missing
  | { readonly kind: 'not-ours' }
  | { readonly kind: 'uncordoned'; readonly changed: boolean; readonly node: NodeWriteView };

/** How a write planned on an observation ended. `moot`: the node is gone or is no longer the one we planned for. */
export type MutationOutcome =
  { readonly kind: 'done' } | { readonly kind: 'unchanged' } | { readonly kind: 'moot'; readonly reason: string };

/** Pure: the patch that cordons the node as asked, or undefined when no change is required. */
export function cordonPatch(node: NodeWriteView, options: CordonOptions, now: number): NodePatch | undefined {
  if (options.taint && !options.taint.key.startsWith(OWN_TAINT_PREFIX)) {
    throw new Error(
      `cordoning ${node.name}: taint key ${options.taint.key} must start with ${OWN_TAINT_PREFIX} so that uncordon can tell it is ours`,
    );
  }
  const annotations: Record<string, string | null> = {};
  const labels: Record<string, string> = {};
  let unschedulable: true | undefined;
  // An operator's cordon stays theirs: claiming it would let our uncordon undo their decision. One
  // they wrote after ours went loses our leftover marks, so that nothing reads it as ours.
  if (node.unschedulable && !isCordonOurWrite(node))
    for (const key of STALE_CORDON_ANNOTATIONS) if (node.annotations[key] !== undefined) annotations[key] = null;
  if (!node.unschedulable) {
    unschedulable = true;
    annotations[CORDONED_BY_ANNOTATION] = options.by === 'operator' ? CORDONED_BY_OPERATOR_VALUE : CORDONED_BY_VALUE;
    annotations[CORDON_REASON_ANNOTATION] = options.reason;
    annotations[CORDONED_AT_ANNOTATION] = new Date(now).toISOString();
    if (options.until !== undefined) annotations[CORDON_UNTIL_ANNOTATION] = new Date(options.until).toISOString();
  } else if (options.by === 'operator' && isCordonedByReconciler(node)) {
    // The operator drains a node a signal had us cordon: the cordon is theirs from now on, so that no
    // sweep undoes it once the signal is gone (nor when a maintenance hold of ours ends).
    annotations[CORDONED_BY_ANNOTATION] = CORDONED_BY_OPERATOR_VALUE;
    annotations[CORDON_REASON_ANNOTATION] = options.reason;
    annotations[CORDONED_AT_ANNOTATION] = new Date(now).toISOString();
    if (node.annotations[CORDON_UNTIL_ANNOTATION] !== undefined) annotations[CORDON_UNTIL_ANNOTATION] = null;
  }
  if (options.excludeFromLoadBalancers && node.labels[EXCLUDE_FROM_LB_LABEL] === undefined) {
    labels[EXCLUDE_FROM_LB_LABEL] = 'true';
    annotations[EXCLUDED_FROM_LB_ANNOTATION] = 'true';
  }
  const wanted = options.taint;
  const taints =
    wanted && !node.taints.some((t) => t.key === wanted.key && t.effect === wanted.effect)
      ? [...node.taints, wanted]
      : undefined;
  if (
    unschedulable === undefined &&
    Object.keys(annotations).length === 0 &&
    Object.keys(labels).length === 0 &&
    taints === undefined
  )
    return undefined;
  return {
    ...(unschedulable ? { unschedulable } : {}),
    ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    ...(Object.keys(labels).length > 0 ? { labels } : {}),
    // The taint list is replaced whole: the resourceVersion turns a concurrent change into a conflict.
    ...(taints ? { taints, resourceVersion: node.resourceVersion } : {}),
  };
}

/** Pure: the patch that undoes our cordon, or undefined when there is nothing of ours left. Call only on a node with our cordon mark. */
export function uncordonPatch(node: NodeWriteView): NodePatch | undefined {
  const annotations: Record<string, null> = {};
  // The drain records go with the cordon: a new removal after our uncordon gets a drain of its own.
  for (const key of [...CORDON_MARKS, ...DRAIN_RECORD_ANNOTATIONS]) {
    if (node.annotations[key] !== undefined) annotations[key] = null;
  }
  const removeLabel =
    node.annotations[EXCLUDED_FROM_LB_ANNOTATION] !== undefined && node.labels[EXCLUDE_FROM_LB_LABEL] !== undefined;
  const kept = node.taints.filter((t) => !t.key.startsWith(OWN_TAINT_PREFIX));
  const taints = kept.length === node.taints.length ? undefined : kept;
  // A cordon someone wrote after ours went is theirs: our marks go, their cordon stays.
  const ownCordon = isCordonOurWrite(node);
  if (!ownCordon && Object.keys(annotations).length === 0 && !removeLabel && taints === undefined) return undefined;
  return {
    ...(ownCordon ? { unschedulable: null } : {}),
    ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    ...(removeLabel ? { labels: { [EXCLUDE_FROM_LB_LABEL]: null } } : {}),
    ...(taints ? { taints, resourceVersion: node.resourceVersion } : {}),
  };
}

/** Pure: the taint list with the shutdown taint added or removed, as the cloud controller does; undefined when it already is so. */
export function shutdownTaints(taints: readonly Taint[], present: boolean): Taint[] | undefined {
  const has = taints.some((t) => t.key === SHUTDOWN_TAINT_KEY);
  if (has === present) return undefined;
  return present
    ? [...taints, { key: SHUTDOWN_TAINT_KEY, effect: 'NoSchedule' }]
    : taints.filter((t) => t.key !== SHUTDOWN_TAINT_KEY);
}

// A guarded patch can lose a race with another writer, or its fate can be unknown; a fresh read settles
// it. Five attempts, as client-go's retry.RetryOnConflict with DefaultRetry.
const PATCH_ATTEMPTS = 5;

export type WriteDecision<R> =
  | { readonly stop: R }
  | { readonly patch: NodePatch | undefined; readonly result: (node: NodeWriteView, changed: boolean) => R };

async function readNode(api: NodeWriteApi, name: string): Promise<NodeWriteView | undefined> {
  try {
    return await api.getNode(name);
  } catch (cause) {
    throw new Error(`reading node ${name}`, { cause });
  }
}

/**
 * Reads the node (or starts from the observed one), lets `decide` choose a patch and sends it with
 * the node's uid and resourceVersion as preconditions; reads again after a conflict, or after a patch
 * whose fate is unknown (the server failed, the answer was lost).
 */
export async function readDecidePatch<R>(
  api: NodeWriteApi,
  name: string,
  options: ReadOptions,
  decide: (node: NodeWriteView) => WriteDecision<R>,
): Promise<R | Missing> {
  const { expectedUid } = options;
  let observed =
    options.observed?.name === name && options.observed.resourceVersion !== '' ? options.observed : undefined;
  for (let patches = 0; ;) {
    const fromObservation = observed !== undefined;
    const node = observed ?? (await readNode(api, name));
    observed = undefined;
    if (!node) return { kind: 'not-found' };
    if (expectedUid !== undefined && node.uid !== expectedUid) return { kind: 'uid-mismatch', uid: node.uid };
    const decision = decide(node);
    if ('stop' in decision) return decision.stop;
    // The observation is trusted for the common case only (a plain cordon or uncordon): "nothing to
    // do" is confirmed by a fresh read, and a taint list (replaced whole) is never rebuilt from a projection.
    if (fromObservation && (!decision.patch || decision.patch.taints !== undefined)) continue;
    if (!decision.patch) return decision.result(node, false);
    // Always guarded: a node re-registered or changed since it was read is a conflict, never patched.
    const patch: NodePatch = { ...decision.patch, uid: node.uid, resourceVersion: node.resourceVersion };
    try {
      patches++;
      return decision.result(await api.patchNode(name, patch), true);
    } catch (cause) {
      // Gone since it was read: as if the read had found nothing.
      if (isNotFound(cause)) return { kind: 'not-found' };
      // Changed since it was read, or the patch's fate unknown: read again, decide again. The guard
      // makes that safe: a patch that did apply shows on the read, and nothing is patched twice.
      if ((isConflict(cause) || isTransientWriteFailure(cause)) && patches < PATCH_ATTEMPTS) continue;
      throw new Error(`patching node ${name}`, { cause });
    }
  }
}

/** Cordons the node (idempotent: patches only when a change is required). */
export async function cordon(
  api: NodeWriteApi,
  name: string,
  options: CordonOptions,
  clock: Clock,
): Promise<CordonResult> {
  return readDecidePatch<CordonResult>(api, name, options, (node) => ({
    patch: cordonPatch(node, options, clock.now()),
    result: (patched, changed) => ({ kind: 'cordoned', changed, ours: isCordonedByReconciler(patched), node: patched }),
  }));
}

/**
 * Uncordons the node only when it carries our cordon mark and its cordon is our write; an operator's
 * cordon is never undone (one made after ours went loses only our leftover marks).
 */
export async function uncordon(api: NodeWriteApi, name: string, options: ReadOptions = {}): Promise<UncordonResult> {
  return readDecidePatch<UncordonResult>(api, name, options, (node) => {
    if (!hasOwnCordonMark(node)) return { stop: { kind: 'not-ours' } };
    const theirs = node.unschedulable && !isCordonOurWrite(node);
    return {
      patch: uncordonPatch(node),
      result: (patched, changed) => (theirs ? { kind: 'not-ours' } : { kind: 'uncordoned', changed, node: patched }),
    };
  });
}

/** Whose cordon a Node carries, as the reconciler's mark on it says. */
export type CordonOwner =
  /** The reconciler's, made for a signal: a sweep may reverse it. */
  | 'reconciler'
  /** An operator's, made through the CLI (`drain`, `decommission --now`): no sweep reverses it. */
  | 'operator-cli'
  /** Anyone else's (`kubectl cordon`, another tool): no mark of ours. */
  | 'other';

export function cordonOwner(node: Pick<NodeView, 'annotations'>): CordonOwner {
  const by = node.annotations[CORDONED_BY_ANNOTATION];
  return by === CORDONED_BY_VALUE ? 'reconciler' : by === CORDONED_BY_OPERATOR_VALUE ? 'operator-cli' : 'other';
}

/**
 * Pure: the patch that makes the node schedulable at an operator's word, whoever cordoned it: the
 * cordon goes, with our marks, the taints under our prefix and the load-balancer exclusion we added.
 * The drain record stays: a drain still running sees the uncordon and stops (cancelled-by-uncordon),
 * and the sweep knows this removal had its drain, so it does not cordon the node again for it.
 * Undefined when the node is schedulable and carries nothing of ours.
 */
export function operatorUncordonPatch(node: NodeWriteView): NodePatch | undefined {
  const marks = CORDON_MARKS.filter((key) => node.annotations[key] !== undefined);
  const removeLabel =
    node.annotations[EXCLUDED_FROM_LB_ANNOTATION] !== undefined && node.labels[EXCLUDE_FROM_LB_LABEL] !== undefined;
  const kept = node.taints.filter((t) => !t.key.startsWith(OWN_TAINT_PREFIX));
  const taints = kept.length === node.taints.length ? undefined : kept;
  if (!node.unschedulable && marks.length === 0 && !removeLabel && taints === undefined) return undefined;
  return {
    ...(node.unschedulable ? { unschedulable: null } : {}),
    ...(marks.length > 0 ? { annotations: Object.fromEntries(marks.map((key) => [key, null])) } : {}),
    ...(removeLabel ? { labels: { [EXCLUDE_FROM_LB_LABEL]: null } } : {}),
    ...(taints ? { taints, resourceVersion: node.resourceVersion } : {}),
  };
}

export interface OperatorUncordonResult {
  /** `already-schedulable`: the node was not cordoned (leftovers of ours may still have gone: `changed`). */
  readonly kind: 'uncordoned' | 'already-schedulable';
  /** The cordon reversed: whose it was, and the reason and time our mark recorded. */
  readonly cordon?: { readonly owner: CordonOwner; readonly reason?: string; readonly at?: string };
  /** Keys of the taints of ours removed. */
  readonly removedTaints: readonly string[];
  /** Whether the load-balancer exclusion label we added went. */
  readonly removedLabel: boolean;
  /** Whether a patch was sent. */
  readonly changed: boolean;
  /** The drain the node records (kept), and how it ended when it did. */
  readonly drain?: { readonly execution: string; readonly outcome?: string };
}

/**
 * Makes the node schedulable at an operator's word (the CLI's `uncordon`), whoever cordoned it, in
 * one guarded read → decide → patch; says whose cordon it was and what of ours went with it.
 */
export async function uncordonForOperator(
  api: NodeWriteApi,
  name: string,
  options: ReadOptions = {},
): Promise<OperatorUncordonResult | Missing> {
  return readDecidePatch<OperatorUncordonResult>(api, name, options, (node) => {
    const patch = operatorUncordonPatch(node);
    const reason = node.annotations[CORDON_REASON_ANNOTATION];
    const at = node.annotations[CORDONED_AT_ANNOTATION];
    const execution = node.annotations[DRAIN_ANNOTATION];
    const outcome = node.annotations[DRAIN_OUTCOME_ANNOTATION];
    const removedTaints = node.taints.filter((t) => t.key.startsWith(OWN_TAINT_PREFIX)).map((t) => t.key);
    return {
      patch,
      result: (_patched, changed) => ({
        kind: node.unschedulable ? 'uncordoned' : 'already-schedulable',
        ...(node.unschedulable
          ? {
              cordon: {
                owner: cordonOwner(node),
                ...(reason !== undefined ? { reason } : {}),
                ...(at !== undefined ? { at } : {}),
              },
            }
          : {}),
        removedTaints,
        removedLabel: patch?.labels !== undefined,
        changed,
        ...(execution !== undefined && execution !== ''
          ? { drain: { execution, ...(outcome !== undefined ? { outcome } : {}) } }
          : {}),
      }),
    };
  });
}

/** Why a write planned on an observation is moot when the Node is missing: what `act` reports. */
export const MISSING_REASON: Readonly<Record<Missing['kind'], string>> = {
  'not-found': 'node already gone',
  'uid-mismatch': 'node was re-registered under the same name',
};

/** Adds or removes `node.cloudprovider.kubernetes.io/shutdown:NoSchedule` on the Node incarnation the plan saw, as the cloud controller does. */
export async function setShutdownTaint(
  api: NodeWriteApi,
  target: NodeTarget,
  present: boolean,
): Promise<MutationOutcome> {
  const result = await readDecidePatch(api, target.node, { expectedUid: target.uid }, (node) => {
    const taints = shutdownTaints(node.taints, present);
    // Taints are replaced as a whole list: the resourceVersion read turns a concurrent writer into a conflict.
    return {
      patch: taints && { taints, resourceVersion: node.resourceVersion },
      result: (_, changed) => ({ changed }),
    };
  });
  if ('kind' in result) return { kind: 'moot', reason: MISSING_REASON[result.kind] };
  return { kind: result.changed ? 'done' : 'unchanged' };
}

/**
 * Deletes the Node only if it is still the object the plan observed. No fresh read: the decision was
 * made on that observation, so its uid and resourceVersion are the preconditions, and the API server
 * refuses (409) a Node re-registered under the same name by a live kubelet, or changed since.
 */
export async function deleteNode(api: NodeDeleteApi, target: NodeTarget): Promise<MutationOutcome> {
  try {
    await api.deleteNode(target.node, { uid: target.uid, resourceVersion: target.resourceVersion });
    return { kind: 'done' };
  } catch (error) {
    if (isNotFound(error)) return { kind: 'moot', reason: MISSING_REASON['not-found'] };
    const message = statusMessage(error);
    if (isConflict(error)) return { kind: 'moot', reason: `node changed since it was observed: ${message}` };
    throw error;
  }
}
