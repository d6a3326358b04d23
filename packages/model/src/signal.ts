import type { InstanceState } from './instance-states.js';
import type { InstanceId } from './instance-id.js';
import type { ScheduledChangeClass } from './scheduled-change.js';

/** Every kind of signal docs/design.md §2 lists, one module each in lib/signals. */
export const SIGNAL_KINDS = [
  'spot-interruption',
  'rebalance-recommendation',
  'state-change',
  'capacity-reservation-interruption',
  'asg-terminate-lifecycle-action',
  'asg-terminate-successful',
  'scheduled-change',
  'decommission-tag',
] as const;
export type SignalKind = (typeof SIGNAL_KINDS)[number];

/** The ASG lifecycle action a drain must complete (CONTINUE) when it is done. */
export interface LifecycleRef {
  readonly group: string;
  readonly hook: string;
  /** LifecycleActionToken from the event; absent when found by a sweep (then the instance id identifies it). */
  readonly token?: string;
}

/** What one EventBridge event says about one instance. Times are epoch milliseconds. */
export interface Signal {
  readonly kind: SignalKind;
  readonly instanceId: InstanceId;
  /** The event's `time`. */
  readonly observedAt: number;
  /** When the machine is expected to go: drains must finish before it. */
  readonly deadline?: number;
  readonly lifecycle?: LifecycleRef;
  /** For state-change: the state the event announced. */
  readonly state?: InstanceState;
  /** For scheduled-change: whether the machine goes (removal) or comes back (maintenance), and when. */
  readonly scheduled?: {
    readonly change: ScheduledChangeClass;
    readonly code: string;
    readonly start: number;
    readonly end?: number;
  };
  /** EventBridge event id: correlation id in logs and the drain workflow's execution name. */
  readonly eventId: string;
  /** The EventBridge archive replay that delivered the event again (its `replay-name`): history, never acted on. */
  readonly replayName?: string;
  /** Human-readable summary for reports and Kubernetes Events. */
  readonly description: string;
}
