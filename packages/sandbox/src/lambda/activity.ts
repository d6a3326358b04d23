/**
 * Work in flight that the world must wait for before it moves the clock: a function invocation
 * doing I/O, a worker starting. A unit is held while the work can move without the clock and
 * released while it waits for time.
 */
export class Activity {
  private units = 0;
  private waiters: (() => void)[] = [];

  get busy(): boolean {
    return this.units > 0;
  }

  acquire(): void {
    this.units += 1;
  }

  release(): void {
    if (this.units === 0) throw new Error('activity released more often than acquired');
    this.units -= 1;
    if (this.units === 0) this.waiters.splice(0).forEach((resolve) => resolve());
  }

  /** Resolves once no unit is held. */
  quiet(): Promise<void> {
    if (this.units === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}
