/**
 * The node conditions a repair reads (docs/design.md §1b): the kubelet's Ready, and those the EKS node
 * monitoring agent posts. Ready is bad when False or Unknown; the agent's conditions when False (an
 * agent that says Unknown has not found a problem), as EKS node auto repair and Karpenter read them.
 */
export const MONITORING_AGENT_CONDITIONS = [
  'KernelReady',
  'NetworkingReady',
  'StorageReady',
  'ContainerRuntimeReady',
  'AcceleratedHardwareReady',
] as const;
export type MonitoringAgentCondition = (typeof MONITORING_AGENT_CONDITIONS)[number];

export const REPAIR_CONDITIONS = ['Ready', ...MONITORING_AGENT_CONDITIONS] as const;
export type RepairCondition = (typeof REPAIR_CONDITIONS)[number];

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** One condition as the Node's status has it: its status, and since when (lastTransitionTime, epoch ms). */
export interface NodeConditionView {
  readonly status: ConditionStatus;
  readonly since?: number;
}

/** A condition that says the node is unhealthy, and since when (undefined when nothing says). */
export interface BadCondition {
  readonly type: RepairCondition;
  readonly status: ConditionStatus;
  readonly since?: number;
  /**
   * Ready still says True but the heartbeat is stale: inferred here, not judged by the control plane
   * (the node lifecycle controller times renewals itself, so a kubelet whose clock is behind stays
   * Ready; a controller that is down marks nothing). It counts as unhealthy for a stand-down, and
   * is never what starts a repair.
   */
  readonly inferred?: true;
}

export const isRepairCondition = (type: string): type is RepairCondition =>
  (REPAIR_CONDITIONS as readonly string[]).includes(type);

/** Whether a condition's status means the node is unhealthy (Ready: not True; the agent's: False). */
export function isBadCondition(type: RepairCondition, status: ConditionStatus | undefined): boolean {
  if (status === undefined) return false;
  return type === 'Ready' ? status !== 'True' : status === 'False';
}

/**
 * Kubernetes' own patience with a NotReady node (the not-ready taint's tolerationSeconds, 300 s): a
 * repair waits at least this, or a passing blip would cost a machine.
 */
export const MIN_REPAIR_AFTER_MS = 5 * 60_000;
