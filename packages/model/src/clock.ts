/** Time as epoch milliseconds. Inject a Clock; never call Date.now() in decision code. */
export interface Clock {
  now(): number;
  /** Waits `ms` of this clock's time. Without it, a wait is real time (setTimeout). */
  sleep?(ms: number): Promise<void>;
}

export const systemClock: Clock = { now: () => Date.now() };

type Timer = { at: number; seq: number; fire: () => void };

/**
 * A clock that moves only when told. The sandbox, both emulators and tests share one, so
 * heartbeats, pod terminations and drain deadlines all follow the same simulated time.
 */
export class VirtualClock implements Clock {
  private current: number;
  private timers: Timer[] = [];
  private seq = 0;
  private readonly observers: ((now: number) => void)[] = [];

  constructor(start: number | Date = Date.UTC(2026, 0, 1)) {
    this.current = typeof start === 'number' ? start : start.getTime();
  }

  now(): number {
    return this.current;
  }

  /** Calls `observer` with the time whenever the clock moves (threads that read the time without asking). */
  observe(observer: (now: number) => void): void {
    this.observers.push(observer);
    observer(this.current);
  }

  /** The earliest time a scheduled timer waits for. */
  nextTimerAt(): number | undefined {
    let next: number | undefined;
    for (const timer of this.timers) if (next === undefined || timer.at < next) next = timer.at;
    return next;
  }

  private moveTo(at: number): void {
    if (at === this.current) return;
    this.current = at;
    for (const observer of this.observers) observer(at);
  }

  /** Runs `fire` when the clock reaches `at` (during a later advance). Returns the cancel function. */
  schedule(at: number, fire: () => void): () => void {
    const timer = { at, seq: this.seq++, fire };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Moves time forward, firing due timers in time order (each sees the clock at its own time). */
  advance(ms: number): void {
    if (ms < 0) throw new Error(`cannot advance a clock backwards (${ms} ms)`);
    const target = this.current + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.moveTo(Math.max(this.current, due.at));
      due.fire();
    }
    this.moveTo(target);
  }

  /**
   * A wait on this clock: time is advanced (so a drain over minutes of emulated time runs in
   * milliseconds), then I/O callbacks (an emulator answering on the same event loop) run.
   */
  async sleep(ms: number): Promise<void> {
    this.advance(ms);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }

  /** Sets the time (forward only), firing due timers. */
  set(to: number | Date): void {
    this.advance((typeof to === 'number' ? to : to.getTime()) - this.current);
  }
}

/** A sleep that follows the clock: its own when it has one (a VirtualClock's), else real time. */
export function sleepOn(clock: Clock): (ms: number) => Promise<void> {
  const own = clock.sleep?.bind(clock);
  if (own) return own;
  return (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms));
}
