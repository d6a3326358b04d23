import { describe, expect, it } from 'vitest';
import { decide } from '../../lib/pipeline/decide.js';
import type { Action, Plan } from '@ec2-node-reconciler/model/action.js';
import type { Observation } from '@ec2-node-reconciler/model/observation.js';
import type { Signal } from '@ec2-node-reconciler/model/signal.js';
import type { Settings } from '@ec2-node-reconciler/model/contract/settings.js';
import {
  aNode,
  anInstance,
  anObservation,
  aSignal,
  CLUSTER,
  REGION,
  clockAt,
  HOUR,
  MINUTE,
  NOW,
  settings,
} from '../support/world.js';

function planFor(observation: Observation, signals: Signal[] = [], over: Partial<Settings> = {}): Plan {
  return decide(observation, signals, {
    settings: settings(over),
    clock: clockAt(),
    clusterName: CLUSTER,
    region: REGION,
  }).plan;
}
const kinds = (p: Plan): Action['kind'][] => p.actions.map((a) => a.kind);
const stale = (n: number, over: Parameters<typeof aNode>[1] = {}) =>
  aNode(n, { readyHeartbeatAt: NOW - HOUR, ready: 'Unknown', ...over });
const staleLease = (n: number) => ({ nodeName: aNode(n).name, renewTime: NOW - HOUR });
const ours = (at: number) => ({
  'ec2-node-reconciler/cordoned-by': 'ec2-node-reconciler',
  'ec2-node-reconciler/reason': 'rebalance',
  'ec2-node-reconciler/at': new Date(at).toISOString(),
});

describe('plan', () => {
  it('should delete a stale object with its uid and resourceVersion as preconditions', () => {
    const result = planFor(
      anObservation({
        nodes: [stale(1)],
        instances: [anInstance(1, { state: 'terminated' })],
        leases: [staleLease(1)],
      }),
    );
    expect(result.actions).toEqual([
      expect.objectContaining({ kind: 'delete', node: aNode(1).name, uid: 'uid-1', resourceVersion: '101' }),
    ]);
  });

  it('should not delete a stale object younger than minNodeAge', () => {
    const result = planFor(
      anObservation({
        nodes: [stale(1, { createdAt: NOW - 5 * MINUTE })],
        instances: [anInstance(1, { state: 'terminated' })],
        leases: [staleLease(1)],
      }),
    );
    expect(kinds(result)).toEqual([]);
    expect(result.skipped).toEqual([
      expect.objectContaining({ kind: 'delete', reason: expect.stringMatching(/minNodeAge/) as string }),
    ]);
  });

  it('should not delete a node whose machine is terminated while its heartbeat is fresh', () => {
    const result = planFor(anObservation({ nodes: [aNode(1)], instances: [anInstance(1, { state: 'terminated' })] }));
    expect(kinds(result)).toEqual(['report']);
  });

  it('should hold back the delete of a machine that just went until heartbeatGrace has passed', () => {
    const justWent = { nodeName: aNode(1).name, renewTime: NOW - 60_000 };
    const result = planFor(
      anObservation({
        nodes: [aNode(1, { readyHeartbeatAt: NOW - 60_000 })],
        instances: [anInstance(1, { state: 'terminated' })],
        leases: [justWent],
      }),
    );
    expect(kinds(result)).toEqual([]);
    expect(result.skipped).toEqual([
      expect.objectContaining({ kind: 'delete', reason: expect.stringMatching(/heartbeatGrace/) as string }),
    ]);
  });

  it('should not delete an excluded node, and say why', () => {
    const node = stale(1, { labels: { 'ec2-node-reconciler/exclude': 'true' } });
    const result = planFor(
      anObservation({ nodes: [node], instances: [anInstance(1, { state: 'terminated' })], leases: [staleLease(1)] }),
    );
    expect(kinds(result)).toEqual([]);
    expect(result.skipped[0]?.reason).toMatch(/excluded by node label/);
  });

  it('should honour the exclude tag on the instance', () => {
    const instance = anInstance(1, { tags: { 'eks:cluster-name': CLUSTER, 'ec2-node-reconciler/exclude': 'true' } });
    const result = planFor(anObservation({ nodes: [aNode(1)], instances: [instance] }), [
      aSignal('spot-interruption', 1),
    ]);
    expect(kinds(result)).toEqual(['report']);
    expect(result.skipped[0]?.reason).toMatch(/excluded by instance tag/);
  });

  it.each(['', 'yes', 'False', 'TRUE'])('should not honour exclude=%j (only true excludes), and report it', (value) => {
    const node = stale(1, { labels: { 'ec2-node-reconciler/exclude': value } });
    const result = planFor(
      anObservation({ nodes: [node], instances: [anInstance(1, { state: 'terminated' })], leases: [staleLease(1)] }),
    );
    expect(kinds(result)).toEqual(['delete']);
    expect(result.skipped.map((s) => `${s.kind}: ${s.reason}`)).toEqual([
      expect.stringMatching(
        /^report: node label ec2-node-reconciler\/exclude=".*" is not honoured: only "true" excludes/,
      ),
    ]);
  });

  it('should treat exclude=false as not excluded', () => {
    const node = stale(1, { labels: { 'ec2-node-reconciler/exclude': 'false' } });
    const result = planFor(
      anObservation({ nodes: [node], instances: [anInstance(1, { state: 'terminated' })], leases: [staleLease(1)] }),
    );
    expect(kinds(result)).toEqual(['delete']);
  });

  it('should trip the breaker when deletions exceed maxDeletions, deleting none', () => {
    const nodes = Array.from({ length: 12 }, (_, i) => stale(i + 1));
    const live = Array.from({ length: 100 }, (_, i) => aNode(i + 100));
    const world = anObservation({
      nodes: [...nodes, ...live],
      instances: [
        ...nodes.map((_, i) => anInstance(i + 1, { state: 'terminated' })),
        ...live.map((_, i) => anInstance(i + 100)),
      ],
      leases: [...nodes.map((_, i) => staleLease(i + 1)), ...live.map((n) => ({ nodeName: n.name, renewTime: NOW }))],
    });
    const result = planFor(world);
    expect(kinds(result)).not.toContain('delete');
    expect(result.breaker).toEqual(expect.objectContaining({ wouldDelete: 12, allowed: 10 }));
    expect(result.skipped.filter((s) => s.kind === 'delete')).toHaveLength(12);
  });

  it('should trip the breaker on maxDeletionPercent of the cluster', () => {
    const world = anObservation({
      nodes: [stale(1), stale(2), aNode(3), aNode(4), aNode(5)],
      instances: [
        anInstance(1, { state: 'terminated' }),
        anInstance(2, { state: 'terminated' }),
        anInstance(3),
        anInstance(4),
        anInstance(5),
      ],
      leases: [
        staleLease(1),
        staleLease(2),
        { nodeName: aNode(3).name, renewTime: NOW },
        { nodeName: aNode(4).name, renewTime: NOW },
        { nodeName: aNode(5).name, renewTime: NOW },
      ],
    });
    expect(planFor(world).breaker?.allowed).toBe(1);
    expect(kinds(planFor(world, [], { maxDeletionPercent: 40 }))).toEqual(['delete', 'delete']);
  });

  it('should always allow one deletion in a small cluster', () => {
    const world = anObservation({
      nodes: [stale(1), aNode(2)],
      instances: [anInstance(1, { state: 'terminated' }), anInstance(2)],
      leases: [staleLease(1)],
    });
    expect(kinds(planFor(world))).toEqual(['delete']);
  });

  it('should cordon and drain on a spot interruption, with the signal deadline and cause', () => {
    const result = planFor(anObservation({ nodes: [aNode(1)], instances: [anInstance(1)] }), [
      aSignal('spot-interruption', 1, { deadline: NOW + 2 * MINUTE }),
    ]);
    expect(kinds(result)).toEqual(['cordon', 'drain']);
    expect(result.actions[1]).toEqual(
      expect.objectContaining({ deadline: NOW + 2 * MINUTE, cause: 'evt-spot-interruption-1' }),
    );
  });

  it('should drain an already cordoned node without cordoning it again', () => {
    const result = planFor(anObservation({ nodes: [aNode(1, { unschedulable: true })], instances: [anInstance(1)] }), [
      aSignal('spot-interruption', 1),
    ]);
    expect(kinds(result)).toEqual(['drain']);
  });

  it('should only cordon on a rebalance under policy cordon', () => {
    expect(
      kinds(
        planFor(anObservation({ nodes: [aNode(1)], instances: [anInstance(1)] }), [
          aSignal('rebalance-recommendation', 1),
        ]),
      ),
    ).toEqual(['cordon']);
  });

  it('should give a drain without a signal deadline the drainTimeout', () => {
    const result = planFor(
      anObservation({ nodes: [aNode(1)], instances: [anInstance(1, { state: 'shutting-down' })] }),
    );
    expect(result.actions.find((a) => a.kind === 'drain')).toEqual(
      expect.objectContaining({ deadline: NOW + 15 * MINUTE, cause: 'sweep-202611291200' }),
    );
  });

  it('should hand the lifecycle action to the drain', () => {
    const lifecycle = { group: 'ng-a', hook: 'drain-hook', token: 'tok' };
    const result = planFor(anObservation({ nodes: [aNode(1)], instances: [anInstance(1)], scope: 'event' }), [
      aSignal('asg-terminate-lifecycle-action', 1, { lifecycle }),
    ]);
    expect(result.actions.find((a) => a.kind === 'drain')).toEqual(expect.objectContaining({ lifecycle }));
  });

  it('should complete the lifecycle action at once for a terminating machine with no node', () => {
    const lifecycle = { group: 'ng-a', hook: 'drain-hook', token: 'tok' };
    const result = planFor(anObservation({ instances: [anInstance(1)], scope: 'event' }), [
      aSignal('asg-terminate-lifecycle-action', 1, { lifecycle }),
    ]);
    expect(result.actions).toEqual([
      expect.objectContaining({ kind: 'complete-lifecycle', lifecycle, result: 'CONTINUE' }),
    ]);
  });

  describe('a stopped machine its group terminates (a warm pool member terminated out of the pool)', () => {
    const lifecycle = { group: 'ng-a', hook: 'drain-hook', token: 'tok' };
    const stopped = (over: Parameters<typeof anInstance>[1] = {}) => anInstance(1, { state: 'stopped', ...over });
    const terminating = [aSignal('asg-terminate-lifecycle-action', 1, { lifecycle })];

    it('should complete the action at once, with no drain and no cordon, and taint the Node it left', () => {
      const result = planFor(anObservation({ nodes: [aNode(1)], instances: [stopped()], scope: 'event' }), terminating);
      expect(kinds(result).sort()).toEqual(['complete-lifecycle', 'taint-shutdown']);
      expect(result.actions.find((a) => a.kind === 'complete-lifecycle')).toEqual(
        expect.objectContaining({ lifecycle, result: 'CONTINUE', node: aNode(1).name, nodeUid: 'uid-1' }),
      );
    });

    it('should complete it for a stopped machine with no Node, and for an excluded Node (nothing is drained either way)', () => {
      const nodeless = planFor(anObservation({ instances: [stopped()], scope: 'event' }), terminating);
      expect(kinds(nodeless)).toEqual(['complete-lifecycle']);
      const excluded = aNode(1, { labels: { 'ec2-node-reconciler/exclude': 'true' } });
      const result = planFor(anObservation({ nodes: [excluded], instances: [stopped()], scope: 'event' }), terminating);
      expect(kinds(result)).toEqual(['complete-lifecycle']);
    });

    it('should leave the action alone for an instance that is not ours, or when a lookup about it failed', () => {
      // Untagged, and no Node of ours names it.
      const foreign = planFor(anObservation({ instances: [stopped({ tags: {} })], scope: 'event' }), terminating);
      expect(kinds(foreign)).not.toContain('complete-lifecycle');
      const blind = stopped({
        autoScaling: { group: 'ng-a', lifecycleState: 'Warmed:Terminating:Wait', terminateHook: 'drain-hook' },
        enrichmentErrors: ['describing scheduled events: throttled'],
      });
      const result = planFor(anObservation({ nodes: [aNode(1)], instances: [blind] }));
      expect(kinds(result)).not.toContain('complete-lifecycle');
      expect(result.skipped).toContainEqual(expect.objectContaining({ kind: 'complete-lifecycle' }));
    });
  });

  describe('a removal whose drain has ended, and a later signal of the machine', () => {
    const lifecycle = { group: 'ng-a', hook: 'drain-hook', token: 'tok' };
    /** Node 1 as its spot warning's drain left it: recorded at NOW - 2m, ended with `outcome`. */
    const drained = (outcome: string, unschedulable = true) =>
      aNode(1, {
        unschedulable,
        annotations: {
          'ec2-node-reconciler/drain': 'demo-i-1-evt-spot',
          'ec2-node-reconciler/drain-at': new Date(NOW - 2 * MINUTE).toISOString(),
          'ec2-node-reconciler/drain-for': 'removal',
          'ec2-node-reconciler/drain-outcome': outcome,
        },
      });
    const later = [
      aSignal('spot-interruption', 1, { observedAt: NOW - 2 * MINUTE, eventId: 'evt-spot' }),
      aSignal('asg-terminate-lifecycle-action', 1, { observedAt: NOW - MINUTE, eventId: 'evt-reclaim', lifecycle }),
      aSignal('state-change', 1, { observedAt: NOW - 30_000, eventId: 'evt-shutting-down', state: 'shutting-down' }),
    ];

    it('should not drain again a node its drain left drained and cordoned, and complete the lifecycle action at once, telling the Node', () => {
      const result = planFor(
        anObservation({ nodes: [drained('done')], instances: [anInstance(1)], scope: 'event' }),
        later,
      );
      expect(result.actions).toEqual([
        expect.objectContaining({
          kind: 'complete-lifecycle',
          lifecycle,
          result: 'CONTINUE',
          node: aNode(1).name,
          nodeUid: 'uid-1',
        }),
      ]);
      expect(result.skipped).toEqual([
        expect.objectContaining({ kind: 'drain', reason: expect.stringMatching(/already had its drain/) as string }),
      ]);
    });

    it('should drain again, named after the newest signal, when the drain left pods or the node was uncordoned since', () => {
      for (const node of [drained('incomplete'), drained('done', false)]) {
        const result = planFor(anObservation({ nodes: [node], instances: [anInstance(1)], scope: 'event' }), later);
        const drain = result.actions.find((a) => a.kind === 'drain');
        expect(drain, node.annotations['ec2-node-reconciler/drain-outcome']).toEqual(
          expect.objectContaining({ mode: 'start', cause: 'evt-shutting-down', replaces: 'demo-i-1-evt-spot' }),
        );
      }
    });
  });

  it('should taint a stopped machine once, never delete it', () => {
    const world = anObservation({
      nodes: [stale(1)],
      instances: [anInstance(1, { state: 'stopped' })],
      leases: [staleLease(1)],
    });
    expect(kinds(planFor(world))).toEqual(['taint-shutdown']);
    const tainted = anObservation({
      nodes: [stale(1, { taints: [{ key: 'node.cloudprovider.kubernetes.io/shutdown', effect: 'NoSchedule' }] })],
      instances: [anInstance(1, { state: 'stopped' })],
      leases: [staleLease(1)],
    });
    expect(kinds(planFor(tainted))).toEqual([]);
  });

  it('should remove the shutdown taint when the machine runs again', () => {
    const world = anObservation({
      nodes: [aNode(1, { taints: [{ key: 'node.cloudprovider.kubernetes.io/shutdown', effect: 'NoSchedule' }] })],
      instances: [anInstance(1)],
    });
    expect(kinds(planFor(world))).toEqual(['remove-shutdown-taint']);
  });

  it('should uncordon its own cordon after uncordonAfter, and not before', () => {
    const old = anObservation({
      nodes: [aNode(1, { unschedulable: true, annotations: ours(NOW - 31 * MINUTE) })],
      instances: [anInstance(1)],
    });
    expect(kinds(planFor(old))).toEqual(['uncordon-own']);
    const recent = anObservation({
      nodes: [aNode(1, { unschedulable: true, annotations: ours(NOW - 5 * MINUTE) })],
      instances: [anInstance(1)],
    });
    expect(kinds(planFor(recent))).toEqual([]);
  });

  it('should release its cordon at once on a machine started since (a spot stop and start), once its node is Ready', () => {
    const started = NOW - 2 * MINUTE;
    const world = anObservation({
      nodes: [aNode(1, { unschedulable: true, annotations: ours(NOW - 8 * MINUTE), readyHeartbeatAt: NOW - 5_000 })],
      instances: [anInstance(1, { launchedAt: started })],
    });
    const result = planFor(world);
    expect(kinds(result)).toEqual(['uncordon-own']);
    expect(result.actions[0]?.reason).toMatch(/started again/);
  });

  it('should keep its cordon on a machine started since until its kubelet of the new life reports Ready', () => {
    const started = NOW - 30_000;
    const notYet = anObservation({
      nodes: [
        aNode(1, { unschedulable: true, annotations: ours(NOW - 10 * MINUTE), readyHeartbeatAt: started - 1_000 }),
      ],
      instances: [anInstance(1, { launchedAt: started })],
      leases: [{ nodeName: aNode(1).name, renewTime: started - 1_000 }],
    });
    const result = planFor(notYet);
    expect(kinds(result)).toEqual([]);
    expect(result.skipped).toEqual([
      expect.objectContaining({ kind: 'uncordon-own', reason: expect.stringMatching(/started again/) as string }),
    ]);
    const notReady = anObservation({
      nodes: [aNode(1, { unschedulable: true, annotations: ours(NOW - 40 * MINUTE), ready: 'False' })],
      instances: [anInstance(1, { launchedAt: started })],
    });
    expect(kinds(planFor(notReady))).not.toContain('uncordon-own');
  });

  it('should take a cordon someone wrote after ours went for theirs (managedFields), and drop our leftover marks', () => {
    const recordoned = anObservation({
      nodes: [aNode(1, { unschedulable: true, cordonWriters: ['kubectl'], annotations: ours(NOW - 45 * MINUTE) })],
      instances: [anInstance(1)],
    });
    const result = planFor(recordoned);
    expect(kinds(result)).toEqual(['forget-drain']);
    expect(result.actions[0]?.reason).toMatch(/cordoned again by kubectl/);
    const stillOurs = anObservation({
      nodes: [
        aNode(1, { unschedulable: true, cordonWriters: ['ec2-node-reconciler'], annotations: ours(NOW - 45 * MINUTE) }),
      ],
      instances: [anInstance(1)],
    });
    expect(kinds(planFor(stillOurs))).toEqual(['uncordon-own']);
    // No positive evidence of another writer: managedFields reset (nobody owns the field), or our entry
    // merged into the server's bucket past its cap of ten managers. Our mark says.
    for (const cordonWriters of [[], ['ancient-changes']]) {
      const anonymous = anObservation({
        nodes: [aNode(1, { unschedulable: true, cordonWriters, annotations: ours(NOW - 45 * MINUTE) })],
        instances: [anInstance(1)],
      });
      expect(kinds(planFor(anonymous))).toEqual(['uncordon-own']);
    }
    // A cordon someone asserts beside ours (a server-side apply) is theirs too.
    const coOwned = anObservation({
      nodes: [
        aNode(1, {
          unschedulable: true,
          cordonWriters: ['ec2-node-reconciler', 'flux'],
          annotations: ours(NOW - 45 * MINUTE),
        }),
      ],
      instances: [anInstance(1)],
    });
    expect(kinds(planFor(coOwned))).not.toContain('uncordon-own');
  });

  it('should never uncordon an operator cordon', () => {
    const world = anObservation({ nodes: [aNode(1, { unschedulable: true })], instances: [anInstance(1)] });
    expect(kinds(planFor(world))).toEqual([]);
  });

  it('should report divergences without acting', () => {
    const world = anObservation({
      nodes: [aNode(1, { ready: 'False' }), aNode(2, { providerID: 'aws:///us-east-1a/i-zzz' })],
      instances: [anInstance(1), anInstance(3, { launchedAt: NOW - HOUR })],
    });
    const result = planFor(world);
    expect(result.actions.map((a) => (a.kind === 'report' ? a.condition : a.kind))).toEqual([
      'unresponsive-machine',
      'unknown',
      'unregistered-machine',
    ]);
  });

  it('should mark an unregistered machine unhealthy only when opted in', () => {
    const world = anObservation({
      instances: [
        anInstance(3, { launchedAt: NOW - HOUR, autoScaling: { group: 'ng-a', lifecycleState: 'InService' } }),
      ],
    });
    expect(kinds(planFor(world))).toEqual(['report']);
    expect(kinds(planFor(world, [], { markUnregisteredUnhealthy: true }))).toEqual(['report', 'mark-unhealthy']);
  });

  it.each([
    [
      'excluded by its tag',
      { tags: { 'eks:cluster-name': CLUSTER, 'ec2-node-reconciler/exclude': 'true' } },
      /^excluded by instance tag/,
    ],
    [
      'whose Auto Scaling lookup failed this run',
      { enrichmentErrors: ['describing Auto Scaling instances: Throttling'] },
      /lookup about .* failed this run/,
    ],
    [
      'in a group with ReplaceUnhealthy suspended',
      {
        autoScaling: {
          group: 'ng-a',
          lifecycleState: 'InService',
          suspendedProcesses: ['AZRebalance', 'ReplaceUnhealthy'],
        },
      },
      /ng-a has ReplaceUnhealthy suspended: it would not replace/,
    ],
  ])(
    'should not mark an unregistered machine unhealthy when it is %s (the rails a repair goes through)',
    (_what, over, why) => {
      const world = anObservation({
        instances: [
          anInstance(3, {
            launchedAt: NOW - HOUR,
            autoScaling: { group: 'ng-a', lifecycleState: 'InService' },
            ...over,
          }),
        ],
      });
      const result = planFor(world, [], { markUnregisteredUnhealthy: true });
      expect(kinds(result)).toEqual(['report']);
      expect(result.skipped).toEqual([
        expect.objectContaining({ kind: 'mark-unhealthy', reason: expect.stringMatching(why) as unknown }),
      ]);
    },
  );

  it('should not mark unregistered machines unhealthy past the stand-down (a bad launch template: 5 of 5), nor one in Standby or outside the configured groups', () => {
    const unregistered = (n: number, over: Parameters<typeof anInstance>[1] = {}) =>
      anInstance(n, { launchedAt: NOW - HOUR, autoScaling: { group: 'ng-a', lifecycleState: 'InService' }, ...over });
    const all = planFor(anObservation({ instances: [1, 2, 3, 4, 5].map((n) => unregistered(n)) }), [], {
      markUnregisteredUnhealthy: true,
    });
    const standby = planFor(
      anObservation({ instances: [unregistered(3, { autoScaling: { group: 'ng-a', lifecycleState: 'Standby' } })] }),
      [],
      { markUnregisteredUnhealthy: true },
    );

    expect(kinds(all).filter((k) => k === 'mark-unhealthy')).toEqual([]);
    expect(all.skipped.map((s) => s.standDown?.scope)).toEqual(['group', 'group', 'group', 'group', 'group']);
    expect(kinds(standby)).toEqual(['report']);
    expect(standby.skipped).toEqual([
      expect.objectContaining({
        kind: 'mark-unhealthy',
        reason: expect.stringMatching(/Standby: only InService machines/) as unknown,
      }),
    ]);
  });

  it('should plan the same actions in dry run and mark the plan', () => {
    const world = anObservation({
      nodes: [stale(1)],
      instances: [anInstance(1, { state: 'terminated' })],
      leases: [staleLease(1)],
    });
    const dry = planFor(world, [], { dryRun: true });
    expect(dry.dryRun).toBe(true);
    expect(dry.actions).toEqual(planFor(world).actions);
  });
});
