import { DECOMMISSION_TAG } from '@ec2-node-reconciler/model/contract/labels.js';
import { DRAIN_SLATING_STATES, type InstanceState } from '@ec2-node-reconciler/model/instance-states.js';
import type { InstanceView } from '@ec2-node-reconciler/model/observation.js';
import { isTerminateWait } from '@ec2-node-reconciler/model/lifecycle-states.js';
import {
  INSTANCE_STATUS_EVENT_CLASSES,
  type ScheduledChangeClass,
} from '@ec2-node-reconciler/model/scheduled-change.js';
import type { LifecycleRef, Signal } from '@ec2-node-reconciler/model/signal.js';
import { lifecycleGlobalTimeoutMs } from '@ec2-node-reconciler/model/terminate-hook.js';
import type { Settings } from '@ec2-node-reconciler/model/contract/settings.js';
import { whyNotActedOn, type StalenessContext } from './stale-signal.js';

/**
 * Why a machine is about to go (removal) or to be taken down and brought back (maintenance),
 * gathered from event signals and from what a sweep observed.
 */
export interface Slating {
  /** `removal` when anything says the machine goes; `maintenance` when only reboots/maintenance are due. */
  readonly purpose: ScheduledChangeClass;
  readonly reasons: readonly string[];
  readonly signals: readonly Signal[];
  /** The earliest moment the machine is expected to go (or go down), if anything says so. */
  readonly deadline?: number;
  readonly lifecycle?: LifecycleRef;
  /**
   * When Auto Scaling ends that lifecycle action whatever its heartbeats (its global timeout, from
   * the action's start: the event's time, or now for an action a sweep found): the drain must end
   * before it, or the group applies the hook's default result under the drain.
   */
  readonly lifecycleExpiresAt?: number;
  /** Whether the remedy includes a drain (rebalance under `cordon`, maintenance under `cordon`: no). */
  readonly drain: boolean;
  /** For maintenance: the end of its window, until which the cordon is held. */
  readonly holdUntil?: number;
}

/** A signal that is not acted on, and why (docs/design.md §1c, §2: evidence about a moment that has passed, or not ours). */
export interface StaleSignal {
  readonly signal: Signal;
  readonly why: string;
}

export interface SlatingFindings {
  readonly slating?: Slating;
  readonly stale: readonly StaleSignal[];
  /**
   * Maintenance is pending, but its policy is `ignore`: nothing is done for it, and a cordon of
   * ours is still not reversed before this time (the window's end).
   */
  readonly holdCordonUntil?: number;
}

export interface SlatingContext extends StalenessContext {
  readonly settings: Settings;
}

/** Instance states that mean the machine is leaving; `stopped` is its own condition, `terminated` a stale object. */
export const LEAVING_STATES: ReadonlySet<InstanceState> = new Set(['shutting-down', 'stopping']);

/**
 * The drain deadline of a scheduled change starting at `start`: a start days away (a retirement) is
 * capped, so the drain runs now, bounded by drainTimeout; a start already past (EC2 has not done it
 * yet: the event is still listed) is no reason to skip the drain either.
 */
function scheduledDeadline(start: number, { settings, now }: SlatingContext): number {
  const cap = now + settings.drainTimeout;
  return start > now ? Math.min(start, cap) : cap;
}

type Verdict =
  | { readonly purpose: ScheduledChangeClass; readonly drain: boolean; readonly holdUntil?: number }
  | { readonly ignored: string };

function verdictOf(signal: Signal, { settings, now }: SlatingContext): Verdict {
  switch (signal.kind) {
    case 'rebalance-recommendation':
      return settings.rebalance === 'ignore'
        ? { ignored: 'rebalance policy is ignore' }
        : { purpose: 'removal', drain: settings.rebalance === 'drain' };
    case 'state-change':
      // `stopped` is handled by the observed state; `pending`/`running` never become signals.
      return signal.state !== undefined && DRAIN_SLATING_STATES.has(signal.state)
        ? { purpose: 'removal', drain: true }
        : { ignored: `state ${signal.state ?? 'unknown'} is not a removal` };
    case 'scheduled-change': {
      const scheduled = signal.scheduled;
      if (scheduled === undefined || scheduled.change === 'removal') return { purpose: 'removal', drain: true };
      const windowEnd = scheduled.end ?? scheduled.start;
      if (windowEnd <= now) return { ignored: `its maintenance window ended at ${new Date(windowEnd).toISOString()}` };
      return { purpose: 'maintenance', drain: settings.maintenance === 'drain', holdUntil: windowEnd };
    }
    case 'spot-interruption':
    case 'capacity-reservation-interruption':
    case 'asg-terminate-lifecycle-action':
    case 'decommission-tag':
      return { purpose: 'removal', drain: true };
    case 'asg-terminate-successful':
      // The machine is gone already: that is a stale object, not something to drain.
      return { ignored: 'the machine is gone already' };
    default: {
      const unreachable: never = signal.kind;
      throw new Error(`unhandled signal kind ${String(unreachable)}`);
    }
  }
}

interface Gathered {
  reasons: string[];
  signals: Signal[];
  deadlines: number[];
  drain: boolean;
  holdUntil?: number;
}

const gathered = (): Gathered => ({ reasons: [], signals: [], deadlines: [], drain: false });

/** Every reason this instance is slated, split by purpose, with the signals it holds to be stale. */
export function findSlating(
  instance: InstanceView | undefined,
  signals: readonly Signal[],
  ctx: SlatingContext,
): SlatingFindings {
  const { settings, now } = ctx;
  const removal = gathered();
  const maintenance = gathered();
  const stale: StaleSignal[] = [];
  let lifecycle: LifecycleRef | undefined;
  let lifecycleExpiresAt: number | undefined;
  let ignoredMaintenanceUntil: number | undefined;

  for (const signal of signals) {
    const why = whyNotActedOn(signal, instance, ctx);
    if (why !== undefined) {
      stale.push({ signal, why });
      continue;
    }
    const verdict = verdictOf(signal, ctx);
    if ('ignored' in verdict) continue;
    if (verdict.purpose === 'maintenance' && settings.maintenance === 'ignore') {
      ignoredMaintenanceUntil = Math.max(ignoredMaintenanceUntil ?? 0, verdict.holdUntil ?? now);
      continue;
    }
    const into = verdict.purpose === 'removal' ? removal : maintenance;
    into.signals.push(signal);
    into.reasons.push(signal.description);
    into.drain ||= verdict.drain;
    // A scheduled change's start is when it may begin, not when the machine is gone: the drain is
    // bounded by drainTimeout like a sweep-found one, and a start already past gets a fresh deadline.
    const deadline =
      signal.kind === 'scheduled-change' && signal.deadline !== undefined
        ? scheduledDeadline(signal.deadline, ctx)
        : signal.deadline;
    if (deadline !== undefined) into.deadlines.push(deadline);
    if (verdict.holdUntil !== undefined) into.holdUntil = Math.max(into.holdUntil ?? 0, verdict.holdUntil);
    if (lifecycle === undefined && signal.lifecycle !== undefined) {
      lifecycle = signal.lifecycle;
      const choice = ctx.terminateHooks?.get(signal.lifecycle.group);
      if (choice?.kind === 'ours' && choice.heartbeatTimeoutSeconds !== undefined)
        lifecycleExpiresAt = signal.observedAt + lifecycleGlobalTimeoutMs(choice.heartbeatTimeoutSeconds);
    }
  }

  if (instance) {
    if (LEAVING_STATES.has(instance.state)) {
      removal.reasons.push(`instance is ${instance.state}`);
      removal.drain = true;
    }
    if (instance.tags[DECOMMISSION_TAG] !== undefined) {
      removal.reasons.push(`instance carries the ${DECOMMISSION_TAG} tag`);
      removal.drain = true;
    }
    const asg = instance.autoScaling;
    if (asg !== undefined && isTerminateWait(asg.lifecycleState)) {
      removal.reasons.push(`Auto Scaling group ${asg.group} is terminating it (${asg.lifecycleState})`);
      removal.drain = true;
      if (asg.terminateHook !== undefined && lifecycle === undefined) {
        lifecycle = { group: asg.group, hook: asg.terminateHook };
        // When the action started is not told by DescribeAutoScalingGroups: from now, the latest it can be.
        if (asg.terminateHookTimeoutSeconds !== undefined)
          lifecycleExpiresAt = now + lifecycleGlobalTimeoutMs(asg.terminateHookTimeoutSeconds);
      }
    }
    for (const event of instance.scheduledEvents) {
      const when = `not before ${new Date(event.notBefore).toISOString()}`;
      if (INSTANCE_STATUS_EVENT_CLASSES[event.code] === 'removal') {
        removal.reasons.push(`scheduled ${event.code} ${when}`);
        removal.deadlines.push(scheduledDeadline(event.notBefore, ctx));
        removal.drain = true;
        continue;
      }
      // Still listed, so not done yet, whatever its window says.
      const holdUntil = Math.max(event.notAfter ?? event.notBefore, now);
      if (settings.maintenance === 'ignore') {
        ignoredMaintenanceUntil = Math.max(ignoredMaintenanceUntil ?? 0, holdUntil);
        continue;
      }
      maintenance.reasons.push(`scheduled ${event.code} ${when} (maintenance: policy ${settings.maintenance})`);
      maintenance.deadlines.push(scheduledDeadline(event.notBefore, ctx));
      maintenance.drain ||= settings.maintenance === 'drain';
      maintenance.holdUntil = Math.max(maintenance.holdUntil ?? 0, holdUntil);
    }
  }

  const chosen =
    removal.reasons.length > 0
      ? { purpose: 'removal' as const, found: removal }
      : maintenance.reasons.length > 0
        ? { purpose: 'maintenance' as const, found: maintenance }
        : undefined;
  const hold = ignoredMaintenanceUntil !== undefined ? { holdCordonUntil: ignoredMaintenanceUntil } : {};
  if (!chosen) return { stale, ...hold };
  const { purpose, found } = chosen;
  const deadline = found.deadlines.length > 0 ? Math.min(...found.deadlines) : undefined;
  return {
    stale,
    ...hold,
    slating: {
      purpose,
      reasons: found.reasons,
      signals: found.signals,
      drain: found.drain,
      ...(deadline !== undefined ? { deadline } : {}),
      ...(lifecycle !== undefined && purpose === 'removal' ? { lifecycle } : {}),
      ...(lifecycleExpiresAt !== undefined && purpose === 'removal' ? { lifecycleExpiresAt } : {}),
      ...(found.holdUntil !== undefined ? { holdUntil: found.holdUntil } : {}),
    },
  };
}
