// The evictions a drain step sends: those due (pods still to go, refused ones whose back-off is over),
// the grace periods to shorten as the deadline comes closer, and what each answer does to the pod's record.
import { isFinished, podKey, podRef, type DrainPod, type RemovalOptions } from './api.js';
import { removePods, type Removal, type RemovalResult } from './evict.js';
import type { DrainPlan } from './plan-drain.js';
import { finish } from './record-stages.js';
import type { DrainSettings } from './settings.js';
import type { PassTime, StepContext } from './step-context.js';
import type { Listing } from './step-listing.js';
import type { DrainRequest } from './step-result.js';
import { isRetryStage, type PodRecord } from './state.js';

/** The API server's default terminationGracePeriodSeconds. */
const DEFAULT_GRACE_SECONDS = 30;

/** Seconds: the grace period a removal gets when the pod's own would outlast the deadline (gracePeriod: fit-deadline). */
function fittedGrace(seconds: number, { now, deadline }: PassTime, settings: DrainSettings): number | undefined {
  if (settings.gracePeriod !== 'fit-deadline') return undefined;
  const fits = Math.floor((deadline - now - settings.graceMarginMs) / 1000);
  return seconds > fits ? Math.max(1, fits) : undefined;
}

/** Seconds the pod is to be given: the request's grace period (the operator's --grace-period), else its own. */
const podGrace = (pod: DrainPod, request: DrainRequest): number =>
  request.gracePeriodSeconds ?? pod.terminationGracePeriodSeconds ?? DEFAULT_GRACE_SECONDS;

/** Evictions due now: pods still to go, and refused ones whose back-off is over. */
export function dueEvictions({ state, request, settings }: StepContext, plan: DrainPlan, time: PassTime): Removal[] {
  const { now } = time;
  return plan.toEvict.flatMap(({ pod }) => {
    const record = state.pods.get(podKey(pod));
    const ready =
      record?.stage === 'pending' ||
      (record !== undefined && isRetryStage(record.stage) && (record.retryAt ?? 0) <= now);
    if (!ready) return [];
    const grace = podGrace(pod, request);
    // A grace period the operator asked for goes with every eviction; a pod's own only when shortened.
    const seconds = isFinished(pod) ? undefined : (fittedGrace(grace, time, settings) ?? request.gracePeriodSeconds);
    const options: RemovalOptions | undefined = seconds === undefined ? undefined : { gracePeriodSeconds: seconds };
    return [{ pod: podRef(pod), ...(options ? { options } : {}) }];
  });
}

/**
 * Terminating pods whose grace period would still outlast the deadline (it came closer since they
 * were evicted): an eviction of a terminating pod only shortens its grace period, PDBs aside.
 */
export function graceShortenings({ state, settings }: StepContext, plan: DrainPlan, time: PassTime): Removal[] {
  const { now } = time;
  return plan.waiting.flatMap(({ pod }) => {
    const record = state.pods.get(podKey(pod));
    if (pod.deletionTimestamp === undefined || (record?.stage !== 'evicting' && record?.stage !== 'terminating'))
      return [];
    const left = Math.ceil((pod.deletionTimestamp - now) / 1000);
    const seconds = fittedGrace(left, time, settings);
    return seconds !== undefined && now + seconds * 1000 < pod.deletionTimestamp - 1000
      ? [{ pod: podRef(pod), options: { gracePeriodSeconds: seconds } }]
      : [];
  });
}

/** Records the server's answer to one removal (and when to retry a refused one). `podGrace`: the pod's own grace period, in seconds. */
function recordRemoval(
  { state, settings, memory }: StepContext,
  record: PodRecord,
  result: RemovalResult,
  now: number,
  podGrace: number,
): void {
  const { outcome, options } = result;
  if (outcome.kind !== 'not-attempted' && outcome.kind !== 'error') state.sent.evictions++;
  const shortening = record.stage === 'evicting' || record.stage === 'terminating';
  if (outcome.kind === 'accepted') {
    if (!shortening) record.stage = 'evicting';
    delete record.attempts;
    delete record.retryAt;
    delete record.pdb;
    // Only a grace period shortened to fit the deadline is worth a note; one the operator asked for is not.
    if (options?.gracePeriodSeconds !== undefined && options.gracePeriodSeconds < podGrace)
      record.grace = { pod: podGrace, given: options.gracePeriodSeconds };
    return;
  }
  if (outcome.kind === 'not-found' || outcome.kind === 'replaced') {
    finish(record);
    return;
  }
  // A refused shortening leaves the pod terminating as it was.
  if (outcome.kind === 'not-attempted' || shortening) return;
  const retry = (stage: PodRecord['stage'], delayMs: number, message: string, pdb?: string): void => {
    record.stage = stage;
    record.attempts = (record.attempts ?? 0) + 1;
    record.retryAt = now + delayMs;
    if (pdb !== undefined) record.pdb = pdb;
    else delete record.pdb;
    memory.messages.set(record.uid, message);
  };
  switch (outcome.kind) {
    case 'too-many-requests':
      retry(
        outcome.pdb !== undefined ? 'blocked-by-pdb' : 'throttled',
        settings.evictionRetryDelayMs,
        outcome.message,
        outcome.pdb,
      );
      return;
    case 'multiple-pdbs':
      retry('multiple-pdbs', settings.failedEvictionRetryDelayMs, outcome.message);
      return;
    case 'failed':
      retry(
        'eviction-failed',
        settings.failedEvictionRetryDelayMs,
        `eviction failed (${outcome.status}): ${outcome.message}`,
      );
      return;
    case 'error':
      retry('eviction-failed', settings.failedEvictionRetryDelayMs, outcome.message);
      return;
  }
}

/**
 * Sends the evictions due (at most evictionConcurrency at a time, none once the deadline passed) and
 * records each answer. Returns when the accepted ones' grace periods end.
 */
export async function sendEvictions(
  step: StepContext,
  due: readonly Removal[],
  listing: Listing,
  deadline: number,
): Promise<number[]> {
  const { api, clock, settings, state, request } = step;
  const results = await removePods(api, due, {
    concurrency: settings.evictionConcurrency,
    canStart: () => clock.now() < deadline,
  });
  const byUid = new Map(listing.pods.map((p) => [p.uid, p]));
  const graceEnds: number[] = [];
  for (const result of results) {
    const at = clock.now();
    const pod = byUid.get(result.pod.uid);
    const record = state.pods.get(podKey(result.pod));
    if (!pod || !record) continue;
    recordRemoval(step, record, result, at, record.grace?.pod ?? podGrace(pod, request));
    if (result.outcome.kind === 'accepted')
      graceEnds.push(isFinished(pod) ? at : at + (result.options?.gracePeriodSeconds ?? podGrace(pod, request)) * 1000);
  }
  return graceEnds;
}
