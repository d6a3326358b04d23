// Whether a sweep writes nothing does not depend on the order its listings came in. The replay's
// planner (packages/sandbox/src/simulate/sweep-skip.ts) adds a machine that joined the cluster's
// listing at the end of its kept observation, and removes a deleted Node where it was; a sweep would
// hold them in the API's and EC2's order. This is what makes that sound.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { writesNothing } from '../../lib/pipeline/quiet-sweep.js';
import { decideWorld, groupWorldArb, worldArb, type World } from '../support/arbitraries.js';

const RUNS = { numRuns: 3_000 };

const quiet = (world: World): boolean => writesNothing(world.observation, [], decideWorld(world).planned);

/**
 * Two live machines answering to one private DNS name (VPCs with overlapping CIDRs): where the index of
 * machines by DNS name keeps one of them, the order they are listed in decides which.
 */
const withSharedDnsName = (world: World): World => {
  const [first, second, ...rest] = world.observation.instances;
  if (!first || !second) return world;
  const instances = [first, { ...second, privateDnsName: first.privateDnsName }, ...rest];
  return { ...world, observation: { ...world.observation, instances } };
};

/** The world with its Nodes and its machines in another order (a permutation drawn by fast-check). */
const reorderedArb = (worlds: fc.Arbitrary<World>) =>
  worlds.chain((world) =>
    fc
      .record({
        nodes: fc.shuffledSubarray([...world.observation.nodes], {
          minLength: world.observation.nodes.length,
          maxLength: world.observation.nodes.length,
        }),
        instances: fc.shuffledSubarray([...world.observation.instances], {
          minLength: world.observation.instances.length,
          maxLength: world.observation.instances.length,
        }),
      })
      .map((order) => ({ world, reordered: { ...world, observation: { ...world.observation, ...order } } })),
  );

const anyWorld = fc.oneof(worldArb, groupWorldArb);

describe('writesNothing, whatever order the listings came in', () => {
  it('should say the same of a world whose Nodes and machines are listed in any other order', () => {
    fc.assert(
      fc.property(reorderedArb(anyWorld), ({ world, reordered }) => {
        expect(quiet(reordered)).toBe(quiet(world));
      }),
      RUNS,
    );
  });

  // A Node without a providerID pairs with the machine its name is the DNS name of, and of two machines
  // answering to one name the one listed last: there the order decides which, and so the plan. The
  // planner never reorders such a world: it observes it whole (withObjects, withMachines).
  it('should say the same when two machines answer to one DNS name, as long as every Node names its machine by providerID', () => {
    const shared = anyWorld
      .map(withSharedDnsName)
      .filter((world) => world.observation.nodes.every((n) => n.providerID !== undefined));
    fc.assert(
      fc.property(reorderedArb(shared), ({ world, reordered }) => {
        expect(quiet(reordered)).toBe(quiet(world));
      }),
      RUNS,
    );
  });

  it('should meet both verdicts among the generated worlds (the property is not vacuous)', () => {
    const seen = new Set<boolean>();
    fc.assert(
      fc.property(fc.oneof(worldArb, groupWorldArb), (world) => {
        seen.add(quiet(world));
      }),
      { numRuns: 500 },
    );
    expect([...seen].sort()).toEqual([false, true]);
  });
});
