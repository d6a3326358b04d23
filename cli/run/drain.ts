// `drain NODE`: an operator's cordon and drain with kubectl drain semantics, or with --dry-run the
// drain's verdict on each pod and nothing written.
import { CORDON_REASON_ANNOTATION } from '@ec2-node-reconciler/model/contract/labels.js';
import { podKey } from '../../lib/drain/api.js';
import { isCordonedByReconciler, type NodeWriteView } from '../../lib/kube/node-writes.js';
import type { VerdictCode } from '../../lib/drain/filters.js';
import { runOperatorDrain, type OperatorDrainEnd } from '../drain/operator-drain.js';
import type { DrainPlan, PlannedPod } from '../../lib/drain/plan-drain.js';
import { previewDrain } from '../drain/preview.js';
import { endLines, progressLine } from '../../lib/drain/pod-report.js';
import type { DrainDeps } from '../../lib/drain/step.js';
import type { DrainStepResult } from '../../lib/drain/step-result.js';
import type { CommandRun } from '../command-run.js';
import { drainFlags, DRAIN_SETTING_ALIASES, type DrainFlags } from '../drain-flags.js';
import { EXIT, CliError } from '../exit-codes.js';
import { connectKube } from '../live.js';
import { settingsFromFlags } from '../settings-flags.js';
import { table } from '../format/table.js';
import { followClock, liveOptions, nodeNotFound, out, progressOf, str } from './shared.js';

/** The kubectl flag that lets a drain evict a pod it refuses, by the filter that refused it. */
const OVERRIDE: Partial<Record<VerdictCode, string>> = {
  unreplicated: '--force',
  'daemonset-missing': '--force',
  'local-storage': '--delete-emptydir-data',
};

/** Why, in the words of this command: a refusal ends with the flag that overrides it. */
function why(planned: PlannedPod): string {
  const { verdict, notes } = planned;
  if (verdict.action === 'refuse') {
    const flag = OVERRIDE[verdict.code];
    return flag ? `${verdict.reason}; pass ${flag} to evict it` : `${verdict.reason}; ${verdict.hint ?? ''}`;
  }
  if (verdict.action === 'evict') return notes.length > 0 ? notes.map((n) => n.reason).join('; ') : '';
  return verdict.reason;
}

const count = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;

/** The dry run's report: whether the node would be cordoned, each pod's verdict and why, and the end. */
export function formatDryRun(node: NodeWriteView, plan: DrainPlan, flags: DrainFlags): string {
  const target = `node/${node.name}`;
  // The drain's own cordon takes over one a signal had the reconciler make (cordonPatch), so that no
  // sweep undoes it once the signal is gone: the dry run says so.
  const reason = (node.annotations[CORDON_REASON_ANNOTATION] ?? '').replace(/\s+/g, ' ').trim();
  const cordon = !node.unschedulable
    ? 'would be cordoned'
    : isCordonedByReconciler(node)
      ? `is cordoned already, by the reconciler (${reason === '' ? 'no reason given' : reason}): the drain would make that cordon yours, and no sweep would undo it`
      : 'is cordoned already';
  const lines = [`${target} ${cordon} (dry run: nothing is changed)`];
  const rows: [string, PlannedPod][] = [
    ...plan.toEvict.map((p): [string, PlannedPod] => ['evict', p]),
    ...plan.waiting.map((p): [string, PlannedPod] => ['wait for', p]),
    ...plan.skipped.map((p): [string, PlannedPod] => ['skip', p]),
    ...plan.refused.map((p): [string, PlannedPod] => ['refuse', p]),
  ];
  const selected = flags.podSelector !== undefined ? ` selected by ${flags.podSelector}` : '';
  if (rows.length === 0) lines.push(`no pods${selected} on the node`);
  else {
    if (selected) lines.push(`pods${selected}:`);
    lines.push(
      table(
        ['POD', 'WOULD', 'WHY'],
        rows.map(([would, planned]) => [podKey(planned.pod), would, why(planned)]),
        100,
      ),
    );
  }
  if (flags.gracePeriodSeconds !== undefined)
    lines.push(`each eviction would give its pod ${flags.gracePeriodSeconds}s to terminate`);
  const tally = [
    count(plan.toEvict.length, 'eviction'),
    ...(plan.waiting.length > 0 ? [`${plan.waiting.length} waited for`] : []),
    `${plan.skipped.length} skipped`,
  ].join(', ');
  lines.push(
    plan.refused.length === 0
      ? `${target} would be drained (dry run): ${tally}`
      : `${target} would not be drained (dry run): ${count(plan.refused.length, 'pod')} refused; ${tally}`,
  );
  return lines.join('\n');
}

async function dryRun(deps: DrainDeps, node: string, flags: DrainFlags): Promise<number> {
  const preview = await previewDrain(deps, node, flags.podSelector);
  if (!preview) return nodeNotFound(node);
  out(formatDryRun(preview.node, preview.plan, flags));
  // As kubectl drain --dry-run: a drain that would leave pods refused did not pass.
  return preview.plan.refused.length === 0 ? EXIT.ok : EXIT.findings;
}

export const runDrainCommand: CommandRun = async (v, [node]) => {
  if (!node) throw new CliError('drain: which node? (drain NODE)');
  const { flags, settingValues } = drainFlags(v);
  const settings = settingsFromFlags(settingValues, false, DRAIN_SETTING_ALIASES);
  const progress = progressOf(v);
  const live = connectKube(liveOptions(v));
  await followClock(live);
  if (flags.dryRun) return dryRun(live.drainDeps(settings), node, flags);
  const deps = live.drainDeps(settings, (r: DrainStepResult) =>
    progress.update(node, `${node}: ${progressLine(r.counts, r.blocked)}`),
  );
  // As kubectl: a node that does not exist is an error before anything, not a drain that found nothing.
  if (!(await deps.api.getNode(node))) return nodeNotFound(node);
  const result = await runOperatorDrain(
    deps,
    {
      node,
      reason: str(v['reason']) ?? 'manual drain',
      timeoutMs: settings.drainTimeout,
      ...(flags.podSelector !== undefined ? { podSelector: flags.podSelector } : {}),
      ...(flags.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: flags.gracePeriodSeconds } : {}),
    },
    live.lifecycle,
  );
  progress.end(node);
  printDrainEnd(node, result);
  // Like kubectl drain: anything but a drained node (pods left, a replaced or vanished node, an uncordon) exits 1.
  return result.status === 'drained' ? EXIT.ok : EXIT.findings;
};

/** How an operator's drain ended, what it left, and what became of a lifecycle action handed to it: on stdout. */
export function printDrainEnd(node: string, result: OperatorDrainEnd): void {
  out(`${node}: ${result.status}${result.message ? ` — ${result.message}` : ''}`);
  for (const line of endLines(result.pods)) out(`  ${line}`);
  for (const error of new Set(result.heartbeatErrors)) out(`  a lifecycle heartbeat failed: ${error}`);
  const { held } = result;
  const which = result.lifecycle ? `${result.lifecycle.group}/${result.lifecycle.hook}` : '';
  if (result.unheld !== undefined) out(`  a lifecycle action (${which}) was handed to this drain: ${result.unheld}`);
  if (!held) return;
  if (held.completed) out(`  completed the lifecycle action (${which}) handed to this drain: CONTINUE`);
  else if (held.error === undefined)
    out(`  left the lifecycle action (${which}) open for you; complete it with: ${held.completeWith ?? ''}`);
  else
    out(
      `  completing the lifecycle action (${which}) failed: ${held.error.Cause}; complete it with: ${held.completeWith ?? ''}`,
    );
  if (held.eventError !== undefined) out(`  could not record LifecycleActionCompleted on ${node}: ${held.eventError}`);
}
