// store.heartbeatOf works out, without folding anything in, the heartbeats a read would serve: the
// replay's sweep planner looks at every one of them at every tick (sweep-skip.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { KubeStore } from '../../src/kube/index.js';

const NAMES = ['ip-10-0-1-1.ec2.internal', 'ip-10-0-1-2.ec2.internal', 'no-kubelet'] as const;
const START = Date.UTC(2026, 10, 29, 10, 0, 0);

const epoch = (text: string | undefined): number | undefined => (text === undefined ? undefined : Date.parse(text));

type Step =
  | { readonly kind: 'advance'; readonly ms: number }
  | { readonly kind: 'kubelet'; readonly node: number; readonly on: boolean }
  | { readonly kind: 'look'; readonly read: boolean };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 900_000 }) }),
  fc.record({ kind: fc.constant('kubelet' as const), node: fc.integer({ min: 0, max: 1 }), on: fc.boolean() }),
  fc.record({ kind: fc.constant('look' as const), read: fc.boolean() }),
);

describe('KubeStore.heartbeatOf', () => {
  it('should give the Lease renewTime and Ready heartbeat a read serves, and write nothing', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), fc.integer({ min: 0, max: 9_999 }), (steps, offset) => {
        const clock = new VirtualClock(START + offset);
        const store = new KubeStore(clock, { uids: 'sequential' });
        store.seedNode({ name: NAMES[0], instanceId: 'i-0a1b2c3d4e5f60001' });
        clock.advance(offset % 7_000);
        store.seedNode({ name: NAMES[1], instanceId: 'i-0a1b2c3d4e5f60002', lastHeartbeat: START - 95_000 });
        // A Node and Lease no simulated kubelet keeps: what is stored is what is served.
        store.seedNode({ name: NAMES[2], instanceId: 'i-0a1b2c3d4e5f60003', heartbeating: false });
        for (const s of steps) {
          if (s.kind === 'advance') clock.advance(s.ms);
          else if (s.kind === 'kubelet') store.kubelets.setHeartbeating(NAMES[s.node] ?? '', s.on);
          else {
            store.catchUp();
            const writes: string[] = [];
            const stop = store.observe((c) => writes.push(c.object.metadata.name ?? ''));
            const looked = NAMES.map((name) => ({
              lease: store.heartbeatOf('lease', name),
              node: store.heartbeatOf('node', name),
            }));
            stop();
            expect(writes).toEqual([]);
            // A read folds the heartbeats in; what it serves is what was worked out (folding never changes it).
            if (s.read)
              NAMES.forEach((name, i) => {
                const node = store.getNode(name);
                const ready = node?.status?.conditions?.find((c) => c.type === 'Ready');
                expect(looked[i]?.lease?.at).toBe(epoch(store.getLease(name)?.spec?.renewTime ?? undefined));
                expect(looked[i]?.node?.at).toBe(epoch(ready?.lastHeartbeatTime));
              });
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('should answer undefined for a Node or Lease that is not there', () => {
    const store = new KubeStore(new VirtualClock(START));
    expect(store.heartbeatOf('node', 'gone')).toBeUndefined();
    expect(store.heartbeatOf('lease', 'gone')).toBeUndefined();
  });
});
