// The drain step completing a repair whose drain it saw end (lib/lambda/repair-completion.ts): only a
// repair the Node records, of the instance the input names, and by the rule the sweep uses.
import { describe, expect, it } from 'vitest';
import type { DrainWorkflowInput } from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import type { NodeEvent } from '../../lib/kube/events.js';
import type { InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import type { NodeView } from '@ec2-node-reconciler/model/observation.js';
import { completeRepair, type RepairCompletionDeps } from '../../lib/lambda/repair-completion.js';
import { aNode, instanceId, MINUTE, NOW } from '../support/world.js';

const EXECUTION = 'demo-i-3-repair-202611291200';
const input: DrainWorkflowInput = {
  cluster: 'demo',
  node: aNode(3).name,
  nodeUid: aNode(3).uid,
  instanceId: instanceId(3),
  deadline: new Date(NOW).toISOString(),
  reason: 'repair',
  cause: 'repair-202611291200',
  execution: EXECUTION,
};
const repairRecord = {
  'ec2-node-reconciler/drain': EXECUTION,
  'ec2-node-reconciler/drain-for': 'repair',
};
/** A cordoned Node recording this repair, its kubelet silent for 40 minutes. */
const silent = (over: Partial<NodeView> = {}): NodeView =>
  aNode(3, {
    unschedulable: true,
    ready: 'Unknown',
    readyHeartbeatAt: NOW - 40 * MINUTE,
    annotations: repairRecord,
    ...over,
  });
/** The same, its kubelet alive and only KernelReady False. */
const kernelBad = (over: Partial<NodeView> = {}): NodeView =>
  aNode(3, {
    unschedulable: true,
    annotations: repairRecord,
    conditions: { KernelReady: { status: 'False', since: NOW - 40 * MINUTE } },
    ...over,
  });

function world(node: NodeView | undefined) {
  const marked: InstanceId[] = [];
  const events: NodeEvent[] = [];
  const deps: RepairCompletionDeps = {
    getNode: () => Promise.resolve(node),
    markUnhealthy: (id) => {
      marked.push(id);
      return Promise.resolve();
    },
    recordEvent: (event) => {
      events.push(event);
      return Promise.resolve();
    },
    now: () => NOW,
    heartbeatGraceMs: 2 * MINUTE,
  };
  return { deps, marked, events };
}

describe('completeRepair', () => {
  it.each(['done', 'deadline', 'incomplete'] as const)(
    'should mark the instance Unhealthy when the repair drain of a silent kubelet ended %s, and say so on the Node',
    async (outcome) => {
      const { deps, marked, events } = world(silent());

      const completion = await completeRepair(input, EXECUTION, outcome, [], deps);

      expect(completion).toEqual({ kind: 'replaced', instanceId: instanceId(3) });
      expect(marked).toEqual([instanceId(3)]);
      expect(events.map((e) => e.reason)).toEqual(['NodeRepaired']);
    },
  );

  it('should not mark a machine whose kubelet is alive when its drain left pods a PDB protects: RepairBlocked names the PDB', async () => {
    const { deps, marked, events } = world(kernelBad());

    const completion = await completeRepair(
      input,
      EXECUTION,
      'incomplete',
      [{ pod: { namespace: 'shop', name: 'cart-0', uid: 'u' }, reason: 'blocked', pdb: 'shop/cart' }],
      deps,
    );

    expect(completion.kind).toBe('blocked');
    expect(marked).toEqual([]);
    expect(events).toEqual([
      expect.objectContaining({
        reason: 'RepairBlocked',
        type: 'Warning',
        message: expect.stringMatching(/PodDisruptionBudget shop\/cart/) as unknown,
      }),
    ]);
  });

  it('should mark a machine whose kubelet is alive once its drain is done', async () => {
    const { deps, marked } = world(kernelBad());

    expect(await completeRepair(input, EXECUTION, 'done', [], deps)).toMatchObject({ kind: 'replaced' });
    expect(marked).toEqual([instanceId(3)]);
  });

  it.each([
    ['another drain’s record', silent({ annotations: { ...repairRecord, 'ec2-node-reconciler/drain': 'other' } })],
    ['a removal’s drain', silent({ annotations: { ...repairRecord, 'ec2-node-reconciler/drain-for': 'removal' } })],
    [
      'a removal joined',
      silent({ annotations: { ...repairRecord, 'ec2-node-reconciler/lifecycle': '{"group":"g","hook":"h"}' } }),
    ],
    ['another incarnation', silent({ uid: 'uid-other' })],
    ['another instance', silent({ providerID: `aws:///us-east-1a/${instanceId(4)}` })],
    ['an uncordoned node', silent({ unschedulable: false })],
    ['a recovered node', aNode(3, { unschedulable: true, annotations: repairRecord })],
    ['no Node', undefined],
  ])('should leave %s to the sweep, marking nothing', async (_what, node) => {
    const { deps, marked } = world(node);

    expect(await completeRepair(input, EXECUTION, 'done', [], deps)).toMatchObject({ kind: 'not-ours' });
    expect(marked).toEqual([]);
  });

  it('should leave a drain that ended otherwise (cancelled, node gone) alone', async () => {
    const { deps, marked } = world(silent());

    expect(await completeRepair(input, EXECUTION, 'cancelled-by-uncordon', [], deps)).toMatchObject({
      kind: 'not-ours',
    });
    expect(marked).toEqual([]);
  });

  it('should not fail the step when the mark fails: the next sweep marks it', async () => {
    const { deps } = world(silent());

    const completion = await completeRepair(input, EXECUTION, 'deadline', [], {
      ...deps,
      markUnhealthy: () => Promise.reject(new Error('throttled')),
    });

    expect(completion).toEqual({ kind: 'failed', error: expect.stringMatching(/throttled/) as unknown });
  });
});
