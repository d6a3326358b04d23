// Inside a function's worker thread: the time the bundled code reads and waits for is the world's
// virtual clock. `Date` reads the clock the host shares; timers (setTimeout, setInterval, and the
// `node:timers` and `node:timers/promises` exports) wait for it instead of the wall clock. A timer
// fires when the world moves the clock past it, which the world does only once every thread waits
// for nothing but time: see `Quiet` below and the host's `idle` message.
import { syncBuiltinESMExports } from 'node:module';
import timers from 'node:timers';
import timersPromises from 'node:timers/promises';

type Callback = (...args: unknown[]) => void;

interface Timer {
  readonly id: number;
  at: number;
  readonly seq: number;
  readonly delay: number;
  readonly callback: Callback;
  readonly args: readonly unknown[];
  readonly repeat: boolean;
  referenced: boolean;
}

/** What Node's Timeout offers (ref, unref, refresh, a primitive id), over a virtual timer. */
class VirtualTimeout {
  constructor(
    private readonly timer: Timer,
    private readonly owner: VirtualTimers,
  ) {}
  ref(): this {
    this.timer.referenced = true;
    return this;
  }
  unref(): this {
    this.timer.referenced = false;
    return this;
  }
  hasRef(): boolean {
    return this.timer.referenced;
  }
  refresh(): this {
    this.owner.restart(this.timer);
    return this;
  }
  close(): this {
    this.owner.clear(this.timer.id);
    return this;
  }
  [Symbol.toPrimitive](): number {
    return this.timer.id;
  }
  [Symbol.dispose](): void {
    this.close();
  }
}

/** The pending timers of a thread whose time is virtual. */
export class VirtualTimers {
  private readonly pending = new Map<number, Timer>();
  private ids = 0;
  private seq = 0;

  constructor(private readonly now: () => number) {}

  add(callback: unknown, delay: unknown, args: readonly unknown[], repeat: boolean): VirtualTimeout {
    if (typeof callback !== 'function') throw new TypeError('The "callback" argument must be of type function');
    // Node's rule: a delay that is not a number in [1, 2^31 - 1] is 1 ms.
    const ms = typeof delay === 'number' && delay >= 1 && delay <= 2_147_483_647 ? Math.floor(delay) : 1;
    const timer: Timer = {
      id: ++this.ids,
      at: this.now() + ms,
      seq: this.seq++,
      delay: ms,
      callback: callback as Callback,
      args,
      repeat,
      referenced: true,
    };
    this.pending.set(timer.id, timer);
    return new VirtualTimeout(timer, this);
  }

  clear(handle: unknown): void {
    if (handle instanceof VirtualTimeout) handle.close();
    else if (typeof handle === 'number') this.pending.delete(handle);
  }

  restart(timer: Timer): void {
    if (!this.pending.has(timer.id)) this.pending.set(timer.id, timer);
    timer.at = this.now() + timer.delay;
  }

  /** The earliest time a timer waits for. */
  nextAt(): number | undefined {
    let next: number | undefined;
    for (const timer of this.pending.values()) if (next === undefined || timer.at < next) next = timer.at;
    return next;
  }

  /** Drops every pending timer (a new execution environment starts with none). */
  reset(): void {
    this.pending.clear();
  }

  get size(): number {
    return this.pending.size;
  }

  /** Runs every timer due by now, in time order; returns how many ran. */
  fireDue(): number {
    let fired = 0;
    for (;;) {
      const now = this.now();
      let due: Timer | undefined;
      for (const timer of this.pending.values()) {
        if (timer.at <= now && (due === undefined || timer.at < due.at || (timer.at === due.at && timer.seq < due.seq)))
          due = timer;
      }
      if (!due) return fired;
      if (due.repeat) due.at = now + due.delay;
      else this.pending.delete(due.id);
      fired += 1;
      try {
        due.callback(...due.args);
      } catch (error) {
        // As in Node: an exception in a timer is uncaught (the runtime reports it and the invocation fails).
        process.nextTick(() => {
          throw error;
        });
      }
    }
  }
}

/**
 * Makes this thread's time virtual: `now` reads the world's clock. Call before the bundled code
 * loads, so that it captures the virtual `Date` and timers.
 */
export function installVirtualTime(now: () => number): VirtualTimers {
  const virtual = new VirtualTimers(now);
  const RealDate = Date;
  // `new Date()` and `Date.now()` read the clock; every other form is the real Date's.
  class VirtualDate extends RealDate {
    constructor(...args: ConstructorParameters<DateConstructor> | []) {
      if (args.length === 0) super(now());
      else super(...args);
    }
    static override now(): number {
      return now();
    }
  }
  // Called as a function, Date returns the current time as a string.
  const DateFunction = new Proxy(VirtualDate, { apply: () => new VirtualDate().toString() });
  globalThis.Date = DateFunction as DateConstructor;

  const setTimeoutVirtual = (callback: unknown, delay?: unknown, ...args: unknown[]) =>
    virtual.add(callback, delay, args, false);
  const setIntervalVirtual = (callback: unknown, delay?: unknown, ...args: unknown[]) =>
    virtual.add(callback, delay, args, true);
  const clearVirtual = (handle: unknown) => virtual.clear(handle);
  const sleep = <T>(delay?: number, value?: T, options?: { signal?: AbortSignal }): Promise<T | undefined> =>
    new Promise((resolve, reject) => {
      const signal = options?.signal;
      const abortError = (): Error =>
        signal?.reason instanceof Error ? signal.reason : new DOMException('The operation was aborted', 'AbortError');
      if (signal?.aborted) {
        reject(abortError());
        return;
      }
      const handle = virtual.add(() => resolve(value), delay, [], false);
      signal?.addEventListener(
        'abort',
        () => {
          handle.close();
          reject(abortError());
        },
        { once: true },
      );
    });

  const globals = globalThis as unknown as Record<string, unknown>;
  globals.setTimeout = setTimeoutVirtual;
  globals.setInterval = setIntervalVirtual;
  globals.clearTimeout = clearVirtual;
  globals.clearInterval = clearVirtual;
  const timersModule = timers as unknown as Record<string, unknown>;
  timersModule.setTimeout = setTimeoutVirtual;
  timersModule.setInterval = setIntervalVirtual;
  timersModule.clearTimeout = clearVirtual;
  timersModule.clearInterval = clearVirtual;
  (timersPromises as unknown as Record<string, unknown>).setTimeout = sleep;
  // A deadline signal (the SDK's request timeouts, a handler's own bounds) fires on the clock too.
  AbortSignal.timeout = (delay: number): AbortSignal => {
    const controller = new AbortController();
    virtual.add(
      () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
      delay,
      [],
      false,
    );
    return controller.signal;
  };
  // ESM `import { setTimeout } from 'node:timers'` binds to these from now on.
  syncBuiltinESMExports();
  return virtual;
}
