// Moves the world's clock, and only when nothing can happen without it: every function invocation
// waits for a timer (or has ended), every workflow execution waits for the clock (or for an
// invocation), and no timer is due. Then the clock goes to the next timer, anyone's: a Wait state,
// a function's sleep, a message coming back to the queue, a retry, a fault's window.
import type { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import type { Activity } from '../lambda/activity.js';

export interface Waiter {
  /** Whether, right now, it waits for nothing but the clock. */
  readonly waiting: boolean;
  /** Resolves when it does. */
  idle(): Promise<void>;
}

// SANDBOX_TRACE=1 writes the driver's moves to stderr: where a world that never settles is stuck.
const trace =
  process.env['SANDBOX_TRACE'] === '1' ? (line: string) => process.stderr.write(`[driver] ${line}\n`) : () => undefined;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class WorldDriver {
  constructor(
    private readonly clock: VirtualClock,
    private readonly activity: Activity,
    private readonly waiters: readonly Waiter[],
    /** Run whenever the clock has moved (the workload controllers' reaction to evictions). */
    private readonly onTick: () => void = () => undefined,
  ) {}

  /** Lets everything that can move without the clock move, running timers due now. */
  async quiesce(): Promise<void> {
    for (let turns = 0; ; turns++) {
      if (turns > 1_000_000)
        throw new Error('the world never settled at one time (a timer keeps rescheduling itself at the present)');
      if (turns === 0)
        trace(`quiesce at ${new Date(this.clock.now()).toISOString()}: busy ${String(this.activity.busy)}`);
      await this.activity.quiet();
      await Promise.all(this.waiters.map((w) => w.idle()));
      // Promise chains that were already resolved finish before the next turn.
      await nextTurn();
      if (this.activity.busy || this.waiters.some((w) => !w.waiting)) {
        if (turns % 10_000 === 9_999)
          trace(
            `not settled after ${turns + 1} turns: busy ${String(this.activity.busy)}, waiters ${this.waiters.map((w) => String(w.waiting)).join(',')}`,
          );
        continue;
      }
      const next = this.clock.nextTimerAt();
      if (next !== undefined && next <= this.clock.now()) {
        this.clock.advance(0);
        continue;
      }
      return;
    }
  }

  /** Moves the clock to `until`, stopping at every timer on the way. */
  async advanceTo(until: number): Promise<void> {
    await this.quiesce();
    for (let next = this.clock.nextTimerAt(); next !== undefined && next <= until; next = this.clock.nextTimerAt()) {
      this.step(next);
      await this.quiesce();
    }
    if (until > this.clock.now()) {
      this.step(until);
      await this.quiesce();
    }
  }

  /** Moves the clock from timer to timer until `done` holds; throws if nothing is left to wait for first. */
  async runUntil(done: () => boolean, what: string): Promise<void> {
    await this.quiesce();
    while (!done()) {
      const next = this.clock.nextTimerAt();
      if (next === undefined) throw new Error(`${what}: nothing left to happen, and it has not`);
      this.step(next);
      await this.quiesce();
    }
  }

  private step(to: number): void {
    trace(
      `clock ${new Date(this.clock.now()).toISOString()} → ${new Date(Math.max(to, this.clock.now())).toISOString()}`,
    );
    this.clock.set(Math.max(to, this.clock.now()));
    this.onTick();
  }
}
