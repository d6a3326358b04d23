import { describe, expect, it } from 'vitest';
import {
  cordon,
  cordonOwner,
  cordonPatch,
  DRAIN_TAINT_KEY,
  EXCLUDED_FROM_LB_ANNOTATION,
  isCordonedByReconciler,
  operatorUncordonPatch,
  uncordon,
  uncordonForOperator,
  uncordonPatch,
  type NodePatch,
} from '../../lib/kube/node-writes.js';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import {
  CORDON_REASON_ANNOTATION,
  CORDONED_AT_ANNOTATION,
  CORDONED_BY_ANNOTATION,
  CORDON_UNTIL_ANNOTATION,
  DRAIN_ANNOTATION,
  EXCLUDE_FROM_LB_LABEL,
} from '@ec2-node-reconciler/model/contract/labels.js';
import { FakeCluster, refusal } from '../drain/support/fake-api.js';

const NOW = Date.UTC(2026, 0, 1, 12);

function setup(): { cluster: FakeCluster; clock: VirtualClock } {
  const clock = new VirtualClock(NOW);
  return { cluster: new FakeCluster(clock), clock };
}

describe('cordonPatch', () => {
  it('should set unschedulable and our three annotations on a schedulable node', () => {
    const { cluster } = setup();
    const patch = cordonPatch(cluster.addNode('n'), { reason: 'spot interruption' }, NOW);
    expect(patch).toEqual({
      unschedulable: true,
      annotations: {
        [CORDONED_BY_ANNOTATION]: 'ec2-node-reconciler',
        [CORDON_REASON_ANNOTATION]: 'spot interruption',
        [CORDONED_AT_ANNOTATION]: '2026-01-01T12:00:00.000Z',
      },
    });
  });

  it('should ask for no change on a node already cordoned, ours or an operator’s', () => {
    const { cluster } = setup();
    expect(cordonPatch(cluster.addNode('n', { unschedulable: true }), { reason: 'x' }, NOW)).toBeUndefined();
  });

  it('should add the taint with a resourceVersion and the load-balancer label with its marker', () => {
    const { cluster } = setup();
    const node = cluster.addNode('n', { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] });
    const taint = { key: DRAIN_TAINT_KEY, value: 'spot', effect: 'NoSchedule' as const };
    const patch = cordonPatch(node, { reason: 'x', taint, excludeFromLoadBalancers: true }, NOW);
    expect(patch?.taints).toEqual([...node.taints, taint]);
    expect(patch?.resourceVersion).toBe(node.resourceVersion);
    expect(patch?.labels).toEqual({ [EXCLUDE_FROM_LB_LABEL]: 'true' });
    expect(patch?.annotations?.[EXCLUDED_FROM_LB_ANNOTATION]).toBe('true');
  });

  it('should reject a taint whose key uncordon would not recognise as ours', () => {
    const { cluster } = setup();
    expect(() =>
      cordonPatch(cluster.addNode('n'), { reason: 'x', taint: { key: 'other/t', effect: 'NoSchedule' } }, NOW),
    ).toThrow(/must start with/);
  });
});

describe('cordon and uncordon', () => {
  it('should cordon once and then find nothing to change', async () => {
    const { cluster, clock } = setup();
    cluster.addNode('n');
    const first = await cordon(cluster, 'n', { reason: 'rebalance' }, clock);
    const second = await cordon(cluster, 'n', { reason: 'rebalance' }, clock);
    expect(first).toMatchObject({ kind: 'cordoned', changed: true, ours: true });
    expect(second).toMatchObject({ kind: 'cordoned', changed: false, ours: true });
    expect(cluster.calls.filter((c) => c.op === 'patchNode')).toHaveLength(1);
  });

  it('should leave an operator’s cordon theirs, and then refuse to uncordon it', async () => {
    const { cluster, clock } = setup();
    cluster.addNode('n', { unschedulable: true });
    expect(await cordon(cluster, 'n', { reason: 'x' }, clock)).toMatchObject({
      kind: 'cordoned',
      changed: false,
      ours: false,
    });
    expect(await uncordon(cluster, 'n')).toEqual({ kind: 'not-ours' });
    expect(cluster.nodes.get('n')?.unschedulable).toBe(true);
  });

  it('should leave a cordon someone wrote after ours went theirs, taking only our leftover marks', async () => {
    const { cluster, clock } = setup();
    cluster.addNode('n');
    await cordon(cluster, 'n', { reason: 'rebalance' }, clock);
    const marked = cluster.nodes.get('n');
    if (!marked) throw new Error('no node');
    // The operator's uncordon and `kubectl cordon`: managedFields now name kubectl as the cordon's writer.
    cluster.nodes.set('n', { ...marked, cordonWriters: ['kubectl'] });
    expect(await uncordon(cluster, 'n')).toEqual({ kind: 'not-ours' });
    const after = cluster.nodes.get('n');
    expect(after?.unschedulable).toBe(true);
    expect(after?.annotations[CORDONED_BY_ANNOTATION]).toBeUndefined();
    expect(await cordon(cluster, 'n', { reason: 'again' }, clock)).toMatchObject({ changed: false, ours: false });
  });

  it('should undo everything our cordon added and nothing else', async () => {
    const { cluster, clock } = setup();
    const foreign = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' as const };
    cluster.addNode('n', { taints: [foreign], labels: { team: 'a' } });
    await cordon(
      cluster,
      'n',
      { reason: 'x', taint: { key: DRAIN_TAINT_KEY, effect: 'NoSchedule' }, excludeFromLoadBalancers: true },
      clock,
    );
    const result = await uncordon(cluster, 'n');
    expect(result).toMatchObject({ kind: 'uncordoned', changed: true });
    const node = cluster.nodes.get('n');
    expect(node).toMatchObject({ unschedulable: false, annotations: {}, labels: { team: 'a' }, taints: [foreign] });
  });

  it('should keep a load-balancer label someone else set', () => {
    const { cluster } = setup();
    const node = cluster.addNode('n', {
      unschedulable: true,
      annotations: { [CORDONED_BY_ANNOTATION]: 'ec2-node-reconciler' },
      labels: { [EXCLUDE_FROM_LB_LABEL]: 'true' },
    });
    expect(uncordonPatch(node)?.labels).toBeUndefined();
  });

  it('should report a missing node and a node re-registered under the same name', async () => {
    const { cluster, clock } = setup();
    expect(await cordon(cluster, 'nope', { reason: 'x' }, clock)).toEqual({ kind: 'not-found' });
    cluster.addNode('n');
    expect(await cordon(cluster, 'n', { reason: 'x', expectedUid: 'old' }, clock)).toEqual({
      kind: 'uid-mismatch',
      uid: 'node-uid-n',
    });
    expect(cluster.calls.some((c) => c.op === 'patchNode')).toBe(false);
  });

  it('should read again and retry after a conflict, but give up after five, as client-go’s DefaultRetry', async () => {
    const { cluster, clock } = setup();
    cluster.addNode('n');
    let conflicts = 1;
    cluster.failOn = (call) => (call.op === 'patchNode' && conflicts-- > 0 ? refusal(409, 'modified') : undefined);
    expect(await cordon(cluster, 'n', { reason: 'x' }, clock)).toMatchObject({ kind: 'cordoned', changed: true });

    cluster.addNode('m');
    cluster.failOn = (call) => (call.op === 'patchNode' ? refusal(409, 'modified') : undefined);
    await expect(cordon(cluster, 'm', { reason: 'x' }, clock)).rejects.toThrow('patching node m');
    expect(cluster.calls.filter((c) => c.op === 'patchNode' && c.name === 'm')).toHaveLength(5);
  });

  it('should read again and decide again after a patch the server failed, never sending it blind', async () => {
    const { cluster, clock } = setup();
    cluster.addNode('n');
    let failures = 2;
    cluster.failOn = (call) =>
      call.op === 'patchNode' && failures-- > 0 ? refusal(503, 'etcd leader changed') : undefined;

    expect(await cordon(cluster, 'n', { reason: 'x' }, clock)).toMatchObject({ kind: 'cordoned', changed: true });
    const ops = cluster.calls.filter((c) => c.name === 'n').map((c) => c.op);
    // Each attempt after a failure starts from a fresh read.
    expect(ops.filter((op) => op === 'patchNode')).toHaveLength(3);
    expect(ops.filter((op) => op === 'getNode').length).toBeGreaterThanOrEqual(3);
  });

  it('should not patch again a patch that applied though its answer was lost: the fresh read shows it', async () => {
    const { cluster, clock } = setup();
    cluster.addNode('n');
    // The server applies the patch, then its answer is lost.
    let lost = 1;
    const patchNode = cluster.patchNode.bind(cluster);
    cluster.patchNode = async (name: string, patch: NodePatch) => {
      const patched = await patchNode(name, patch);
      if (lost-- > 0) throw refusal(504, 'answer lost');
      return patched;
    };

    expect(await cordon(cluster, 'n', { reason: 'x' }, clock)).toMatchObject({ kind: 'cordoned', changed: false });
    expect(cluster.calls.filter((c) => c.op === 'patchNode' && c.name === 'n')).toHaveLength(1);
    expect((await cluster.getNode('n'))?.unschedulable).toBe(true);
  });

  it('should start from the observed node without reading it, guarding the patch with its uid and resourceVersion', async () => {
    const { cluster, clock } = setup();
    const observed = cluster.addNode('n');
    const sent: NodePatch[] = [];
    const patchNode = cluster.patchNode.bind(cluster);
    cluster.patchNode = (name: string, patch: NodePatch) => {
      sent.push(patch);
      return patchNode(name, patch);
    };

    expect(await cordon(cluster, 'n', { reason: 'x', expectedUid: observed.uid, observed }, clock)).toMatchObject({
      kind: 'cordoned',
      changed: true,
    });

    expect(cluster.calls.map((c) => c.op)).toEqual(['patchNode']);
    expect(sent[0]).toMatchObject({
      unschedulable: true,
      uid: observed.uid,
      resourceVersion: observed.resourceVersion,
    });
  });

  it('should not patch a node re-registered under the same name after it was read: the uid precondition refuses', async () => {
    const { cluster, clock } = setup();
    const read = cluster.addNode('n');
    // Same name and (by coincidence) the same resourceVersion: only the uid tells them apart.
    cluster.nodes.set('n', { ...read, uid: 'reborn' });

    const result = await cordon(cluster, 'n', { reason: 'x', expectedUid: read.uid, observed: read }, clock);

    expect(result).toEqual({ kind: 'uid-mismatch', uid: 'reborn' });
    expect(cluster.nodes.get('n')?.unschedulable).toBe(false);
  });

  it('should confirm "already cordoned" with a fresh read: the operator may have uncordoned since', async () => {
    const { cluster, clock } = setup();
    const observed = { ...cluster.addNode('n'), unschedulable: true };

    expect(await cordon(cluster, 'n', { reason: 'x', observed }, clock)).toMatchObject({
      kind: 'cordoned',
      changed: true,
      ours: true,
    });
    expect(cluster.calls.map((c) => c.op)).toEqual(['getNode', 'patchNode']);
  });

  it('should read again when the observed node changed since, and decide on what it finds', async () => {
    const { cluster, clock } = setup();
    const observed = cluster.addNode('n');
    // An operator cordons it after we looked: the fresh read shows their cordon, which stays theirs.
    await cluster.patchNode('n', { unschedulable: true });
    cluster.calls.length = 0;

    expect(await cordon(cluster, 'n', { reason: 'x', observed }, clock)).toMatchObject({
      kind: 'cordoned',
      changed: false,
      ours: false,
    });
    expect(cluster.calls.map((c) => c.op)).toEqual(['patchNode', 'getNode']);
  });

  it('should find nothing to do for an observed node deleted since', async () => {
    const { cluster, clock } = setup();
    const observed = cluster.addNode('n');
    cluster.nodes.delete('n');

    expect(await cordon(cluster, 'n', { reason: 'x', observed }, clock)).toEqual({ kind: 'not-found' });
  });
});

describe('uncordonForOperator', () => {
  const foreign = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' as const };

  it('should reverse the reconciler’s cordon with its marks, taint and label, keep the drain record, and say whose it was', async () => {
    const { cluster, clock } = setup();
    cluster.addNode('n', { taints: [foreign], labels: { team: 'a' }, annotations: { [DRAIN_ANNOTATION]: 'exec-1' } });
    await cordon(
      cluster,
      'n',
      { reason: 'spot', taint: { key: DRAIN_TAINT_KEY, effect: 'NoSchedule' }, excludeFromLoadBalancers: true },
      clock,
    );

    const result = await uncordonForOperator(cluster, 'n');

    expect(result).toEqual({
      kind: 'uncordoned',
      cordon: { owner: 'reconciler', reason: 'spot', at: '2026-01-01T12:00:00.000Z' },
      removedTaints: [DRAIN_TAINT_KEY],
      removedLabel: true,
      changed: true,
      drain: { execution: 'exec-1' },
    });
    expect(cluster.nodes.get('n')).toMatchObject({
      unschedulable: false,
      annotations: { [DRAIN_ANNOTATION]: 'exec-1' },
      labels: { team: 'a' },
      taints: [foreign],
    });
  });

  it('should make a cordon of ours the operator’s when they drain the node through the CLI (#27 H2): no sweep reverses it', async () => {
    const { cluster, clock } = setup();
    cluster.addNode('n');
    await cordon(cluster, 'n', { reason: 'maintenance', until: NOW + 3_600_000 }, clock);
    clock.advance(60_000);

    const taken = await cordon(cluster, 'n', { reason: 'manual drain', by: 'operator' }, clock);

    expect(taken).toMatchObject({ kind: 'cordoned', changed: true, ours: false });
    const node = cluster.nodes.get('n');
    expect(node?.unschedulable).toBe(true);
    expect(cordonOwner(node ?? { annotations: {} })).toBe('operator-cli');
    expect(node?.annotations[CORDON_REASON_ANNOTATION]).toBe('manual drain');
    // The maintenance hold was ours; the operator's cordon has no end.
    expect(node?.annotations[CORDON_UNTIL_ANNOTATION]).toBeUndefined();
    expect(node !== undefined && isCordonedByReconciler(node)).toBe(false);
    // Theirs now: asked again, nothing changes.
    expect(await cordon(cluster, 'n', { reason: 'manual drain', by: 'operator' }, clock)).toMatchObject({
      changed: false,
      ours: false,
    });
  });

  it('should leave a cordon someone else wrote theirs when the operator drains through the CLI', async () => {
    const { cluster, clock } = setup();
    cluster.addNode('n', { unschedulable: true });
    expect(await cordon(cluster, 'n', { reason: 'manual drain', by: 'operator' }, clock)).toMatchObject({
      changed: false,
      ours: false,
    });
    expect(cordonOwner(cluster.nodes.get('n') ?? { annotations: {} })).toBe('other');
  });

  it('should reverse an operator’s cordon, made by hand or through the CLI, and say which', async () => {
    const { cluster, clock } = setup();
    cluster.addNode('kubectl', { unschedulable: true });
    cluster.addNode('cli');
    await cordon(cluster, 'cli', { reason: 'manual drain', by: 'operator' }, clock);

    expect(await uncordonForOperator(cluster, 'kubectl')).toMatchObject({
      kind: 'uncordoned',
      cordon: { owner: 'other' },
    });
    expect(await uncordonForOperator(cluster, 'cli')).toMatchObject({
      kind: 'uncordoned',
      cordon: { owner: 'operator-cli', reason: 'manual drain' },
    });
    expect(cluster.nodes.get('kubectl')?.unschedulable).toBe(false);
    expect(cluster.nodes.get('cli')).toMatchObject({ unschedulable: false, annotations: {} });
  });

  it('should change nothing on a schedulable node, yet clear a taint of ours left behind', async () => {
    const { cluster } = setup();
    cluster.addNode('clean');
    cluster.addNode('left', { taints: [foreign, { key: DRAIN_TAINT_KEY, effect: 'NoSchedule' }] });

    expect(await uncordonForOperator(cluster, 'clean')).toEqual({
      kind: 'already-schedulable',
      removedTaints: [],
      removedLabel: false,
      changed: false,
    });
    expect(await uncordonForOperator(cluster, 'left')).toMatchObject({
      kind: 'already-schedulable',
      removedTaints: [DRAIN_TAINT_KEY],
      changed: true,
    });
    expect(cluster.nodes.get('left')?.taints).toEqual([foreign]);
    expect(cluster.calls.filter((c) => c.op === 'patchNode').map((c) => c.name)).toEqual(['left']);
  });

  it('should guard its patch with the uid and resourceVersion it decided on, and report a missing node', async () => {
    const { cluster } = setup();
    const node = cluster.addNode('n', { unschedulable: true });
    expect(operatorUncordonPatch(node)).toEqual({ unschedulable: null });
    let racing = true;
    // Someone else changes the node between the read and the patch: the guarded patch conflicts, is decided again.
    cluster.failOn = (call) => {
      if (call.op !== 'patchNode' || !racing) return undefined;
      racing = false;
      cluster.addNode('n', { ...node, resourceVersion: '99', labels: { changed: 'yes' } });
      return undefined;
    };
    expect(await uncordonForOperator(cluster, 'n')).toMatchObject({ kind: 'uncordoned', changed: true });
    expect(cluster.calls.filter((c) => c.op === 'getNode')).toHaveLength(2);
    expect(await uncordonForOperator(cluster, 'nope')).toEqual({ kind: 'not-found' });
  });
});
