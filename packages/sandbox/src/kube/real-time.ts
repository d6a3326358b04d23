// Lets a VirtualClock follow wall time (optionally faster), for runs where a real-time client
// such as kubectl waits on the emulator while the sandbox keeps one shared virtual clock.
import type { VirtualClock } from '@ec2-node-reconciler/model/clock.js';

export type RealTimeOptions = {
  /** Virtual milliseconds per wall millisecond. @default 1 */
  readonly speed?: number;
  /** How often the clock is advanced (wall ms). @default 50 */
  readonly tickMs?: number;
};

/** Starts advancing `clock` with wall time; returns a function that stops it. */
export function driveInRealTime(clock: VirtualClock, options: RealTimeOptions = {}): () => void {
  const speed = options.speed ?? 1;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    clock.advance(Math.max(0, (now - last) * speed));
    last = now;
  }, options.tickMs ?? 50);
  // Never keep a process alive just to move a simulated clock.
  timer.unref();
  return () => clearInterval(timer);
}
