// The projection of a Node keeps the conditions a repair reads (Ready and the node monitoring
// agent's), each with its status and lastTransitionTime, and nothing else of status.conditions.
import { describe, expect, it } from 'vitest';
import { toNodeView } from '../../lib/kube/node-view.js';
import { NodeSchema } from '../../lib/kube/schemas.js';

const T0 = '2026-11-29T11:25:00Z';
const T1 = '2026-11-29T11:50:00Z';

function nodeWith(conditions: unknown[]) {
  return NodeSchema.parse({
    metadata: {
      name: 'ip-10-0-0-1.ec2.internal',
      uid: 'u1',
      resourceVersion: '7',
      creationTimestamp: '2026-11-29T09:00:00Z',
    },
    spec: { providerID: 'aws:///us-east-1a/i-0a1b2c3d4e5f60001' },
    status: { conditions },
  });
}

describe('toNodeView', () => {
  it('should keep Ready and the monitoring agent conditions with their lastTransitionTime', () => {
    const view = toNodeView(
      nodeWith([
        { type: 'MemoryPressure', status: 'False', lastHeartbeatTime: T1, lastTransitionTime: T0 },
        { type: 'Ready', status: 'Unknown', lastHeartbeatTime: T1, lastTransitionTime: T1 },
        { type: 'KernelReady', status: 'False', lastHeartbeatTime: T1, lastTransitionTime: T0, reason: 'KernelBug' },
        { type: 'AcceleratedHardwareReady', status: 'True', lastTransitionTime: T0 },
      ]),
    );
    expect(view?.ready).toBe('Unknown');
    expect(view?.conditions).toEqual({
      Ready: { status: 'Unknown', since: Date.parse(T1) },
      KernelReady: { status: 'False', since: Date.parse(T0) },
      AcceleratedHardwareReady: { status: 'True', since: Date.parse(T0) },
    });
  });

  it('should leave out the time of a condition that has none, and a status that is no condition status', () => {
    const view = toNodeView(
      nodeWith([
        { type: 'StorageReady', status: 'False', lastTransitionTime: null },
        { type: 'NetworkingReady', status: 'Maybe', lastTransitionTime: T0 },
      ]),
    );
    expect(view?.conditions).toEqual({ StorageReady: { status: 'False' } });
  });

  it('should have no conditions when the Node reports none', () => {
    expect(toNodeView(nodeWith([]))?.conditions).toEqual({});
  });
});
