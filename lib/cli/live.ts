// Wiring against a real cluster for the operator's commands: the current kubeconfig context and
// the default AWS credential chain, the same adapters the Lambdas use, and drains run locally.
import type { KubeConfig } from '@kubernetes/client-node';
import { AutoScalingAdapter } from '../aws/autoscaling.js';
import { createAwsClients } from '../aws/clients.js';
import { StepFunctionsDrainLauncher, type DrainLauncher } from '../aws/drain-launcher.js';
import { runDrain } from '../drain/driver.js';
import { kubeDrainApi } from '../drain/kube-api.js';
import { endLines, progressLine } from '../drain/report.js';
import { drainRequestOf, stepOutput } from '../drain/step-output.js';
import { drainSettings } from '../drain/settings.js';
import type { DrainDeps } from '../drain/step.js';
import type { DrainStepResult } from '../drain/step-result.js';
import { KubeClient, type KubeConnection } from '../kube/client.js';
import { NodeEventRecorder } from '../kube/events.js';
import { connectionFromKubeConfig, kubeConfigFromFile } from '../kube/kubeconfig.js';
import { CLOCK_SKEW_TOLERANCE_MS, OffsetClock, serverClockOffset } from '../kube/server-clock.js';
import type { Clock } from '../model/clock.js';
import type { ReconcilerDeps } from '../pipeline/deps.js';
import { wireReconciler } from '../pipeline/wire.js';
import type { Settings } from '../settings.js';
import type { DrainExecutionState } from '../model/observation.js';
import { lifecycleCompletedEvent } from '../report/notify.js';
import { errorText } from '../support/errors.js';
import {
  completeLifecycleCommand,
  leavesLifecycleOpen,
  type DrainOutcome,
  type DrainStepOutput,
  type DrainWorkflowInput,
  type LifecycleRef,
} from '../contract/drain-workflow.js';
import { CliError, EXIT } from './exit-codes.js';

export interface LiveOptions {
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly cluster?: string;
  readonly region?: string;
  readonly endpointUrl?: string;
  /**
   * The deployed drain workflow (stack output DrainStateMachineArn): lets the CLI tell whether a
   * drain a Node records is still running there. Without it such a drain is `unknown`.
   */
  readonly drainStateMachineArn?: string;
}

/** EKS contexts name the cluster by ARN (`arn:aws:eks:<region>:<account>:cluster/<name>`). */
function fromContextArn(kc: KubeConfig): { cluster?: string; region?: string } {
  const match = /^arn:aws[a-z-]*:eks:([a-z0-9-]+):\d{12}:cluster\/(.+)$/.exec(kc.getCurrentCluster()?.name ?? '');
  return match ? { region: match[1], cluster: match[2] } : {};
}

/**
 * The region: an EKS context's ARN says where the cluster is, so it comes first; --region or the
 * environment saying otherwise is refused, naming both (EC2 would be asked about another region's
 * machines, and every Node would look gone). Without an EKS context: --region, then the environment.
 */
function regionOf(fromContext: string | undefined, flag: string | undefined): string {
  const env = process.env['AWS_REGION'] ?? process.env['AWS_DEFAULT_REGION'];
  const envName = process.env['AWS_REGION'] !== undefined ? 'AWS_REGION' : 'AWS_DEFAULT_REGION';
  if (fromContext !== undefined) {
    if (flag !== undefined && flag !== fromContext)
      throw new CliError(
        `--region ${flag}, but the kubeconfig context's cluster is in ${fromContext}: pass the region of the cluster, or another --context`,
      );
    if (flag === undefined && env !== undefined && env !== fromContext) {
      throw new CliError(
        `${envName} is ${env}, but the kubeconfig context's cluster is in ${fromContext}: unset it, or pass --region ${fromContext}`,
      );
    }
    return fromContext;
  }
  const region = flag ?? env;
  if (!region) throw new CliError('no AWS region; pass --region or set AWS_REGION');
  return region;
}

export interface Live {
  readonly kube: KubeConnection;
  readonly cluster: string;
  readonly region: string;
  /** The time the commands work on: the local clock, or the API server's once `followServerClock` found them apart. */
  readonly clock: Clock;
  /**
   * Measures the API server's clock (its Date header) and, when it is more than
   * CLOCK_SKEW_TOLERANCE_MS away from the local one, works on the server's time from then on: Leases
   * and Ready heartbeats are written in the cluster's time. Gives the offset taken (ms, server ahead
   * positive), or undefined when the clocks agree or the server sends no Date.
   */
  followServerClock(): Promise<number | undefined>;
  deps(settings: Settings, drains?: DrainLauncher): ReconcilerDeps;
  drainDeps(settings: Settings, onProgress?: (r: DrainStepResult) => void): DrainDeps;
  /** Drains in this process, with progress on stderr (what `deps` uses when given no launcher). */
  localDrains(settings: Settings): LocalDrainLauncher;
}

export function connect(options: LiveOptions): Live {
  let kubeConfig: KubeConfig;
  try {
    kubeConfig = kubeConfigFromFile({
      ...(options.kubeconfig ? { path: options.kubeconfig } : {}),
      ...(options.context ? { context: options.context } : {}),
    });
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error), EXIT.error);
  }
  const guessed = fromContextArn(kubeConfig);
  const cluster = options.cluster ?? guessed.cluster;
  if (!cluster) throw new CliError('cannot tell the cluster name from the kubeconfig context; pass --cluster <name>');
  const region = regionOf(guessed.region, options.region);
  const kube = connectionFromKubeConfig(kubeConfig);
  const aws = createAwsClients({ region, ...(options.endpointUrl ? { endpoint: options.endpointUrl } : {}) });
  const clock = new OffsetClock();
  const followServerClock = async (): Promise<number | undefined> => {
    const offset = await serverClockOffset(kube);
    if (offset === undefined || Math.abs(offset) <= CLOCK_SKEW_TOLERANCE_MS) return undefined;
    clock.offsetMs = Math.round(offset);
    return clock.offsetMs;
  };
  const drainDeps = (settings: Settings, onProgress?: (r: DrainStepResult) => void): DrainDeps => ({
    api: kubeDrainApi(new KubeClient(kube)),
    clock,
    settings: drainSettings(settings),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    ...(onProgress ? { onProgress } : {}),
  });
  const deployed = options.drainStateMachineArn
    ? new StepFunctionsDrainLauncher(aws.sfn, options.drainStateMachineArn)
    : undefined;
  const localDrains = (settings: Settings) =>
    new LocalDrainLauncher(
      drainDeps(settings),
      new AutoScalingAdapter(aws.autoScaling),
      (line) => process.stderr.write(`${line}\n`),
      deployed,
      new NodeEventRecorder(new KubeClient(kube), clock),
    );
  return {
    kube,
    cluster,
    region,
    clock,
    followServerClock,
    drainDeps,
    localDrains,
    deps: (settings, drains) =>
      wireReconciler({
        clusterName: cluster,
        region,
        settings,
        clock,
        kube,
        aws,
        drains: () => drains ?? localDrains(settings),
      }),
  };
}

/**
 * Runs a drain to its end in this process, with progress on stderr, then does what the workflow
 * does at its end: completes the ASG lifecycle action with CONTINUE (one handed over on the Node,
 * else the input's), except after an operator's uncordon, which leaves it open and says how to
 * complete it. Used by `event`, `sweep` and `decommission --now`; `outcomes` lets them exit 1
 * when a drain did not drain. Its drains are recorded on the Node like the workflow's (named
 * LOCAL_DRAIN_PREFIX…, running until their deadline), so the deployed reconciler respects them; a
 * drain of the deployed workflow a Node records is asked about through `deployed`, when given.
 */
export class LocalDrainLauncher implements DrainLauncher {
  readonly local = true;
  readonly outcomes: { readonly node: string; readonly outcome: DrainOutcome | 'error' }[] = [];

  constructor(
    private readonly deps: DrainDeps,
    private readonly autoScaling: Pick<AutoScalingAdapter, 'completeLifecycleAction'>,
    private readonly print: (line: string) => void,
    private readonly deployed?: Pick<DrainLauncher, 'status'>,
    /** Where the LifecycleActionCompleted Event goes, as the workflow's notice records it. */
    private readonly events?: Pick<NodeEventRecorder, 'record'>,
  ) {}

  async status(executions: readonly string[]): Promise<Map<string, DrainExecutionState>> {
    if (this.deployed) return this.deployed.status(executions);
    const unknown: DrainExecutionState = {
      status: 'unknown',
      error:
        'a drain recorded by the deployed workflow: pass --drain-state-machine <DrainStateMachineArn> to ask Step Functions about it',
    };
    return new Map(executions.map((name): [string, DrainExecutionState] => [name, unknown]));
  }

  /** Every drain this launcher ran ended `done`. */
  allDrained(): boolean {
    return this.outcomes.every((o) => o.outcome === 'done');
  }

  async launch(input: DrainWorkflowInput): Promise<'started'> {
    this.print(`draining ${input.node} (deadline ${input.deadline}): ${input.reason}`);
    let output: DrainStepOutput | undefined;
    try {
      const result = await runDrain(
        { ...this.deps, onProgress: (r) => this.print(`  ${input.node}: ${progressLine(r.counts, r.blocked)}`) },
        drainRequestOf(input),
      );
      output = stepOutput(result, input);
      this.print(`  ${input.node}: ${result.status}${result.message ? ` — ${result.message}` : ''}`);
      for (const line of endLines(result.pods)) this.print(`    ${line}`);
    } catch (error) {
      this.outcomes.push({ node: input.node, outcome: 'error' });
      await this.endLifecycle(input, 'error', input.lifecycle);
      throw error;
    }
    this.outcomes.push({ node: input.node, outcome: output.outcome });
    await this.endLifecycle(input, output.outcome, output.lifecycle);
    return 'started';
  }

  private async endLifecycle(
    input: DrainWorkflowInput,
    outcome: DrainOutcome | 'error',
    lifecycle: LifecycleRef | undefined,
  ): Promise<void> {
    if (!lifecycle || !input.instanceId) return;
    const which = `${input.instanceId} (${lifecycle.group}/${lifecycle.hook})`;
    if (leavesLifecycleOpen(outcome)) {
      this.print(
        `  left the lifecycle action of ${which} open for you; complete it with: ${completeLifecycleCommand({ group: lifecycle.group, hook: lifecycle.hook, instance: input.instanceId })}`,
      );
      return;
    }
    await this.autoScaling.completeLifecycleAction(input.instanceId, lifecycle, 'CONTINUE');
    this.print(`  completed lifecycle action of ${which}: CONTINUE`);
    try {
      await this.events?.record(lifecycleCompletedEvent(input, lifecycle, outcome));
    } catch (error) {
      this.print(`  could not record LifecycleActionCompleted on ${input.node}: ${errorText(error)}`);
    }
  }
}
