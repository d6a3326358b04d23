// How a pod's record moves between stages as a drain step looks at it: the verdict of this pass's
// filters, and the pod found gone.
import { podKey } from './api.js';
import type { Verdict } from './filters.js';
import type { PlannedPod } from './plan-drain.js';
import { isFinishedStage, isRetryStage, REFUSALS, type PodRecord, type Stage, type WorkingState } from './state.js';

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

/** Moves each judged pod's record to the stage its verdict puts it in (a new incarnation gets a new record). */
export function applyVerdicts(planned: readonly PlannedPod[], state: WorkingState): void {
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

const FINISH: Partial<Record<Stage, Stage>> = { evicting: 'evicted', terminating: 'terminated' };

/** The pod the record describes is no longer there: what became of it. */
export function finish(record: PodRecord): void {
  if (isFinishedStage(record.stage)) return;
  record.stage = FINISH[record.stage] ?? 'gone';
  delete record.attempts;
  delete record.retryAt;
  delete record.pdb;
}
