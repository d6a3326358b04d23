import { isFinished, podKey, type DrainPod } from './api.js';
import type { DrainSettings } from './settings.js';

/**
 * Drain filters after kubectl's pkg/drain/filters.go: each is a plain function from a pod to a
 * verdict, run in a fixed order until one says anything but `evict`. A verdict keeps what to do
 * (`action`) apart from why (`code`, `reason`) and, when it holds a pod back, how to change that
 * (`hint`).
 */

export type VerdictAction = 'evict' | 'skip' | 'wait' | 'refuse';

export type VerdictCode =
  | 'ok'
  | 'terminating-too-long'
  | 'daemonset'
  | 'daemonset-missing'
  | 'daemonset-unknown'
  | 'mirror'
  | 'local-storage'
  | 'unreplicated'
  | 'completed'
  | 'terminating';

export interface Verdict {
  readonly action: VerdictAction;
  readonly code: VerdictCode;
  readonly reason: string;
  readonly hint?: string;
}

/** What the drain learned about a DaemonSet before planning (filters stay pure: no lookups inside). */
export type DaemonSetLookup =
  { readonly state: 'present' } | { readonly state: 'missing' } | { readonly state: 'unknown'; readonly error: string };

export interface DrainContext {
  readonly settings: Pick<DrainSettings, 'deleteEmptyDirData' | 'evictUnreplicated' | 'skipWaitForDeleteTimeoutMs'>;
  /** Epoch ms. */
  readonly now: number;
  /** Keyed `namespace/name`; a DaemonSet missing from the map counts as unknown. */
  readonly daemonSets: ReadonlyMap<string, DaemonSetLookup>;
}

export type DrainFilter = (pod: DrainPod, ctx: DrainContext) => Verdict;

// Verdicts are built only here, so every one carries a code and a reason.
export const okay = (): Verdict => ({ action: 'evict', code: 'ok', reason: 'no objection' });
const evictNoting = (code: VerdictCode, reason: string): Verdict => ({ action: 'evict', code, reason });
const skip = (code: VerdictCode, reason: string): Verdict => ({ action: 'skip', code, reason });
const wait = (code: VerdictCode, reason: string): Verdict => ({ action: 'wait', code, reason });
const refuse = (code: VerdictCode, reason: string, hint: string): Verdict => ({ action: 'refuse', code, reason, hint });

/**
 * kubectl's skipDeletedFilter: a pod terminating for longer than the setting is not waited on
 * (its node is usually dead and will never confirm). Off by default, as in kubectl.
 */
export const terminatingTooLongFilter: DrainFilter = (pod, ctx) => {
  const limit = ctx.settings.skipWaitForDeleteTimeoutMs;
  if (limit > 0 && pod.deletionTimestamp !== undefined && ctx.now - pod.deletionTimestamp > limit) {
    return skip('terminating-too-long', `terminating for more than ${Math.round(limit / 1000)}s, no longer waited on`);
  }
  return okay();
};

/**
 * DaemonSet pods are left alone: their controller ignores the cordon and would recreate them at once.
 * A finished one may go; one whose DaemonSet is gone is an orphan nothing will clean up, so it is
 * evicted when unreplicated pods may be removed (kubectl --force evicts it too, so PDBs still hold,
 * and the reconciler's RBAC needs no pods/delete).
 */
export const daemonSetFilter: DrainFilter = (pod, ctx) => {
  if (pod.controller?.kind !== 'DaemonSet' || isFinished(pod)) return okay();
  const owner = `DaemonSet ${pod.namespace}/${pod.controller.name}`;
  const lookup = ctx.daemonSets.get(podKey({ namespace: pod.namespace, name: pod.controller.name }));
  switch (lookup?.state) {
    case 'present':
      return skip('daemonset', `managed by ${owner}`);
    case 'missing':
      // Already terminating: deleting again adds nothing; the last filter waits on it.
      if (pod.deletionTimestamp !== undefined) return okay();
      return ctx.settings.evictUnreplicated
        ? evictNoting('daemonset-missing', `${owner} not found, evicting the orphaned pod`)
        : refuse('daemonset-missing', `${owner} not found`, 'set evictUnreplicated to delete orphaned DaemonSet pods');
    case 'unknown':
      // Transient: wait and look again rather than refuse for good.
      return wait('daemonset-unknown', `cannot tell whether ${owner} exists: ${lookup.error}`);
    case undefined:
      return wait('daemonset-unknown', `${owner} was not looked up`);
  }
};

/** Mirror pods are the API's view of static pods: only the kubelet's manifest directory removes them. */
export const mirrorPodFilter: DrainFilter = (pod) =>
  pod.mirror ? skip('mirror', 'mirror pod of a static pod (the kubelet owns it)') : okay();

export const localStorageFilter: DrainFilter = (pod, ctx) => {
  if (!pod.emptyDir || isFinished(pod)) return okay();
  return ctx.settings.deleteEmptyDirData
    ? evictNoting('local-storage', 'uses emptyDir, its data is lost')
    : refuse('local-storage', 'uses emptyDir (local data would be lost)', 'set deleteEmptyDirData to evict it');
};

export const unreplicatedFilter: DrainFilter = (pod, ctx) => {
  if (isFinished(pod) || pod.controller !== undefined) return okay();
  return ctx.settings.evictUnreplicated
    ? evictNoting('unreplicated', 'declares no controller, nothing recreates it')
    : refuse('unreplicated', 'declares no controller (nothing would recreate it)', 'set evictUnreplicated to evict it');
};

export const completedFilter: DrainFilter = (pod) =>
  isFinished(pod) ? evictNoting('completed', `completed (${pod.phase ?? 'unknown phase'})`) : okay();

/**
 * Last, so that a terminating DaemonSet or mirror pod is still skipped as kubectl skips it: a pod
 * every other filter would evict but which is already terminating needs no eviction, only waiting.
 */
export const alreadyTerminatingFilter: DrainFilter = (pod, ctx) => {
  if (pod.deletionTimestamp === undefined) return okay();
  const seconds = Math.max(0, Math.round((pod.deletionTimestamp - ctx.now) / 1000));
  return wait(
    'terminating',
    seconds > 0 ? `terminating, grace period ends in ${seconds}s` : 'terminating, grace period over',
  );
};

/** kubectl's order (skipDeleted, daemonSet, mirrorPod, localStorage, unreplicated), then ours. */
export const DRAIN_FILTERS: readonly DrainFilter[] = [
  terminatingTooLongFilter,
  daemonSetFilter,
  mirrorPodFilter,
  localStorageFilter,
  unreplicatedFilter,
  completedFilter,
  alreadyTerminatingFilter,
];
