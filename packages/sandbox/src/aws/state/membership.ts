// Which Auto Scaling memberships can be: what seeding refuses, and what a scenario file is refused for
// before anything runs (scenario/schema.ts), said once.
import type { InstanceState } from '@ec2-node-reconciler/model/instance-states.js';
import type { LifecycleState } from './autoscaling.js';

/** A warm pool keeps its members as its PoolState says: stopped (hibernated is stopped to EC2), or running. */
const WARM_MACHINE_STATES: Partial<Record<LifecycleState, readonly InstanceState[]>> = {
  'Warmed:Stopped': ['stopped'],
  'Warmed:Hibernated': ['stopped'],
  'Warmed:Running': ['pending', 'running'],
};

/** What is wrong with a membership Auto Scaling could not be in, and under which key of `autoScaling`. */
export interface MembershipProblem {
  readonly key: 'lifecycleState' | 'hook' | 'token';
  readonly message: string;
}

export function membershipProblem(
  membership: { readonly lifecycleState?: LifecycleState; readonly hook?: string; readonly token?: string },
  state: InstanceState,
): MembershipProblem | undefined {
  const lifecycleState = membership.lifecycleState ?? 'InService';
  const machine = WARM_MACHINE_STATES[lifecycleState];
  if (machine !== undefined && !machine.includes(state))
    return {
      key: 'lifecycleState',
      message: `a ${lifecycleState} member is ${machine.join(' or ')} to EC2, not ${state}`,
    };
  const waiting = lifecycleState.endsWith(':Wait');
  if (waiting && membership.hook === undefined)
    return { key: 'hook', message: `is required with lifecycleState ${lifecycleState}` };
  if (membership.token !== undefined && !waiting)
    return { key: 'token', message: 'needs a pending lifecycle action (a :Wait lifecycleState)' };
  return undefined;
}

export type HookTransition = 'launching' | 'terminating';

/**
 * The transition a member's lifecycle state says its hook is for, if it says one: a Pending state
 * (in the group or its warm pool) launching, a Terminating one terminating.
 */
export function transitionOf(lifecycleState: string): HookTransition | undefined {
  if (lifecycleState.includes('Pending')) return 'launching';
  if (lifecycleState.includes('Terminating')) return 'terminating';
  return undefined;
}
