// Kubernetes API emulator: the world integration tests, the sandbox and the benchmarks run in.
export { startKubeEmulator, type KubeEmulator, type KubeEmulatorOptions } from './server.js';
export {
  KubeStore,
  DEFAULT_NAMESPACES,
  type ListOptions,
  type ListResult,
  type DeleteOptions,
  type StoreOptions,
  type StoredChange,
} from './store.js';
export type { ClusterSeed } from './seeding.js';
export {
  buildNode,
  buildPod,
  buildPdb,
  buildLease,
  buildWorkload,
  NODE_IMAGES,
  type NodeSeed,
  type PodSeed,
  type PdbSeed,
  type LeaseSeed,
  type WorkloadSeed,
  type OwnerSpec,
  type PodPhase,
  type ConditionStatus,
} from './builders.js';
export { Kubelets, type KubeletOptions } from './kubelet.js';
export { Faults, type FaultRule, type FaultMatch, type FaultEffect } from './faults.js';
export { RequestLog, type RequestLogEntry } from './request-log.js';
export { RbacAuthorizer, type RequestAttributes, type PolicyRule } from './rbac.js';
export { ADMIN, ANONYMOUS, type AuthOptions, type UserInfo, type TokenAuthenticator } from './auth.js';
export { kubeconfigYaml, writeKubeconfig, type KubeconfigOptions } from './kubeconfig.js';
export { driveInRealTime, type RealTimeOptions } from './real-time.js';
export { StatusError, type StatusBody } from './errors.js';
export { RESOURCES, findResource, resourceForStorage, type ResourceDef } from './resources.js';
export * from './types.js';
