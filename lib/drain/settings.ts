import type { Settings } from '@ec2-node-reconciler/model/contract/settings.js';

/**
 * Drain knobs. The first two come from the reconciler's Settings; the rest are drain-only and have
 * defaults chosen to match kubectl where kubectl has one.
 */
export interface DrainSettings {
  /** Evict pods using emptyDir, like `kubectl drain --delete-emptydir-data`. */
  readonly deleteEmptyDirData: boolean;
  /** Evict pods no controller manages and delete pods of vanished DaemonSets, like `kubectl drain --force`. */
  readonly evictUnreplicated: boolean;
  /** Evictions in flight at once (kubectl sends all at once; a bound keeps a 110-pod node from bursting the API server's priority-and-fairness queue). */
  readonly evictionConcurrency: number;
  /** How often terminating pods are checked for (one LIST of the node's pods, where kubectl GETs each pod every second). */
  readonly pollIntervalMs: number;
  /** Wait before retrying an eviction a PodDisruptionBudget refused (kubectl's EvictErrorRetryDelay, 5 s). */
  readonly evictionRetryDelayMs: number;
  /** Wait before retrying a pod covered by several PodDisruptionBudgets or an eviction that failed otherwise: someone has to fix something first. */
  readonly failedEvictionRetryDelayMs: number;
  /** Pods terminating for longer than this are no longer waited on (kubectl's --skip-wait-for-delete-timeout); 0 waits for all. */
  readonly skipWaitForDeleteTimeoutMs: number;
  /** `fit-deadline`: shorten a grace period that would outlast the deadline (kubectl's --grace-period); `pod`: never. */
  readonly gracePeriod: 'pod' | 'fit-deadline';
  /**
   * Time kept between a shortened grace period's end and the deadline: the kubelet needs a moment to
   * stop the containers and the drain to see the pod gone. A shortened grace is never under 1 s.
   */
  readonly graceMarginMs: number;
}

export const DEFAULT_DRAIN_SETTINGS: DrainSettings = {
  deleteEmptyDirData: true,
  evictUnreplicated: true,
  evictionConcurrency: 10,
  pollIntervalMs: 2_000,
  evictionRetryDelayMs: 5_000,
  failedEvictionRetryDelayMs: 30_000,
  skipWaitForDeleteTimeoutMs: 0,
  gracePeriod: 'fit-deadline',
  graceMarginMs: 5_000,
};

/** Drain settings from the reconciler's settings, with drain-only overrides. */
export function drainSettings(
  settings?: Pick<Settings, 'deleteEmptyDirData' | 'evictUnreplicated' | 'gracePeriod'>,
  overrides: Partial<DrainSettings> = {},
): DrainSettings {
  const merged: DrainSettings = {
    ...DEFAULT_DRAIN_SETTINGS,
    ...(settings
      ? {
          deleteEmptyDirData: settings.deleteEmptyDirData,
          evictUnreplicated: settings.evictUnreplicated,
          gracePeriod: settings.gracePeriod,
        }
      : {}),
    ...overrides,
  };
  if (!Number.isInteger(merged.evictionConcurrency) || merged.evictionConcurrency < 1) {
    throw new Error(
      `invalid drain settings: evictionConcurrency must be a whole number ≥ 1 (got ${merged.evictionConcurrency})`,
    );
  }
  for (const key of [
    'pollIntervalMs',
    'evictionRetryDelayMs',
    'failedEvictionRetryDelayMs',
    'graceMarginMs',
  ] as const) {
    if (!(merged[key] > 0)) throw new Error(`invalid drain settings: ${key} must be > 0 (got ${merged[key]})`);
  }
  if (!(merged.skipWaitForDeleteTimeoutMs >= 0)) {
    throw new Error(
      `invalid drain settings: skipWaitForDeleteTimeoutMs must be ≥ 0 (got ${merged.skipWaitForDeleteTimeoutMs})`,
    );
  }
  return merged;
}
