import type { AutoScalingAdapter } from '../aws/autoscaling.js';
import type { DrainLauncher } from '../aws/drain-launcher.js';
import type { OutputEventPublisher } from '../aws/output-events.js';
import type { DrainApi } from '../drain/api.js';
import type { NodeEventRecorder } from '../kube/events.js';
import type { NodeClient } from '../kube/nodes.js';
import type { ObserveDeps } from '../observe/deps.js';
import type { ApiCallCounter } from './api-calls.js';

/**
 * Everything one reconciler run touches, injected: the Lambdas wire real clients, the sandbox and
 * the CLI wire the same adapters to the emulators or the operator's credentials, tests wire fakes.
 * Each port is the slice of an adapter the pipeline uses, so a fake needs only those methods.
 */
export interface ReconcilerDeps extends ObserveDeps {
  /** The region whose EC2 this run asks: only it answers for a providerID (DESIGN §1a). */
  readonly region: string;
  readonly nodes: Pick<NodeClient, 'listNodes' | 'getNode' | 'deleteNode'>;
  /** The Node reads and patches of cordon, uncordon, taints and drain claims (lib/kube/node-writes.ts), and the drain's pod calls. */
  readonly drainApi: DrainApi;
  readonly events: Pick<NodeEventRecorder, 'record'>;
  readonly autoScaling: Pick<AutoScalingAdapter, 'describeGroups' | 'terminateHooks' | 'completeLifecycleAction' | 'markUnhealthy'>;
  readonly drains: DrainLauncher;
  /** The reconciler's own EventBridge bus; absent where nobody listens (CLI without a bus). */
  readonly output?: Pick<OutputEventPublisher, 'publish'>;
  /** Counts API requests by kind for the report. */
  readonly apiCalls?: ApiCallCounter;
}
