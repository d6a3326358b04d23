// What a drain step says about each pod: its report, from the pod's record and this pass's verdict on
// it, and where the drain stands once every pod is reported.
import { podKey, podRef } from './api.js';
import type { PlannedPod } from './plan-drain.js';
import { countReports, isBlocked, isLeft, isUnfinished, type BlockedPod, type PodReport } from './pod-report.js';
import { deadlineOf, type PassResult, type StepContext, type StepMemory } from './step-context.js';
import type { Listing } from './step-listing.js';
import type { DrainStatus } from './step-result.js';
import { isFinishedStage, type PodRecord, type RetryStatus, type Stage } from './state.js';

/** How a report is told: with what the step heard from the server, at a time, and whether the drain ends with it. */
interface ReportView {
  readonly memory: StepMemory;
  readonly now: number;
  /** The drain ends with this report: retries are counted, not announced. */
  readonly final: boolean;
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
function retryReason(stage: RetryStatus, record: PodRecord, { memory, now, final }: ReportView): string {
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
function reportOf(record: PodRecord, planned: PlannedPod | undefined, view: ReportView): PodReport {
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
        reason: retryReason(record.stage, record, view),
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

export const blockedOf = (remaining: readonly PodReport[]): BlockedPod[] =>
  remaining.filter(isBlocked).map((r) => ({ pod: r.pod, reason: r.reason, ...(r.pdb ? { pdb: r.pdb } : {}) }));

/** The drain ends before looking at the pods: every pod it knew, as it last saw it. */
export function ended(
  step: StepContext,
  status: 'node-gone' | 'node-replaced' | 'cancelled-by-uncordon',
  message: string,
): PassResult {
  const { state, memory, clock } = step;
  const now = clock.now();
  const pods = [...state.pods.values()]
    .map((record) => {
      const report = reportOf(record, undefined, { memory, now, final: true });
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
    deadline: deadlineOf(step),
    ...(state.lifecycle ? { lifecycle: state.lifecycle } : {}),
    message,
  };
}

/** Every pod's report: the known ones (with this pass's verdict when listed) and the successors, by namespace/name. */
export function podReports(
  { state, memory }: StepContext,
  listing: Listing,
  plannedByKey: ReadonlyMap<string, PlannedPod>,
  at: Omit<ReportView, 'memory'>,
): PodReport[] {
  const view: ReportView = { memory, ...at };
  const known = [...state.pods.values()].map((record) => {
    const listed = listing.listedUid.get(podKey(record)) === record.uid;
    return reportOf(record, listed ? plannedByKey.get(podKey(record)) : undefined, view);
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
export function passStatus(reports: readonly PodReport[], deadlinePassed: boolean): DrainStatus {
  if (!reports.some(isUnfinished)) return reports.some((r) => r.status === 'refused') ? 'incomplete' : 'drained';
  if (deadlinePassed) return reports.some(isBlocked) ? 'incomplete' : 'deadline';
  return 'in-progress';
}
