import * as z from 'zod';
import type { Clock } from '../model/clock.js';
import { DRAIN_ANNOTATION, DRAIN_DEADLINE_ANNOTATION, LIFECYCLE_ANNOTATION } from '../contract/labels.js';
import { errorText } from '../support/errors.js';
import { recordOutcome, renewalPatch, renewDrain } from './claim.js';
import { RENEW_INTERVAL_MS } from './liveness.js';
import { outcomeOf, type DrainRequest, type DrainStatus, type DrainStepResult } from './step-result.js';
import { LifecycleRefSchema } from '../contract/drain-workflow.js';
import { cordon, isOurCordonGone, type NodeWriteView } from '../kube/node-writes.js';
import { isFinished, podKey, podRef, type DrainApi, type DrainPod, type RemovalOptions } from './api.js';
import { lookUpDaemonSets } from './daemonsets.js';
import { removePods, type Removal, type RemovalResult } from './evict.js';
import type { DaemonSetLookup, Verdict } from './filters.js';
import { planDrain, type DrainPlan, type PlannedPod } from './plan-drain.js';
import {
  countReports,
  isBlocked,
  isLeft,
  isUnfinished,
  type BlockedPod,
  type LeftAt,
  type PodReport,
} from './pod-report.js';
import type { DrainSettings } from './settings.js';
import {
  initialDrainState,
  isFinishedStage,
  isRetryStage,
  packState,
  readDrainState,
  REFUSALS,
  wasRemoved,
  type PodRecord,
  type RetryStatus,
  type Stage,
  type WorkingState,
} from './state.js';

export interface DrainDeps {
  readonly api: DrainApi;
  readonly clock: Clock;
  readonly settings: DrainSettings;
  /** Waits between checks inside a step: real time in production, a VirtualClock advance in the sandbox and tests. */
  readonly sleep: (ms: number) => Promise<void>;
  /** Called after every pass over the node's pods, for progress output. */
  readonly onProgress?: (progress: DrainStepResult) => void;
}

/** The API server's default terminationGracePeriodSeconds. */
const DEFAULT_GRACE_SECONDS = 30;
/** Kubelets report a little after the grace period ends: look again just after it. */
const GRACE_END_MARGIN_MS = 100;
/**
 * Drains a storm starts together (an SQS batch's) evict together and would all look again the
 * moment their pods' grace periods end: each Node looks at its own offset within this spread
 * instead (a digest of its name, so a drain's timing repeats), and a few hundred drains send their
 * checks over a second rather than in one burst on the API server's seats. kubectl polls once a
 * second: no look comes later than kubectl's would.
 */
const GRACE_END_SPREAD_MS = 900;

/** FNV-1a of the Node's name, as an offset within GRACE_END_SPREAD_MS. */
export function checkOffsetMs(node: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < node.length; i++) hash = Math.imul(hash ^ node.charCodeAt(i), 0x01000193) >>> 0;
  return hash % GRACE_END_SPREAD_MS;
}

const IsoDateSchema = z.iso.datetime({ offset: true });

/** What this step learned that the state does not keep: DaemonSet lookups, and the server's words for refused removals. */
interface StepMemory {
  readonly daemonSets: Map<string, DaemonSetLookup>;
  readonly messages: Map<string, string>;
}

type PassResult = Omit<DrainStepResult, 'state'>;

/**
 * Takes what the event path announced on the Node: an earlier deadline (never a later one: a
 * deadline is when the machine goes) and a lifecycle action handed over to this drain.
 */
function takeHandover(state: WorkingState, node: NodeWriteView, execution: string | undefined): void {
  // Another drain's record (an older one left on the Node, or none of ours at all) hands over nothing.
  if (execution === undefined || node.annotations[DRAIN_ANNOTATION] !== execution) return;
  const deadline = IsoDateSchema.safeParse(node.annotations[DRAIN_DEADLINE_ANNOTATION]);
  if (deadline.success) {
    const at = Date.parse(deadline.data);
    state.deadline = Math.min(state.deadline ?? at, at);
  }
  const text = node.annotations[LIFECYCLE_ANNOTATION];
  if (text === undefined) return;
  try {
    const lifecycle = LifecycleRefSchema.safeParse(JSON.parse(text));
    if (lifecycle.success) state.lifecycle = lifecycle.data;
  } catch {
    // Not JSON: the annotation is ignored, as one that does not match the schema.
  }
}

const deadlineOf = (request: DrainRequest, state: WorkingState): number =>
  Math.min(request.deadline, state.deadline ?? Infinity);

/** Seconds: the grace period a removal gets when the pod's own would outlast the deadline (gracePeriod: fit-deadline). */
function fittedGrace(seconds: number, now: number, deadline: number, settings: DrainSettings): number | undefined {
  if (settings.gracePeriod !== 'fit-deadline') return undefined;
  const fits = Math.floor((deadline - now - settings.graceMarginMs) / 1000);
  return seconds > fits ? Math.max(1, fits) : undefined;
}

/** The stage a pod's verdict puts it in, given what the drain already did to it. */
function stageFromVerdict(
  record: PodRecord | undefined,
  verdict: Verdict,
): Pick<PodRecord, 'stage' | 'refusal'> | undefined {
  const stage = record?.stage;
  // Sent and accepted: a lagging read or a terminating pod changes nothing.
  if (stage === 'evicting') return undefined;
  switch (verdict.action) {
    case 'skip':
      return {
        stage:
          verdict.code === 'daemonset'
            ? 'skipped-daemonset'
            : verdict.code === 'mirror'
              ? 'skipped-mirror'
              : 'skipped-terminating',
      };
    case 'refuse': {
      const refusal = REFUSALS.find((r) => r === verdict.code);
      return { stage: 'refused', ...(refusal ? { refusal } : {}) };
    }
    case 'wait':
      return { stage: verdict.code === 'terminating' ? 'terminating' : 'waiting' };
    case 'evict':
      // A refused removal keeps its back-off while the pod still waits for it.
      return stage !== undefined && isRetryStage(stage) ? undefined : { stage: 'pending' };
  }
}

const FINISH: Partial<Record<Stage, Stage>> = { evicting: 'evicted', terminating: 'terminated' };

/** The pod the record describes is no longer there: what became of it. */
function finish(record: PodRecord): void {
  if (isFinishedStage(record.stage)) return;
  record.stage = FINISH[record.stage] ?? 'gone';
  delete record.attempts;
  delete record.retryAt;
  delete record.pdb;
}

/** Records the server's answer to one removal (and when to retry a refused one). */
function recordRemoval(
  record: PodRecord,
  result: RemovalResult,
  now: number,
  state: WorkingState,
  deps: DrainDeps,
  memory: StepMemory,
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
  const { settings } = deps;
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

const SKIPPED_REASON: Partial<Record<Stage, string>> = {
  'skipped-daemonset': 'managed by a DaemonSet',
  'skipped-mirror': 'mirror pod of a static pod (the kubelet owns it)',
  'skipped-terminating': 'terminating for longer than skipWaitForDeleteTimeout, no longer waited on',
};
const REFUSAL_REASON: Record<string, string> = {
  'local-storage': 'uses emptyDir (local data would be lost); set deleteEmptyDirData to evict it',
  unreplicated: 'declares no controller (nothing would recreate it); set evictUnreplicated to evict it',
  'daemonset-missing': 'its DaemonSet is gone; set evictUnreplicated to delete orphaned DaemonSet pods',
};

/** Why a retry-stage pod is still there: the codes in words, with the server's message when this step heard it. */
function retryReason(stage: RetryStatus, record: PodRecord, memory: StepMemory, now: number, final: boolean): string {
  const heard = memory.messages.get(record.uid);
  const said = heard !== undefined ? `: ${heard}` : '';
  const attempts = record.attempts ?? 1;
  const when = final
    ? `${attempts} attempts`
    : `attempt ${attempts}, next in ${Math.max(0, Math.ceil(((record.retryAt ?? now) - now) / 1000))}s`;
  switch (stage) {
    case 'blocked-by-pdb':
      return `blocked by PodDisruptionBudget ${record.pdb ?? '(unnamed)'}${said} (${when})`;
    case 'throttled':
      return `the API server asked to retry later${said} (${when})`;
    case 'multiple-pdbs':
      return `covered by more than one PodDisruptionBudget, which the eviction API refuses (make one PDB select it)${said} (${when})`;
    case 'eviction-failed':
      return `${heard ?? 'the eviction failed'} (${when})`;
  }
}

/** One pod's report, from its record and, when it is listed now, the verdict on it. */
function reportOf(
  record: PodRecord,
  planned: PlannedPod | undefined,
  memory: StepMemory,
  now: number,
  final: boolean,
): PodReport {
  const pod = { namespace: record.namespace, name: record.name, uid: record.uid };
  const notes = planned && planned.notes.length > 0 ? { notes: planned.notes.map((n) => n.reason) } : {};
  const removal: PodReport['removal'] =
    record.stage === 'evicting' || record.stage === 'evicted' ? 'evicted' : undefined;
  const grace = record.grace
    ? {
        grace: record.grace,
        graceNote: ` (grace period ${record.grace.given}s instead of ${record.grace.pod}s, to end before the deadline)`,
      }
    : { graceNote: '' };
  const base = { pod, ...(removal ? { removal } : {}), ...(grace.grace ? { grace: grace.grace } : {}), ...notes };
  const verdict = planned?.verdict;
  // kubectl's skip-wait-for-delete-timeout applies to pods this drain evicted too.
  if (verdict?.action === 'skip' && verdict.code === 'terminating-too-long')
    return { ...base, status: 'skipped-terminating', reason: verdict.reason };
  switch (record.stage) {
    case 'pending':
      return { ...base, status: 'pending', reason: 'to be evicted' };
    case 'waiting':
      return { ...base, status: 'waiting', reason: verdict?.reason ?? 'its DaemonSet could not be looked up' };
    case 'skipped-daemonset':
    case 'skipped-mirror':
    case 'skipped-terminating':
      return { ...base, status: record.stage, reason: verdict?.reason ?? SKIPPED_REASON[record.stage] ?? record.stage };
    case 'refused': {
      const reason = verdict
        ? verdict.hint
          ? `${verdict.reason}; ${verdict.hint}`
          : verdict.reason
        : (REFUSAL_REASON[record.refusal ?? ''] ?? 'refused by the drain settings');
      return { ...base, status: 'refused', reason, ...(record.refusal ? { refusal: record.refusal } : {}) };
    }
    case 'blocked-by-pdb':
    case 'throttled':
    case 'multiple-pdbs':
    case 'eviction-failed':
      return {
        ...base,
        status: record.stage,
        reason: retryReason(record.stage, record, memory, now, final),
        ...(record.pdb ? { pdb: record.pdb } : {}),
      };
    case 'evicting': {
      const progress = verdict?.code === 'terminating' ? verdict.reason : 'waiting for it to terminate';
      return { ...base, status: 'terminating', reason: `evicted, ${progress}${grace.graceNote}` };
    }
    case 'terminating':
      return {
        ...base,
        status: 'terminating',
        reason: `already ${verdict?.code === 'terminating' ? verdict.reason : 'terminating'}${grace.graceNote}`,
      };
    case 'evicted':
      return { ...base, status: 'evicted', reason: `evicted and gone${grace.graceNote}` };
    case 'terminated':
      return { ...base, status: 'gone', reason: 'was terminating before the drain began, and went' };
    case 'gone':
      return { ...base, status: 'gone', reason: 'went away without an eviction from this drain' };
  }
}

const byKey = (a: PodReport, b: PodReport): number => podKey(a.pod).localeCompare(podKey(b.pod));

/** The drain ends before looking at the pods: every pod it knew, as it last saw it. */
function ended(
  status: 'node-gone' | 'node-replaced' | 'cancelled-by-uncordon',
  state: WorkingState,
  request: DrainRequest,
  memory: StepMemory,
  now: number,
  message: string,
): PassResult {
  const pods = [...state.pods.values()]
    .map((record) => {
      const report = reportOf(record, undefined, memory, now, true);
      return isFinishedStage(record.stage) || !(isLeft(report) || report.status === 'terminating')
        ? report
        : { ...report, left: status };
    })
    .sort(byKey);
  const remaining = pods.filter((r) => r.left !== undefined);
  return {
    status,
    remaining,
    blocked: blockedOf(remaining),
    pods,
    counts: countReports(pods),
    nextCheckAfterMs: 0,
    deadline: deadlineOf(request, state),
    ...(state.lifecycle ? { lifecycle: state.lifecycle } : {}),
    message,
  };
}

async function readNode(api: DrainApi, name: string): Promise<NodeWriteView | undefined> {
  try {
    return await api.getNode(name);
  } catch (cause) {
    throw new Error(`reading node ${name}`, { cause });
  }
}

/**
 * The Node, checked every pass: still the incarnation this drain is bound to, and (once the drain
 * confirmed its cordon) still cordoned. Returns how the drain ends, or undefined to go on.
 */
async function checkNode(
  deps: DrainDeps,
  request: DrainRequest,
  state: WorkingState,
  memory: StepMemory,
): Promise<PassResult | undefined> {
  const { api, clock } = deps;
  const name = request.node;
  const node = await readNode(api, name);
  const bound = state.nodeUid ?? request.cordon.expectedUid;
  const gone = () => ended('node-gone', state, request, memory, clock.now(), `node ${name} no longer exists`);
  const replaced = (uid: string) =>
    ended(
      'node-replaced',
      state,
      request,
      memory,
      clock.now(),
      `node ${name} is now another Node (uid ${uid}), not the one this drain started on (${bound ?? 'unknown'}): it is left alone`,
    );
  if (!node) return gone();
  if (bound !== undefined && node.uid !== bound) return replaced(node.uid);
  state.nodeUid = node.uid;
  takeHandover(state, node, request.execution);
  if (state.cordoned) {
    // Never cordoned again: whoever uncordoned it (and maybe cordoned it again, theirs now) decided to keep it.
    if (isOurCordonGone(node))
      return ended(
        'cancelled-by-uncordon',
        state,
        request,
        memory,
        clock.now(),
        `node ${name} was uncordoned by someone else mid-drain; the drain stops and leaves it schedulable`,
      );
    await renewRecord(deps, request, node);
    return undefined;
  }
  const result = await cordon(api, name, { ...request.cordon, expectedUid: node.uid, observed: node }, clock);
  if (result.kind === 'not-found') return gone();
  if (result.kind === 'uid-mismatch') return replaced(result.uid);
  state.cordoned = true;
  await renewRecord(deps, request, result.node);
  return undefined;
}

/**
 * Renews this drain's record on the Node when a renewal is due (lib/drain/liveness.ts): a record
 * nobody renews is taken for a dead drain's. Best effort: a failed renewal fails nothing, and the
 * next pass tries again (the record lives for two intervals).
 */
async function renewRecord(deps: DrainDeps, request: DrainRequest, node: NodeWriteView): Promise<void> {
  const { execution } = request;
  if (execution === undefined) return;
  const options = { execution, chain: request.chain ?? 0 };
  if (renewalPatch(node, options, deps.clock.now(), RENEW_INTERVAL_MS) === undefined) return;
  try {
    await renewDrain(
      deps.api,
      request.node,
      { ...options, expectedUid: node.uid, observed: node },
      RENEW_INTERVAL_MS,
      deps.clock,
    );
  } catch {
    // Renewed at the next pass: the record outlives one missed renewal.
  }
}

/** The pods listed this pass, matched against what the drain knows of their names. */
interface Listing {
  readonly pods: readonly DrainPod[];
  /** Listed pods the filters judge: every one but the successors. */
  readonly judged: readonly DrainPod[];
  /** Successors of pods this drain removed: never evicted. */
  readonly recreated: readonly DrainPod[];
  /** The uid listed under each namespace/name. */
  readonly listedUid: ReadonlyMap<string, string>;
}

async function listPods(api: DrainApi, node: string, labelSelector: string | undefined): Promise<DrainPod[]> {
  try {
    return await api.listPodsOnNode(node, labelSelector);
  } catch (cause) {
    throw new Error(`listing pods on node ${node}`, { cause });
  }
}

/**
 * A pod under the name of one this drain removed, with another uid, is its successor: the removed
 * one is finished (kubectl's waitForDelete), and the successor is never evicted. Any other pod the
 * drain has not judged yet, however late it appeared, is judged and evicted at most once. A known
 * pod no longer listed is finished.
 */
function matchListing(pods: readonly DrainPod[], state: WorkingState): Listing {
  const recreated: DrainPod[] = [];
  const judged: DrainPod[] = [];
  const listedUid = new Map<string, string>();
  for (const pod of pods) {
    const key = podKey(pod);
    listedUid.set(key, pod.uid);
    const record = state.pods.get(key);
    if (record && record.uid !== pod.uid && wasRemoved(record.stage)) recreated.push(pod);
    else judged.push(pod);
  }
  for (const [key, record] of state.pods) if (listedUid.get(key) !== record.uid) finish(record);
  return { pods, judged, recreated, listedUid };
}

/** Moves each judged pod's record to the stage its verdict puts it in (a new incarnation gets a new record). */
function applyVerdicts(planned: readonly PlannedPod[], state: WorkingState): void {
  for (const { pod, verdict } of planned) {
    const key = podKey(pod);
    let record = state.pods.get(key);
    if (!record || record.uid !== pod.uid) {
      record = { namespace: pod.namespace, name: pod.name, uid: pod.uid, stage: 'pending' };
      state.pods.set(key, record);
    }
    const next = stageFromVerdict(record, verdict);
    if (next && next.stage !== record.stage) {
      record.stage = next.stage;
      delete record.attempts;
      delete record.retryAt;
      delete record.pdb;
      if (next.refusal) record.refusal = next.refusal;
    }
  }
}

/** Seconds the pod is to be given: the request's grace period (the operator's --grace-period), else its own. */
const podGrace = (pod: DrainPod, request: DrainRequest): number =>
  request.gracePeriodSeconds ?? pod.terminationGracePeriodSeconds ?? DEFAULT_GRACE_SECONDS;

/** Evictions due now: pods still to go, and refused ones whose back-off is over. */
function dueEvictions(
  plan: DrainPlan,
  state: WorkingState,
  request: DrainRequest,
  now: number,
  deadline: number,
  settings: DrainSettings,
): Removal[] {
  return plan.toEvict.flatMap(({ pod }) => {
    const record = state.pods.get(podKey(pod));
    const ready =
      record?.stage === 'pending' ||
      (record !== undefined && isRetryStage(record.stage) && (record.retryAt ?? 0) <= now);
    if (!ready) return [];
    const grace = podGrace(pod, request);
    // A grace period the operator asked for goes with every eviction; a pod's own only when shortened.
    const seconds = isFinished(pod)
      ? undefined
      : (fittedGrace(grace, now, deadline, settings) ?? request.gracePeriodSeconds);
    const options: RemovalOptions | undefined = seconds === undefined ? undefined : { gracePeriodSeconds: seconds };
    return [{ pod: podRef(pod), ...(options ? { options } : {}) }];
  });
}

/**
 * Terminating pods whose grace period would still outlast the deadline (it came closer since they
 * were evicted): an eviction of a terminating pod only shortens its grace period, PDBs aside.
 */
function graceShortenings(
  plan: DrainPlan,
  state: WorkingState,
  now: number,
  deadline: number,
  settings: DrainSettings,
): Removal[] {
  return plan.waiting.flatMap(({ pod }) => {
    const record = state.pods.get(podKey(pod));
    if (pod.deletionTimestamp === undefined || (record?.stage !== 'evicting' && record?.stage !== 'terminating'))
      return [];
    const left = Math.ceil((pod.deletionTimestamp - now) / 1000);
    const seconds = fittedGrace(left, now, deadline, settings);
    return seconds !== undefined && now + seconds * 1000 < pod.deletionTimestamp - 1000
      ? [{ pod: podRef(pod), options: { gracePeriodSeconds: seconds } }]
      : [];
  });
}

/**
 * Sends the evictions due (at most evictionConcurrency at a time, none once the deadline passed) and
 * records each answer. Returns when the accepted ones' grace periods end.
 */
async function sendEvictions(
  deps: DrainDeps,
  request: DrainRequest,
  due: readonly Removal[],
  listing: Listing,
  state: WorkingState,
  memory: StepMemory,
  deadline: number,
): Promise<number[]> {
  const { api, clock, settings } = deps;
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
    recordRemoval(record, result, at, state, deps, memory, record.grace?.pod ?? podGrace(pod, request));
    if (result.outcome.kind === 'accepted')
      graceEnds.push(isFinished(pod) ? at : at + (result.options?.gracePeriodSeconds ?? podGrace(pod, request)) * 1000);
  }
  return graceEnds;
}

/** Every pod's report: the known ones (with this pass's verdict when listed) and the successors, by namespace/name. */
function podReports(
  state: WorkingState,
  listing: Listing,
  plannedByKey: ReadonlyMap<string, PlannedPod>,
  memory: StepMemory,
  now: number,
  final: boolean,
): PodReport[] {
  const known = [...state.pods.values()].map((record) => {
    const listed = listing.listedUid.get(podKey(record)) === record.uid;
    return reportOf(record, listed ? plannedByKey.get(podKey(record)) : undefined, memory, now, final);
  });
  const successors = listing.recreated.map((pod): PodReport => ({
    pod: podRef(pod),
    status: 'recreated',
    reason: 'a new pod under the name of one this drain removed: not evicted (as kubectl drain does not)',
  }));
  // Finished ones first: a removed pod comes before its successor.
  return [...known, ...successors].sort(
    (a, b) => byKey(a, b) || Number(a.status === 'recreated') - Number(b.status === 'recreated'),
  );
}

/** Where the drain stands after this pass, from the reports. */
function passStatus(reports: readonly PodReport[], deadlinePassed: boolean): DrainStatus {
  if (!reports.some(isUnfinished)) return reports.some((r) => r.status === 'refused') ? 'incomplete' : 'drained';
  if (deadlinePassed) return reports.some(isBlocked) ? 'incomplete' : 'deadline';
  return 'in-progress';
}

/** How long until the next check: the first back-off or grace period to end, the poll interval, never past the deadline. */
function nextCheckAfter(
  node: string,
  reports: readonly PodReport[],
  state: WorkingState,
  listing: Listing,
  graceEnds: readonly number[],
  now: number,
  deadline: number,
  settings: DrainSettings,
): number {
  const waits = [...state.pods.values()].flatMap((r) =>
    isRetryStage(r.stage) && listing.listedUid.get(podKey(r)) === r.uid ? [(r.retryAt ?? now) - now] : [],
  );
  if (
    reports.some(
      (r) => isUnfinished(r) && (r.status === 'terminating' || r.status === 'waiting' || r.status === 'pending'),
    )
  )
    waits.push(settings.pollIntervalMs);
  // A grace period ending before the next poll is worth a look just after it (kubectl polls every second);
  // one already over (a kubelet that does not answer) is not worth more than the usual poll.
  const margin = GRACE_END_MARGIN_MS + checkOffsetMs(node);
  for (const end of graceEnds) if (end > now) waits.push(end - now + margin);
  return Math.max(0, Math.min(deadline - now, ...(waits.length > 0 ? waits : [settings.pollIntervalMs])));
}

const blockedOf = (remaining: readonly PodReport[]): BlockedPod[] =>
  remaining.filter(isBlocked).map((r) => ({ pod: r.pod, reason: r.reason, ...(r.pdb ? { pdb: r.pdb } : {}) }));

/** One look at the node: check it, list its pods, judge them, send the evictions due, report. */
async function pass(
  deps: DrainDeps,
  request: DrainRequest,
  state: WorkingState,
  memory: StepMemory,
): Promise<PassResult> {
  const { api, clock, settings } = deps;
  const stop = await checkNode(deps, request, state, memory);
  if (stop) return stop;
  const deadline = deadlineOf(request, state);

  const pods = await listPods(api, request.node, request.podSelector);
  await lookUpDaemonSets(api, pods, memory.daemonSets);
  const now = clock.now();
  const listing = matchListing(pods, state);
  const plan = planDrain(listing.judged, { settings, now, daemonSets: memory.daemonSets });
  const planned = [...plan.toEvict, ...plan.waiting, ...plan.refused, ...plan.skipped];
  applyVerdicts(planned, state);

  // When each terminating pod's grace period ends: the next check need not come before the first of them.
  // deletionTimestamp is truncated to whole seconds, so the grace period may run up to a second past it.
  const graceEnds = plan.waiting.flatMap((p) =>
    p.pod.deletionTimestamp === undefined ? [] : [p.pod.deletionTimestamp + 1000],
  );
  const deadlinePassed = now >= deadline;
  if (!deadlinePassed) {
    const due = [
      ...dueEvictions(plan, state, request, now, deadline, settings),
      ...graceShortenings(plan, state, now, deadline, settings),
    ];
    graceEnds.push(...(await sendEvictions(deps, request, due, listing, state, memory, deadline)));
  }

  const plannedByKey = new Map(planned.map((p) => [podKey(p.pod), p]));
  const first = podReports(state, listing, plannedByKey, memory, clock.now(), deadlinePassed);
  const status = passStatus(first, deadlinePassed);
  const leftAt: LeftAt | undefined = status === 'in-progress' || status === 'drained' ? undefined : status;
  const final = status === 'in-progress' ? first : podReports(state, listing, plannedByKey, memory, clock.now(), true);
  const everyPod = final.map((r): PodReport =>
    leftAt && (isLeft(r) || r.status === 'terminating') ? { ...r, left: leftAt } : r,
  );
  const remaining = everyPod.filter((r) => isLeft(r) || r.status === 'terminating');
  return {
    status,
    remaining,
    blocked: blockedOf(remaining),
    pods: everyPod,
    counts: countReports(everyPod),
    nextCheckAfterMs:
      status === 'in-progress'
        ? nextCheckAfter(request.node, first, state, listing, graceEnds, clock.now(), deadline, settings)
        : 0,
    deadline,
    ...(state.lifecycle ? { lifecycle: state.lifecycle } : {}),
  };
}

/**
 * Writes how the drain ended on its record, so that later runs know (an operator's uncordon leaves
 * the lifecycle action to them). Best effort: a drain that cannot say so still ended; a Node that is
 * gone or another incarnation has nothing to record.
 */
async function recordEnd(
  deps: DrainDeps,
  request: DrainRequest,
  state: WorkingState,
  result: DrainStepResult,
): Promise<DrainStepResult> {
  if (request.execution === undefined || result.status === 'node-gone' || result.status === 'node-replaced')
    return result;
  const uid = state.nodeUid ?? request.cordon.expectedUid;
  try {
    await recordOutcome(deps.api, request.node, {
      ...(uid !== undefined ? { expectedUid: uid } : {}),
      execution: request.execution,
      outcome: outcomeOf(result.status),
    });
    return result;
  } catch (error) {
    return {
      ...result,
      message: `${result.message ? `${result.message}; ` : ''}could not record the outcome on the node: ${errorText(error)}`,
    };
  }
}

/**
 * Drains as much as fits in `budgetMs` (measured on the injected clock): checks the Node (same uid,
 * still cordoned once cordoned), cordons it the first time, then passes over its pods until the
 * drain ends or the next check would fall outside the budget. `state` is the previous step's, or
 * undefined: without it the step re-reads everything and carries on.
 */
export async function drainStep(
  deps: DrainDeps,
  request: DrainRequest,
  state: unknown,
  budgetMs: number,
): Promise<DrainStepResult> {
  const started = deps.clock.now();
  // A working copy: the caller's state object is never changed under it.
  const working = readDrainState(state, request.node) ?? initialDrainState(request.node, started);
  working.steps++;
  const memory: StepMemory = { daemonSets: new Map(), messages: new Map() };
  for (;;) {
    const result = await pass(deps, request, working, memory);
    // A snapshot: later passes keep working on `working`, and a progress listener may keep what it got.
    const full: DrainStepResult = { ...result, state: packState(working) };
    deps.onProgress?.(full);
    if (full.status !== 'in-progress') return recordEnd(deps, request, working, full);
    if (deps.clock.now() + full.nextCheckAfterMs >= started + budgetMs) return full;
    await deps.sleep(full.nextCheckAfterMs);
  }
}
