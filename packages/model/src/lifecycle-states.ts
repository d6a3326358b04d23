// Auto Scaling's LifecycleState values the reconciler reads (DescribeAutoScalingGroups for a group's
// members, DescribeWarmPool for its warm pool's). A warm pool's members live their own lifecycle
// (`Warmed:*`), and the group's terminate hooks hold them too when they are terminated out of the pool.

/** A member waiting on a terminate lifecycle hook: in the group, or in its warm pool. */
export const TERMINATE_WAIT_STATES: ReadonlySet<string> = new Set(['Terminating:Wait', 'Warmed:Terminating:Wait']);

/** Whether Auto Scaling waits on a terminate hook for this member (the action a sweep finds and completes). */
export const isTerminateWait = (lifecycleState: string | undefined): boolean =>
  lifecycleState !== undefined && TERMINATE_WAIT_STATES.has(lifecycleState);

/** A warm pool's member (`Warmed:Stopped`, `Warmed:Running`, `Warmed:Terminating:Wait`, …): not in service. */
export const isWarmPoolState = (lifecycleState: string | undefined): boolean =>
  lifecycleState?.startsWith('Warmed:') === true;

/** Every `LifecycleState` DescribeAutoScalingInstances can report. */
export const LIFECYCLE_STATES = [
  'Pending',
  'Pending:Wait',
  'Pending:Proceed',
  'Quarantined',
  'InService',
  'Terminating',
  'Terminating:Wait',
  'Terminating:Proceed',
  'Terminated',
  'Detaching',
  'Detached',
  'EnteringStandby',
  'Standby',
  'Warmed:Pending',
  'Warmed:Pending:Wait',
  'Warmed:Pending:Proceed',
  'Warmed:Terminating',
  'Warmed:Terminating:Wait',
  'Warmed:Terminating:Proceed',
  'Warmed:Terminated',
  'Warmed:Stopped',
  'Warmed:Running',
  'Warmed:Hibernated',
] as const;
export type LifecycleState = (typeof LIFECYCLE_STATES)[number];
