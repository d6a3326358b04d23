// Wiring against a real cluster for the operator's commands: the current kubeconfig context and
// the default AWS credential chain, the same adapters the Lambdas use, and drains run locally.
import type { KubeConfig } from '@kubernetes/client-node';
import { AutoScalingAdapter } from '../lib/aws/autoscaling.js';
import { createAwsClients } from '../lib/aws/clients.js';
import { StepFunctionsDrainLauncher, type DrainLauncher } from '../lib/aws/drain-launcher.js';
import { OutputEventPublisher } from '../lib/aws/output-events.js';
import { podKey } from '../lib/drain/api.js';
import { drainDeps as buildDrainDeps } from '../lib/drain/deps.js';
import type { LifecycleCalls } from './drain/held-lifecycle.js';
import { runLocalWorkflow, type LocalWorkflowDeps } from './drain/local-workflow.js';
import { endLines, progressLine, reasonCode } from '../lib/drain/pod-report.js';
import type { DrainDeps } from '../lib/drain/step.js';
import type { DrainStepResult } from '../lib/drain/step-result.js';
import { KubeClient, type KubeConnection } from '../lib/kube/client.js';
import { NodeEventRecorder } from '../lib/kube/events.js';
import { connectionFromKubeConfig, kubeConfigFromFile } from './kube/kubeconfig.js';
import { CLOCK_SKEW_TOLERANCE_MS, OffsetClock, serverClockOffset } from './kube/server-clock.js';
import type { Clock } from '@ec2-node-reconciler/model/clock.js';
import type { ReconcilerDeps } from '../lib/pipeline/deps.js';
import { wireReconciler } from '../lib/pipeline/wire.js';
import type { Settings } from '@ec2-node-reconciler/model/contract/settings.js';
import type { DrainExecutionState } from '@ec2-node-reconciler/model/observation.js';
import type { DrainOutcome, DrainWorkflowInput } from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import type { ReportAction, RunReport } from '../lib/report/report.js';
import { CliError, EXIT } from './exit-codes.js';
import type { Progress } from './progress.js';

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
  /** The reconciler's output bus (stack output OutputEventBusName): local drains report their outcome there, as the workflow does. */
  readonly outputEventBus?: string;
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

/** The cluster alone, for the commands that call no AWS API (`drain`, `uncordon`). */
export interface KubeLive {
  readonly kube: KubeConnection;
  /** The time the commands work on: the local clock, or the API server's once `followServerClock` found them apart. */
  readonly clock: Clock;
  /**
   * Measures the API server's clock (its Date header) and, when it is more than
   * CLOCK_SKEW_TOLERANCE_MS away from the local one, works on the server's time from then on: Leases
   * and Ready heartbeats are written in the cluster's time. Gives the offset taken (ms, server ahead
   * positive), or undefined when the clocks agree or the server sends no Date.
   */
  followServerClock(): Promise<number | undefined>;
  drainDeps(settings: Settings, onProgress?: (r: DrainStepResult) => void): DrainDeps;
  /**
   * What an operator's drain holds a lifecycle action with, should a removal hand it one (a scale-in
   * while it runs): Auto Scaling in the cluster's region, connected only when first called.
   */
  readonly lifecycle: LifecycleCalls;
}

export interface Live extends KubeLive {
  readonly cluster: string;
  readonly region: string;
  deps(settings: Settings, drains?: DrainLauncher): ReconcilerDeps;
  /** Drains in this process, their progress shown by `progress` (what `deps` uses when given no launcher). */
  localDrains(settings: Settings, progress?: Progress): LocalDrainLauncher;
}

function loadKubeConfig(options: Pick<LiveOptions, 'kubeconfig' | 'context'>): KubeConfig {
  try {
    return kubeConfigFromFile({
      ...(options.kubeconfig ? { path: options.kubeconfig } : {}),
      ...(options.context ? { context: options.context } : {}),
    });
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error), EXIT.error);
  }
}

function kubeLive(kubeConfig: KubeConfig, options: Pick<LiveOptions, 'region' | 'endpointUrl'>): KubeLive {
  const kube = connectionFromKubeConfig(kubeConfig);
  const clock = new OffsetClock();
  let autoScaling: AutoScalingAdapter | undefined;
  // Made when first needed: a drain nobody hands an action to needs no region or AWS credentials.
  const connectAutoScaling = (): AutoScalingAdapter =>
    (autoScaling ??= new AutoScalingAdapter(
      createAwsClients({
        region: regionOf(fromContextArn(kubeConfig).region, options.region),
        ...(options.endpointUrl ? { endpoint: options.endpointUrl } : {}),
      }).autoScaling,
    ));
  const lifecycle: LifecycleCalls = {
    recordHeartbeat: async (instanceId, ref) => connectAutoScaling().recordHeartbeat(instanceId, ref),
    completeLifecycleAction: async (instanceId, ref) =>
      connectAutoScaling().completeLifecycleAction(instanceId, ref, 'CONTINUE'),
    events: new NodeEventRecorder(new KubeClient(kube), clock),
  };
  const followServerClock = async (): Promise<number | undefined> => {
    const offset = await serverClockOffset(kube);
    if (offset === undefined || Math.abs(offset) <= CLOCK_SKEW_TOLERANCE_MS) return undefined;
    clock.offsetMs = Math.round(offset);
    return clock.offsetMs;
  };
  const drainDeps = (settings: Settings, onProgress?: (r: DrainStepResult) => void): DrainDeps =>
    buildDrainDeps({ connection: kube, clock, settings, ...(onProgress ? { onProgress } : {}) });
  return { kube, clock, followServerClock, drainDeps, lifecycle };
}

/** The kubeconfig's cluster, without AWS until a lifecycle action needs it: no cluster name or region needed. */
export const connectKube = (
  options: Pick<LiveOptions, 'kubeconfig' | 'context' | 'region' | 'endpointUrl'>,
): KubeLive => kubeLive(loadKubeConfig(options), options);

/** Publishes one output event, failing when EventBridge refused it after its retries. */
const publishOn =
  (publisher: OutputEventPublisher): NonNullable<LocalWorkflowDeps['publish']> =>
  async (detailType, detail, resources) => {
    const { failed } = await publisher.publish([{ detailType, detail, resources }]);
    if (failed.length > 0) throw new Error(`PutEvents refused ${detailType}: ${failed.map((f) => f.error).join(', ')}`);
  };

export function connect(options: LiveOptions): Live {
  const kubeConfig = loadKubeConfig(options);
  const guessed = fromContextArn(kubeConfig);
  const cluster = options.cluster ?? guessed.cluster;
  if (!cluster) throw new CliError('cannot tell the cluster name from the kubeconfig context; pass --cluster <name>');
  const region = regionOf(guessed.region, options.region);
  const base = kubeLive(kubeConfig, { region, ...(options.endpointUrl ? { endpointUrl: options.endpointUrl } : {}) });
  const aws = createAwsClients({ region, ...(options.endpointUrl ? { endpoint: options.endpointUrl } : {}) });
  const autoScaling = new AutoScalingAdapter(aws.autoScaling);
  const outputs = options.outputEventBus
    ? new OutputEventPublisher(aws.eventBridge, options.outputEventBus)
    : undefined;
  const deployed = options.drainStateMachineArn
    ? new StepFunctionsDrainLauncher(aws.sfn, options.drainStateMachineArn)
    : undefined;
  const localDrains = (settings: Settings, progress?: Progress) =>
    new LocalDrainLauncher(
      base.drainDeps(settings),
      {
        completeLifecycleAction: (instanceId, lifecycle) =>
          autoScaling.completeLifecycleAction(instanceId, lifecycle, 'CONTINUE'),
        recordHeartbeat: (instanceId, lifecycle) => autoScaling.recordHeartbeat(instanceId, lifecycle),
        ...(outputs ? { publish: publishOn(outputs) } : {}),
        events: new NodeEventRecorder(new KubeClient(base.kube), base.clock),
      },
      (line) => process.stderr.write(`${line}\n`),
      deployed,
      progress,
    );
  return {
    ...base,
    cluster,
    region,
    localDrains,
    deps: (settings, drains) =>
      wireReconciler({
        clusterName: cluster,
        region,
        settings,
        clock: base.clock,
        kube: base.kube,
        aws,
        ...(options.outputEventBus ? { outputBusName: options.outputEventBus } : {}),
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
  /** How each drain this launcher ran ended: `detail` says so in a line (pods left, and why). */
  readonly outcomes: { readonly node: string; readonly outcome: DrainOutcome | 'error'; readonly detail?: string }[] =
    [];

  /**
   * @param print a line that stays (a drain starting, ending, what it left)
   * @param progress where each pass's progress goes (one updating line on a terminal, a line per
   * change elsewhere); without it, every pass's progress is printed
   */
  constructor(
    private readonly deps: DrainDeps,
    /** Completes lifecycle actions and, when a bus is known, reports outcomes, as the workflow does. */
    private readonly workflow: Omit<LocalWorkflowDeps, 'drain'>,
    private readonly print: (line: string) => void,
    private readonly deployed?: Pick<DrainLauncher, 'status'>,
    private readonly progress?: Pick<Progress, 'update' | 'end' | 'clear'>,
  ) {}

  /** A line that stays, with the updating progress line cleared first. */
  private say(line: string): void {
    this.progress?.clear();
    this.print(line);
  }

  /**
   * The run's report with each drain this launcher ran shown as it ended (done when it drained,
   * failed with what it left otherwise), not as `started`: the drain ran to its end before the report.
   */
  withDrainEnds<R extends Pick<RunReport, 'actions'>>(report: R): R {
    const ends = new Map(this.outcomes.map((o) => [o.node, o]));
    const actions = report.actions.map((action): ReportAction => {
      const isDrain = action.kind === 'drain' || (action.kind === 'repair' && action.step === 'drain');
      const end = action.node !== undefined ? ends.get(action.node) : undefined;
      if (!isDrain || action.outcome !== 'started' || end === undefined || end.outcome === 'error') return action;
      const { detail: _started, ...rest } = action;
      return {
        ...rest,
        outcome: end.outcome === 'done' ? 'done' : 'failed',
        detail: end.detail ?? (end.outcome === 'done' ? 'drained' : end.outcome),
      };
    });
    return { ...report, actions };
  }

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
    this.say(`draining ${input.node} (deadline ${input.deadline}): ${input.reason}`);
    const progress = this.progress;
    const onProgress = progress
      ? (r: DrainStepResult) => progress.update(input.node, `  ${input.node}: ${progressLine(r.counts, r.blocked)}`)
      : (r: DrainStepResult) => this.print(`  ${input.node}: ${progressLine(r.counts, r.blocked)}`);
    const end = await runLocalWorkflow({ ...this.workflow, drain: { ...this.deps, onProgress } }, input);
    progress?.end(input.node);
    if (end.result) {
      const { status, message } = end.result;
      this.say(`  ${input.node}: ${status}${message ? ` — ${message}` : ''}`);
      for (const line of endLines(end.result.pods)) this.print(`    ${line}`);
    }
    this.outcomes.push({
      node: input.node,
      outcome: end.outcome,
      ...(end.result ? { detail: drainEnd(end.result) } : {}),
    });
    const lifecycle = end.lifecycle;
    if (lifecycle && input.instanceId) {
      const which = `${input.instanceId} (${lifecycle.ref.group}/${lifecycle.ref.hook})`;
      if (lifecycle.completed) this.say(`  completed lifecycle action of ${which}: CONTINUE`);
      else if (lifecycle.error === undefined)
        this.say(`  left the lifecycle action of ${which} open for you; complete it with: ${lifecycle.completeWith}`);
      else this.say(`  completing the lifecycle action of ${which} failed: ${lifecycle.error.Cause}`);
    }
    if (end.eventError) this.say(`  could not record LifecycleActionCompleted on ${input.node}: ${end.eventError}`);
    if (end.published) this.say(`  published ${end.published} on the reconciler's bus`);
    if (end.publishError) this.say(`  publishing the outcome failed: ${end.publishError}`);
    // The run reports the launch as failed, as the workflow's execution fails.
    if (end.outcome === 'error') throw end.error;
    if (lifecycle?.error !== undefined) throw new Error(`completing the lifecycle action: ${lifecycle.error.Cause}`);
    // An outcome nobody heard of is a failed run too: the workflow's execution fails when its PutEvents does.
    if (end.publishError !== undefined) throw new Error(`publishing the drain's outcome: ${end.publishError}`);
    return 'started';
  }
}

/** Pods named in a drain's end at most; the rest are counted. */
const END_NAMES = 3;

/** How a drain ended, in a line for the report's OUTCOME column: `drained`, or its status and the pods it left. */
export function drainEnd(result: DrainStepResult): string {
  if (result.status === 'drained') return 'drained';
  const left = result.pods.filter((r) => r.left !== undefined);
  if (left.length === 0) return result.message ? `${result.status} — ${result.message}` : result.status;
  const named = left.slice(0, END_NAMES).map((r) => `${podKey(r.pod)} (${reasonCode(r)})`);
  if (left.length > END_NAMES) named.push(`${left.length - END_NAMES} more`);
  return `${result.status} — ${left.length} pod${left.length === 1 ? '' : 's'} left: ${named.join(', ')}`;
}
