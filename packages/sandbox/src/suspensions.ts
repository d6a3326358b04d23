// A count of suspensions in force, each ended once by the function that began it: what both emulators'
// fault injectors hold while the operator pictures the world (simulate/run.ts).
export class Suspensions {
  private count = 0;

  /** Whether any suspension is in force. */
  get active(): boolean {
    return this.count > 0;
  }

  /** Begins a suspension; the returned function ends it (a second call changes nothing). */
  begin(): () => void {
    this.count++;
    let ended = false;
    return () => {
      if (!ended) this.count--;
      ended = true;
    };
  }
}
