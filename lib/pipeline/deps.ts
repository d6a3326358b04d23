import type { AutoScalingAdapter } from '../aws/autoscaling.js';
import type { DrainLauncher } from '../aws/drain-launcher.js';
import type { Ec2Adapter } from '../aws/ec2.js';
import type { OutputEventPublisher } from '../aws/output-events.js';
import type { DrainApi } from '../drain/api.js';
import type { NodeEventRecorder } from '../kube/events.js';
import type { NodeFinder } from '../kube/find-node.js';
import type { LeaseClient } from '../kube/leases.js';
import type { NodeClient } from '../kube/nodes.js';
import type { Clock } from '../model/clock.js';
import type { Settings } from '../settings.js';
import type { ApiCallCounter } from './api-calls.js';

/**
 * Everything one reconciler run touches, injected: the Lambdas wire real clients, the sandbox and
 * the CLI wire the same adapters to the emulators or the operator's credentials, tests wire fakes.
 * Each port is the slice of an adapter the pipeline uses, so a fake needs only those methods.
 */
export interface ReconcilerDeps {
  readonly clusterName: string;
  readonly settings: Settings;
  readonly clock: Clock;
  readonly nodes: Pick<NodeClient, 'listNodes' | 'getNode' | 'deleteNode' | 'setShutdownTaint'>;
  readonly leases: Pick<LeaseClient, 'listLeases' | 'getLease'>;
  readonly finder: Pick<NodeFinder, 'find'>;
  /** Cordon and uncordon go through the drain engine's idempotent implementation. */
  readonly drainApi: DrainApi;
  readonly events: Pick<NodeEventRecorder, 'record'>;
  readonly ec2: Pick<Ec2Adapter, 'describeByIds' | 'describeClusterInstances' | 'describeByPrivateDnsNames' | 'scheduledEvents'>;
  readonly autoScaling: Pick<AutoScalingAdapter, 'describeInstances' | 'terminateHook' | 'completeLifecycleAction' | 'markUnhealthy'>;
  readonly drains: DrainLauncher;
  /** The reconciler's own EventBridge bus; absent where nobody listens (CLI without a bus). */
  readonly output?: Pick<OutputEventPublisher, 'publish'>;
  /** Counts API requests by kind for the report. */
  readonly apiCalls?: ApiCallCounter;
}
