// EC2's instance states, and two sets of them for two different questions. The sets differ on purpose: `stopped`
// is worth an event (its Node gets the shutdown taint at once, without waiting for a sweep) but is
// no reason to drain: the machine is down already, and the observed state makes it its own
// condition (stopped-machine).

/** Every state EC2 reports for an instance. */
export const INSTANCE_STATES = ['pending', 'running', 'shutting-down', 'terminated', 'stopping', 'stopped'] as const;
export type InstanceState = (typeof INSTANCE_STATES)[number];

/**
 * The states whose EC2 Instance State-change Notification becomes a signal, and so the only ones
 * the EventBridge rule delivers: the machine is leaving, stopped or gone. `pending` and `running`
 * say nothing about removal, and no event of theirs costs an invocation.
 */
export const SIGNALLED_STATES = [
  'shutting-down',
  'stopping',
  'stopped',
  'terminated',
] as const satisfies readonly InstanceState[];

/**
 * The states for which a state-change signal slates its node for a drain: the machine goes, or
 * stops, and pods must move either way (`terminated` as well: a late event still drains what is left).
 */
export const DRAIN_SLATING_STATES: ReadonlySet<InstanceState> = new Set(['shutting-down', 'stopping', 'terminated']);
