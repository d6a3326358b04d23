// Large answers (a page of 500 Nodes is 5 MB once decompressed, a DescribeInstances page 3 MB) are
// assembled in buffers reused from one answer to the next. With a fresh Buffer per answer (chunks,
// then Buffer.concat), a 100,000-node sweep allocated ~2.7 GB outside V8's heap, and V8 starts a
// full mark-compact for every 64 MB of that ("external memory pressure"): 48 of the sweep's 54 full
// collections, over a third of its CPU. Chunks copied in as they arrive die young instead.

/** Smallest buffer handed out: most answers (a Node, a Lease, an error) fit at once. */
const MIN_BYTES = 64 * 1024;
/** Buffers larger than this are used once and left to the garbage collector, never kept. */
const MAX_POOLED_BYTES = 64 * 1024 * 1024;

/** Free buffers, reused by whoever asks next. Not shared between unrelated owners: each client has its own. */
export class BytePool {
  private readonly free: Buffer[] = [];

  /** @param maxFree how many free buffers to keep (about the answers read at once) */
  constructor(private readonly maxFree = 8) {}

  /**
   * A buffer of at least `bytes` (contents undefined), to be given back once read. The largest free
   * one: an answer's size is seldom known before it has arrived (a gzipped page's Content-Length is
   * not its size), and a buffer too small is grown by copying.
   */
  take(bytes: number): Buffer {
    let largest = -1;
    for (let i = 0; i < this.free.length; i++)
      if (largest < 0 || (this.free[i]?.length ?? 0) > (this.free[largest]?.length ?? 0)) largest = i;
    const buffer = largest < 0 ? undefined : this.free[largest];
    if (buffer !== undefined && buffer.length >= bytes) {
      this.free.splice(largest, 1);
      return buffer;
    }
    let size = MIN_BYTES;
    while (size < bytes) size *= 2;
    return Buffer.allocUnsafeSlow(size);
  }

  give(buffer: Buffer): void {
    if (buffer.length > MAX_POOLED_BYTES) return;
    this.free.push(buffer);
    if (this.free.length > this.maxFree) {
      // Keep the largest: they serve any answer.
      let smallest = 0;
      for (let i = 1; i < this.free.length; i++)
        if ((this.free[i]?.length ?? 0) < (this.free[smallest]?.length ?? 0)) smallest = i;
      this.free.splice(smallest, 1);
    }
  }
}

/** One answer's bytes, copied in chunk by chunk into a pooled buffer (grown by doubling). */
export class ByteCollector {
  private buffer: Buffer | undefined;
  private length = 0;

  /** @param expected the answer's Content-Length when known: the buffer is taken that large at once */
  constructor(
    private readonly pool: BytePool,
    expected = 0,
  ) {
    this.buffer = pool.take(expected);
  }

  add(chunk: Uint8Array): void {
    const buffer = this.buffer;
    if (buffer === undefined) return;
    const needed = this.length + chunk.byteLength;
    let target = buffer;
    if (needed > buffer.length) {
      target = this.pool.take(Math.max(needed, buffer.length * 2));
      buffer.copy(target, 0, 0, this.length);
      this.pool.give(buffer);
      this.buffer = target;
    }
    target.set(chunk, this.length);
    this.length = needed;
  }

  /**
   * The bytes so far: a view of the pooled buffer, valid until `release` (the caller may rewrite
   * them in place). Empty once released.
   */
  bytes(): Buffer {
    return this.buffer === undefined ? Buffer.alloc(0) : this.buffer.subarray(0, this.length);
  }

  /** Gives the buffer back; later chunks are ignored. */
  release(): void {
    if (this.buffer !== undefined) this.pool.give(this.buffer);
    this.buffer = undefined;
    this.length = 0;
  }
}
