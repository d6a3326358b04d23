// The operator's dry run (`drain NODE --dry-run`): what a drain would do with each pod on the node, by
// the same filters and in the same order as the drain itself, read from the cluster and written nowhere.
import type { NodeWriteView } from '../../lib/kube/node-writes.js';
import { lookUpDaemonSets } from '../../lib/drain/daemonsets.js';
import type { DaemonSetLookup } from '../../lib/drain/filters.js';
import { planDrain, type DrainPlan } from '../../lib/drain/plan-drain.js';
import type { DrainDeps } from '../../lib/drain/step.js';

export interface DrainPreview {
  /** The node as it is now (its cordon, if any, is untouched). */
  readonly node: NodeWriteView;
  /** Every pod the drain would look at, each in the one bucket its first objection (or none) puts it. */
  readonly plan: DrainPlan;
}

/**
 * Reads the node, its pods (only those `podSelector` selects, when given) and their DaemonSets, and
 * judges each pod with the drain's filters. Sends no write. Undefined when the node does not exist.
 */
export async function previewDrain(
  deps: Pick<DrainDeps, 'api' | 'clock' | 'settings'>,
  name: string,
  podSelector?: string,
): Promise<DrainPreview | undefined> {
  const { api, clock, settings } = deps;
  const node = await api.getNode(name);
  if (!node) return undefined;
  const pods = await api.listPodsOnNode(name, podSelector);
  const daemonSets = new Map<string, DaemonSetLookup>();
  await lookUpDaemonSets(api, pods, daemonSets);
  return { node, plan: planDrain(pods, { settings, now: clock.now(), daemonSets }) };
}
