import type { InstanceId } from './instance-id.js';
import type { ConditionStatus, NodeConditionView, RepairCondition } from './node-conditions.js';
import type { InstanceState } from './instance-states.js';
import type { TerminateHookChoice } from './terminate-hook.js';

export type ReadyStatus = ConditionStatus;

export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  /** RFC 3339; the node lifecycle controller's NoExecute taints carry it. */
  readonly timeAdded?: string;
}

/** The projection of a Node object the reconciler keeps (never the whole object). Times in epoch ms. */
export interface NodeView {
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
  readonly providerID?: string;
  readonly createdAt: number;
  /** status.conditions[Ready].status; undefined when the kubelet never posted it. */
  readonly ready?: ReadyStatus;
  /** status.conditions[Ready].lastHeartbeatTime: the heartbeat when there is no Lease. */
  readonly readyHeartbeatAt?: number;
  readonly unschedulable: boolean;
  /**
   * The field managers that wrote spec.unschedulable, as metadata.managedFields says: whose the
   * cordon is (ours name FIELD_MANAGER). Undefined when the Node carries no managed fields at all
   * (a server that keeps none, a projection made before they were read): then our mark alone says.
   */
  readonly cordonWriters?: readonly string[];
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly taints: readonly Taint[];
  /**
   * The conditions a repair reads (Ready, and the node monitoring agent's KernelReady, NetworkingReady,
   * StorageReady, ContainerRuntimeReady, AcceleratedHardwareReady), those the Node reports, each with
   * its status and lastTransitionTime. Absent in projections made before repair existed: none reported.
   */
  readonly conditions?: Readonly<Partial<Record<RepairCondition, NodeConditionView>>>;
}

/** kube-node-lease/<node name>. */
export interface LeaseView {
  readonly nodeName: string;
  readonly renewTime?: number;
}

export type ScheduledEventCode =
  'instance-reboot' | 'system-reboot' | 'system-maintenance' | 'instance-retirement' | 'instance-stop';

export interface ScheduledEvent {
  readonly code: ScheduledEventCode;
  readonly notBefore: number;
  readonly notAfter?: number;
  readonly description?: string;
}

export interface InstanceView {
  readonly id: InstanceId;
  readonly state: InstanceState;
  readonly zone: string;
  readonly privateDnsName?: string;
  readonly launchedAt: number;
  readonly tags: Readonly<Record<string, string>>;
  readonly spot: boolean;
  /**
   * From DescribeAutoScalingGroups: the group and the instance's LifecycleState (e.g. `Terminating:Wait`),
   * and the group's terminate lifecycle hook, which a sweep needs to complete the action.
   */
  readonly autoScaling?: {
    readonly group: string;
    readonly lifecycleState: string;
    readonly terminateHook?: string;
    /** That hook's HeartbeatTimeout, seconds: how long Auto Scaling keeps its action at most (lifecycleGlobalTimeoutMs). */
    readonly terminateHookTimeoutSeconds?: number;
    /** What the group says of the instance's health (DescribeAutoScalingGroups HealthStatus): an Unhealthy one is being replaced. */
    readonly healthStatus?: 'Healthy' | 'Unhealthy';
    /** The group's suspended processes (DescribeAutoScalingGroups SuspendedProcesses): with `ReplaceUnhealthy`, `Launch` or `Terminate` among them, a machine marked Unhealthy is not replaced. */
    readonly suspendedProcesses?: readonly string[];
    /** The group's repair back-off record (REPAIR_FAILURES_TAG), as the tag holds it; absent when it has none. */
    readonly repairFailures?: string;
  };
  /** From DescribeInstanceStatus. */
  readonly scheduledEvents: readonly ScheduledEvent[];
  /**
   * Lookups about this instance that failed in this run (its Auto Scaling state, its scheduled
   * events): no action that needs "nothing slates it" may be taken for it this run.
   */
  readonly enrichmentErrors?: readonly string[];
}

/**
 * What the workflow says of a drain execution a Node names (DRAIN_ANNOTATION): `absent` when it
 * never started (a claim whose start failed) or is long gone; `unknown` when asking failed.
 */
export type DrainExecutionState =
  { readonly status: 'running' | 'ended' | 'absent' } | { readonly status: 'unknown'; readonly error: string };

/**
 * Everything one run saw. A sweep sees the whole cluster; an event sees one instance and its node.
 * classify() is a pure function of this, the signals, the settings and the clock.
 */
export interface Observation {
  readonly scope: 'sweep' | 'event';
  readonly nodes: readonly NodeView[];
  /** Keyed by node name; a node with no entry has no Lease. */
  readonly leases: ReadonlyMap<string, LeaseView>;
  /** Every instance EC2 returned (cluster-tagged ones and those looked up for nodes). */
  readonly instances: readonly InstanceView[];
  /** Instance ids that were looked up and that EC2 did not return: unknown to EC2. */
  readonly notFound: ReadonlySet<InstanceId>;
  /** Instance ids whose lookup failed (throttled, timed out): their pairs are `unknown` this time. */
  readonly lookupErrors: ReadonlyMap<InstanceId, string>;
  /**
   * True when `instances` holds every cluster-tagged instance (a sweep), so an instance with no
   * node is an `unregistered-machine` candidate; false for events, which look at one instance.
   */
  readonly clusterInstancesComplete: boolean;
  /** Number of Nodes in the cluster, for the breaker's percentage (unknown in the event path). */
  readonly clusterNodeCount?: number;
  /** The drain executions the observed Nodes name, by execution name. */
  readonly drains: ReadonlyMap<string, DrainExecutionState>;
  /**
   * Event path: for each Auto Scaling group a lifecycle signal names, which of its terminate hooks is
   * ours (DescribeLifecycleHooks, the sweep's rule). A lifecycle signal whose group is not here, or
   * whose hook is not the one chosen, is not acted on.
   */
  readonly terminateHooks?: ReadonlyMap<string, TerminateHookChoice>;
}
