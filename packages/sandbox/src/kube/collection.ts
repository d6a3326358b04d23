// One resource's objects, kept in etcd key order (`<namespace>/<name>` or `<name>`) so pages and
// continue tokens follow the order a real server lists in.
import type { KubeObject } from './types.js';

export const keyOf = (namespace: string | undefined, name: string): string =>
  namespace ? `${namespace}/${name}` : name;

function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] ?? '') < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class Collection<T extends KubeObject = KubeObject> {
  private readonly objects = new Map<string, T>();
  private keys: string[] = [];
  // Bulk seeding appends out of order; sorting once on the next read beats splicing each insert.
  private sorted = true;
  private splices = 0;

  get size(): number {
    return this.objects.size;
  }

  get(key: string): T | undefined {
    return this.objects.get(key);
  }

  has(key: string): boolean {
    return this.objects.has(key);
  }

  set(key: string, object: T): void {
    const isNew = !this.objects.has(key);
    this.objects.set(key, object);
    if (!isNew) return;
    const last = this.keys[this.keys.length - 1];
    if (this.sorted && last !== undefined && key < last) {
      // A few inserts into a sorted list: splice; a run of them (seeding) sorts once on the next read.
      if (this.splices++ < 64) this.keys.splice(lowerBound(this.keys, key), 0, key);
      else {
        this.keys.push(key);
        this.sorted = false;
      }
    } else this.keys.push(key);
  }

  delete(key: string): boolean {
    if (!this.objects.delete(key)) return false;
    if (this.sorted) {
      const at = lowerBound(this.keys, key);
      if (this.keys[at] === key) this.keys.splice(at, 1);
    } else this.keys = this.keys.filter((k) => k !== key);
    return true;
  }

  values(): IterableIterator<T> {
    return this.objects.values();
  }

  /** Keys in order, starting at the first key >= `from` and (optionally) with `prefix`. */
  *keysFrom(from: string, prefix = ''): Generator<string> {
    const keys = this.sortedKeys();
    for (let i = lowerBound(keys, from > prefix ? from : prefix); i < keys.length; i++) {
      const key = keys[i] ?? '';
      if (!key.startsWith(prefix)) return;
      yield key;
    }
  }

  /** How many keys sort at or after `from` within `prefix` (for remainingItemCount). */
  countFrom(from: string, prefix = ''): number {
    const keys = this.sortedKeys();
    const start = lowerBound(keys, from > prefix ? from : prefix);
    const end = prefix === '' ? keys.length : lowerBound(keys, `${prefix}\uffff`);
    return Math.max(0, end - start);
  }

  private sortedKeys(): string[] {
    if (!this.sorted) {
      this.keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      this.sorted = true;
    }
    this.splices = 0;
    return this.keys;
  }
}
