// When a replay may plan a kept observation again instead of observing the world anew (sweep-skip.ts):
// only when every counter of the world is as it was kept and no answer of EC2 changed by time alone.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sameVersion, skipStep, type WorldVersion } from '@ec2-node-reconciler/sandbox/simulate/sweep-skip.js';

const version = fc.record({
  kube: fc.integer({ min: 1, max: 5 }).map(String),
  awsChanges: fc.integer({ min: 0, max: 3 }),
  machines: fc.integer({ min: 0, max: 3 }),
  awsWrite: fc.integer({ min: 0, max: 3 }),
});
const T0 = Date.parse('2026-11-01T00:00:00Z');

describe('skipStep', () => {
  it('should plan again exactly when the world is as kept and its lazy answers have not changed yet', () => {
    fc.assert(
      fc.property(
        version,
        version,
        fc.integer({ min: 0, max: 7_200_000 }),
        fc.integer({ min: 1, max: 7_200_000 }),
        (kept, now, elapsed, lazy) => {
          const step = skipStep({ version: kept, changesBy: T0 + lazy }, { version: now, at: T0 + elapsed });
          expect(step === 'replan').toBe(sameVersion(kept, now) && elapsed < lazy);
          // Describing machines again is enough only when AWS itself changed, nothing else.
          expect(step === 'redescribe').toBe(
            !sameVersion(kept, now) && kept.kube === now.kube && kept.awsWrite === now.awsWrite && elapsed < lazy,
          );
        },
      ),
    );
  });

  it('should observe anew when nothing was kept', () => {
    fc.assert(
      fc.property(version, (now) => {
        expect(skipStep(undefined, { version: now, at: T0 })).toBe('observe');
      }),
    );
  });

  it('should tell every counter apart: a change to any one of them is a change of the world', () => {
    const base: WorldVersion = { kube: '7', awsChanges: 1, machines: 2, awsWrite: 3 };
    const kept = { version: base, changesBy: Infinity };
    for (const now of [
      { ...base, kube: '8' },
      { ...base, awsWrite: 4 },
    ])
      expect(skipStep(kept, { version: now, at: T0 })).toBe('observe');
    for (const now of [
      { ...base, awsChanges: 2 },
      { ...base, machines: 3 },
    ])
      expect(skipStep(kept, { version: now, at: T0 })).toBe('redescribe');
    expect(skipStep(kept, { version: { ...base }, at: T0 })).toBe('replan');
    expect(skipStep({ version: base, changesBy: T0 }, { version: base, at: T0 })).toBe('observe');
  });
});
