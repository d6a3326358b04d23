/**
 * The AWS endpoint emulator: one local HTTP endpoint speaking the wire protocols of EC2, Auto
 * Scaling, EKS, STS, EventBridge and Step Functions, so production code runs with its real SDK v3
 * clients (only `endpoint` changes). Driven by the sandbox's shared clock.
 */
export {
  roleSessionCredential,
  startAwsEmulator,
  type AwsEmulator,
  type AwsEmulatorOptions,
  type EmulatorClientConfig,
} from './emulator.js';
export {
  AwsState,
  DEFAULT_TIMINGS,
  defaultPrivateDnsName,
  type AwsStateOptions,
  type AwsTimings,
} from './state/index.js';
export {
  SeedAutoScalingGroupSchema,
  SeedClusterSchema,
  SeedInstanceSchema,
  SeedStateMachineSchema,
  type AwsSeed,
  type SeedAutoScalingGroup,
  type SeedCluster,
  type SeedInstance,
  type SeedStateMachine,
} from './state/seed.js';
export type { AwsChange, LifecycleActionResult, LifecycleTransition } from './state/changes.js';
export type { InstanceRecord } from './state/instances.js';
export type {
  AutoScalingGroupRecord,
  LifecycleCompletion,
  LifecycleHeartbeat,
  HealthChange,
  LifecycleState,
} from './state/autoscaling.js';
export type { RecordedEvent } from './state/event-bus.js';
export type { ExecutionRecord, ExecutionStatus, StateMachineRecord } from './state/step-functions.js';
export type { ClusterRecord } from './state/clusters.js';
export {
  Faults,
  type FaultOptions,
  type LatencyRule,
  type ThrottleRule,
  type FailureRule,
  type EntryFailureRule,
  type RequestMatch,
} from './faults.js';
export { RequestLog, type RequestLogEntry, type LogFilter } from './request-log.js';
export { Counters, type OperationCount } from './counters.js';
export {
  createEksToken,
  verifyEksToken,
  EKS_TOKEN_PREFIX,
  type EksTokenOptions,
  type EksTokenVerification,
  type CreateEksTokenOptions,
} from './eks-token.js';
export { credentialArn, DEFAULT_CREDENTIALS, type CallerIdentity, type EmulatorCredential } from './sigv4.js';
export { SERVICE_NAMES, type ServiceName } from './services/names.js';
export { AwsError } from './errors.js';
export { authorizeCall, type CallAuthorization } from './authorization.js';
export { IamAuthorizer } from './iam/authorizer.js';
export { iamAction } from './iam/actions.js';
export {
  iamChecks,
  hasIamMapping,
  globalKeys,
  partitionOf,
  autoScalingGroupArn,
  type IamCheck,
  type IamWorld,
} from './iam/requests.js';
