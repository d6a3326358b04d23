// The sandbox: what `cdk deploy` deploys, running against both emulators on one virtual clock,
// seeded from a scenario. The stack is the project's app synthesized for the scenario's cluster;
// its functions are the bundled assets (run by src/lambda), its event rules route a
// scenario's events to its queue, its event source mapping feeds the events function, its schedule
// invokes the sweep function, and its state machine definition runs the drains (src/sfn),
// each under its role's credentials. The Kubernetes API takes each role for the groups the
// stack's access entries give it, and authorizes it with the shipped RBAC.
import { rbacManifests } from '@ec2-node-reconciler/model/contract/rbac.js';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { DEFAULT_SETTINGS, settingsInput, type Settings } from '@ec2-node-reconciler/model/contract/settings.js';
import { FUNCTION_ENV } from '@ec2-node-reconciler/model/contract/env.js';
import type { AwsEmulator } from '../aws/index.js';
import { DEFAULT_CREDENTIALS } from '../aws/sigv4.js';
import { deploy, type DeployedStack } from '../deployed/deploy.js';
import type { Deployment, ScheduleSpec } from '../deployment/template.js';
import { recordDeployment } from '../deployed/account.js';
import { WorldDriver } from '../deployed/driver.js';
import { LambdaService, type AsyncInvocation } from '../deployed/lambda-service.js';
import type { QueuePoller } from '../deployed/queue-poller.js';
import type { SignalQueue } from '../deployed/queue.js';
import { StepFunctionsService } from '../deployed/step-functions.js';
import type { KubeEmulator, NodeObject } from '../kube/index.js';
import { Activity } from '../lambda/activity.js';
import type { Scenario } from '../scenario/schema.js';
import { startAwsWorld } from './aws-world.js';
import type { WorkloadControllers } from './controllers.js';
import type { Denial } from './denials.js';
import { eventRouter, wireEventPath, type DeployedFunctions, type EventPath } from './event-path.js';
import { announceHealthTerminations } from './group-events.js';
import { startKubeWorld } from './kube-world.js';
import { followMachineStates } from './machine-heartbeats.js';
import { joinReplacements } from './node-health.js';
import type { OperatorAccess } from './operator.js';
import {
  openSessions,
  OPERATOR_SESSION,
  PLANNER_SESSION,
  SERVICE_SESSION,
  type RoleSessions,
} from './role-sessions.js';
import { seededNodesOf, seedWorld } from './seed-world.js';
import { ServiceCalls } from './service-calls.js';
import { announceTagChanges } from './tag-events.js';

/** A cluster-admin token for people (and the operator's steps) looking at the sandbox with kubectl. */
export const ADMIN_TOKEN = 'sandbox-admin';
/**
 * What a state machine's role must allow for its LoggingConfiguration, on `*` (the Step Functions
 * guide, "IAM policies for logging to CloudWatch Logs"): without them CreateStateMachine fails
 * ("The state machine IAM Role is not authorized to access the Log Destination") and CloudFormation
 * with it. The guide names the set, not which of them the service checks when: each one is required.
 */
export const STATE_MACHINE_LOG_DELIVERY_ACTIONS = [
  'logs:CreateLogDelivery',
  'logs:GetLogDelivery',
  'logs:UpdateLogDelivery',
  'logs:DeleteLogDelivery',
  'logs:ListLogDeliveries',
  'logs:PutResourcePolicy',
  'logs:DescribeResourcePolicies',
  'logs:DescribeLogGroups',
] as const;

export interface Sandbox {
  readonly scenario: Scenario;
  readonly clock: VirtualClock;
  readonly start: number;
  readonly kube: KubeEmulator;
  readonly aws: AwsEmulator;
  readonly settings: Settings;
  readonly stack: DeployedStack;
  readonly functions: DeployedFunctions;
  readonly lambda: LambdaService;
  readonly stepFunctions: StepFunctionsService;
  /** The signal queue between the event rules and the events function. */
  readonly queue: SignalQueue;
  readonly poller: QueuePoller;
  readonly driver: WorldDriver;
  /** Work under way that the clock waits for (a unit held while something runs without waiting on the clock). */
  readonly activity: Activity;
  /** The nodes the scenario's expectations name, as seeded (after the emulator's defaults), to tell `untouched` from changed. */
  readonly seededNodes: ReadonlyMap<string, NodeObject>;
  /** Puts an event on the default bus, as AWS does: the stack's rules route it (to the signal queue) or drop it. Returns the rules it matched. */
  putEvent(event: unknown): readonly string[];
  /** What the schedule does when it fires: invokes its target asynchronously, as its role. */
  scheduledSweep(): AsyncInvocation;
  /** Where the operator (the product's CLI, with the admin's kubeconfig) reaches the world, on the virtual clock. */
  operatorAccess(settings?: Settings): OperatorAccess;
  /** The operator's access signing as a replay's sweep planner (role-sessions.ts PLANNER_SESSION). */
  plannerAccess(): OperatorAccess;
  /** Calls AWS services make for the stack (Step Functions and the Scheduler invoking functions) that the deployed policies refused. */
  readonly serviceDenials: readonly Denial[];
  close(): Promise<void>;
}

export interface SandboxOptions {
  /**
   * Serve the Kubernetes API over TLS (a self-signed CA, handed out by DescribeCluster as EKS
   * does): kubectl sends bearer tokens only over https, so a served sandbox needs it.
   */
  readonly tls?: boolean;
  /**
   * Changes the synthesized deployment before the world is built from it: tests that show what a
   * defect of the stack does (a permission removed, a function of another version).
   */
  readonly alterDeployment?: (deployment: Deployment) => Deployment;
  /**
   * Changes the RBAC manifest the API server is seeded with (packages/model/src/contract/rbac.ts as shipped): tests
   * that show what a rule removed does.
   */
  readonly alterRbac?: (manifests: Record<string, unknown>[]) => Record<string, unknown>[];
  /**
   * Whose AWS credentials the operator's commands (snapshots, `drain` steps) sign with: a session of
   * the sweep role, with what the reconciler itself may do (the default), or the sandbox's administrator,
   * for tests that change the roles and must tell the functions' calls from the operator's.
   * @default 'sweep-role'
   */
  readonly operatorAws?: 'sweep-role' | 'administrator';
}

/** The functions' RECONCILER_SETTINGS for the scenario: as a deployment with these settings would set it. */
const settingsVariable = (settings: Settings): Record<string, string> => ({
  [FUNCTION_ENV.settings]: JSON.stringify(settingsInput(settings)),
});

/** The project's app synthesized for the scenario's cluster and settings (then altered, when a test asks). */
async function deployStack(scenario: Scenario, settings: Settings, options: SandboxOptions): Promise<DeployedStack> {
  const { name: clusterName, region, accountId } = scenario.cluster;
  const synthesized = await deploy({ clusterName, region, accountId, settings });
  return options.alterDeployment
    ? { ...synthesized, deployment: options.alterDeployment(synthesized.deployment) }
    : synthesized;
}

/** The Lambda service hosting the stack's functions, each as its role, on the world's clock. */
function startLambda(world: {
  readonly scenario: Scenario;
  readonly stack: DeployedStack;
  readonly settings: Settings;
  readonly clock: VirtualClock;
  readonly activity: Activity;
  readonly aws: AwsEmulator;
  readonly kube: KubeEmulator;
  readonly sessions: RoleSessions;
  readonly calls: ServiceCalls;
}): LambdaService {
  const { scenario, clock, aws, kube, sessions } = world;
  // The functions read the clock the world moves.
  const clockBuffer = new SharedArrayBuffer(8);
  const clockView = new Float64Array(clockBuffer);
  clock.observe((now) => {
    clockView[0] = now;
  });
  // Request latency on the virtual clock (scenario `latency`): what makes "in flight" and "per second" mean something.
  const endpointOf = (url: string) => new URL(url).host;
  const latency = scenario.latency && {
    [endpointOf(aws.endpoint)]: scenario.latency.aws,
    [endpointOf(kube.url)]: scenario.latency.kube,
  };
  return new LambdaService({
    mayDeliverLogs: world.calls.mayDeliverLogs,
    stack: world.stack,
    clock,
    clockBuffer,
    activity: world.activity,
    aws,
    environment: settingsVariable(world.settings),
    ...(latency ? { latency } : {}),
    credentialsFor: (fn) => sessions.of(fn.roleArn, fn.name),
  });
}

/** What the APIs say about the deployment (stack, access entries, rules, queues, schedule, mapping). */
function describeDeployment(
  world: {
    readonly aws: AwsEmulator;
    readonly lambda: LambdaService;
    readonly clock: VirtualClock;
    readonly start: number;
  },
  deployment: Deployment,
  queue: SignalQueue,
): void {
  const { aws, lambda, clock } = world;
  const deadLetterArn = deployment.queues.find((q) => q.arn === queue.arn)?.deadLetter?.targetArn;
  recordDeployment(
    aws.state,
    deployment,
    {
      queueCounts: (arn) =>
        arn === queue.arn
          ? { ...queue.countsAt(clock.now()), delayed: 0 }
          : arn === deadLetterArn
            ? { visible: queue.deadLetters.length, notVisible: 0, delayed: 0 }
            : undefined,
      functionArn: (nameOrArn) => lambda.host(nameOrArn)?.fn.arn ?? nameOrArn,
    },
    world.start,
  );
}

/** What the schedule does when it fires: invokes its target asynchronously, as its role. */
function fireSchedule(
  world: { readonly lambda: LambdaService; readonly calls: ServiceCalls; readonly clock: VirtualClock },
  schedule: ScheduleSpec,
  invokeFault: () => string | undefined,
): AsyncInvocation {
  const { lambda, calls, clock } = world;
  const targetArn = lambda.host(schedule.targetArn)?.fn.arn ?? schedule.targetArn;
  // A refused target invocation fails the schedule's attempt; the function never runs.
  if (calls.mayInvoke(schedule.roleArn, targetArn) !== undefined || invokeFault() !== undefined)
    return {
      functionName: targetArn,
      payload: {},
      queuedAt: clock.now(),
      attempts: 0,
      throttles: 0,
      results: [],
      status: 'failed',
    };
  return lambda.invokeAsync(
    schedule.targetArn,
    schedule.input === undefined ? {} : (JSON.parse(schedule.input) as unknown),
  );
}

/** Where the operator (the product's CLI, with the admin's kubeconfig) reaches the world, on the virtual clock, and as whom. */
function operatorAccessFor(world: {
  readonly scenario: Scenario;
  readonly settings: Settings;
  readonly clock: VirtualClock;
  readonly driver: WorldDriver;
  readonly aws: AwsEmulator;
  readonly kube: KubeEmulator;
  readonly deployment: Deployment;
  readonly sessions: RoleSessions;
  readonly functions: DeployedFunctions;
  readonly options: SandboxOptions;
}): (settings?: Settings, session?: string) => OperatorAccess {
  const { clock, driver, aws, kube, deployment } = world;
  const { name: clusterName, region, accountId } = world.scenario.cluster;
  const sweepRole = deployment.functions.find((fn) => fn.name === world.functions.sweep)?.roleArn ?? '';
  const sleep = (ms: number) => driver.advanceTo(clock.now() + ms);
  return (override, session = OPERATOR_SESSION) => ({
    clock,
    sleep,
    clusterName,
    region,
    accountId,
    settings: override ?? world.settings,
    drainStateMachineArn: deployment.stateMachines[0]?.arn ?? '',
    kube: { url: kube.url, token: ADMIN_TOKEN, ...(kube.caCert ? { caCert: kube.caCert } : {}) },
    aws: {
      endpoint: aws.endpoint,
      credentials:
        session === OPERATOR_SESSION && world.options.operatorAws === 'administrator'
          ? DEFAULT_CREDENTIALS
          : world.sessions.of(sweepRole, session),
    },
    operatorAws: { endpoint: aws.endpoint, credentials: DEFAULT_CREDENTIALS },
  });
}

export async function startSandbox(scenario: Scenario, options: SandboxOptions = {}): Promise<Sandbox> {
  // Whole seconds, as Kubernetes timestamps are: ages stay exact after a round trip.
  const start = Math.floor((scenario.start ? Date.parse(scenario.start) : Date.now()) / 1000) * 1000;
  const clock = new VirtualClock(start);
  const { name: clusterName, region, accountId } = scenario.cluster;
  // The loader already parsed them (durations are milliseconds now): only the defaults are missing.
  const settings: Settings = { ...DEFAULT_SETTINGS, ...scenario.settings };
  const stack = await deployStack(scenario, settings, options);
  const { deployment } = stack;

  // The AWS world and the Kubernetes world, seeded from the scenario.
  const { sessions, operatorKeys, plannerKeys } = openSessions(deployment);
  const { aws, iam } = await startAwsWorld({ clock, scenario, deployment, sessions, operatorKeys, plannerKeys });
  const rbac = options.alterRbac ? options.alterRbac(rbacManifests()) : rbacManifests();
  const kube = await startKubeWorld({
    clock,
    clusterName,
    accountId,
    aws,
    adminToken: ADMIN_TOKEN,
    tls: options.tls === true,
    rbac,
  });
  const closeWorlds = async () => {
    await Promise.all([kube.close(), aws.close()]);
  };
  let controllers: WorkloadControllers;
  try {
    controllers = seedWorld({ scenario, deployment, clock, start, aws, kube });
  } catch (error) {
    await closeWorlds();
    throw error;
  }
  const seededNodes = seededNodesOf(scenario, kube);
  followMachineStates(scenario, aws, kube);
  joinReplacements(aws, kube);

  // The deployed stack: its functions, its workflow, its event path, each service as its role.
  const activity = new Activity();
  const partition = deployment.env.partition ?? 'aws';
  const calls = new ServiceCalls(iam, clock, sessions, { partition, region, accountId });
  // The state machine's logging is set up when CloudFormation creates it, as its role.
  for (const machine of deployment.stateMachines)
    if (machine.logDestinations.length > 0)
      for (const action of STATE_MACHINE_LOG_DELIVERY_ACTIONS) calls.may(machine.roleArn, action, '*');
  const lambda = startLambda({ scenario, stack, settings, clock, activity, aws, kube, sessions, calls });
  // An injected fault on Lambda's Invoke API hits the services' calls too (the Scheduler's, the event source mapping's).
  const invokeFault = (): string | undefined => {
    const injected = lambda.injectedInvokeError();
    return injected && `${injected.code}: ${injected.message}`;
  };
  const stepFunctions = new StepFunctionsService({
    clock,
    aws,
    lambda,
    stateMachines: deployment.stateMachines,
    credentialsFor: (roleArn) => sessions.of(roleArn, SERVICE_SESSION),
    authorizeInvoke: calls.mayInvoke,
  });
  const driver = new WorldDriver(clock, activity, [stepFunctions], () => controllers.reconcile());
  let path: EventPath;
  try {
    path = wireEventPath({ deployment, clock, region, lambda, calls, invokeFault });
  } catch (error) {
    await Promise.all([lambda.close(), closeWorlds()]);
    throw error;
  }
  const { queue, poller, functions, schedule } = path;
  describeDeployment({ aws, lambda, clock, start }, deployment, queue);
  const putEvent = eventRouter(aws, queue, clock);
  // Tags set through the API (an operator's `decommission`) are announced as the account would.
  announceTagChanges(aws, { accountId, region, partition }, putEvent);

  const operatorAccess = operatorAccessFor({
    scenario,
    settings,
    clock,
    driver,
    aws,
    kube,
    deployment,
    sessions,
    functions,
    options,
  });
  const sandbox: Sandbox = {
    scenario,
    clock,
    start,
    kube,
    aws,
    settings,
    stack,
    functions,
    lambda,
    stepFunctions,
    queue,
    poller,
    driver,
    activity,
    seededNodes,
    putEvent,
    serviceDenials: calls.denials,
    scheduledSweep: () => fireSchedule({ lambda, calls, clock }, schedule, invokeFault),
    operatorAccess,
    plannerAccess: () => operatorAccess(undefined, PLANNER_SESSION),
    close: async () => {
      await Promise.all([lambda.close(), closeWorlds()]);
    },
  };
  announceHealthTerminations(aws.state, putEvent);
  return sandbox;
}
