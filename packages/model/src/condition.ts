import type { InstanceId } from './instance-id.js';
import type { BadCondition } from './node-conditions.js';
import type { InstanceView, NodeView } from './observation.js';
import type { LifecycleRef, Signal } from './signal.js';

/**
 * The conditions of docs/design.md §1: every (machine, node) pair is in exactly one. `gone`: a terminated
 * machine without a Node object — the correspondence is over, nothing to do, but not in sync either
 * (EC2 returns a terminated instance for about an hour). `other-owner`: a Node (or machine) another
 * system manages end to end — Karpenter, EKS Auto Mode, EKS hybrid nodes (docs/design.md §1c): reported, never acted on.
 */
export const CONDITIONS = [
  'in-sync',
  'stale-object',
  'gone',
  'slated-for-removal',
  'stopped-machine',
  'unresponsive-machine',
  'unregistered-machine',
  'identity-conflict',
  'not-ec2',
  'other-owner',
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
  /** For slated-for-removal: the machine goes (`removal`), or goes down and comes back (`maintenance`). */
  readonly purpose?: 'removal' | 'maintenance';
  /** A cordon of ours on this Node is kept until then (a maintenance window that has not ended). */
  readonly holdCordonUntil?: number;
  /**
   * The instance is this cluster's (tagged for it, in a configured group, or named by one of its
   * Nodes' providerIDs): only then may its lifecycle action be completed, its Node drained, or the
   * instance marked unhealthy.
   */
  readonly ours?: boolean;
  /**
   * What makes the instance this cluster's: its own tags or a configured Auto Scaling group
   * (`instance`), or only one of its Nodes naming it for certain (`node`). Only the first may have
   * it terminated (a repair, mark-unhealthy): a Node naming a machine is not enough to replace it.
   */
  readonly ownedBy?: 'instance' | 'node';
  /**
   * For a pair with a Node: its repair conditions that are bad now (docs/design.md §1b), as classify
   * judged them (unresponsive-machine is a Node of ours with any); absent when none is. Whatever the
   * pair's condition: a repair's stand-down counts every unhealthy Node of the cluster.
   */
  readonly badConditions?: readonly BadCondition[];
  /** For unknown: the lookup of the instance that failed in this run (a repair's stand-down cannot place its Node in a group). */
  readonly lookupError?: string;
  /** Signals about an earlier life of the machine: reported, not acted on. */
  readonly staleSignals?: readonly { readonly signal: Signal; readonly why: string }[];
}
