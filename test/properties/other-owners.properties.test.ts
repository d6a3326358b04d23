import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Action } from '@ec2-node-reconciler/model/action.js';
import type { InstanceView, NodeView } from '@ec2-node-reconciler/model/observation.js';
import { worldArb, type World, decideWorld } from '../support/arbitraries.js';

// At least 10,000 generated worlds per run (issue #27).
const RUNS = { numRuns: 10_000 };

// The oracle reads ownership with its own plain rules (docs/design.md §1c), never through classify's helpers.
const EC2_PROVIDER_ID = /^aws:\/\/\/([a-z0-9-]+)\/(i-[0-9a-f]{8}(?:[0-9a-f]{9})?)$/;

/**
 * The instance of this region a Node names for certain: its providerID (a zone of this region: another
 * region's instance is not the one this region's EC2 returns under that id), or an instance-id hostname.
 */
function namedInstance(world: World, node: NodeView): InstanceView | undefined {
  const match = node.providerID ? EC2_PROVIDER_ID.exec(node.providerID) : undefined;
  const zone = match?.[1];
  if (zone !== undefined && !/^us-east-1(?:[a-z]$|-)/.test(zone)) return undefined;
  const id = node.providerID ? match?.[2] : node.name.split('.')[0];
  return world.observation.instances.find((i) => i.id === id);
}

const launchedByKarpenter = (instance: InstanceView | undefined): boolean =>
  instance?.tags['karpenter.sh/nodepool'] !== undefined;

/** Whether another system manages the Node: hybrid, EKS Auto Mode, Karpenter disrupting it, or Karpenter's when not included. */
function isOthers(world: World, node: NodeView): boolean {
  if (node.providerID?.startsWith('eks-hybrid://')) return true;
  if (node.labels['eks.amazonaws.com/compute-type'] === 'auto') return true;
  if (node.taints.some((t) => t.key === 'karpenter.sh/disrupted')) return true;
  if (world.settings.includeKarpenterNodes) return false;
  return node.labels['karpenter.sh/nodepool'] !== undefined || launchedByKarpenter(namedInstance(world, node));
}

/** Every action but a report touches something: a Node (by name) or an instance (its lifecycle action, its group health). */
const touches = (action: Action): { node?: string; instanceId?: string } | undefined =>
  action.kind === 'report'
    ? undefined
    : {
        ...('node' in action && action.node !== undefined ? { node: action.node } : {}),
        ...(action.instanceId !== undefined ? { instanceId: action.instanceId } : {}),
      };

describe('other owners stand first (docs/design.md §1c, fast-check)', () => {
  it("should take no action on a Node another system manages, nor on its machine, nor on a machine Karpenter launched (unless Karpenter's are included)", () => {
    fc.assert(
      fc.property(worldArb, (world) => {
        const theirs = world.observation.nodes.filter((n) => isOthers(world, n));
        const theirNodes = new Set(theirs.map((n) => n.name));
        const theirMachines = new Set<string>(
          [
            ...theirs.map((n) => namedInstance(world, n)?.id),
            ...world.observation.instances
              .filter((i) => !world.settings.includeKarpenterNodes && launchedByKarpenter(i))
              .map((i) => i.id),
          ].filter((id) => id !== undefined),
        );
        for (const action of decideWorld(world).planned.actions) {
          const target = touches(action);
          if (!target) continue;
          expect(target.node === undefined || !theirNodes.has(target.node), `${action.kind} on ${target.node}`).toBe(
            true,
          );
          expect(
            target.instanceId === undefined || !theirMachines.has(target.instanceId),
            `${action.kind} for ${target.instanceId}`,
          ).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it('should meet other owners often enough, with actions planned around them, that the property is not vacuous', () => {
    const worlds = fc.sample(worldArb, { numRuns: 4_000, seed: 27 });
    let withOthers = 0;
    let actedBeside = 0;
    let includedKarpenterActedOn = 0;
    for (const world of worlds) {
      const others = world.observation.nodes.filter((n) => isOthers(world, n));
      if (others.length === 0) continue;
      withOthers += 1;
      const actions = decideWorld(world).planned.actions;
      if (actions.some((a) => touches(a) !== undefined)) actedBeside += 1;
      if (
        world.settings.includeKarpenterNodes &&
        actions.some(
          (a) =>
            touches(a)?.node !== undefined &&
            world.observation.nodes.some(
              (n) => n.name === touches(a)?.node && n.labels['karpenter.sh/nodepool'] === 'default',
            ),
        )
      )
        includedKarpenterActedOn += 1;
    }
    expect(withOthers).toBeGreaterThan(700);
    expect(actedBeside).toBeGreaterThan(200);
    expect(includedKarpenterActedOn).toBeGreaterThan(0);
  });
});
