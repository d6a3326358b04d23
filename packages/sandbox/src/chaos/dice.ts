// Seeded draws keyed by what is asked, not by when: the n-th roll for a key gives the same numbers
// in every run with the same seed, however the requests of concurrent functions interleave. A
// global generator would hand each request the next number, so one reordered pair of requests
// would shift every fault after it.
import { createHash } from 'node:crypto';

export class Dice {
  private readonly thrown = new Map<string, number>();

  constructor(readonly seed: number) {}

  /** Four independent numbers in [0, 1) for this throw of `key`. */
  roll(key: string): readonly [number, number, number, number] {
    const n = (this.thrown.get(key) ?? 0) + 1;
    this.thrown.set(key, n);
    const digest = createHash('sha256').update(`${this.seed}\0${key}\0${n}`).digest();
    const at = (offset: number) => digest.readUInt32BE(offset) / 2 ** 32;
    return [at(0), at(4), at(8), at(12)];
  }
}

/** A seed from a name (a scenario's file): stable across runs and machines. */
export function seedOf(name: string): number {
  return createHash('sha256').update(name).digest().readUInt32BE(0);
}
