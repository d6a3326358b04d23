import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classify } from '../../lib/classify/classify.js';
import { CONDITIONS } from '../../lib/model/condition.js';
import { parseProviderId } from '../../lib/model/provider-id.js';
import { deletionAllowance } from '../../lib/plan/breaker.js';
import { plan } from '../../lib/plan/plan.js';
import { worldArb, type World } from '../support/arbitraries.js';
import { CLUSTER, clockAt, NOW } from '../support/world.js';

// Each property checks at least 10,000 generated worlds per run.
const RUNS = { numRuns: 10_000 };

function decide({ observation, signals, settings }: World) {
  const ctx = { settings, clock: clockAt(), clusterName: CLUSTER };
  const pairs = classify(observation, signals, ctx);
  const planned = plan(pairs, { ...ctx, ...(observation.clusterNodeCount !== undefined ? { clusterNodeCount: observation.clusterNodeCount } : {}) });
  return { pairs, planned };
}

/** The instance a node names, read straight from the world (not through classify). */
function instanceOfNode(world: World, nodeName: string) {
  const node = world.observation.nodes.find((n) => n.name === nodeName);
  if (!node?.providerID) return { node, instance: world.observation.instances.find((i) => i.privateDnsName === nodeName) };
  try {
    const ref = parseProviderId(node.providerID);
    return { node, instance: ref.kind === 'ec2' ? world.observation.instances.find((i) => i.id === ref.instanceId) : undefined };
  } catch {
    return { node, instance: undefined };
  }
}

describe('plan invariants (fast-check)', () => {
  it('should never plan a delete for a machine that is pending, running, stopping, stopped or shutting-down', () => {
    fc.assert(
      fc.property(worldArb, (world) => {
        for (const action of decide(world).planned.actions) {
          if (action.kind !== 'delete') continue;
          const { instance } = instanceOfNode(world, action.node);
          expect(instance === undefined || instance.state === 'terminated').toBe(true);
        }
      }),
      RUNS,
    );
  });

  it('should never plan a delete for a node with a fresh Lease or Ready heartbeat', () => {
    fc.assert(
      fc.property(worldArb, (world) => {
        for (const action of decide(world).planned.actions) {
          if (action.kind !== 'delete') continue;
          const { node } = instanceOfNode(world, action.node);
          const lease = world.observation.leases.get(action.node)?.renewTime;
          for (const beat of [lease, node?.readyHeartbeatAt]) {
            if (beat !== undefined) expect(NOW - beat).toBeGreaterThan(world.settings.heartbeatGrace);
          }
          expect(NOW - (node?.createdAt ?? NOW)).toBeGreaterThanOrEqual(world.settings.minNodeAge);
          expect(node?.labels['ec2-node-reconciler/exclude'] ?? 'false').toBe('false');
        }
      }),
      RUNS,
    );
  });

  it('should never plan more deletions than the circuit breaker allows', () => {
    fc.assert(
      fc.property(worldArb, (world) => {
        const deletes = decide(world).planned.actions.filter((a) => a.kind === 'delete').length;
        expect(deletes).toBeLessThanOrEqual(world.settings.maxDeletions);
        expect(deletes).toBeLessThanOrEqual(deletionAllowance(world.settings, world.observation.clusterNodeCount));
      }),
      RUNS,
    );
  });

  it('should never uncordon a node that does not carry the reconciler cordon annotation', () => {
    fc.assert(
      fc.property(worldArb, (world) => {
        for (const action of decide(world).planned.actions) {
          if (action.kind !== 'uncordon-own') continue;
          const node = world.observation.nodes.find((n) => n.name === action.node);
          expect(node?.annotations['ec2-node-reconciler/cordoned-by']).toBe('ec2-node-reconciler');
          expect(node?.unschedulable).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it('should classify every pair into exactly one condition, deterministically', () => {
    fc.assert(
      fc.property(worldArb, (world) => {
        const first = decide(world);
        const nodePairs = first.pairs.filter((p) => p.node !== undefined);
        expect(nodePairs.map((p) => p.node?.name)).toEqual(world.observation.nodes.map((n) => n.name));
        const claimed = new Set(first.pairs.filter((p) => p.node && p.instanceId).map((p) => p.instanceId));
        const unclaimed = world.observation.instances.filter((i) => !claimed.has(i.id));
        expect(first.pairs.filter((p) => p.node === undefined).map((p) => p.instanceId)).toEqual(unclaimed.map((i) => i.id));
        for (const pair of first.pairs) expect(CONDITIONS).toContain(pair.condition);
        expect(decide(world)).toEqual(first);
      }),
      RUNS,
    );
  });

  it('should never touch a node excluded by label', () => {
    fc.assert(
      fc.property(worldArb, (world) => {
        for (const action of decide(world).planned.actions) {
          if (!('node' in action) || action.kind === 'report' || action.node === undefined) continue;
          const node = world.observation.nodes.find((n) => n.name === action.node);
          expect(node?.labels['ec2-node-reconciler/exclude'] ?? 'false').toBe('false');
        }
      }),
      RUNS,
    );
  });
});

describe('the world generator', () => {
  it('should produce worlds where deletes, uncordons, drains and breaker trips all happen (the properties are not vacuous)', () => {
    const worlds = fc.sample(worldArb, { numRuns: 3_000, seed: 42 });
    const outcomes = worlds.map((w) => decide(w).planned);
    const share = (test: (p: (typeof outcomes)[number]) => boolean) => outcomes.filter(test).length / outcomes.length;
    expect(share((p) => p.actions.some((a) => a.kind === 'delete'))).toBeGreaterThan(0.05);
    expect(share((p) => p.actions.some((a) => a.kind === 'uncordon-own'))).toBeGreaterThan(0.005);
    expect(share((p) => p.actions.some((a) => a.kind === 'drain'))).toBeGreaterThan(0.05);
    expect(share((p) => p.breaker !== undefined)).toBeGreaterThan(0.01);
  });
});
