import { AutoScalingAdapter } from '../aws/autoscaling.js';
import type { AwsClients } from '../aws/clients.js';
import { countAwsRequests } from '../aws/count-requests.js';
import type { DrainLauncher } from '../aws/drain-launcher.js';
import { Ec2Adapter } from '../aws/ec2.js';
import { OutputEventPublisher } from '../aws/output-events.js';
import { kubeDrainApi } from '../drain/kube-api.js';
import { KubeClient, type KubeConnection } from '../kube/client.js';
import { countKubeRequests } from '../kube/count-requests.js';
import { NodeEventRecorder } from '../kube/events.js';
import { NodeFinder } from '../kube/find-node.js';
import { LeaseClient } from '../kube/leases.js';
import { NodeClient } from '../kube/nodes.js';
import { sleepOn, type Clock } from '@ec2-node-reconciler/model/clock.js';
import type { InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import type { Settings } from '@ec2-node-reconciler/model/contract/settings.js';
import { ApiCallCounter } from '../support/api-calls.js';
import type { TerminateHookCache } from '../observe/terminate-hook-cache.js';
import type { ReconcilerDeps } from './deps.js';

export interface WireOptions {
  readonly clusterName: string;
  /** The region the AWS clients ask. */
  readonly region: string;
  /** Auto Scaling groups configured as this cluster's. */
  readonly ownGroups?: readonly string[];
  /** The terminate lifecycle hooks the reconciler completes. */
  readonly ownHooks?: readonly string[];
  readonly settings: Settings;
  readonly clock: Clock;
  /** The API server and the credentials to reach it, or their promise (the first Kubernetes call waits for it). */
  readonly kube: KubeConnection | Promise<KubeConnection>;
  /** The run's API call counter, when calls were made before wiring (DescribeCluster); a new one otherwise. */
  readonly apiCalls?: ApiCallCounter;
  readonly aws: AwsClients;
  /**
   * Builds the run's drain launcher; `aws` are this run's counted views of the clients (start the
   * workflow through `aws.sfn` so StartExecution shows in the report's apiCalls).
   */
  readonly drains: (deps: Omit<ReconcilerDeps, 'drains'>, aws: AwsClients) => DrainLauncher;
  /** The output event bus; no output events without it. */
  readonly outputBusName?: string;
  /** Instance → node name hints kept across runs (a warm Lambda container's cache). */
  readonly nodeNameHints?: Map<InstanceId, string>;
  /** Groups' terminate hooks read lately, kept across runs (a warm Lambda container's cache). */
  readonly terminateHookCache?: TerminateHookCache;
  /** Milliseconds the invocation has left; Kubernetes calls never outlive it (KubeClientOptions.remainingMs). */
  readonly remainingMs?: () => number;
  /** Kubernetes requests in flight at once (KubeClientOptions.maxInFlight). @default unlimited */
  readonly kubeMaxInFlight?: number;
}

/** The real adapters over one Kubernetes connection and one set of AWS clients, with API calls counted. */
export function wireReconciler(options: WireOptions): ReconcilerDeps {
  const apiCalls = options.apiCalls ?? new ApiCallCounter();
  const kube = new KubeClient(options.kube, {
    onRequest: countKubeRequests(apiCalls),
    sleep: sleepOn(options.clock),
    ...(options.remainingMs ? { remainingMs: options.remainingMs } : {}),
    ...(options.kubeMaxInFlight !== undefined ? { maxInFlight: options.kubeMaxInFlight } : {}),
  });
  const aws = countAwsRequests(options.aws, apiCalls);
  const nodes = new NodeClient(kube);
  const base: Omit<ReconcilerDeps, 'drains'> = {
    clusterName: options.clusterName,
    region: options.region,
    ...(options.ownGroups ? { ownGroups: options.ownGroups } : {}),
    ...(options.ownHooks ? { ownHooks: options.ownHooks } : {}),
    ...(options.terminateHookCache ? { terminateHookCache: options.terminateHookCache } : {}),
    settings: options.settings,
    clock: options.clock,
    nodes,
    leases: new LeaseClient(kube),
    finder: new NodeFinder(nodes, options.nodeNameHints),
    drainApi: kubeDrainApi(kube),
    events: new NodeEventRecorder(kube, options.clock),
    ec2: new Ec2Adapter(aws.ec2),
    autoScaling: new AutoScalingAdapter(aws.autoScaling),
    ...(options.outputBusName ? { output: new OutputEventPublisher(aws.eventBridge, options.outputBusName) } : {}),
    apiCalls,
  };
  return { ...base, drains: options.drains(base, aws) };
}
