// The sandbox: what `cdk deploy` deploys, running against both emulators on one virtual clock,
// seeded from a scenario. The stack is the project's app synthesized for the scenario's cluster;
// its functions are the bundled assets (run by src/lambda), its event rules route a
// scenario's events to its queue, its event source mapping feeds the events function, its schedule
// invokes the sweep function, and its state machine definition runs the drains (src/sfn),
// each under its role's credentials. The Kubernetes API takes each role for the groups the
// stack's access entries give it, and authorizes it with the shipped RBAC.
import { rbacManifests } from '../../../../lib/contract/rbac.js';
import { systemClock, VirtualClock } from '../../../../lib/model/clock.js';
import { DEFAULT_SETTINGS, settingsInput, type Settings } from '../../../../lib/contract/settings.js';
import { FUNCTION_ENV } from '../../../../lib/contract/env.js';
import { matchesPattern } from '../aws/event-pattern.js';
import { roleSessionCredential, startAwsEmulator, type AwsEmulator } from '../aws/index.js';
import { IamAuthorizer, roleKey } from '../aws/iam/index.js';
import { credentialArn, DEFAULT_CREDENTIALS, type EmulatorCredential } from '../aws/sigv4.js';
import { deploy, drainStepFunction, type DeployedStack } from '../deployed/deploy.js';
import type { Deployment, FunctionSpec } from '../deployment/template.js';
import { recordDeployment } from '../deployed/account.js';
import { WorldDriver } from '../deployed/driver.js';
import { LambdaService, type AsyncInvocation } from '../deployed/lambda-service.js';
import { QueuePoller } from '../deployed/queue-poller.js';
import { SignalQueue } from '../deployed/queue.js';
import { StepFunctionsService } from '../deployed/step-functions.js';
import { startKubeEmulator, type KubeEmulator, type NodeObject } from '../kube/index.js';
import { Activity } from '../lambda/activity.js';
import type { Scenario } from '../scenario/schema.js';
import { WorkloadControllers } from './controllers.js';
import type { Denial } from './denials.js';
import { injectFaults } from './faults.js';
import type { OperatorAccess } from './operator.js';
import { joinReplacements } from './node-health.js';
import { announceHealthTerminations } from './group-events.js';
import { announceTagChanges } from './tag-events.js';
import { instanceSeed, nodeSeed, pdbSeed, podSeed } from './seed.js';

/** A cluster-admin token for people (and the operator's steps) looking at the sandbox with kubectl. */
export const ADMIN_TOKEN = 'sandbox-admin';
/** The session name AWS services give the roles they assume for a state machine or a schedule. */
/**
 * What Lambda's event source mapping does with the queue, as the function's role: the permissions
 * the Lambda and SQS guides require of the execution role ("sqs:DeleteMessage, sqs:GetQueueAttributes,
 * sqs:ReceiveMessage"; AWSLambdaSQSQueueExecutionRole holds the same three).
 */
const MAPPING_ACTIONS = ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'];
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
// What Step Functions and the Scheduler name the sessions of their roles.
const SERVICE_SESSION = 'aws-service-session';
/** The session the operator's commands sign in, as the sweep function's role (operatorAws 'sweep-role'). */
const OPERATOR_SESSION = 'sandbox-operator';

/** The deployed functions by what they do. */
export interface DeployedFunctions {
  /** Fed by the signal queue's event source mapping. */
  readonly events: string;
  /** Invoked by the schedule. */
  readonly sweep: string;
  /** Invoked by the drain workflow. */
  readonly drainStep: string;
}

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
   * Changes the RBAC manifest the API server is seeded with (lib/contract/rbac.ts as shipped): tests
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

export async function startSandbox(scenario: Scenario, options: SandboxOptions = {}): Promise<Sandbox> {
  // Whole seconds, as Kubernetes timestamps are: ages stay exact after a round trip.
  const start = Math.floor((scenario.start ? Date.parse(scenario.start) : Date.now()) / 1000) * 1000;
  const clock = new VirtualClock(start);
  const { name: clusterName, region, accountId } = scenario.cluster;
  // The loader already parsed them (durations are milliseconds now): only the defaults are missing.
  const settings: Settings = { ...DEFAULT_SETTINGS, ...scenario.settings };
  const synthesized = await deploy({ clusterName, region, accountId, settings });
  const stack: DeployedStack = options.alterDeployment
    ? { ...synthesized, deployment: options.alterDeployment(synthesized.deployment) }
    : synthesized;
  const { deployment } = stack;

  // Every role session the stack's services use, known to the emulator before it opens.
  const sessions = new Map<string, EmulatorCredential>();
  const session = (roleArn: string, name: string): EmulatorCredential => {
    const key = `${roleArn}\0${name}`;
    let credential = sessions.get(key);
    if (!credential) sessions.set(key, (credential = roleSessionCredential(roleArn, name)));
    return credential;
  };
  for (const fn of deployment.functions) session(fn.roleArn, fn.name);
  // The operator signs as a function's role in a session of its own (below): its calls are the role's, its key is not the function's.
  const operatorKeys = new Set([
    DEFAULT_CREDENTIALS.accessKeyId,
    ...deployment.functions.map((fn) => session(fn.roleArn, OPERATOR_SESSION).accessKeyId),
  ]);
  for (const machine of deployment.stateMachines) session(machine.roleArn, SERVICE_SESSION);
  for (const schedule of deployment.schedules) session(schedule.roleArn, SERVICE_SESSION);

  // Every AWS call is authorized under the caller's role policies, as the stack deploys them.
  const iam = new IamAuthorizer();
  for (const role of deployment.roles) iam.attach(role.arn, ...role.policies);
  const aws = await startAwsEmulator({
    clock,
    region,
    accountId,
    idSeed: scenario.name,
    credentials: [DEFAULT_CREDENTIALS, ...sessions.values()],
    iam,
    // EC2's token buckets, shared by every caller of the account as in AWS, on the virtual clock. All but
    // the operator are refused when a bucket is empty (the deployed functions' waits move that clock). The
    // operator (the reports' snapshots, drain and cordon steps, as the administrator or in its session of
    // the sweep role) waits in real time while the clock stands still: its requests count, never refused.
    rateLimits: { mayRefuse: (accessKeyId) => accessKeyId === undefined || !operatorKeys.has(accessKeyId) },
  });
  const creatorArn = credentialArn(DEFAULT_CREDENTIALS, accountId);
  const kube = await startKubeEmulator({
    clock,
    tls: options.tls === true,
    auth: {
      tokens: { [ADMIN_TOKEN]: { user: 'sandbox-admin', groups: ['system:masters'] } },
      // Like EKS: the token is a presigned STS call, validated by STS; the access entry of the caller's role names its groups.
      authenticate: async (token) => {
        // (#15 serve) A token is checked on the signer's clock: the sandbox's clients sign on the
        // virtual clock, clients outside it (`aws eks get-token` against --serve) on the wall clock.
        let verified = await aws.verifyEksToken(token, clusterName);
        if (!verified.ok) verified = await aws.verifyEksToken(token, clusterName, { clock: systemClock });
        if (!verified.ok) return null;
        // The cluster's creator (the sandbox's own credentials) is its admin, as EKS's bootstrapClusterCreatorAdminPermissions makes it.
        if (verified.arn === creatorArn) return { name: verified.arn, groups: ['system:masters'] };
        // The access entry of the caller's role as EKS holds it now (an operator may have deleted or changed it).
        const role = roleKey(verified.arn);
        const entry =
          role === undefined
            ? undefined
            : aws.state.accessEntries.of(clusterName).find((e) => roleKey(e.principalArn) === role);
        const session = /\/([^/]+)$/.exec(verified.arn)?.[1] ?? '';
        return entry
          ? { name: entry.username.replaceAll('{{SessionName}}', session), groups: [...entry.kubernetesGroups] }
          : null;
      },
    },
    rbac: options.alterRbac ? options.alterRbac(rbacManifests()) : rbacManifests(),
  });

  const closeAll = async () => {
    await Promise.all([kube.close(), aws.close()]);
  };
  let controllers: WorkloadControllers;
  try {
    aws.state.seedCluster({
      name: clusterName,
      endpoint: kube.url,
      ...(kube.caCert ? { certificateAuthorityData: Buffer.from(kube.caCert).toString('base64') } : {}),
    });
    for (const bus of deployment.eventBuses) aws.state.createEventBus(bus.name);
    for (const instance of scenario.instances) aws.state.seedInstance(instanceSeed(instance));
    for (const node of scenario.nodes) kube.store.seedNode(nodeSeed(scenario, node, start));
    for (const pdb of scenario.pdbs) kube.store.seedPdb(pdbSeed(pdb));
    for (const pod of scenario.pods) kube.store.seedPod(podSeed(pod, start));
    injectFaults(scenario.faults, { clock, start, aws, kube });
    // Evicted pods are replaced as time passes, as a real cluster's controllers do.
    controllers = new WorkloadControllers(kube.store);
  } catch (error) {
    await closeAll();
    throw error;
  }
  // Only the Nodes an expectation names are ever compared with their seeded selves: copying all of
  // them would cost a 100,000-node scenario a second copy of its largest objects.
  const seededNodes = new Map<string, NodeObject>();
  for (const name of Object.keys(scenario.expect?.nodes ?? {})) {
    const node = kube.store.getNode(name);
    if (node) seededNodes.set(name, structuredClone(node));
  }

  // Machines stop heartbeating when they stop or go, and start again when they run. Nodes keep
  // their providerID (a kubelet re-registers the same one), so the seeded ones are the index; of
  // several Nodes claiming one machine, the first by name that exists now (the list order).
  const nodesByInstance = new Map<string, string[]>();
  for (const node of scenario.nodes) {
    const instanceId = /\/(i-[0-9a-f]+)$/.exec(node.providerID ?? '')?.[1];
    if (instanceId !== undefined)
      nodesByInstance.set(instanceId, [...(nodesByInstance.get(instanceId) ?? []), node.name].sort());
  }
  const claims = (instanceId: string) => (name: string | undefined) =>
    name !== undefined && kube.store.getNode(name)?.spec?.providerID?.endsWith(`/${instanceId}`) === true;
  // A machine launched mid-run (a group's replacement, node-health.ts) registers its Node under its private DNS name.
  const nodeOfInstance = (instanceId: string) =>
    nodesByInstance.get(instanceId)?.find(claims(instanceId)) ??
    [aws.state.instances.get(instanceId)?.privateDnsName].find(claims(instanceId));
  aws.state.onChange((change) => {
    if (change.kind !== 'instance-state') return;
    const node = nodeOfInstance(change.instanceId);
    if (node) kube.store.kubelets.setHeartbeating(node, change.to === 'running' || change.to === 'pending');
  });
  joinReplacements(aws, kube);

  // The functions read the clock the world moves.
  const clockBuffer = new SharedArrayBuffer(8);
  const clockView = new Float64Array(clockBuffer);
  clock.observe((now) => {
    clockView[0] = now;
  });
  const activity = new Activity();
  // Calls AWS services make for the stack as its roles (Lambda writing logs, Step Functions and the
  // Scheduler invoking functions, the event source mapping polling): a refusal is recorded once per
  // caller and action.
  const serviceDenials: Denial[] = [];
  const refusedOnce = new Set<string>();
  const serviceMay = (principal: string, action: string, resource: string): boolean => {
    if (iam.authorize({ principal, action, resources: [resource] }).allowed) return true;
    const key = `${principal}\0${action}`;
    if (!refusedOnce.has(key)) serviceDenials.push({ at: clock.now(), api: 'aws', call: action, by: principal });
    refusedOnce.add(key);
    return false;
  };
  const partition = deployment.env.partition ?? 'aws';
  // The state machine's logging is set up when CloudFormation creates it, as its role.
  for (const machine of deployment.stateMachines)
    if (machine.logDestinations.length > 0)
      for (const action of STATE_MACHINE_LOG_DELIVERY_ACTIONS) serviceMay(machine.roleArn, action, '*');
  // Lambda writes each function's log lines to its log group as the function's role: a stream per
  // function and day here (one per execution environment in Lambda), then its events. Refused, they are lost.
  const streamsCreated = new Set<string>();
  const mayDeliverLogs = (fn: FunctionSpec, stream: string): boolean => {
    const principal = session(fn.roleArn, fn.name).arn ?? fn.roleArn;
    const arn = `arn:${partition}:logs:${region}:${accountId}:log-group:${fn.logGroupName}:log-stream:${stream}`;
    if (!streamsCreated.has(arn) && serviceMay(principal, 'logs:CreateLogStream', arn)) streamsCreated.add(arn);
    return streamsCreated.has(arn) && serviceMay(principal, 'logs:PutLogEvents', arn);
  };
  // Request latency on the virtual clock (scenario `latency`): what makes "in flight" and "per second" mean something.
  const endpointOf = (url: string) => new URL(url).host;
  const latency = scenario.latency && {
    [endpointOf(aws.endpoint)]: scenario.latency.aws,
    [endpointOf(kube.url)]: scenario.latency.kube,
  };
  const lambda = new LambdaService({
    mayDeliverLogs,
    stack,
    clock,
    clockBuffer,
    activity,
    aws,
    environment: settingsVariable(settings),
    ...(latency ? { latency } : {}),
    credentialsFor: (fn) => session(fn.roleArn, fn.name),
  });
  // An injected fault on Lambda's Invoke API hits the services' calls too (the Scheduler's, the event source mapping's).
  const invokeFault = (): string | undefined => {
    const injected = lambda.injectedInvokeError();
    return injected && `${injected.code}: ${injected.message}`;
  };
  // Services invoke functions as their roles: Step Functions for the workflow, the Scheduler for the sweep.
  const mayInvoke = (roleArn: string, functionArn: string): string | undefined => {
    const principal = session(roleArn, SERVICE_SESSION).arn ?? roleArn;
    if (iam.authorize({ principal, action: 'lambda:InvokeFunction', resources: [functionArn] }).allowed)
      return undefined;
    serviceDenials.push({ at: clock.now(), api: 'aws', call: 'lambda:InvokeFunction', by: principal });
    return `User: ${principal} is not authorized to perform: lambda:InvokeFunction on resource: ${functionArn} because no identity-based policy allows the lambda:InvokeFunction action`;
  };
  const stepFunctions = new StepFunctionsService({
    clock,
    aws,
    lambda,
    stateMachines: deployment.stateMachines,
    credentialsFor: (roleArn) => session(roleArn, SERVICE_SESSION),
    authorizeInvoke: mayInvoke,
  });
  const driver = new WorldDriver(clock, activity, [stepFunctions], () => controllers.reconcile());

  const mapping = deployment.eventSourceMappings[0];
  const queueSpec = deployment.queues.find((q) => q.arn === mapping?.eventSourceArn);
  const schedule = deployment.schedules.find((s) => lambda.host(s.targetArn) !== undefined);
  const drainStep = drainStepFunction(deployment);
  if (!mapping || !queueSpec || !schedule || !drainStep) {
    await Promise.all([lambda.close(), closeAll()]);
    throw new Error(
      'the synthesized stack lacks the signal queue, its event source mapping, the sweep schedule or the drain workflow',
    );
  }
  const queue = new SignalQueue(
    queueSpec.arn,
    queueSpec.visibilityTimeoutSeconds * 1000,
    queueSpec.deadLetter?.maxReceiveCount,
  );
  // The mapping polls the queue as the function's role: without the SQS permissions it never receives (CloudFormation would refuse to create it).
  const pollerRole = deployment.functions.find((fn) => fn.name === lambda.host(mapping.functionName)?.fn.name)?.roleArn;
  const pollingRefused =
    pollerRole === undefined
      ? ['sqs:ReceiveMessage']
      : MAPPING_ACTIONS.filter(
          (action) => !iam.authorize({ principal: pollerRole, action, resources: [queue.arn] }).allowed,
        );
  for (const action of pollingRefused)
    serviceDenials.push({ at: clock.now(), api: 'aws', call: action, by: pollerRole ?? mapping.functionName });
  const poller = new QueuePoller({
    clock,
    queue,
    mapping: pollingRefused.length > 0 ? { ...mapping, enabled: false } : mapping,
    lambda,
    region,
    invokeFault,
  });
  const functions: DeployedFunctions = {
    events: lambda.host(mapping.functionName)?.fn.name ?? mapping.functionName,
    sweep: lambda.host(schedule.targetArn)?.fn.name ?? schedule.targetArn,
    drainStep: drainStep.name,
  };

  const sweepCredentials = session(
    deployment.functions.find((fn) => fn.name === functions.sweep)?.roleArn ?? '',
    OPERATOR_SESSION,
  );
  const sleep = (ms: number) => driver.advanceTo(clock.now() + ms);

  // What the APIs say about the deployment (stack, access entries, rules, queues, schedule, mapping).
  const deadLetterArn = queueSpec.deadLetter?.targetArn;
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
    start,
  );

  const putEvent = (event: unknown): readonly string[] => {
    // The rules as EventBridge holds them now: one an operator disabled routes nothing.
    const matched = aws.state.eventBus
      .rules('default')
      .filter(
        (rule) =>
          rule.state === 'ENABLED' &&
          rule.eventPattern !== undefined &&
          matchesPattern(JSON.parse(rule.eventPattern) as unknown, event),
      );
    const detailType =
      typeof event === 'object' && event !== null && 'detail-type' in event
        ? String(event['detail-type'])
        : '(unknown)';
    // One copy per target queue: two rules sending to the same queue deliver twice, as EventBridge does.
    for (const rule of matched)
      for (const target of rule.targets) if (target.arn === queue.arn) queue.send(event, detailType, clock.now());
    return matched.map((rule) => rule.name);
  };
  // Tags set through the API (an operator's `decommission`) are announced as the account would.
  announceTagChanges(aws, { accountId, region, partition }, putEvent);

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
    serviceDenials,
    scheduledSweep() {
      const targetArn = lambda.host(schedule.targetArn)?.fn.arn ?? schedule.targetArn;
      // A refused target invocation fails the schedule's attempt; the function never runs.
      if (mayInvoke(schedule.roleArn, targetArn) !== undefined || invokeFault() !== undefined)
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
    },
    operatorAccess: (override) => ({
      clock,
      sleep,
      clusterName,
      region,
      accountId,
      settings: override ?? settings,
      drainStateMachineArn: deployment.stateMachines[0]?.arn ?? '',
      kube: { url: kube.url, token: ADMIN_TOKEN, ...(kube.caCert ? { caCert: kube.caCert } : {}) },
      aws: {
        endpoint: aws.endpoint,
        credentials: options.operatorAws === 'administrator' ? DEFAULT_CREDENTIALS : sweepCredentials,
      },
      operatorAws: { endpoint: aws.endpoint, credentials: DEFAULT_CREDENTIALS },
    }),
    close: async () => {
      await Promise.all([lambda.close(), closeAll()]);
    },
  };
  announceHealthTerminations(aws.state, putEvent);
  return sandbox;
}
