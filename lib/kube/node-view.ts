import {
  isRepairCondition,
  type NodeConditionView,
  type RepairCondition,
} from '@ec2-node-reconciler/model/node-conditions.js';
import type { NodeView, ReadyStatus, Taint } from '@ec2-node-reconciler/model/observation.js';
import type { KubeNode } from './schemas.js';

/** Epoch ms of an RFC 3339 time, or undefined when absent or unreadable. */
export function epochOf(value: string | null | undefined): number | undefined {
  if (value === undefined || value === null) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

function readyStatus(value: string | undefined): ReadyStatus | undefined {
  return value === 'True' || value === 'False' || value === 'Unknown' ? value : undefined;
}

function taintEffect(value: string): Taint['effect'] | undefined {
  return value === 'NoSchedule' || value === 'PreferNoSchedule' || value === 'NoExecute' ? value : undefined;
}

/** Ready and the node monitoring agent's conditions, each with its status and since when (what a repair reads). */
function repairConditions(
  conditions: KubeNode['status']['conditions'],
): Partial<Record<RepairCondition, NodeConditionView>> {
  const out: Partial<Record<RepairCondition, NodeConditionView>> = {};
  for (const condition of conditions ?? []) {
    const status = readyStatus(condition.status);
    if (!isRepairCondition(condition.type) || status === undefined) continue;
    const since = epochOf(condition.lastTransitionTime);
    out[condition.type] = { status, ...(since !== undefined ? { since } : {}) };
  }
  return out;
}

/** The projection the reconciler keeps: never the whole (5–15 KB) Node object. */
export function toNodeView(node: KubeNode): NodeView | undefined {
  const { name, uid } = node.metadata;
  if (!name || !uid) return undefined;
  const ready = node.status.conditions?.find((c) => c.type === 'Ready');
  const taints: Taint[] = [];
  for (const t of node.spec.taints ?? []) {
    const effect = taintEffect(t.effect);
    if (effect)
      taints.push({
        key: t.key,
        ...(t.value !== undefined ? { value: t.value } : {}),
        effect,
        ...(t.timeAdded !== undefined ? { timeAdded: t.timeAdded } : {}),
      });
  }
  const status = readyStatus(ready?.status);
  const heartbeat = epochOf(ready?.lastHeartbeatTime);
  return {
    name,
    uid,
    resourceVersion: node.metadata.resourceVersion ?? '',
    ...(node.spec.providerID ? { providerID: node.spec.providerID } : {}),
    createdAt: epochOf(node.metadata.creationTimestamp) ?? 0,
    ...(status ? { ready: status } : {}),
    ...(heartbeat !== undefined ? { readyHeartbeatAt: heartbeat } : {}),
    unschedulable: node.spec.unschedulable === true,
    ...(node.metadata.managedFields !== undefined ? { cordonWriters: node.metadata.managedFields } : {}),
    labels: node.metadata.labels ?? {},
    annotations: node.metadata.annotations ?? {},
    taints,
    conditions: repairConditions(node.status.conditions),
  };
}
