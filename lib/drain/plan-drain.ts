import { podKey, type DrainPod } from './api.js';
import {
  DRAIN_FILTERS,
  okay,
  type DrainContext,
  type DrainFilter,
  type Verdict,
  type VerdictAction,
} from './filters.js';

export interface PlannedPod {
  readonly pod: DrainPod;
  /** The first verdict that was not a plain `evict`, or the last `evict`. */
  readonly verdict: Verdict;
  /** Every remark made on the way (emptyDir, no controller, completed): kubectl keeps only the last one. */
  readonly notes: readonly Verdict[];
}

export interface DrainPlan {
  readonly toEvict: readonly PlannedPod[];
  readonly skipped: readonly PlannedPod[];
  readonly waiting: readonly PlannedPod[];
  readonly refused: readonly PlannedPod[];
}

/** Runs the filters over one pod; the first verdict other than `evict` decides. */
export function judgePod(
  pod: DrainPod,
  ctx: DrainContext,
  filters: readonly DrainFilter[] = DRAIN_FILTERS,
): PlannedPod {
  const notes: Verdict[] = [];
  for (const filter of filters) {
    const verdict = filter(pod, ctx);
    if (verdict.action !== 'evict') return { pod, verdict, notes };
    if (verdict.code !== 'ok') notes.push(verdict);
  }
  return { pod, verdict: notes.at(-1) ?? okay(), notes };
}

const BUCKET: Record<VerdictAction, keyof DrainPlan> = {
  evict: 'toEvict',
  skip: 'skipped',
  wait: 'waiting',
  refuse: 'refused',
};

/** Pure: sorts every pod into exactly one bucket, keeping each pod's verdict. Output order is by namespace/name. */
export function planDrain(
  pods: readonly DrainPod[],
  ctx: DrainContext,
  filters: readonly DrainFilter[] = DRAIN_FILTERS,
): DrainPlan {
  const plan: Record<keyof DrainPlan, PlannedPod[]> = { toEvict: [], skipped: [], waiting: [], refused: [] };
  const sorted = [...pods].sort((a, b) => podKey(a).localeCompare(podKey(b)));
  for (const pod of sorted) {
    const planned = judgePod(pod, ctx, filters);
    plan[BUCKET[planned.verdict.action]].push(planned);
  }
  return plan;
}
