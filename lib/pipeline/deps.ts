import type { ActDeps } from '../act/deps.js';
import type { DrainLauncher } from '../aws/drain-launcher.js';
import type { ObserveDeps } from '../observe/deps.js';
import type { NotifyDeps } from '../report/notify.js';
import type { ApiCallCounter } from '../support/api-calls.js';

/**
 * Everything one reconciler run touches, injected: the Lambdas wire real clients, the sandbox and
 * the CLI wire the same adapters to the emulators or the operator's credentials, tests wire fakes.
 * Each stage declares the ports it calls (ObserveDeps, ActDeps, NotifyDeps); the conductor needs
 * their union and the few fields it reads itself, so a fake needs only the methods the stages call.
 */
export type ReconcilerDeps = ObserveDeps &
  ActDeps &
  NotifyDeps & {
    /** The region whose EC2 this run asks: only it answers for a providerID (docs/design.md §1a). */
    readonly region: string;
    /** Whether drains run here rather than in Step Functions: the plan names their executions apart. */
    readonly drains: Pick<DrainLauncher, 'local'>;
    /** Counts API requests by kind for the report. */
    readonly apiCalls?: ApiCallCounter;
  };
