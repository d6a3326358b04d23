import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteCollector, BytePool } from '../../lib/support/byte-pool.js';

describe('ByteCollector', () => {
  it('should give back exactly the bytes added, however they were cut into chunks', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 70_000 }), { maxLength: 8 }), (chunks) => {
        // prepare
        const pool = new BytePool();
        const collected = new ByteCollector(pool);
        // act
        for (const chunk of chunks) collected.add(chunk);
        // assess
        expect(collected.bytes().equals(Buffer.concat(chunks))).toBe(true);
        collected.release();
      }),
      { numRuns: 100 },
    );
  });

  it('should reuse a released buffer for the next answer, and not one still in use', () => {
    // prepare
    const pool = new BytePool();
    const first = new ByteCollector(pool);
    first.add(Buffer.alloc(200_000, 1));
    const inUse = new ByteCollector(pool);
    inUse.add(Buffer.from('kept'));
    const firstBuffer = first.bytes().buffer;
    // act
    first.release();
    const next = new ByteCollector(pool);
    next.add(Buffer.from('next'));
    // assess
    expect(next.bytes().buffer).toBe(firstBuffer);
    expect(inUse.bytes().toString()).toBe('kept');
    expect(next.bytes().toString()).toBe('next');
  });

  it('should ignore chunks after release and read as empty', () => {
    // prepare
    const collected = new ByteCollector(new BytePool());
    collected.add(Buffer.from('abc'));
    // act
    collected.release();
    collected.add(Buffer.from('late'));
    // assess
    expect(collected.bytes().length).toBe(0);
  });

  it('should keep at most its number of free buffers, the largest', () => {
    // prepare
    const pool = new BytePool(2);
    const small = pool.take(1);
    const middle = pool.take(200_000);
    const large = pool.take(1_000_000);
    // act
    pool.give(small);
    pool.give(middle);
    pool.give(large);
    // assess
    expect(pool.take(1)).toBe(large);
    expect(pool.take(1)).toBe(middle);
    expect(pool.take(1)).not.toBe(small);
  });
});
