// Simulated kubelets. Nothing runs on a timer: a kubelet's heartbeats fall on a fixed grid
// (phase + k·interval), so the Lease renewTime and the Ready heartbeat a client sees are computed
// from the clock when the object is read. That works the same on a VirtualClock and a real one,
// and costs nothing for the 100,000 nodes nobody is looking at.
import type { Clock } from '@ec2-node-reconciler/model/clock.js';
import { formatMicroTime, formatTime, parseTime } from './time.js';
import type { LeaseObject, NodeObject } from './types.js';

export type KubeletOptions = {
  /** How often a kubelet renews its Lease (kubelet nodeLeaseRenewInterval). @default 10_000 */
  readonly leaseRenewIntervalMs?: number;
  /**
   * How often it posts node status when nothing changed, refreshing the conditions'
   * lastHeartbeatTime (kubelet nodeStatusReportFrequency). @default 300_000 (5 min, the kubelet's)
   */
  readonly statusReportIntervalMs?: number;
  /** Delay before a deleted Node's kubelet registers it again (at most; it happens on its next tick). @default 10_000 */
  readonly reRegisterWithinMs?: number;
};

type KubeletState = {
  heartbeating: boolean;
  /** Heartbeat ticks fall on phase + k·interval. */
  phase: number;
  /** When it stopped heartbeating; ticks after this never happen. */
  stoppedAt: number | undefined;
  /**
   * When its Node and Lease were seeded; ticks at or before this never happened: the seeded renewTime
   * and Ready heartbeat are what the API serves until the first tick after it. (A heartbeating kubelet
   * seeded 10 minutes quiet resumes then; it does not make up the renewals it missed.)
   */
  seededAt: number | undefined;
  /** The Node it registers (labels, taints, providerID as the kubelet's flags would set them). */
  template: NodeObject;
};

/** What the kubelet asks of the store (kept narrow so kubelet.ts does not import the store). */
export type KubeletHost = {
  registerNode(template: NodeObject, at: number): void;
  ensureLease(nodeName: string, renewTime: number): void;
};

/** The later of two times, either of which may be none. */
const later = (a: number | undefined, b: number | undefined): number | undefined =>
  a === undefined ? b : b === undefined ? a : Math.max(a, b);

export class Kubelets {
  private readonly states = new Map<string, KubeletState>();
  private readonly pendingRegistrations = new Map<string, number>();
  private readonly pendingLeases = new Map<string, number>();
  readonly leaseIntervalMs: number;
  readonly statusIntervalMs: number;
  readonly reRegisterMs: number;

  constructor(
    private readonly clock: Clock,
    options: KubeletOptions = {},
  ) {
    this.leaseIntervalMs = options.leaseRenewIntervalMs ?? 10_000;
    this.statusIntervalMs = options.statusReportIntervalMs ?? 300_000;
    this.reRegisterMs = options.reRegisterWithinMs ?? 10_000;
  }

  /**
   * A kubelet for `template`'s node, seeded now: its heartbeats fall on `phase` + k·interval, from the
   * first one after now on (what is seeded holds until then).
   */
  add(template: NodeObject, heartbeating: boolean, phase: number): void {
    const name = template.metadata.name ?? '';
    this.states.set(name, {
      heartbeating,
      phase,
      stoppedAt: heartbeating ? undefined : phase,
      seededAt: this.clock.now(),
      template,
    });
  }

  has(nodeName: string): boolean {
    return this.states.has(nodeName);
  }

  isHeartbeating(nodeName: string): boolean {
    return this.states.get(nodeName)?.heartbeating ?? false;
  }

  /** Starts or stops a kubelet now (machine started, stopped, terminated, kubelet crashed). */
  setHeartbeating(nodeName: string, on: boolean): void {
    const state = this.states.get(nodeName);
    if (state === undefined)
      throw new Error(`no simulated kubelet for node ${nodeName}; seed the node with seedNode first`);
    const now = this.clock.now();
    if (on && !state.heartbeating) {
      // A (re)started kubelet heartbeats at once, then on its interval.
      state.heartbeating = true;
      state.phase = now;
      state.stoppedAt = undefined;
      state.seededAt = undefined;
    } else if (!on && state.heartbeating) {
      state.heartbeating = false;
      state.stoppedAt = now;
    }
  }

  /**
   * Whether a kubelet was running on the node at `at` and so finished terminating its pods.
   * Nodes seeded without a simulated kubelet are assumed to have a working one.
   */
  isAlive(nodeName: string, at: number): boolean {
    const state = this.states.get(nodeName);
    if (state === undefined) return true;
    if (state.heartbeating) return true;
    return state.stoppedAt !== undefined && at < state.stoppedAt;
  }

  /** The last moment its kubelet heartbeats by `now`: now, or when it stopped. */
  private heardUntil(state: KubeletState, now: number): number {
    return state.heartbeating ? now : Math.min(now, state.stoppedAt ?? now);
  }

  private lastTick(state: KubeletState, interval: number, now: number): number | undefined {
    const until = this.heardUntil(state, now);
    if (until < state.phase) return undefined;
    const tick = state.phase + Math.floor((until - state.phase) / interval) * interval;
    return state.seededAt !== undefined && tick <= state.seededAt ? undefined : tick;
  }

  /**
   * The status a kubelet seeded quiet posts at its first sync after seeding (its first Lease tick), as
   * a kubelet posts at once when its last report is older than the report interval; undefined when it
   * has not come yet, or the report held is recent.
   */
  private resumedPost(state: KubeletState, held: number | undefined, now: number): number | undefined {
    if (state.seededAt === undefined) return undefined;
    const firstSync = this.nextTickAfter(state, state.seededAt, this.leaseIntervalMs);
    if (firstSync > this.heardUntil(state, now) || (held !== undefined && firstSync - held < this.statusIntervalMs))
      return undefined;
    return firstSync;
  }

  /** Its first tick after `at`, on the grid of `interval` (by default the one re-registrations keep). */
  private nextTickAfter(
    state: KubeletState,
    at: number,
    interval = Math.min(this.leaseIntervalMs, this.reRegisterMs),
  ): number {
    if (at < state.phase) return state.phase;
    return state.phase + (Math.floor((at - state.phase) / interval) + 1) * interval;
  }

  /**
   * A Lease's renewTime (epoch ms) as its kubelet has renewed it by now, from the time the stored Lease
   * holds: the later of the two (a kubelet never moves it back).
   */
  leaseRenewedAt(nodeName: string, held: number | undefined): number | undefined {
    const state = this.states.get(nodeName);
    const tick = state === undefined ? undefined : this.lastTick(state, this.leaseIntervalMs, this.clock.now());
    return tick === undefined || (held !== undefined && held >= tick) ? held : tick;
  }

  /**
   * The conditions' lastHeartbeatTime (epoch ms, whole seconds as the API writes it) as the Node's
   * kubelet has posted status by now, from the time the stored Node holds; undefined `held` is a Node
   * with no such time yet.
   */
  statusPostedAt(nodeName: string, held: number | undefined): number | undefined {
    const state = this.states.get(nodeName);
    const now = this.clock.now();
    const tick =
      state === undefined
        ? undefined
        : later(this.lastTick(state, this.statusIntervalMs, now), this.resumedPost(state, held, now));
    if (tick === undefined) return held;
    const posted = Math.floor(tick / 1000) * 1000;
    return held !== undefined && held >= posted ? held : posted;
  }

  /** The Lease as its kubelet has renewed it by now (the same object when nothing changed). */
  refreshLease(lease: LeaseObject): LeaseObject {
    const current = parseTime(lease.spec?.renewTime);
    const renewed = this.leaseRenewedAt(lease.metadata.name ?? '', current);
    if (renewed === current || renewed === undefined) return lease;
    return { ...lease, spec: { ...lease.spec, renewTime: formatMicroTime(renewed) } };
  }

  /** The Node with the condition heartbeats its kubelet has posted by now. */
  refreshNode(node: NodeObject): NodeObject {
    const conditions = node.status?.conditions;
    if (conditions === undefined) return node;
    const current = parseTime(conditions.find((c) => c.type === 'Ready')?.lastHeartbeatTime);
    const posted = this.statusPostedAt(node.metadata.name ?? '', current);
    if (posted === current || posted === undefined) return node;
    const stamp = formatTime(posted);
    return {
      ...node,
      status: { ...node.status, conditions: conditions.map((c) => ({ ...c, lastHeartbeatTime: stamp })) },
    };
  }

  onNodeDeleted(nodeName: string, at: number): void {
    const state = this.states.get(nodeName);
    if (state?.heartbeating !== true) return;
    this.pendingRegistrations.set(nodeName, this.nextTickAfter(state, at));
  }

  onLeaseDeleted(nodeName: string, at: number): void {
    const state = this.states.get(nodeName);
    if (state?.heartbeating !== true) return;
    this.pendingLeases.set(nodeName, this.nextTickAfter(state, at));
  }

  /** Performs the re-registrations and Lease re-creations that are due, in time order. */
  catchUp(host: KubeletHost): void {
    if (this.pendingRegistrations.size === 0 && this.pendingLeases.size === 0) return;
    const now = this.clock.now();
    const due = [
      ...[...this.pendingRegistrations].map(([name, at]) => ({ name, at, what: 'node' as const })),
      ...[...this.pendingLeases].map(([name, at]) => ({ name, at, what: 'lease' as const })),
    ]
      .filter((d) => d.at <= now)
      .sort((a, b) => a.at - b.at);
    for (const { name, at, what } of due) {
      const state = this.states.get(name);
      if (what === 'node') this.pendingRegistrations.delete(name);
      else this.pendingLeases.delete(name);
      const alive =
        state !== undefined && (state.heartbeating || (state.stoppedAt !== undefined && at < state.stoppedAt));
      if (!alive) continue;
      if (what === 'node') host.registerNode(state.template, at);
      else host.ensureLease(name, at);
    }
  }
}
