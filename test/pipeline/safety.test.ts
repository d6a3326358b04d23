// The safety rails of docs/design.md §4 end to end: a wrong delete is the worst failure, so each rail is
// shown holding against the real adapters, the emulators and the shipped RBAC.
import { describe, expect, it } from 'vitest';
import { formatRunReport } from '../../cli/format/report.js';
import { EXCLUDE_KEY } from '@ec2-node-reconciler/model/contract/labels.js';
import type { ReconcilerDeps } from '../../lib/pipeline/deps.js';
import {
  ASG,
  awsWrites,
  CLUSTER,
  drainExecutions,
  instanceId,
  kubeWrites,
  MINUTE,
  nodeEvents,
  nodeName,
  outputEvents,
  pairs,
  usePipelineWorld,
  conditionCounts,
  type PipelineWorld,
} from '../support/pipeline-world.js';

let world: PipelineWorld;
usePipelineWorld((w) => (world = w));

const counts = conditionCounts;

/**
 * A new machine took the old one's private IP, so its kubelet registers a Node of the same name:
 * the old Node object is gone, a live one (new uid, new providerID) stands in its place.
 */
function reRegisterUnderSameName(name: string, newInstance: number): void {
  world.seedInstance(newInstance, { privateDnsName: name });
  world.kube.store.delete(world.kube.store.resource('nodes'), undefined, name);
  world.seedNode(newInstance, { name, createdAt: world.clock.now() });
}

/** Runs `interleave` once, just before the first call of the wrapped act-time read or write. */
function once(interleave: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    interleave();
  };
}

describe('the uid race', () => {
  it('should not delete a node re-registered under the same name between observe and act', async () => {
    pairs.staleTerminated(world, 2);
    const observedUid = world.kube.store.getNode(nodeName(2))?.metadata.uid;
    const race = once(() => reRegisterUnderSameName(nodeName(2), 20));
    const wrap = (deps: ReconcilerDeps): ReconcilerDeps => ({
      ...deps,
      nodes: {
        listNodes: () => deps.nodes.listNodes(),
        deleteNode: (name, preconditions) => {
          race();
          return deps.nodes.deleteNode(name, preconditions);
        },
      },
    });

    const report = await world.sweep({ wrap });

    const survivor = world.kube.store.getNode(nodeName(2));
    expect(survivor?.metadata.uid).not.toBe(observedUid);
    expect(survivor?.spec?.providerID).toBe(`aws:///us-east-1a/${instanceId(20)}`);
    expect(world.kube.requestLog.filter({ verb: 'delete', resource: 'nodes' }).map((e) => e.status)).toEqual([409]);
    expect(report.actions).toEqual([
      expect.objectContaining({
        kind: 'delete',
        node: nodeName(2),
        outcome: 'moot',
        detail: expect.stringContaining('node changed since it was observed') as unknown,
      }),
    ]);
    expect(report.errors).toEqual([]);
    expect(outputEvents(world)).toEqual([]);
    // Said on the Node as observed (its old uid), so it does not show on the live one.
    expect(nodeEvents(world)).toEqual([
      expect.objectContaining({
        node: nodeName(2),
        uid: observedUid,
        reason: 'NodeDeleted',
        type: 'Warning',
        message: expect.stringMatching(/^delete moot: node changed since it was observed/) as unknown,
      }),
    ]);
  });

  it('should not cordon a node re-registered under the same name between observe and act', async () => {
    pairs.decommissionTagged(world, 3);
    const race = once(() => reRegisterUnderSameName(nodeName(3), 30));
    // The cordon starts from the observed node and patches it directly: the race lands just before.
    const wrap = (deps: ReconcilerDeps): ReconcilerDeps => ({
      ...deps,
      drainApi: {
        ...deps.drainApi,
        patchNode: (name, patch) => {
          race();
          return deps.drainApi.patchNode(name, patch);
        },
      },
    });

    const report = await world.sweep({ wrap });

    expect(world.kube.store.getNode(nodeName(3))?.spec?.unschedulable).not.toBe(true);
    // The patch carried the observed resourceVersion: the new node refused it, and a fresh read found another uid.
    const patches = world.kube.requestLog.entries.filter((e) => e.verb === 'patch' && e.resource === 'nodes');
    expect(patches.map((e) => e.status)).toEqual([409]);
    expect(report.actions[0]).toEqual(
      expect.objectContaining({
        kind: 'cordon',
        outcome: 'moot',
        detail: 'node was re-registered under the same name',
      }),
    );
    // Nothing more is tried on a node found re-registered: no drain starts for the new one.
    expect(report.actions[1]).toEqual(
      expect.objectContaining({ kind: 'drain', outcome: 'moot', detail: 'node was re-registered under the same name' }),
    );
    expect(drainExecutions(world)).toEqual([]);
  });

  it('should cordon from the observed node, and read it again only when it changed since', async () => {
    pairs.decommissionTagged(world, 3);
    pairs.decommissionTagged(world, 4);
    // Someone labels node 4 after the sweep listed it: its observed resourceVersion is stale.
    const wrap = (deps: ReconcilerDeps): ReconcilerDeps => ({
      ...deps,
      drainApi: {
        ...deps.drainApi,
        patchNode: (name, patch) => {
          if (name === nodeName(4) && patch.unschedulable)
            world.kube.store.patch(
              world.kube.store.resource('nodes'),
              undefined,
              nodeName(4),
              'application/merge-patch+json',
              { metadata: { labels: { team: 'a' } } },
            );
          return deps.drainApi.patchNode(name, patch);
        },
      },
    });

    const report = await world.sweep({ wrap });

    for (const n of [3, 4]) expect(world.kube.store.getNode(nodeName(n))?.spec?.unschedulable).toBe(true);
    expect(world.kube.store.getNode(nodeName(4))?.metadata.labels?.['team']).toBe('a');
    const nodeRequests = world.kube.requestLog.entries.filter((e) => e.resource === 'nodes' && e.verb !== 'list');
    expect(nodeRequests.map((e) => `${e.verb} ${e.name ?? ''} ${e.status}`)).toEqual([
      `patch ${nodeName(3)} 200`,
      `patch ${nodeName(4)} 409`,
      `get ${nodeName(4)} 200`,
      `patch ${nodeName(4)} 200`,
    ]);
    expect(report.actions.filter((a) => a.kind === 'cordon').map((a) => a.outcome)).toEqual(['done', 'done']);
  });
});

describe('the circuit breaker', () => {
  it('should delete nothing when a sweep would delete more nodes than allowed, and raise Divergence Detected', async () => {
    for (let n = 1; n <= 48; n++) pairs.inSync(world, n);
    for (let n = 101; n <= 112; n++) pairs.staleTerminated(world, n);

    const report = await world.sweep();

    expect(report.conditions).toEqual(counts({ 'in-sync': 48, 'stale-object': 12 }));
    // 60 nodes: 20 % allows 12, maxDeletions allows 10.
    expect(report.breaker).toEqual({
      wouldDelete: 12,
      allowed: 10,
      reason: expect.stringContaining('circuit breaker') as unknown,
    });
    // It says how to get out: the dry run that lists them under limits that let them through, then the same sweep for real.
    expect(report.breaker?.reason).toContain(
      '`ec2-node-reconciler sweep --dry-run --max-deletions 12 --max-deletion-percent 100`',
    );
    expect(formatRunReport(report)).toContain('CIRCUIT BREAKER  12 deletions planned, at most 10 allowed');
    expect(report.skipped.filter((s) => s.kind === 'delete')).toHaveLength(12);
    expect(world.kube.requestLog.filter({ verb: 'delete' })).toEqual([]);
    expect(world.kube.store.listNodes()).toHaveLength(60);
    // Each Node held back is told why it is still there.
    expect(nodeEvents(world).map((e) => `${e.reason} ${e.type} ${e.node}`)).toEqual(
      Array.from({ length: 12 }, (_, i) => `CircuitBreakerTripped Warning ${nodeName(101 + i)}`),
    );
    expect(outputEvents(world)).toEqual([
      expect.objectContaining({
        detailType: 'Divergence Detected',
        detail: expect.objectContaining({
          cluster: CLUSTER,
          condition: 'stale-object',
          reason: report.breaker?.reason,
        }) as unknown,
      }),
    ]);
    expect(report.errors).toEqual([]);
  });

  it('should let a run within the allowance delete', async () => {
    for (let n = 1; n <= 48; n++) pairs.inSync(world, n);
    for (let n = 101; n <= 110; n++) pairs.staleTerminated(world, n);

    const report = await world.sweep();

    expect(report.breaker).toBeUndefined();
    expect(world.kube.requestLog.filter({ verb: 'delete', resource: 'nodes' })).toHaveLength(10);
    expect(outputEvents(world).filter((e) => e.detailType === 'Node Deleted')).toHaveLength(10);
  });
});

describe('dryRun', () => {
  it('should plan and report every remedy but mutate nothing in Kubernetes or AWS', async () => {
    pairs.staleTerminated(world, 1);
    pairs.asgTerminatingWait(world, 2);
    pairs.stopped(world, 3);
    pairs.unresponsive(world, 4);
    pairs.unregistered(world, 5);
    world.seedInstance(6, {
      autoScaling: { group: ASG, lifecycleState: 'Terminating:Wait', hook: 'ec2-node-reconciler-drain' },
    });
    // Healthy machines enough that the repair rails' cluster share (docs/design.md §4: stand down while more
    // than repair.maxUnhealthyPercent of the whole cluster is unhealthy) lets the mark-unhealthy through.
    for (let n = 11; n <= 30; n++) pairs.inSync(world, n);

    const report = await world.sweep({ settings: { dryRun: true, markUnregisteredUnhealthy: true } });

    expect(report.dryRun).toBe(true);
    expect(report.conditions).toEqual(
      counts({
        'in-sync': 20,
        'stale-object': 1,
        'slated-for-removal': 2,
        'stopped-machine': 1,
        'unresponsive-machine': 1,
        'unregistered-machine': 1,
      }),
    );
    expect(
      report.actions
        .filter((a) => a.kind !== 'report')
        .map((a) => `${a.kind} ${a.outcome}`)
        .sort(),
    ).toEqual([
      'complete-lifecycle dry-run',
      'cordon dry-run',
      'delete dry-run',
      'drain dry-run',
      'mark-unhealthy dry-run',
      'taint-shutdown dry-run',
    ]);
    expect(kubeWrites(world)).toEqual([]);
    expect(world.kube.requestLog.entries.filter((e) => e.method !== 'GET')).toEqual([]);
    expect(awsWrites(world)).toEqual([]);
    expect(world.aws.state.stepFunctions.executions()).toEqual([]);
    expect(world.aws.state.autoScaling.completions).toEqual([]);
    expect(world.aws.state.autoScaling.healthChanges).toEqual([]);
    expect(outputEvents(world)).toEqual([]);
  });
});

describe('the exclude opt-out', () => {
  it('should not delete a stale node labelled exclude', async () => {
    pairs.staleTerminated(world, 1, { node: { labels: { [EXCLUDE_KEY]: 'true' } } });

    const report = await world.sweep();

    expect(world.kube.store.getNode(nodeName(1))).toBeDefined();
    expect(report.skipped).toEqual([
      {
        kind: 'delete',
        node: nodeName(1),
        instanceId: instanceId(1),
        reason: `excluded by node label ${EXCLUDE_KEY}=true`,
      },
    ]);
    expect(kubeWrites(world)).toEqual([]);
  });

  it('should not cordon or drain a slated machine whose instance is tagged exclude, and say so on the node', async () => {
    world.seedInstance(2, {
      tags: { 'eks:cluster-name': CLUSTER, 'ec2-node-reconciler/decommission': 'x', [EXCLUDE_KEY]: 'true' },
    });
    world.seedNode(2);

    const report = await world.sweep();

    expect(world.kube.store.getNode(nodeName(2))?.spec?.unschedulable).not.toBe(true);
    expect(drainExecutions(world)).toEqual([]);
    expect(report.skipped).toEqual([
      expect.objectContaining({
        kind: 'drain',
        node: nodeName(2),
        reason: `excluded by instance tag ${EXCLUDE_KEY}=true`,
      }),
    ]);
    expect(nodeEvents(world).map((e) => `${e.reason} ${e.type}`)).toEqual(['ExcludedFromRemoval Warning']);
  });
});

describe('EC2 eventual consistency', () => {
  it('should not delete a young node whose new instance EC2 does not return yet, and find them in sync once it does', async () => {
    world.seedInstance(7, { launchedAgo: '1m', visibleAfter: '3m' });
    world.seedNode(7, { createdAt: world.clock.now() - 30_000 });

    const early = await world.sweep();

    expect(early.conditions).toEqual(counts({ unknown: 1 }));
    expect(early.rows[0]?.reason).toContain('younger than notFoundGrace');
    expect(world.kube.store.getNode(nodeName(7))).toBeDefined();
    expect(kubeWrites(world)).toEqual(['create events']);

    world.clock.advance(3 * MINUTE);
    const later = await world.sweep();

    expect(later.conditions).toEqual(counts({ 'in-sync': 1 }));
    expect(later.actions).toEqual([]);
  });
});
