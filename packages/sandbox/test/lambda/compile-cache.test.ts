import { mkdtemp, mkdir, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CURRENT_CACHE_PREFIX, pruneCompileCache } from '../../src/lambda/compile-cache.js';

const KB = 1024;
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'compile-cache-test-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** `count` entries of `kb` KB in `runtime`, the first the oldest. */
async function entries(runtime: string, count: number, kb: number): Promise<void> {
  await mkdir(join(dir, runtime), { recursive: true });
  for (let i = 0; i < count; i++) {
    const file = join(dir, runtime, `entry-${String(i).padStart(3, '0')}`);
    await writeFile(file, Buffer.alloc(kb * KB));
    const at = new Date(Date.parse('2026-12-01T00:00:00Z') + i * 1000);
    await utimes(file, at, at);
  }
}

const current = `${CURRENT_CACHE_PREFIX}0a1b2c3d-0`;
const bounds = { maxBytes: 100 * KB, keepBytes: 40 * KB, currentPrefix: CURRENT_CACHE_PREFIX };

describe('pruneCompileCache', () => {
  it('should remove the oldest entries down to keepBytes once the cache weighs more than maxBytes', async () => {
    await entries(current, 12, 10);

    const { removedBytes } = await pruneCompileCache(dir, bounds);

    const left = (await readdir(join(dir, current))).sort();
    expect(left).toEqual(['entry-008', 'entry-009', 'entry-010', 'entry-011']);
    expect(removedBytes).toBe(80 * KB);
  });

  it('should leave a cache within bounds alone, and remove what another Node runtime left', async () => {
    await entries(current, 5, 10);
    await entries('v0.0.1-x64-ffffffff-0', 3, 10);

    await pruneCompileCache(dir, bounds);

    expect(await readdir(dir)).toEqual([current]);
    expect(await readdir(join(dir, current))).toHaveLength(5);
  });

  it('should do nothing where there is no cache yet', async () => {
    await expect(pruneCompileCache(join(dir, 'absent'), bounds)).resolves.toEqual({ removedBytes: 0 });
  });
});
