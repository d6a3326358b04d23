import type { InstanceId } from './instance-id.js';
import type { InstanceView, NodeView } from './observation.js';
import type { LifecycleRef, Signal } from './signal.js';

/** The conditions of DESIGN §1: every (machine, node) pair is in exactly one. */
export const CONDITIONS = [
  'in-sync',
  'stale-object',
  'slated-for-removal',
  'stopped-machine',
  'unresponsive-machine',
  'unregistered-machine',
  'identity-conflict',
  'not-ec2',
  'unknown',
] as const;
export type Condition = (typeof CONDITIONS)[number];

/** One (machine, node) pair and its condition. At least one of node and instance is set. */
export interface ClassifiedPair {
  readonly condition: Condition;
  /** Why this condition, in a sentence fit for a report row and a Kubernetes Event. */
  readonly reason: string;
  readonly node?: NodeView;
  readonly instance?: InstanceView;
  /** The instance id the node claims, or the instance's id. */
  readonly instanceId?: InstanceId;
  /** The newest heartbeat seen (Lease renewTime, else Ready lastHeartbeatTime), epoch ms. */
  readonly heartbeatAt?: number;
  /** For slated-for-removal: the signals and findings that slate it, and when it must be drained by. */
  readonly signals: readonly Signal[];
  readonly deadline?: number;
  readonly lifecycle?: LifecycleRef;
  /** For slated-for-removal: whether the remedy includes a drain (a rebalance under policy `cordon` does not). */
  readonly drain?: boolean;
}
