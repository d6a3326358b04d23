import type { Clock } from '../model/clock.js';
import {
  CORDON_REASON_ANNOTATION,
  CORDON_UNTIL_ANNOTATION,
  CORDONED_AT_ANNOTATION,
  CORDONED_BY_ANNOTATION,
  CORDONED_BY_OPERATOR_VALUE,
  CORDONED_BY_VALUE,
  DRAIN_RECORD_ANNOTATIONS,
  EXCLUDE_FROM_LB_LABEL,
  LABEL_PREFIX,
} from '../contract/labels.js';
import { isConflict, isNotFound, type DrainApi, type DrainNode, type NodePatch, type Taint } from './api.js';

/** Set when the reconciler added EXCLUDE_FROM_LB_LABEL, so uncordon removes only a label it added. */
export const EXCLUDED_FROM_LB_ANNOTATION = `${LABEL_PREFIX}/excluded-from-lb`;

/** Taints under our prefix are ours: uncordon removes them and nothing else. */
const OWN_TAINT_PREFIX = `${LABEL_PREFIX}/`;
export const DRAIN_TAINT_KEY = `${LABEL_PREFIX}/draining`;

export interface ReadOptions {
  /** The node's uid when the caller knows it: a node re-registered under the same name is left alone. */
  readonly expectedUid?: string;
  /**
   * The node as the caller just read it: a plain cordon or uncordon is decided from it instead of
   * reading it again; its patch carries the observed uid and resourceVersion, so a node changed or
   * re-registered since is a conflict (read again, decide again), never a decision on stale state.
   */
  readonly observed?: DrainNode;
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

export type CordonResult =
  | { readonly kind: 'not-found' }
  | { readonly kind: 'uid-mismatch'; readonly uid: string }
  | {
      readonly kind: 'cordoned';
      /** Whether a patch was sent (false: the node already was as wanted). */
      readonly changed: boolean;
      /** Whether the cordon is ours (false: an operator's cordon we leave as theirs). */
      readonly ours: boolean;
      readonly node: DrainNode;
    };

export type UncordonResult =
  | { readonly kind: 'not-found' }
  | { readonly kind: 'uid-mismatch'; readonly uid: string }
  | { readonly kind: 'not-ours' }
  | { readonly kind: 'uncordoned'; readonly changed: boolean; readonly node: DrainNode };

export const isOwnCordon = (node: DrainNode): boolean => node.annotations[CORDONED_BY_ANNOTATION] === CORDONED_BY_VALUE;

/** Pure: the patch that cordons the node as asked, or undefined when no change is required. */
export function cordonPatch(node: DrainNode, options: CordonOptions, now: number): NodePatch | undefined {
  if (options.taint && !options.taint.key.startsWith(OWN_TAINT_PREFIX)) {
    throw new Error(`cordoning ${node.name}: taint key ${options.taint.key} must start with ${OWN_TAINT_PREFIX} so that uncordon can tell it is ours`);
  }
  const annotations: Record<string, string> = {};
  const labels: Record<string, string> = {};
  let unschedulable: true | undefined;
  // An operator's cordon stays theirs: claiming it would let our uncordon undo their decision.
  if (!node.unschedulable) {
    unschedulable = true;
    annotations[CORDONED_BY_ANNOTATION] = options.by === 'operator' ? CORDONED_BY_OPERATOR_VALUE : CORDONED_BY_VALUE;
    annotations[CORDON_REASON_ANNOTATION] = options.reason;
    annotations[CORDONED_AT_ANNOTATION] = new Date(now).toISOString();
    if (options.until !== undefined) annotations[CORDON_UNTIL_ANNOTATION] = new Date(options.until).toISOString();
  }
  if (options.excludeFromLoadBalancers && node.labels[EXCLUDE_FROM_LB_LABEL] === undefined) {
    labels[EXCLUDE_FROM_LB_LABEL] = 'true';
    annotations[EXCLUDED_FROM_LB_ANNOTATION] = 'true';
  }
  const wanted = options.taint;
  const taints =
    wanted && !node.taints.some((t) => t.key === wanted.key && t.effect === wanted.effect) ? [...node.taints, wanted] : undefined;
  if (unschedulable === undefined && Object.keys(labels).length === 0 && taints === undefined) return undefined;
  return {
    ...(unschedulable ? { unschedulable } : {}),
    ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    ...(Object.keys(labels).length > 0 ? { labels } : {}),
    // The taint list is replaced whole: the resourceVersion turns a concurrent change into a conflict.
    ...(taints ? { taints, resourceVersion: node.resourceVersion } : {}),
  };
}

/** Pure: the patch that undoes our cordon, or undefined when there is nothing of ours left. Call only on our own cordon. */
export function uncordonPatch(node: DrainNode): NodePatch | undefined {
  const annotations: Record<string, null> = {};
  // The drain records go with the cordon: a new removal after our uncordon gets a drain of its own.
  const ours = [CORDONED_BY_ANNOTATION, CORDON_REASON_ANNOTATION, CORDONED_AT_ANNOTATION, CORDON_UNTIL_ANNOTATION, EXCLUDED_FROM_LB_ANNOTATION];
  for (const key of [...ours, ...DRAIN_RECORD_ANNOTATIONS]) {
    if (node.annotations[key] !== undefined) annotations[key] = null;
  }
  const removeLabel = node.annotations[EXCLUDED_FROM_LB_ANNOTATION] !== undefined && node.labels[EXCLUDE_FROM_LB_LABEL] !== undefined;
  const kept = node.taints.filter((t) => !t.key.startsWith(OWN_TAINT_PREFIX));
  const taints = kept.length === node.taints.length ? undefined : kept;
  if (!node.unschedulable && Object.keys(annotations).length === 0 && !removeLabel && taints === undefined) return undefined;
  return {
    ...(node.unschedulable ? { unschedulable: null } : {}),
    ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    ...(removeLabel ? { labels: { [EXCLUDE_FROM_LB_LABEL]: null } } : {}),
    ...(taints ? { taints, resourceVersion: node.resourceVersion } : {}),
  };
}

// A guarded patch can lose a race with another writer; a fresh read settles it.
const PATCH_ATTEMPTS = 3;

export type Decision<R> =
  | { readonly stop: R }
  | { readonly patch: NodePatch | undefined; readonly result: (node: DrainNode, changed: boolean) => R };

export type Missing = { readonly kind: 'not-found' } | { readonly kind: 'uid-mismatch'; readonly uid: string };

async function readNode(api: DrainApi, name: string): Promise<DrainNode | undefined> {
  try {
    return await api.getNode(name);
  } catch (cause) {
    throw new Error(`reading node ${name}`, { cause });
  }
}

/**
 * Reads the node (or starts from the observed one), lets `decide` choose a patch and sends it with
 * the node's uid and resourceVersion as preconditions; reads again after a conflict.
 */
export async function readDecidePatch<R>(api: DrainApi, name: string, options: ReadOptions, decide: (node: DrainNode) => Decision<R>): Promise<R | Missing> {
  const { expectedUid } = options;
  let observed = options.observed?.name === name && options.observed.resourceVersion !== '' ? options.observed : undefined;
  for (let patches = 0; ; ) {
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
      if (isConflict(cause) && patches < PATCH_ATTEMPTS) continue;
      throw new Error(`patching node ${name}`, { cause });
    }
  }
}

/** Cordons the node (idempotent: patches only when a change is required). */
export async function cordon(api: DrainApi, name: string, options: CordonOptions, clock: Clock): Promise<CordonResult> {
  return readDecidePatch<CordonResult>(api, name, options, (node) => ({
    patch: cordonPatch(node, options, clock.now()),
    result: (patched, changed) => ({ kind: 'cordoned', changed, ours: isOwnCordon(patched), node: patched }),
  }));
}

/** Uncordons the node only when the cordon carries our annotation; an operator's cordon is never undone. */
export async function uncordon(api: DrainApi, name: string, options: ReadOptions = {}): Promise<UncordonResult> {
  return readDecidePatch<UncordonResult>(api, name, options, (node) =>
    isOwnCordon(node)
      ? { patch: uncordonPatch(node), result: (patched, changed) => ({ kind: 'uncordoned', changed, node: patched }) }
      : { stop: { kind: 'not-ours' } },
  );
}
