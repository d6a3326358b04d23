import { DECOMMISSION_TAG } from '@ec2-node-reconciler/model/contract/labels.js';
import { formatDuration } from '@ec2-node-reconciler/model/duration.js';
import { DRAIN_SLATING_STATES } from '@ec2-node-reconciler/model/instance-states.js';
import type { InstanceView } from '@ec2-node-reconciler/model/observation.js';
import type { Signal } from '@ec2-node-reconciler/model/signal.js';
import { SPOT_NOTICE_MS } from '@ec2-node-reconciler/model/spot-notice.js';
import { foreignHookReason, type TerminateHookChoice } from '@ec2-node-reconciler/model/terminate-hook.js';

/**
 * How old each kind of signal may be and still be acted on (docs/design.md §1c, §2). A signal is evidence
 * about a moment; past these it is history (a late delivery, a redelivery, a replay) and is reported
 * as stale. Kinds not listed are judged by what EC2 says now instead (the state-change by the
 * instance's present state, the decommission tag by its present value, a scheduled change by its
 * window, the lifecycle action also by whether Auto Scaling could still be waiting for it).
 */
export const SIGNAL_MAX_AGE_MS = {
  /** Its two minutes: by then EC2 has interrupted the machine, or did not. */
  'spot-interruption': SPOT_NOTICE_MS,
  /** A recommendation about the Spot capacity of that moment; the reconciler's own cordon for it is reversed after uncordonAfter. */
  'rebalance-recommendation': 30 * 60_000,
  /** No lifecycle action outlives Auto Scaling's global timeout (48 h at most). */
  'asg-terminate-lifecycle-action': 48 * 3_600_000,
} as const;

/**
 * How long EC2's reads may lag behind a state-change event about the same machine: within it a
 * `stopping` while DescribeInstances still says `running` is trusted; past it EC2's answer wins.
 */
export const STATE_CHANGE_READ_LAG_MS = 60_000;

/** A scheduled change whose window (its end, else its start) passed longer ago than this is over, or EC2 would still be listing it for the sweep. */
export const SCHEDULED_CHANGE_OVERDUE_MS = 24 * 3_600_000;

export interface StalenessContext {
  readonly now: number;
  /** Event path: which terminate hook is ours, per group a lifecycle signal names (Observation.terminateHooks). */
  readonly terminateHooks?: ReadonlyMap<string, TerminateHookChoice>;
}

const at = (ms: number): string => new Date(ms).toISOString();

/** Why a signal is not acted on (reported instead), or undefined when it may be. */
export function whyNotActedOn(
  signal: Signal,
  instance: InstanceView | undefined,
  ctx: StalenessContext,
): string | undefined {
  const sent = `${signal.kind} sent ${at(signal.observedAt)}`;
  if (signal.replayName !== undefined)
    return `${sent} was replayed from an EventBridge archive (replay ${JSON.stringify(signal.replayName)}): history, never acted on`;
  if (instance !== undefined && instance.launchedAt !== 0 && signal.observedAt < instance.launchedAt)
    return `${sent}, before ${instance.id} was last launched (${at(instance.launchedAt)}; now ${instance.state})`;
  const age = ctx.now - signal.observedAt;
  const tooOld = (limit: number): string | undefined =>
    age > limit ? `${sent} is ${formatDuration(roundedAge(age))} old, past its ${formatDuration(limit)}` : undefined;
  switch (signal.kind) {
    case 'spot-interruption':
    case 'rebalance-recommendation':
      return tooOld(SIGNAL_MAX_AGE_MS[signal.kind]);
    case 'capacity-reservation-interruption':
      return signal.deadline !== undefined && ctx.now > signal.deadline
        ? `${sent}: the interruption was due at ${at(signal.deadline)}`
        : undefined;
    case 'asg-terminate-lifecycle-action': {
      const old = tooOld(SIGNAL_MAX_AGE_MS[signal.kind]);
      if (old !== undefined || signal.lifecycle === undefined) return old;
      const { group, hook } = signal.lifecycle;
      const choice = ctx.terminateHooks?.get(group);
      if (choice === undefined)
        return `whose lifecycle action it is could not be told (the terminate hooks of ${group} were not read): left alone`;
      const foreign = foreignHookReason(hook, choice);
      return foreign !== undefined ? `${signal.kind} of ${group}: ${foreign}; left to its owner` : undefined;
    }
    case 'state-change': {
      if (signal.state === undefined || !DRAIN_SLATING_STATES.has(signal.state) || instance === undefined)
        return undefined;
      const contradicted = instance.state === 'pending' || instance.state === 'running';
      return contradicted && age > STATE_CHANGE_READ_LAG_MS
        ? `${sent} said ${signal.state}, but EC2 says ${instance.id} is ${instance.state} now`
        : undefined;
    }
    case 'decommission-tag':
      return instance !== undefined && instance.tags[DECOMMISSION_TAG] === undefined
        ? `${sent}, but ${instance.id} no longer carries ${DECOMMISSION_TAG} (removed since, e.g. decommission --undo)`
        : undefined;
    case 'scheduled-change': {
      const window = signal.scheduled ? (signal.scheduled.end ?? signal.scheduled.start) : undefined;
      return window !== undefined && ctx.now - window > SCHEDULED_CHANGE_OVERDUE_MS
        ? `${sent}: its window ended ${at(window)}, more than ${formatDuration(SCHEDULED_CHANGE_OVERDUE_MS)} ago`
        : undefined;
    }
    case 'asg-terminate-successful':
      // Slates nothing: EC2's own answer (terminated) is what makes the Node stale.
      return undefined;
    default: {
      const unreachable: never = signal.kind;
      throw new Error(`unhandled signal kind ${String(unreachable)}`);
    }
  }
}

/** An age to the second under two minutes, to the minute under two hours, else to the hour (for reading). */
function roundedAge(ms: number): number {
  const unit = ms < 120_000 ? 1_000 : ms < 7_200_000 ? 60_000 : 3_600_000;
  return Math.max(0, Math.round(ms / unit) * unit);
}
