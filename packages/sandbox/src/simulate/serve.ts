// What `simulate --serve` keeps running once the scenario has ended, so that real clients waiting
// in wall time see a cluster that lives on: the virtual clock follows wall time from where the
// scenario left it (pods finish terminating, kubelets renew their Leases, lifecycle hooks time out),
// and the workload controllers replace evicted pods (so a PodDisruptionBudget lets `kubectl drain`
// evict the next one, as a real cluster's ReplicaSets do).
import { driveInRealTime } from '../kube/index.js';
import { WorkloadControllers } from './controllers.js';
import type { Sandbox } from './sandbox.js';

export interface ServeOptions {
  /** Virtual milliseconds per wall millisecond. @default 1 */
  readonly speed?: number;
  /** How often the controllers look for pods to replace (wall ms). @default 1000 */
  readonly controllersEveryMs?: number;
}

/** Starts the served sandbox's life in wall time; returns a function that stops it. */
export function serveInRealTime(sandbox: Sandbox, options: ServeOptions = {}): () => void {
  const stopClock = driveInRealTime(sandbox.clock, { speed: options.speed ?? 1 });
  // The controllers take the workloads' pods as the scenario left them.
  const controllers = new WorkloadControllers(sandbox.kube.store);
  const timer = setInterval(() => controllers.reconcile(), options.controllersEveryMs ?? 1_000);
  timer.unref();
  return () => {
    stopClock();
    clearInterval(timer);
  };
}
