// `uncordon NODE`: the node schedulable again at an operator's word, whoever cordoned it, saying whose
// cordon it was and what of the reconciler's went with it.
import {
  CORDON_REASON_ANNOTATION,
  CORDONED_AT_ANNOTATION,
  EXCLUDE_FROM_LB_LABEL,
} from '@ec2-node-reconciler/model/contract/labels.js';
import { KubeClient } from '../../lib/kube/client.js';
import { cordonOwner, uncordonForOperator, type OperatorUncordonResult } from '../../lib/kube/node-writes.js';
import { NodeClient } from '../../lib/kube/nodes.js';
import type { NodeView } from '@ec2-node-reconciler/model/observation.js';
import type { CommandRun } from '../command-run.js';
import { CliError, EXIT } from '../exit-codes.js';
import { connectKube } from '../live.js';
import { liveOptions, nodeNotFound, out } from './shared.js';

/** Whose cordon, in words: the reconciler's (and why), an operator's through this CLI, or someone else's. */
export function describeCordon(cordon: NonNullable<OperatorUncordonResult['cordon']>): string {
  const since = cordon.at !== undefined ? `, since ${cordon.at}` : '';
  const why = cordon.reason !== undefined ? ` — ${cordon.reason}` : '';
  switch (cordon.owner) {
    case 'reconciler':
      return `the reconciler's cordon${since}${why}`;
    case 'operator-cli':
      return `an operator's cordon, made with ec2-node-reconciler drain or decommission --now${since}${why}`;
    case 'other':
      return "an operator's cordon (kubectl cordon or another tool: it carries no mark of the reconciler's)";
  }
}

/** The cordon a node carries now, in words (for commands that only point at `uncordon`). */
export const describeNodeCordon = (node: Pick<NodeView, 'annotations'>): string => {
  const reason = node.annotations[CORDON_REASON_ANNOTATION];
  const at = node.annotations[CORDONED_AT_ANNOTATION];
  return describeCordon({
    owner: cordonOwner(node),
    ...(reason !== undefined ? { reason } : {}),
    ...(at !== undefined ? { at } : {}),
  });
};

/** What went with the cordon besides `spec.unschedulable`. */
function removals(result: OperatorUncordonResult): string[] {
  return [
    ...result.removedTaints.map((key) => `the taint ${key}`),
    ...(result.removedLabel ? [`the label ${EXCLUDE_FROM_LB_LABEL} the reconciler had added`] : []),
  ];
}

export function formatUncordon(name: string, result: OperatorUncordonResult): string[] {
  const target = `node/${name}`;
  const gone = removals(result);
  const lines =
    result.kind === 'already-schedulable'
      ? [
          gone.length > 0
            ? `${target} already uncordoned; removed what the reconciler had left: ${gone.join(', ')}`
            : `${target} already uncordoned`,
        ]
      : [
          `${target} uncordoned: it was ${result.cordon ? describeCordon(result.cordon) : 'cordoned'}`,
          ...(gone.length > 0 ? [`  removed ${gone.join(', ')}`] : []),
        ];
  const { drain } = result;
  if (result.kind === 'uncordoned' && drain !== undefined && drain.outcome === undefined)
    lines.push(
      `  the drain ${drain.execution} the node records stops at its next check, cancelled by this uncordon (an Auto Scaling lifecycle action it worked for is left to you)`,
    );
  return lines;
}

export const runUncordonCommand: CommandRun = async (v, [name]) => {
  if (!name) throw new CliError('uncordon: which node? (uncordon NODE)');
  const live = connectKube(liveOptions(v));
  const result = await uncordonForOperator(new NodeClient(new KubeClient(live.kube)), name);
  if (result.kind === 'not-found') return nodeNotFound(name);
  // Only a write bound to an expected uid can meet another incarnation; this one is bound to none.
  if (result.kind === 'uid-mismatch') throw new CliError(`node ${name} changed incarnation mid-write`, EXIT.error);
  for (const line of formatUncordon(name, result)) out(line);
  return EXIT.ok;
};
