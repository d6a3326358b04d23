import type { Clock } from '../model/clock.js';
import { isFinished, podKey, podRef, type DrainApi, type DrainPod, type PodRef } from './api.js';
import { cordon, type CordonOptions } from './cordon.js';
import { describeError, removePods, type Removal, type RemovalResult } from './evict.js';
import type { DaemonSetLookup } from './filters.js';
import { planDrain, type PlannedPod } from './plan-drain.js';
import { countReports, isBlocked, isLeft, type BlockedPod, type DrainCounts, type PodReport } from './report.js';
import type { DrainSettings } from './settings.js';
import { initialDrainState, readDrainState, type DrainState } from './state.js';

export interface DrainRequest {
  readonly node: string;
  /** Epoch ms. The drain stops there and reports what is left (spot: warning + 2 min; lifecycle hook: its timeout; Health: the event's start). */
  readonly deadline: number;
  readonly cordon: CordonOptions;
}

export interface DrainDeps {
  readonly api: DrainApi;
  readonly clock: Clock;
  readonly settings: DrainSettings;
  /** Waits between checks inside a step: real time in production, a VirtualClock advance in the sandbox and tests. */
  readonly sleep: (ms: number) => Promise<void>;
  /** Called after every pass over the node's pods, for progress output. */
  readonly onProgress?: (progress: DrainStepResult) => void;
}

/**
 * `drained`: every pod the drain should remove is gone (refused pods may remain, reported).
 * `deadline`: the deadline passed first; `remaining` says what is left and why.
 * `node-gone`: the node no longer exists, or a new node took its name.
 */
export type DrainStatus = 'in-progress' | 'drained' | 'deadline' | 'node-gone';

export interface DrainStepResult {
  readonly status: DrainStatus;
  /** Nothing more to do: drained, or the node is gone. */
  readonly done: boolean;
  /** Pods still on the node that the drain wants gone, each with its status and why. */
  readonly remaining: readonly PodReport[];
  /** The remaining pods waiting cannot help: PDBs, refusals, failed evictions. */
  readonly blocked: readonly BlockedPod[];
  /** Every pod's outcome: those on the node now, and those this drain saw go (as far as the state remembers). */
  readonly pods: readonly PodReport[];
  readonly counts: DrainCounts;
  /** When to step again; 0 once the drain has ended. */
  readonly nextCheckAfterMs: number;
  readonly state: DrainState;
  readonly message?: string;
}

/**
 * Looks up each DaemonSet that owns an unfinished pod on the node (the DaemonSet filter needs no
 * other). Definite answers are kept for the rest of the step; failed lookups are tried again.
 */
async function lookUpDaemonSets(api: DrainApi, pods: readonly DrainPod[], cache: Map<string, DaemonSetLookup>): Promise<void> {
  const wanted = new Map<string, { namespace: string; name: string }>();
  for (const pod of pods) {
    if (pod.controller?.kind !== 'DaemonSet' || isFinished(pod)) continue;
    const ref = { namespace: pod.namespace, name: pod.controller.name };
    const known = cache.get(podKey(ref))?.state;
    if (known === undefined || known === 'unknown') wanted.set(podKey(ref), ref);
  }
  const refs = [...wanted.values()];
  const answers = await Promise.allSettled(refs.map(async (ref) => api.daemonSetExists(ref.namespace, ref.name)));
  refs.forEach((ref, index) => {
    const answer = answers[index];
    const lookup: DaemonSetLookup =
      answer?.status === 'fulfilled'
        ? { state: answer.value ? 'present' : 'missing' }
        : { state: 'unknown', error: describeError(answer?.reason) };
    cache.set(podKey(ref), lookup);
  });
}

/** The API server's default terminationGracePeriodSeconds. */
const DEFAULT_GRACE_SECONDS = 30;
/** Kubelets report a little after the grace period ends: look again just after it. */
const GRACE_END_MARGIN_MS = 100;

interface PassOutcome {
  readonly result: Omit<DrainStepResult, 'state'>;
  readonly state: DrainState;
}

function ended(status: 'node-gone', state: DrainState, message: string): PassOutcome {
  return {
    state,
    result: { status, done: true, remaining: [], blocked: [], pods: [], counts: countReports([]), nextCheckAfterMs: 0, message },
  };
}

/** Records the server's answer to one removal in the state (and when to retry a refused one). */
function recordRemoval(state: DrainState, result: RemovalResult, now: number, settings: DrainSettings): void {
  const { pod, via, outcome } = result;
  const base = { ns: pod.namespace, name: pod.name, uid: pod.uid, at: now };
  const attempts = (state.retry.find((r) => r.uid === pod.uid)?.attempts ?? 0) + 1;
  state.retry = state.retry.filter((r) => r.uid !== pod.uid);
  if (outcome.kind !== 'not-attempted' && outcome.kind !== 'error') {
    if (via === 'evict') state.sent.evictions++;
    else state.sent.deletions++;
  }
  switch (outcome.kind) {
    case 'accepted':
      state.removing.push({ ...base, via });
      return;
    case 'not-found':
    case 'replaced':
      state.gone.push({ ...base, how: 'vanished' });
      return;
    case 'not-attempted':
      return;
    case 'too-many-requests':
      state.retry.push({
        ...base,
        at: now + settings.evictionRetryDelayMs,
        attempts,
        ...(outcome.pdb !== undefined
          ? { status: 'blocked-by-pdb', pdb: outcome.pdb, reason: `blocked by PodDisruptionBudget ${outcome.pdb}: ${outcome.message}` }
          : { status: 'throttled', reason: `the API server asked to retry later: ${outcome.message}` }),
      });
      return;
    case 'multiple-pdbs':
      state.retry.push({
        ...base,
        at: now + settings.failedEvictionRetryDelayMs,
        attempts,
        status: 'multiple-pdbs',
        reason: `covered by more than one PodDisruptionBudget, which the eviction API refuses (make one PDB select it): ${outcome.message}`,
      });
      return;
    case 'failed':
    case 'error':
      state.retry.push({
        ...base,
        at: now + settings.failedEvictionRetryDelayMs,
        attempts,
        status: 'eviction-failed',
        reason: outcome.kind === 'failed' ? `${via === 'evict' ? 'eviction' : 'delete'} failed (${outcome.status}): ${outcome.message}` : outcome.message,
      });
      return;
  }
}

/** The report of a pod on the node; `final` when the drain ends with this pass (no next attempt to announce). */
function reportPlanned(planned: PlannedPod, state: DrainState, now: number, final: boolean): PodReport {
  const { pod, verdict } = planned;
  const ref = podRef(pod);
  const notes = planned.notes.length > 0 ? { notes: planned.notes.map((n) => n.reason) } : {};
  switch (verdict.action) {
    case 'skip': {
      const status = verdict.code === 'daemonset' ? 'skipped-daemonset' : verdict.code === 'mirror' ? 'skipped-mirror' : 'skipped-terminating';
      return { pod: ref, status, reason: verdict.reason };
    }
    case 'refuse':
      return { pod: ref, status: 'refused', reason: verdict.hint ? `${verdict.reason}; ${verdict.hint}` : verdict.reason };
    case 'wait': {
      if (verdict.code !== 'terminating') return { pod: ref, status: 'waiting', reason: verdict.reason };
      const ours = state.removing.find((r) => r.uid === pod.uid && r.via !== 'waited');
      const reason = ours ? `${ours.via === 'evict' ? 'evicted' : 'deleted'}, ${verdict.reason}` : `already ${verdict.reason}`;
      return { pod: ref, status: 'terminating', reason, ...notes };
    }
    case 'evict':
    case 'delete': {
      // Accepted earlier but listed without a deletionTimestamp (a lagging read): never evicted twice.
      const ours = state.removing.find((r) => r.uid === pod.uid);
      if (ours) return { pod: ref, status: 'terminating', reason: `${ours.via === 'delete' ? 'deleted' : 'evicted'}, waiting for it to terminate`, ...notes };
      const retry = state.retry.find((r) => r.uid === pod.uid);
      if (retry) {
        const wait = Math.max(0, Math.ceil((retry.at - now) / 1000));
        const when = final ? `${retry.attempts} attempts` : `attempt ${retry.attempts}, next in ${wait}s`;
        return { pod: ref, status: retry.status, reason: `${retry.reason} (${when})`, ...(retry.pdb ? { pdb: retry.pdb } : {}), ...notes };
      }
      return { pod: ref, status: 'pending', reason: verdict.action === 'evict' ? 'to be evicted' : verdict.reason, ...notes };
    }
  }
}

function reportGone(record: DrainState['gone'][number]): PodReport {
  const pod: PodRef = { namespace: record.ns, name: record.name, uid: record.uid };
  switch (record.how) {
    case 'evicted':
      return { pod, status: 'evicted', reason: 'evicted and gone' };
    case 'deleted':
      return { pod, status: 'deleted', reason: 'deleted and gone' };
    case 'vanished':
      return { pod, status: 'gone', reason: 'went away without an eviction from this drain (already terminating, or replaced under its name)' };
  }
}

/** One look at the node: cordon if needed, list, plan, send what is due, report. */
async function pass(deps: DrainDeps, request: DrainRequest, state: DrainState, daemonSets: Map<string, DaemonSetLookup>): Promise<PassOutcome> {
  const { api, clock, settings } = deps;
  if (!state.cordoned) {
    const result = await cordon(api, request.node, request.cordon, clock);
    if (result.kind === 'not-found') return ended('node-gone', state, `node ${request.node} not found`);
    if (result.kind === 'uid-mismatch') {
      return ended('node-gone', state, `node ${request.node} now has uid ${result.uid}: a new node took the name, it is not drained`);
    }
    state.cordoned = true;
  }

  let pods: DrainPod[];
  try {
    pods = await api.listPodsOnNode(request.node);
  } catch (cause) {
    throw new Error(`listing pods on node ${request.node}`, { cause });
  }
  await lookUpDaemonSets(api, pods, daemonSets);
  const now = clock.now();
  const plan = planDrain(pods, { settings, now, daemonSets });

  // Removals the server accepted earlier and whose pod is no longer listed are done.
  const present = new Set(pods.map((p) => p.uid));
  for (const record of state.removing.filter((r) => !present.has(r.uid))) {
    const how = record.via === 'evict' ? 'evicted' : record.via === 'delete' ? 'deleted' : 'vanished';
    state.gone.push({ ns: record.ns, name: record.name, uid: record.uid, at: now, how });
  }
  state.removing = state.removing.filter((r) => present.has(r.uid));
  // A back-off matters only while the pod still waits for its removal (someone else may have deleted it meanwhile).
  const removable = new Set([...plan.toEvict, ...plan.toDelete].map((p) => p.pod.uid));
  state.retry = state.retry.filter((r) => removable.has(r.uid));

  // Pods that were terminating before we came are watched too, so the report can say they went.
  const watched = new Set(state.removing.map((r) => r.uid));
  for (const { pod } of plan.waiting) {
    if (pod.deletionTimestamp !== undefined && !watched.has(pod.uid)) {
      state.removing.push({ ns: pod.namespace, name: pod.name, uid: pod.uid, at: now, via: 'waited' });
    }
  }

  // When each terminating pod's grace period ends: the next check need not come before the first of them.
  // deletionTimestamp is truncated to whole seconds, so the grace period may run up to a second past it.
  const graceEnds = plan.waiting.flatMap((p) => (p.pod.deletionTimestamp === undefined ? [] : [p.pod.deletionTimestamp + 1000]));

  const deadlinePassed = now >= request.deadline;
  if (!deadlinePassed) {
    const removing = new Set(state.removing.map((r) => r.uid));
    const notBefore = new Map(state.retry.map((r) => [r.uid, r.at]));
    const due: Removal[] = [
      ...plan.toEvict.map((p) => ({ pod: podRef(p.pod), via: 'evict' as const })),
      ...plan.toDelete.map((p) => ({ pod: podRef(p.pod), via: 'delete' as const })),
    ].filter(({ pod }) => !removing.has(pod.uid) && (notBefore.get(pod.uid) ?? 0) <= now);
    const results = await removePods(api, due, {
      concurrency: settings.evictionConcurrency,
      canStart: () => clock.now() < request.deadline,
    });
    const graceOf = new Map([...plan.toEvict, ...plan.toDelete].map((p) => [p.pod.uid, p.pod]));
    for (const result of results) {
      const at = clock.now();
      recordRemoval(state, result, at, settings);
      if (result.outcome.kind === 'accepted') {
        const pod = graceOf.get(result.pod.uid);
        graceEnds.push(pod && isFinished(pod) ? at : at + (pod?.terminationGracePeriodSeconds ?? DEFAULT_GRACE_SECONDS) * 1000);
      }
    }
  }

  const goneNow = new Set(state.gone.map((r) => r.uid));
  const planned = [...plan.toEvict, ...plan.toDelete, ...plan.waiting, ...plan.refused, ...plan.skipped].filter((p) => !goneNow.has(p.pod.uid));
  const onNode = planned
    .map((p) => reportPlanned(p, state, clock.now(), deadlinePassed))
    .sort((a, b) => podKey(a.pod).localeCompare(podKey(b.pod)));
  const unfinished = onNode.filter((r) => isLeft(r) && r.status !== 'refused');
  const status: DrainStatus = unfinished.length === 0 ? 'drained' : deadlinePassed ? 'deadline' : 'in-progress';
  const current = status === 'deadline' ? onNode.map((r): PodReport => (isLeft(r) ? { ...r, leftAtDeadline: true } : r)) : onNode;
  const everyPod = [...state.gone.map(reportGone), ...current];
  const remaining = current.filter(isLeft);

  let nextCheckAfterMs = 0;
  if (status === 'in-progress') {
    const at = clock.now();
    const waits = state.retry.map((r) => r.at - at);
    if (unfinished.some((r) => r.status === 'terminating' || r.status === 'waiting' || r.status === 'pending')) waits.push(settings.pollIntervalMs);
    // A grace period ending before the next poll is worth a look just after it (kubectl polls every second);
    // one already over (a kubelet that does not answer) is not worth more than the usual poll.
    for (const end of graceEnds) if (end > at) waits.push(end - at + GRACE_END_MARGIN_MS);
    nextCheckAfterMs = Math.max(0, Math.min(request.deadline - at, ...(waits.length > 0 ? waits : [settings.pollIntervalMs])));
  }

  return {
    state,
    result: {
      status,
      done: status === 'drained',
      remaining,
      blocked: remaining.filter(isBlocked).map((r) => ({ pod: r.pod, reason: r.reason, ...(r.pdb ? { pdb: r.pdb } : {}) })),
      pods: everyPod,
      counts: countReports(everyPod),
      nextCheckAfterMs,
    },
  };
}

/**
 * Drains as much as fits in `budgetMs` (measured on the injected clock): cordons, then passes over
 * the node's pods until the drain ends or the next check would fall outside the budget. `state` is
 * the previous step's, or undefined: without it the step re-reads everything and carries on.
 */
export async function drainStep(deps: DrainDeps, request: DrainRequest, state: unknown, budgetMs: number): Promise<DrainStepResult> {
  const started = deps.clock.now();
  // A working copy: the caller's state object is never changed under it.
  const working = structuredClone(readDrainState(state, request.node) ?? initialDrainState(request.node, started));
  working.steps++;
  const daemonSets = new Map<string, DaemonSetLookup>();
  for (;;) {
    const { result, state: next } = await pass(deps, request, working, daemonSets);
    // A snapshot: later passes keep working on `working`, and a progress listener may keep what it got.
    const full: DrainStepResult = { ...result, state: structuredClone(next) };
    deps.onProgress?.(full);
    if (full.status !== 'in-progress') return full;
    if (deps.clock.now() + full.nextCheckAfterMs >= started + budgetMs) return full;
    await deps.sleep(full.nextCheckAfterMs);
  }
}
