import { ClusterEndpointCache } from '../aws/cluster-access.js';
import { createAwsClients, type AwsClientOptions, type AwsClients } from '../aws/clients.js';
import { StepFunctionsDrainLauncher } from '../aws/drain-launcher.js';
import { EksTokenSource } from '../aws/eks-token.js';
import type { KubeConnection } from '../kube/client.js';
import { bearerConnection } from '../kube/connection.js';
import { systemClock, type Clock } from '@ec2-node-reconciler/model/clock.js';
import type { InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import { countAwsRequests } from '../aws/count-requests.js';
import { ApiCallCounter } from '../support/api-calls.js';
import type { ReconcilerDeps } from '../pipeline/deps.js';
import { wireReconciler, type WireOptions } from '../pipeline/wire.js';
import { TerminateHookCache } from '../observe/terminate-hook-cache.js';
import type { Settings } from '@ec2-node-reconciler/model/contract/settings.js';
import { KUBE_SEATS } from '@ec2-node-reconciler/model/contract/api-budgets.js';
import type { FunctionConfig } from './config.js';
import { drainDeps } from '../drain/deps.js';
import type { DrainDeps } from '../drain/step.js';
import type { DrainStepResult } from '../drain/step-result.js';

/**
 * What a warm Lambda container keeps between invocations: AWS clients, the cluster endpoint, the
 * EKS token (regenerated before it expires) and the instance → node name hints. Everything else
 * is built per invocation.
 */
export class WarmRuntime {
  readonly aws: AwsClients;
  private readonly endpoint: ClusterEndpointCache;
  private readonly tokens: EksTokenSource;
  private readonly nodeNameHints = new Map<InstanceId, string>();
  private readonly terminateHookCache = new TerminateHookCache();

  /**
   * @param aws where the AWS clients point: AWS itself in Lambda (nothing to pass); the sandbox's
   * emulator endpoint and credentials elsewhere.
   */
  constructor(
    readonly config: FunctionConfig,
    readonly clock: Clock = systemClock,
    aws: Omit<AwsClientOptions, 'region'> = {},
  ) {
    this.aws = createAwsClients({ region: config.region, ...aws });
    this.endpoint = new ClusterEndpointCache(this.aws.eks, config.clusterName);
    // The EKS client's credential chain (memoised and refreshed by the SDK), reached when a token is first made.
    const credentials = async () => (await this.aws.eks()).config.credentials();
    this.tokens = new EksTokenSource({ cluster: config.clusterName, region: config.region, credentials, clock });
  }

  /**
   * This invocation's way to the API server: a 401 on it makes the next invocation bring a fresh
   * token. `eks`: the client to ask DescribeCluster through when the endpoint is not cached yet.
   */
  async kubeConnection(eks?: AwsClients['eks']): Promise<KubeConnection> {
    const [endpoint, token] = await Promise.all([this.endpoint.endpoint(eks), this.tokens.token()]);
    const credentials = {
      server: endpoint.server,
      token,
      ...(endpoint.certificateAuthority ? { caData: endpoint.certificateAuthority } : {}),
    };
    return bearerConnection(credentials, () => this.invalidateToken());
  }

  /**
   * One drain step's deps, over this container's connection. `remainingMs`: the invocation's time
   * left (see timeLeftIn), which bounds every Kubernetes call.
   */
  async drainDeps(
    settings: Settings = this.config.settings,
    extras: Pick<WireOptions, 'remainingMs'> & { onProgress?: (progress: DrainStepResult) => void } = {},
  ): Promise<DrainDeps> {
    return drainDeps({
      connection: await this.kubeConnection(),
      clock: this.clock,
      settings,
      client: {
        maxInFlight: KUBE_SEATS.perInvocation,
        ...(extras.remainingMs ? { remainingMs: extras.remainingMs } : {}),
      },
      ...(extras.onProgress ? { onProgress: extras.onProgress } : {}),
    });
  }

  /** After a 401 the token is regenerated on the next call. */
  invalidateToken(): void {
    this.tokens.invalidate();
  }

  /**
   * One invocation's deps. `drains`: how drains start (the Step Functions workflow by default);
   * `remainingMs`: the invocation's time left (see timeLeftIn).
   */
  reconcilerDeps(
    settings: Settings = this.config.settings,
    extras: Pick<WireOptions, 'remainingMs'> & { drains?: WireOptions['drains'] } = {},
  ): Promise<ReconcilerDeps> {
    const { drains, remainingMs } = extras;
    // Counted from the start, so a cold invocation's DescribeCluster shows in its report; and not
    // awaited here: the endpoint is looked up while the run's first AWS calls go out (an event's
    // DescribeInstances), and its first Kubernetes call waits for it.
    const apiCalls = new ApiCallCounter();
    const kube = this.kubeConnection(countAwsRequests(this.aws, apiCalls).eks);
    const arn = this.config.drainStateMachineArn;
    const wire = (): ReconcilerDeps =>
      wireReconciler({
        apiCalls,
        clusterName: this.config.clusterName,
        region: this.config.region,
        ...(this.config.autoScalingGroupNames ? { ownGroups: this.config.autoScalingGroupNames } : {}),
        ...(this.config.lifecycleHookNames ? { ownHooks: this.config.lifecycleHookNames } : {}),
        settings,
        clock: this.clock,
        kube,
        aws: this.aws,
        nodeNameHints: this.nodeNameHints,
        terminateHookCache: this.terminateHookCache,
        // An invocation's share of the API server's seats (packages/model/src/contract/api-budgets.ts).
        kubeMaxInFlight: KUBE_SEATS.perInvocation,
        ...(remainingMs ? { remainingMs } : {}),
        ...(this.config.outputEventBusName ? { outputBusName: this.config.outputEventBusName } : {}),
        drains:
          drains ??
          ((_, aws) => {
            if (!arn) throw new Error('DRAIN_STATE_MACHINE_ARN is not set: this function cannot start drains');
            // The run's counted client, so StartExecution shows in the report's API calls.
            return new StepFunctionsDrainLauncher(aws.sfn, arn);
          }),
      });
    // A wiring error rejects, as it did when the endpoint was awaited first.
    return new Promise((resolve) => resolve(wire()));
  }
}
