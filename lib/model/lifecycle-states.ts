// Auto Scaling's instance lifecycle states, as DescribeAutoScalingGroups and DescribeAutoScalingInstances
// report them: the sandbox's Auto Scaling keeps its members in these, and a snapshot writes only these.
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
