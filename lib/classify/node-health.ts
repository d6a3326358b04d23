import {
  isBadCondition,
  MONITORING_AGENT_CONDITIONS,
  type BadCondition,
} from '@ec2-node-reconciler/model/node-conditions.js';
import type { NodeView } from '@ec2-node-reconciler/model/observation.js';
import { isHeartbeatFresh } from './heartbeat.js';

/** The node monitoring agent's conditions that report a problem (status False). */
export function badAgentConditions(node: NodeView): BadCondition[] {
  return MONITORING_AGENT_CONDITIONS.flatMap((type) => {
    const condition = node.conditions?.[type];
    return condition !== undefined && isBadCondition(type, condition.status)
      ? [{ type, status: condition.status, ...(condition.since !== undefined ? { since: condition.since } : {}) }]
      : [];
  });
}

/**
 * Every repair condition that is bad on the node now (docs/design.md §1b). Ready is bad when it is not True,
 * since its lastTransitionTime; a silent kubelet whose Ready still says True (nothing has marked it
 * Unknown yet) counts as Ready Unknown since its last heartbeat. Pure.
 */
export function badConditions(
  node: NodeView,
  heartbeatAt: number | undefined,
  now: number,
  heartbeatGraceMs: number,
): BadCondition[] {
  const bad: BadCondition[] = [];
  const ready = node.conditions?.Ready;
  if (node.ready !== 'True') {
    bad.push({
      type: 'Ready',
      status: node.ready ?? 'Unknown',
      ...(ready?.since !== undefined ? { since: ready.since } : {}),
    });
  } else if (!isHeartbeatFresh(heartbeatAt, now, heartbeatGraceMs)) {
    bad.push({
      type: 'Ready',
      status: 'Unknown',
      inferred: true,
      ...(heartbeatAt !== undefined ? { since: heartbeatAt } : {}),
    });
  }
  return [...bad, ...badAgentConditions(node)];
}
