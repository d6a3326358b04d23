import type { InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import type { ScheduledEventCode } from '@ec2-node-reconciler/model/observation.js';
import type { InstanceState } from '@ec2-node-reconciler/model/instance-states.js';
import type { ChangeFeed } from './changes.js';

/** EC2's numeric state codes (the low byte of `instanceState.code`). */
export const STATE_CODES: Readonly<Record<InstanceState, number>> = {
  pending: 0,
  running: 16,
  'shutting-down': 32,
  terminated: 48,
  stopping: 64,
  stopped: 80,
};

export interface InstanceEventRecord {
  readonly id: string;
  readonly code: ScheduledEventCode;
  readonly notBefore: number;
  readonly notAfter?: number;
  readonly description: string;
}

/** One EC2 instance as the emulator keeps it; the wire view is derived from this on every read. */
export interface InstanceRecord {
  readonly id: InstanceId;
  readonly reservationId: string;
  readonly imageId: string;
  readonly instanceType: string;
  readonly zone: string;
  readonly privateDnsName: string;
  readonly privateIpAddress: string;
  readonly subnetId: string;
  readonly vpcId: string;
  /** LaunchTime: set again each time a stopped instance starts, as EC2 does. */
  launchedAt: number;
  readonly spotInstanceRequestId?: string;
  readonly tags: Map<string, string>;
  readonly scheduledEvents: InstanceEventRecord[];
  /** Reads miss the instance before this time (EC2 is eventually consistent). */
  visibleAfter: number;
  state: InstanceState;
  stateSince: number;
  /** `StateTransitionReason` and `StateReason`, set when the instance stops or terminates. */
  transitionReason: string;
  stateReason?: { readonly code: string; readonly message: string };
  /** Transitions due later (shutting-down → terminated); applied in time order by settle(). */
  readonly pending: { at: number; state: InstanceState }[];
}

export interface InstanceTimings {
  /** How long an instance stays `shutting-down` (or `stopping`) before it is `terminated` (`stopped`). */
  readonly shutdownMs: number;
  /** How long EC2 keeps returning a terminated instance before it forgets it (about an hour on AWS). */
  readonly terminatedRetentionMs: number;
}

/** `User initiated (2026-11-29 12:00:00 GMT)`, as EC2 words StateTransitionReason. */
export function userInitiated(at: number): string {
  return `User initiated (${new Date(at).toISOString().slice(0, 19).replace('T', ' ')} GMT)`;
}

export const SHUTDOWN_REASON = {
  code: 'Client.UserInitiatedShutdown',
  message: 'Client.UserInitiatedShutdown: User initiated shutdown',
};

export class InstanceStore {
  private readonly byId = new Map<string, InstanceRecord>();
  /** Seed (launch) order: the order EC2 lists in, and what pagination tokens point into. */
  private readonly ordered: InstanceRecord[] = [];
  private readonly positions = new Map<string, number>();
  /** Records with transitions due later: settle() looks at these only, not at every instance. */
  private readonly transitioning = new Set<InstanceRecord>();

  constructor(
    private readonly timings: InstanceTimings,
    private readonly feed: ChangeFeed,
    private readonly wake: (at: number) => void,
  ) {}

  add(record: InstanceRecord): void {
    if (this.byId.has(record.id)) throw new Error(`seeding instance ${record.id}: already exists`);
    this.byId.set(record.id, record);
    this.positions.set(record.id, this.ordered.length);
    this.ordered.push(record);
    if (record.pending.length > 0) this.transitioning.add(record);
  }

  /** The record whatever its visibility (programmatic access for the sandbox and tests). */
  get(id: string): InstanceRecord | undefined {
    return this.byId.get(id);
  }

  all(): readonly InstanceRecord[] {
    return this.ordered;
  }

  /** Each record with its position in `all()`, from `from` on (a listing's next page starts there). */
  *fromPosition(from: number): Generator<readonly [InstanceRecord, number]> {
    for (let i = Math.max(0, from); i < this.ordered.length; i++) {
      const record = this.ordered[i];
      if (record) yield [record, i];
    }
  }

  /** The records of these ids (unknown ones skipped) with their positions, in listing order. */
  positioned(ids: Iterable<string>): (readonly [InstanceRecord, number])[] {
    const out: (readonly [InstanceRecord, number])[] = [];
    for (const id of new Set(ids)) {
      const record = this.byId.get(id);
      const position = this.positions.get(id);
      if (record && position !== undefined) out.push([record, position]);
    }
    return out.sort((a, b) => a[1] - b[1]);
  }

  /** How many instances the store holds (visible or not): the end of the positions `all()` indexes. */
  get size(): number {
    return this.ordered.length;
  }

  /** Whether an API read at `now` sees the instance: past its visibility delay and not yet forgotten. */
  isVisible(record: InstanceRecord, now: number): boolean {
    if (now < record.visibleAfter) return false;
    return !(record.state === 'terminated' && now >= record.stateSince + this.timings.terminatedRetentionMs);
  }

  /** What the API sees at `now`, in launch (seed) order. */
  visible(now: number): readonly InstanceRecord[] {
    return this.all().filter((r) => this.isVisible(r, now));
  }

  lookup(id: string, now: number): InstanceRecord | undefined {
    const record = this.byId.get(id);
    return record && this.isVisible(record, now) ? record : undefined;
  }

  /** Sets a state now, dropping transitions that were due later (the sandbox's direct control). */
  setState(id: string, state: InstanceState, at: number): void {
    const record = this.require(id);
    record.pending.length = 0;
    this.transition(record, state, at);
  }

  /**
   * Starts a termination at `at`: `shutting-down` now, `terminated` after the shutdown time.
   * Terminating an instance already going away changes nothing, as on EC2.
   * Returns the state before and after, as TerminateInstances reports them.
   */
  terminate(id: string, at: number): { previous: InstanceState; current: InstanceState } {
    const record = this.require(id);
    const previous = record.state;
    if (previous === 'shutting-down' || previous === 'terminated') return { previous, current: previous };
    record.pending.length = 0;
    record.transitionReason = userInitiated(at);
    record.stateReason = SHUTDOWN_REASON;
    this.transition(record, 'shutting-down', at);
    const done = at + this.timings.shutdownMs;
    record.pending.push({ at: done, state: 'terminated' });
    this.transitioning.add(record);
    this.wake(done);
    return { previous, current: record.state };
  }

  /**
   * Stops an instance at `at` (StopInstances, or Auto Scaling putting it in its warm pool): `stopping`
   * now, `stopped` after the shutdown time. An instance not running (or pending) is left as it is.
   */
  stop(id: string, at: number): void {
    const record = this.require(id);
    if (record.state !== 'running' && record.state !== 'pending') return;
    record.pending.length = 0;
    record.transitionReason = userInitiated(at);
    record.stateReason = SHUTDOWN_REASON;
    this.transition(record, 'stopping', at);
    const done = at + this.timings.shutdownMs;
    record.pending.push({ at: done, state: 'stopped' });
    this.transitioning.add(record);
    this.wake(done);
  }

  /** Applies every transition due by `now`. Returns whether anything changed. */
  settle(now: number): boolean {
    let changed = false;
    for (const record of this.transitioning) {
      record.pending.sort((a, b) => a.at - b.at);
      while (record.pending[0] && record.pending[0].at <= now) {
        const next = record.pending.shift();
        if (next) this.transition(record, next.state, next.at);
        changed = true;
      }
      if (record.pending.length === 0) this.transitioning.delete(record);
    }
    return changed;
  }

  /** `by`: `api` when CreateTags set them (see AwsChange). */
  setTags(id: string, tags: ReadonlyMap<string, string>, at: number, by?: 'api'): void {
    const record = this.require(id);
    const set: Record<string, string> = {};
    for (const [key, value] of tags) {
      if (record.tags.get(key) === value) continue;
      record.tags.set(key, value);
      set[key] = value;
    }
    if (Object.keys(set).length > 0)
      this.feed.emit({ kind: 'instance-tags', at, instanceId: id, set, removed: [], ...(by ? { by } : {}) });
  }

  /** Removes keys; with a value given, only when the tag has exactly that value (DeleteTags semantics). */
  deleteTags(id: string, tags: readonly { key: string; value?: string }[] | 'all', at: number, by?: 'api'): void {
    const record = this.require(id);
    const removed: string[] = [];
    const targets =
      tags === 'all'
        ? [...record.tags.keys()].filter((k) => !k.startsWith('aws:')).map((key) => ({ key, value: undefined }))
        : tags;
    for (const { key, value } of targets) {
      const current = record.tags.get(key);
      if (current === undefined || (value !== undefined && value !== current)) continue;
      record.tags.delete(key);
      removed.push(key);
    }
    if (removed.length > 0)
      this.feed.emit({ kind: 'instance-tags', at, instanceId: id, set: {}, removed, ...(by ? { by } : {}) });
  }

  private transition(record: InstanceRecord, state: InstanceState, at: number): void {
    const from = record.state;
    if (from === state) return;
    record.state = state;
    record.stateSince = at;
    if (state === 'running' || state === 'pending') {
      record.transitionReason = '';
      record.stateReason = undefined;
      if (from === 'stopped') record.launchedAt = at;
    }
    this.feed.emit({ kind: 'instance-state', at, instanceId: record.id, from, to: state });
  }

  private require(id: string): InstanceRecord {
    const record = this.byId.get(id);
    if (!record) throw new Error(`instance ${id} is not in the emulator`);
    return record;
  }
}
