import { DECOMMISSION_TAG } from '../model/labels.js';
import type { InstanceView } from '../model/observation.js';
import type { LifecycleRef, Signal } from '../model/signal.js';
import type { Settings } from '../settings.js';

/** Why a machine is about to go, gathered from event signals and from what a sweep observed. */
export interface Slating {
  readonly reasons: readonly string[];
  readonly signals: readonly Signal[];
  /** The earliest moment the machine is expected to go, if anything says so. */
  readonly deadline?: number;
  readonly lifecycle?: LifecycleRef;
  /** False when the only reason is a rebalance recommendation under the `cordon` policy. */
  readonly drain: boolean;
}

const REMOVAL_STATES = new Set(['shutting-down', 'stopping', 'terminated']);
const REMOVAL_EVENT_CODES = new Set(['instance-retirement', 'instance-stop']);

function slatesBySignal(signal: Signal, settings: Settings): { slates: boolean; drain: boolean } {
  switch (signal.kind) {
    case 'rebalance-recommendation':
      return { slates: settings.rebalance !== 'ignore', drain: settings.rebalance === 'drain' };
    case 'state-change':
      // `stopped` is handled by the observed state; `pending`/`running` never become signals.
      return { slates: signal.state !== undefined && REMOVAL_STATES.has(signal.state), drain: true };
    case 'spot-interruption':
    case 'capacity-reservation-interruption':
    case 'asg-terminate-lifecycle-action':
    case 'scheduled-change':
    case 'decommission-tag':
      return { slates: true, drain: true };
    case 'asg-terminate-successful':
      // The machine is gone already: that is a stale object, not something to drain.
      return { slates: false, drain: false };
    default: {
      const unreachable: never = signal.kind;
      throw new Error(`unhandled signal kind ${String(unreachable)}`);
    }
  }
}

/** Every reason this instance is slated for removal, or undefined when none applies. */
export function findSlating(instance: InstanceView | undefined, signals: readonly Signal[], settings: Settings): Slating | undefined {
  const reasons: string[] = [];
  const slatingSignals: Signal[] = [];
  const deadlines: number[] = [];
  let drain = false;
  let lifecycle: LifecycleRef | undefined;

  for (const signal of signals) {
    const verdict = slatesBySignal(signal, settings);
    if (!verdict.slates) continue;
    slatingSignals.push(signal);
    reasons.push(signal.description);
    drain ||= verdict.drain;
    if (signal.deadline !== undefined) deadlines.push(signal.deadline);
    lifecycle ??= signal.lifecycle;
  }

  if (instance) {
    if (instance.state === 'shutting-down' || instance.state === 'stopping') {
      reasons.push(`instance is ${instance.state}`);
      drain = true;
    }
    if (instance.tags[DECOMMISSION_TAG] !== undefined) {
      reasons.push(`instance carries the ${DECOMMISSION_TAG} tag`);
      drain = true;
    }
    const asg = instance.autoScaling;
    if (asg?.lifecycleState === 'Terminating:Wait') {
      reasons.push(`Auto Scaling group ${asg.group} is terminating it (Terminating:Wait)`);
      drain = true;
      if (asg.terminateHook !== undefined) lifecycle ??= { group: asg.group, hook: asg.terminateHook };
    }
    for (const event of instance.scheduledEvents) {
      if (!REMOVAL_EVENT_CODES.has(event.code)) continue;
      reasons.push(`scheduled ${event.code} not before ${new Date(event.notBefore).toISOString()}`);
      deadlines.push(event.notBefore);
      drain = true;
    }
  }

  if (reasons.length === 0) return undefined;
  const deadline = deadlines.length > 0 ? Math.min(...deadlines) : undefined;
  return {
    reasons,
    signals: slatingSignals,
    drain,
    ...(deadline !== undefined ? { deadline } : {}),
    ...(lifecycle !== undefined ? { lifecycle } : {}),
  };
}
