// The DaemonSets a drain asks about: the DaemonSet filter needs to know whether each pod's owner still
// exists, and the filters stay pure, so the lookups come first (the drain step and the dry run).
import { errorText } from '@ec2-node-reconciler/model/error-text.js';
import { isFinished, podKey, type DrainApi, type DrainPod } from './api.js';
import type { DaemonSetLookup } from './filters.js';

/**
 * Looks up each DaemonSet that owns an unfinished pod on the node (the DaemonSet filter needs no
 * other). Definite answers are kept for the rest of the step; failed lookups are tried again.
 */
export async function lookUpDaemonSets(
  api: DrainApi,
  pods: readonly DrainPod[],
  cache: Map<string, DaemonSetLookup>,
): Promise<void> {
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
        : { state: 'unknown', error: errorText(answer?.reason) };
    cache.set(podKey(ref), lookup);
  });
}
