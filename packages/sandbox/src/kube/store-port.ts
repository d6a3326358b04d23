// The store's core as its parts see it (node-lifecycle.ts, eviction.ts, seeding.ts): each part
// picks the few operations it needs, so none of them imports the store or reaches into it.
import type { Clock } from '@ec2-node-reconciler/model/clock.js';
import type { BuildContext } from './builders.js';
import type { ResourceDef } from './resources.js';
import type { KubeObject } from './types.js';

export type StoreCore = {
  readonly clock: Clock;
  newUid(): string;
  /** The clock's now and fresh uids, for the builders. */
  buildContext(): BuildContext;
  /** The object as stored, with no time-driven state folded in. */
  stored(storage: string, key: string): KubeObject | undefined;
  /** The object as it is now: heartbeats and PDB status folded in (and stored when they changed). */
  current(storage: string, key: string): KubeObject | undefined;
  /** Keys in order, those starting with `prefix` (`<namespace>/` for one namespace). */
  keys(storage: string, prefix: string): Iterable<string>;
  /** Keys of the pods bound to `nodeName` (the index drain lists by). */
  podsOn(nodeName: string): ReadonlySet<string>;
  /** Stores `object` as the next revision, indexes in step. */
  put<T extends KubeObject>(storage: string, object: T): T;
  /** Removes the object, and what follows from that (a Node's Lease, a kubelet's re-registration). */
  drop(storage: string, object: KubeObject): void;
  /** Creates the object as a client's POST would: defaults, validation, namespace. */
  create(def: ResourceDef, object: KubeObject): KubeObject;
};
