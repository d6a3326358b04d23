import { PRODUCT_NAME } from '../contract/product.js';
import type { Clock } from '../model/clock.js';
import { kubePath, type KubeClient } from './client.js';
import { IgnoredAnswer } from './schemas.js';

export const EVENT_COMPONENT = PRODUCT_NAME;

export interface NodeEvent {
  readonly node: string;
  readonly uid?: string;
  /** CamelCase reason, one of the reasons listed in the README. */
  readonly reason: string;
  readonly message: string;
  readonly type: 'Normal' | 'Warning';
}

/**
 * Kubernetes Events on the Node, where `kubectl describe node` shows them. Node events live in
 * the `default` namespace, as the kubelet's own do.
 */
export class NodeEventRecorder {
  constructor(
    private readonly kube: KubeClient,
    private readonly clock: Clock,
  ) {}

  async record(event: NodeEvent): Promise<void> {
    // metav1.Time is RFC 3339 to the second.
    const now = new Date(this.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const body = {
      metadata: { generateName: `${event.node}.`, namespace: 'default' },
      involvedObject: { apiVersion: 'v1', kind: 'Node', name: event.node, ...(event.uid ? { uid: event.uid } : {}) },
      reason: event.reason,
      // The API server caps messages at 1 KiB.
      message: event.message.slice(0, 1024),
      type: event.type,
      source: { component: EVENT_COMPONENT },
      reportingComponent: EVENT_COMPONENT,
      reportingInstance: EVENT_COMPONENT,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    };
    await this.kube.call(
      { method: 'POST', path: kubePath('api/v1/namespaces', 'default', 'events'), body },
      IgnoredAnswer,
    );
  }
}
