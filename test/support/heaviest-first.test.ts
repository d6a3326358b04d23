import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import HeaviestFirstSequencer, { HEAVIEST_FILES } from './heaviest-first.sequencer.js';

const root = join(import.meta.dirname, '..', '..');

/** A file as the sequencer sees it: no result on record (a fresh clone), and its size. */
const spec = (path: string): TestSpecification =>
  ({
    moduleId: join(root, path),
    project: { name: '', config: { sequence: { groupOrder: 0 }, isolate: true } },
  }) as unknown as TestSpecification;

const freshClone = (sizes: Record<string, number>): Vitest =>
  ({
    config: { root },
    cache: {
      getFileTestResults: () => undefined,
      getFileStats: (key: string) => ({ size: sizes[key.replace(/^:/, '')] ?? 0 }),
    },
  }) as unknown as Vitest;

describe('HeaviestFirstSequencer', () => {
  it('names only files that exist (a renamed one would start in vitest order, silently)', () => {
    for (const path of HEAVIEST_FILES) expect(existsSync(join(root, path)), path).toBe(true);
  });

  it('starts the listed files first, longest first, and keeps vitest order (larger first) for the rest', async () => {
    const sizes = {
      'test/a-large.test.ts': 900,
      'test/b-small.test.ts': 10,
      'test/chaos.test.ts': 1,
      'test/scenarios.test.ts': 2,
    };
    const order = await new HeaviestFirstSequencer(freshClone(sizes)).sort(Object.keys(sizes).map(spec));
    expect(order.map((s) => s.moduleId.slice(root.length + 1))).toEqual([
      'test/chaos.test.ts',
      'test/scenarios.test.ts',
      'test/a-large.test.ts',
      'test/b-small.test.ts',
    ]);
  });
});
