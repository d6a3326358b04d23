/** Time as epoch milliseconds. Inject a Clock; never call Date.now() in decision code. */
export interface Clock {
  now(): number;
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

  constructor(start: number | Date = Date.UTC(2026, 0, 1)) {
    this.current = typeof start === 'number' ? start : start.getTime();
  }

  now(): number {
    return this.current;
  }

  /** Runs `fire` when the clock reaches `at` (during a later advance). */
  schedule(at: number, fire: () => void): void {
    this.timers.push({ at, seq: this.seq++, fire });
  }

  /** Moves time forward, firing due timers in time order (each sees the clock at its own time). */
  advance(ms: number): void {
    if (ms < 0) throw new Error(`cannot advance a clock backwards (${ms} ms)`);
    const target = this.current + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.current = Math.max(this.current, due.at);
      due.fire();
    }
    this.current = target;
  }

  /** Sets the time (forward only), firing due timers. */
  set(to: number | Date): void {
    this.advance((typeof to === 'number' ? to : to.getTime()) - this.current);
  }
}
