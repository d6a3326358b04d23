/** Environment the functions read at cold start (validated there); the construct sets it. */
export const FUNCTION_ENV = {
  clusterName: 'CLUSTER_NAME',
  settings: 'RECONCILER_SETTINGS',
  drainStateMachineArn: 'DRAIN_STATE_MACHINE_ARN',
  outputEventBusName: 'OUTPUT_EVENT_BUS_NAME',
  /** Comma-separated: the Auto Scaling groups configured as the cluster's (their instances are ours). */
  autoScalingGroupNames: 'AUTO_SCALING_GROUP_NAMES',
  /** Comma-separated: the terminate lifecycle hooks the reconciler drains for and completes (any, when unset). */
  lifecycleHookNames: 'LIFECYCLE_HOOK_NAMES',
} as const;
