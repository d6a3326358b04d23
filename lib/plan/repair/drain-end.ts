// When a repair drain's end lets its machine be replaced (docs/design.md §1b): one rule, for the drain step
// that sees the drain end (lib/lambda/repair-completion.ts) and for the sweep that finds it ended
// (lib/plan/repair/plan-repair.ts), so that neither marks a machine the other would have kept.
import type { NodeView } from '@ec2-node-reconciler/model/observation.js';

/**
 * Whether the node's kubelet has gone quiet: the node lifecycle controller marked Ready Unknown (or
 * nothing ever posted Ready). A kubelet that posts Ready True or False is alive: it confirms the pods
 * it stops, and still runs the ones a drain left on it.
 */
export const isKubeletSilent = (node: Pick<NodeView, 'ready'>): boolean =>
  node.ready !== 'True' && node.ready !== 'False';

/** Ends after which the machine may be replaced: it drained, or gave up at its deadline or with pods left it could not move. */
const DRAINED_ENOUGH: ReadonlySet<string> = new Set(['done', 'deadline', 'incomplete']);

export type RepairDrainVerdict =
  | { readonly kind: 'replace' }
  /** Pods the drain was not allowed to move (a PodDisruptionBudget, or the drain settings) still run on a live kubelet. */
  | { readonly kind: 'blocked'; readonly why: string }
  /** The drain did not drain (it failed, or was stopped): the machine waits out the drain window. */
  | { readonly kind: 'not-drained' };

/**
 * What a repair drain's end (its outcome, or none when it failed) allows. `incomplete` means pods were
 * left that the drain could not evict: blocked (a PodDisruptionBudget, several of them, failed
 * evictions) or refused by the drain settings. On a machine whose kubelet is silent they are lost
 * already, and the machine is replaced as ever; on one whose kubelet is alive (only the monitoring
 * agent's conditions are bad) they still serve, and marking the machine Unhealthy would terminate them
 * under their budget: it is not replaced (RepairBlocked) until they have gone.
 */
export function repairDrainVerdict(outcome: string | undefined, node: Pick<NodeView, 'ready'>): RepairDrainVerdict {
  if (outcome === undefined || !DRAINED_ENOUGH.has(outcome)) return { kind: 'not-drained' };
  if (outcome === 'incomplete' && !isKubeletSilent(node))
    return {
      kind: 'blocked',
      why: `its repair drain left pods it may not evict (a PodDisruptionBudget or the drain settings protect them) on a machine whose kubelet is alive (Ready ${node.ready ?? 'unknown'}): marking it Unhealthy would terminate them, so it is not replaced while they run there`,
    };
  return { kind: 'replace' };
}
