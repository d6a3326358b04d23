// Enrichment asks each Auto Scaling group once (DescribeAutoScalingGroups, by the instances' group
// tags) and blinds only the instances a failed lookup concerns (issue #12's per-instance rule).
import { describe, expect, it } from 'vitest';
import type { AsgMembership, GroupLookup } from '../../lib/aws/autoscaling.js';
import type { InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import type { InstanceView, ScheduledEvent } from '@ec2-node-reconciler/model/observation.js';
import { enrichInstances } from '../../lib/observe/enrich.js';

const id = (n: number) => `i-0${String(n).padStart(16, '0')}` as InstanceId;
const instance = (n: number, group?: string, state: InstanceView['state'] = 'running'): InstanceView => ({
  id: id(n),
  state,
  zone: 'us-east-1a',
  launchedAt: 0,
  tags: { 'eks:cluster-name': 'demo', ...(group ? { 'aws:autoscaling:groupName': group } : {}) },
  spot: false,
  scheduledEvents: [],
});

function fakes(
  groups: Record<string, Record<number, string> | Error>,
  events: Map<InstanceId, ScheduledEvent[]> | Error = new Map(),
  /** Each group's warm pool: its members' `Warmed:*` states (DescribeWarmPool), or the error it answers. */
  pools: Record<string, Record<number, string> | Error> = {},
) {
  const asked: string[][] = [];
  const poolsAsked: string[] = [];
  return {
    asked,
    poolsAsked,
    deps: {
      autoScaling: {
        describeGroups: (names: readonly string[]): Promise<GroupLookup> => {
          asked.push([...names]);
          const members = new Map<InstanceId, AsgMembership>();
          const failed = new Map<string, string>();
          for (const name of names) {
            const group = groups[name];
            if (group instanceof Error) failed.set(name, group.message);
            else
              for (const [n, lifecycleState] of Object.entries(group ?? {}))
                members.set(id(Number(n)), { group: name, lifecycleState });
          }
          const warmPools = new Set(names.filter((name) => pools[name] !== undefined && !failed.has(name)));
          return Promise.resolve({ members, failed, warmPools });
        },
        warmPoolMembers: (name: string): Promise<Map<InstanceId, AsgMembership>> => {
          poolsAsked.push(name);
          const pool = pools[name];
          if (pool instanceof Error) return Promise.reject(pool);
          return Promise.resolve(
            new Map(
              Object.entries(pool ?? {}).map(([n, lifecycleState]) => [id(Number(n)), { group: name, lifecycleState }]),
            ),
          );
        },
        terminateHooks: () => Promise.resolve([{ name: 'drain-hook' }]),
      },
      ec2: { scheduledEvents: () => (events instanceof Error ? Promise.reject(events) : Promise.resolve(events)) },
    },
  };
}

describe('enrichInstances', () => {
  it('should ask each group its instances carry once, and no group for instances outside one or no longer live', async () => {
    const { deps, asked } = fakes({ 'ng-a': { 1: 'InService', 2: 'Terminating:Wait' }, 'ng-b': { 3: 'InService' } });

    const out = await enrichInstances(deps, [
      instance(1, 'ng-a'),
      instance(2, 'ng-a'),
      instance(3, 'ng-b'),
      instance(4),
      instance(5, 'ng-c', 'terminated'),
    ]);

    expect(asked).toEqual([['ng-a', 'ng-b']]);
    expect(out.errors).toEqual([]);
    expect(out.instances.map((i) => i.autoScaling)).toEqual([
      // The hook is the group's: asked once, because one of its instances waits on it.
      { group: 'ng-a', lifecycleState: 'InService', terminateHook: 'drain-hook' },
      { group: 'ng-a', lifecycleState: 'Terminating:Wait', terminateHook: 'drain-hook' },
      { group: 'ng-b', lifecycleState: 'InService' },
      undefined,
      undefined,
    ]);
  });

  it('should make no Auto Scaling call when no live instance is in a group', async () => {
    const { deps, asked } = fakes({});

    await enrichInstances(deps, [instance(1), instance(2)]);

    expect(asked).toEqual([]);
  });

  it("should blind only the failed group's instances, and say which groups", async () => {
    const { deps } = fakes({ 'ng-a': { 1: 'InService' }, 'ng-b': new Error('Throttling: Rate exceeded') });

    const out = await enrichInstances(deps, [
      instance(1, 'ng-a'),
      instance(2, 'ng-b'),
      instance(3, 'ng-b'),
      instance(4),
    ]);

    const error = 'describing Auto Scaling group ng-b: Throttling: Rate exceeded';
    expect(out.errors).toEqual([error]);
    expect(out.instances.map((i) => i.enrichmentErrors)).toEqual([undefined, [error], [error], undefined]);
    expect(out.instances[0]?.autoScaling).toEqual({ group: 'ng-a', lifecycleState: 'InService' });
  });

  it('should blind every live instance when the scheduled-event query fails', async () => {
    const { deps } = fakes({ 'ng-a': { 1: 'InService' } }, new Error('Unavailable'));

    const out = await enrichInstances(deps, [instance(1, 'ng-a'), instance(2), instance(3, undefined, 'terminated')]);

    expect(out.instances.map((i) => i.enrichmentErrors)).toEqual([
      ['describing scheduled events: Unavailable'],
      ['describing scheduled events: Unavailable'],
      undefined,
    ]);
  });

  describe('a group with a warm pool', () => {
    it('should list the pool once, and find the member it terminates out of the pool waiting on our hook', async () => {
      const { deps, asked, poolsAsked } = fakes({ 'ng-a': { 1: 'InService' } }, new Map(), {
        'ng-a': { 2: 'Warmed:Terminating:Wait', 3: 'Warmed:Stopped' },
      });

      const out = await enrichInstances(deps, [
        instance(1, 'ng-a'),
        instance(2, 'ng-a', 'stopped'),
        instance(3, 'ng-a', 'stopped'),
      ]);

      expect(asked).toEqual([['ng-a']]);
      expect(poolsAsked).toEqual(['ng-a']);
      expect(out.errors).toEqual([]);
      expect(out.instances.map((i) => i.autoScaling)).toEqual([
        { group: 'ng-a', lifecycleState: 'InService', terminateHook: 'drain-hook' },
        { group: 'ng-a', lifecycleState: 'Warmed:Terminating:Wait', terminateHook: 'drain-hook' },
        { group: 'ng-a', lifecycleState: 'Warmed:Stopped', terminateHook: 'drain-hook' },
      ]);
    });

    it('should ask the group of stopped machines alone (a pool of stopped members), and no pool of a group without one', async () => {
      const { deps, asked, poolsAsked } = fakes({ 'ng-a': {}, 'ng-b': { 3: 'InService' } }, new Map(), {
        'ng-a': { 1: 'Warmed:Stopped' },
      });

      const out = await enrichInstances(deps, [instance(1, 'ng-a', 'stopped'), instance(3, 'ng-b')]);

      expect(asked).toEqual([['ng-a', 'ng-b']]);
      expect(poolsAsked).toEqual(['ng-a']);
      expect(out.instances[0]?.autoScaling).toEqual({ group: 'ng-a', lifecycleState: 'Warmed:Stopped' });
    });

    it("should blind the group's instances when its pool cannot be read, and only those", async () => {
      const { deps } = fakes({ 'ng-a': { 1: 'InService' }, 'ng-b': { 3: 'InService' } }, new Map(), {
        'ng-a': new Error('Throttling: Rate exceeded'),
      });

      const out = await enrichInstances(deps, [
        instance(1, 'ng-a'),
        instance(2, 'ng-a', 'stopped'),
        instance(3, 'ng-b'),
      ]);

      const error = 'describing the warm pool of ng-a: Throttling: Rate exceeded';
      expect(out.errors).toEqual([error]);
      expect(out.instances.map((i) => i.enrichmentErrors)).toEqual([[error], [error], undefined]);
      expect(out.instances[1]?.autoScaling).toBeUndefined();
    });
  });
});
