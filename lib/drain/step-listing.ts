// The pods a drain step lists on its node, matched against the pods the drain already knows.
import { podKey, type DrainPod } from './api.js';
import { finish } from './record-stages.js';
import type { StepContext } from './step-context.js';
import { wasRemoved, type WorkingState } from './state.js';

/** The pods listed this pass, matched against what the drain knows of their names. */
export interface Listing {
  readonly pods: readonly DrainPod[];
  /** Listed pods the filters judge: every one but the successors. */
  readonly judged: readonly DrainPod[];
  /** Successors of pods this drain removed: never evicted. */
  readonly recreated: readonly DrainPod[];
  /** The uid listed under each namespace/name. */
  readonly listedUid: ReadonlyMap<string, string>;
}

/** The pods on the request's node (those its pod selector selects). */
export async function listPods({ api, request }: Pick<StepContext, 'api' | 'request'>): Promise<DrainPod[]> {
  try {
    return await api.listPodsOnNode(request.node, request.podSelector);
  } catch (cause) {
    throw new Error(`listing pods on node ${request.node}`, { cause });
  }
}

/**
 * A pod under the name of one this drain removed, with another uid, is its successor: the removed
 * one is finished (kubectl's waitForDelete), and the successor is never evicted. Any other pod the
 * drain has not judged yet, however late it appeared, is judged and evicted at most once. A known
 * pod no longer listed is finished.
 */
export function matchListing(pods: readonly DrainPod[], state: WorkingState): Listing {
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
