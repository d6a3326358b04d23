// `doctor`: a preflight and health check of a deployment. Reads the stack, the cluster, IAM,
// EventBridge, SQS, the Scheduler, Lambda and the logs (cli/aws/deployment-reads.ts) and the API
// server (cli/kube/access-reviews.ts); every verdict is cli/doctor's; this file only wires them in
// the order a person fixes things: stack, who the roles are, what they may do, how events arrive,
// whether it has been working.
import {
  callerIdentity,
  createDeploymentClients,
  readAccessEntry,
  readCluster,
  readClusterGroups,
  readFunction,
  readLogLines,
  readMappings,
  readQueue,
  readAccountConcurrency,
  readQueueRules,
  readReservedConcurrency,
  readSchedule,
  readStack,
  simulate,
  type DeploymentClients,
} from '../aws/deployment-reads.js';
import { FUNCTION_ENV } from '@ec2-node-reconciler/model/contract/env.js';
import { SWEEP_RUN_LOG } from '@ec2-node-reconciler/model/contract/function-logs.js';
import { FUNCTION_PERMISSIONS } from '@ec2-node-reconciler/model/contract/permissions.js';
import { RECONCILER_GROUP } from '@ec2-node-reconciler/model/contract/rbac.js';
import { SettingsSchema } from '@ec2-node-reconciler/model/contract/settings.js';
import { defaultStackName, type ClusterOutputs } from '@ec2-node-reconciler/model/contract/stack-outputs.js';
import {
  checkAccess,
  checkAuthenticationMode,
  parseAwsAuth,
  usesAccessEntries,
  usesConfigMap,
  type AwsAuthRole,
  type FunctionRole,
  type KubeIdentity,
} from '../doctor/access.js';
import { couldNotRead, outcomeOf, readFailed, readOk, type Check, type Read } from '../doctor/check.js';
import {
  checkDeadLetterQueue,
  checkMapping,
  checkQueue,
  checkRules,
  checkSchedule,
  expectedSignals,
} from '../doctor/delivery.js';
import { checkConcurrency } from '../doctor/concurrency.js';
import { checkEndpoint } from '../doctor/endpoint.js';
import { checkFunction, type FunctionFacts } from '../doctor/functions.js';
import { checkIam, queueArnOf, simulationsFor } from '../doctor/iam.js';
import { checkLastSweep, lookbackMs } from '../doctor/last-sweep.js';
import { checkRbac, requiredPermissions } from '../doctor/rbac.js';
import { checkStack, deployCommand } from '../doctor/stack.js';
import { readAwsAuth, impersonating, reviewAccess } from '../kube/access-reviews.js';
import { KubeClient, type KubeConnection } from '../../lib/kube/client.js';
import { errorText } from '@ec2-node-reconciler/model/error-text.js';
import type { CommandRun } from '../command-run.js';
import { CliError, EXIT } from '../exit-codes.js';
import { doctorJson, formatDoctor, type DoctorRun } from '../format/doctor.js';
import { connect } from '../live.js';
import { followClock, liveOptions, out, str } from './shared.js';

const DOCTOR_OUTPUTS = ['table', 'json'] as const;

/** `aws`, `aws-cn`, `aws-us-gov`: the partition an ARN of the deployment is in. */
const partitionOf = (arn: string): string => /^arn:(aws[\w-]*):/.exec(arn)?.[1] ?? 'aws';

function doctorOutput(v: Record<string, unknown>): (typeof DOCTOR_OUTPUTS)[number] {
  const mode = str(v['output']) ?? 'table';
  const known = DOCTOR_OUTPUTS.find((m) => m === mode);
  if (known === undefined) throw new CliError(`-o/--output: expected ${DOCTOR_OUTPUTS.join(' or ')}, got ${mode}`);
  return known;
}

/** The three function roles, as the stack's outputs name them and their functions. */
function functionRoles(outputs: ClusterOutputs): FunctionRole[] {
  const roles: [string, string | undefined, string | undefined][] = [
    ['events', outputs.eventsRoleArn, outputs.eventsFunctionName],
    ['sweep', outputs.sweepRoleArn, outputs.sweepFunctionName],
    ['drain-step', outputs.drainStepRoleArn, outputs.drainStepFunctionName],
  ];
  return roles.flatMap(([label, arn, functionName]) =>
    arn === undefined || functionName === undefined ? [] : [{ label, arn, functionName }],
  );
}

const PERMISSIONS_OF: Readonly<Record<string, keyof typeof FUNCTION_PERMISSIONS>> = {
  events: 'events',
  sweep: 'sweep',
  'drain-step': 'drainStep',
};

/** `rebalance` and `autoScalingGroupNames` as the events function is configured (its environment). */
function deployedScope(events: Read<FunctionFacts | undefined>): { rebalance: string; groups?: string[] } {
  const env = events.ok ? (events.value?.environment ?? {}) : {};
  let rebalance = 'cordon';
  try {
    const parsed = SettingsSchema.safeParse(JSON.parse(env[FUNCTION_ENV.settings] ?? '{}'));
    if (parsed.success) rebalance = parsed.data.rebalance;
  } catch {
    // An unreadable setting is the function's to refuse at cold start; the function check shows it.
  }
  const groups = (env[FUNCTION_ENV.autoScalingGroupNames] ?? '')
    .split(',')
    .map((g) => g.trim())
    .filter((g) => g !== '');
  return { rebalance, ...(groups.length > 0 ? { groups } : {}) };
}

/** Who the API server takes each role for: access entries (and aws-auth where the mode keeps it). */
async function accessChecks(input: {
  readonly clients: DeploymentClients;
  readonly kube: KubeConnection;
  readonly cluster: string;
  readonly mode: string;
  readonly roles: readonly FunctionRole[];
}): Promise<{ checks: Check[]; identities: Map<string, KubeIdentity> }> {
  const { clients, cluster, mode, roles } = input;
  const entries = usesAccessEntries(mode)
    ? await Promise.all(roles.map((role) => readAccessEntry(clients, cluster, role.arn)))
    : roles.map(() => undefined);
  const needsAwsAuth = usesConfigMap(mode) && entries.some((e) => e === undefined || !e.ok || e.value === undefined);
  let awsAuth: Read<readonly AwsAuthRole[] | undefined> | undefined;
  if (needsAwsAuth) {
    const data = await readAwsAuth(new KubeClient(input.kube));
    try {
      awsAuth = data.ok ? readOk(data.value === undefined ? undefined : parseAwsAuth(data.value)) : data;
    } catch (error) {
      awsAuth = readFailed(errorText(error));
    }
  }
  const checks: Check[] = [];
  const identities = new Map<string, KubeIdentity>();
  roles.forEach((role, index) => {
    const entry = entries[index];
    const result = checkAccess({
      cluster,
      mode,
      role,
      ...(entry !== undefined ? { entry } : {}),
      ...(awsAuth !== undefined ? { awsAuth } : {}),
    });
    checks.push(result.check);
    if (result.identity) identities.set(role.label, result.identity);
  });
  return { checks, identities };
}

/** RBAC per identity the roles are taken for; roles taken for the same groups are checked once. */
async function rbacChecks(kube: KubeConnection, identities: ReadonlyMap<string, KubeIdentity>): Promise<Check[]> {
  const byGroups = new Map<string, { labels: string[]; identity: KubeIdentity }>();
  for (const [label, identity] of identities) {
    const key = [...identity.groups].sort().join(',');
    const seen = byGroups.get(key);
    if (seen) seen.labels.push(label);
    else byGroups.set(key, { labels: [label], identity });
  }
  // With no role to be, the manifest is still checked, as the group it binds.
  if (byGroups.size === 0)
    byGroups.set(RECONCILER_GROUP, {
      labels: [],
      identity: { user: 'ec2-node-reconciler-doctor', groups: [RECONCILER_GROUP], source: 'the manifest' },
    });
  const permissions = requiredPermissions();
  return Promise.all(
    [...byGroups.values()].map(async ({ labels, identity }) => {
      const client = new KubeClient(impersonating(kube, identity));
      const reviews = await Promise.all(
        permissions.map(async (permission) => ({ permission, review: await reviewAccess(client, permission) })),
      );
      const subject =
        labels.length > 0 ? `${labels.join(', ')} role${labels.length > 1 ? 's' : ''}` : `group ${RECONCILER_GROUP}`;
      return checkRbac({ subject, identity, reviews });
    }),
  );
}

export const runDoctorCommand: CommandRun = async (v) => {
  const mode = doctorOutput(v);
  const live = connect(liveOptions(v));
  const { cluster, region } = live;
  const stackName = str(v['stack']) ?? defaultStackName([cluster]);
  const endpoint = str(v['endpoint-url']);
  const clients = createDeploymentClients({ region, ...(endpoint !== undefined ? { endpoint } : {}) });
  let caller;
  try {
    caller = await callerIdentity(clients);
  } catch (error) {
    throw new CliError(`cannot use the AWS credentials (sts:GetCallerIdentity): ${errorText(error)}`, EXIT.error);
  }
  try {
    await followClock(live);
  } catch (error) {
    throw new CliError(`cannot reach the API server at ${live.kube.server}: ${errorText(error)}`, EXIT.error);
  }
  const deploy = deployCommand(cluster, stackName, region);
  const checks: Check[] = [];
  const run: DoctorRun = { cluster, region, stack: stackName, caller: caller.arn, checks };

  const [stackRead, clusterRead] = await Promise.all([readStack(clients, stackName), readCluster(clients, cluster)]);
  const stack = checkStack(stackName, cluster, region, stackRead);
  checks.push(stack.check);
  if (!clusterRead.ok || clusterRead.value === undefined) {
    checks.push(
      clusterRead.ok
        ? couldNotRead('cluster', cluster, `no cluster ${cluster} in ${region}`)
        : couldNotRead('cluster', cluster, clusterRead.error, `eks:DescribeCluster on ${cluster}`),
    );
    return finish(run, mode);
  }
  const clusterFacts = clusterRead.value;
  const outputs = stack.outputs ?? {};
  const roles = functionRoles(outputs);

  checks.push(checkAuthenticationMode(cluster, clusterFacts.authenticationMode));
  const access = await accessChecks({
    clients,
    kube: live.kube,
    cluster,
    mode: clusterFacts.authenticationMode,
    roles,
  });
  checks.push(...access.checks);
  checks.push(...(await rbacChecks(live.kube, access.identities)));

  // What the functions are: their configuration says where they run, where they log, how they are set.
  const names = {
    events: outputs.eventsFunctionName,
    sweep: outputs.sweepFunctionName,
    'drain-step': outputs.drainStepFunctionName,
  };
  const functions = Object.fromEntries(
    await Promise.all(
      Object.entries(names).map(
        async ([label, name]) => [label, name === undefined ? undefined : await readFunction(clients, name)] as const,
      ),
    ),
  );
  const events = functions['events'];
  const scope = deployedScope(events ?? readOk(undefined));

  const groups = await readClusterGroups(clients, cluster, scope.groups);
  // The queues are read now (their checks come later, in delivery order): IAM needs the queue's ARN.
  const [queue, deadLetter] = await Promise.all([
    outputs.queueUrl === undefined ? undefined : readQueue(clients, outputs.queueUrl),
    outputs.deadLetterQueueUrl === undefined ? undefined : readQueue(clients, outputs.deadLetterQueueUrl),
  ]);
  const signalQueueArn =
    queue?.ok === true && queue.value.arn !== ''
      ? queue.value.arn
      : outputs.queueUrl === undefined
        ? undefined
        : queueArnOf(outputs.queueUrl, partitionOf(clusterFacts.arn));
  for (const role of roles) {
    const permissions = FUNCTION_PERMISSIONS[PERMISSIONS_OF[role.label] ?? 'events'];
    if (
      !groups.ok ||
      outputs.drainStateMachineArn === undefined ||
      outputs.outputEventBusName === undefined ||
      signalQueueArn === undefined
    ) {
      checks.push(
        couldNotRead(
          'iam',
          `${role.label} role`,
          groups.ok ? 'the stack has no drain workflow, bus or queue output' : groups.error,
          'autoscaling:DescribeAutoScalingGroups',
        ),
      );
      continue;
    }
    const simulations = simulationsFor(permissions, {
      cluster,
      clusterArn: clusterFacts.arn,
      drainStateMachineArn: outputs.drainStateMachineArn,
      outputBusArn: `arn:${partitionOf(outputs.drainStateMachineArn)}:events:${region}:${caller.account}:event-bus/${outputs.outputEventBusName}`,
      signalQueueArn,
      groups: groups.value,
      region,
      accountId: caller.account,
    });
    const results = await Promise.all(
      simulations.map(async (simulation) => ({ simulation, decisions: await simulate(clients, role.arn, simulation) })),
    );
    checks.push(checkIam({ subject: `${role.label} role`, roleArn: role.arn, stackName, results }));
  }

  for (const role of roles) {
    const facts = functions[role.label];
    if (facts !== undefined)
      checks.push(
        checkFunction({ label: role.label, name: role.functionName, roleArn: role.arn, facts, deployCommand: deploy }),
      );
  }
  // Before a first deploy as after: can the account hold the sweep's reserved concurrency?
  const sweepFacts = functions['sweep'];
  const sweepDeployed = sweepFacts?.ok === true && sweepFacts.value !== undefined;
  const [account, sweepReserved] = await Promise.all([
    readAccountConcurrency(clients),
    sweepDeployed && names.sweep !== undefined ? readReservedConcurrency(clients, names.sweep) : undefined,
  ]);
  checks.push(checkConcurrency({ region, account, ...(sweepReserved !== undefined ? { sweepReserved } : {}) }));
  checks.push(
    ...checkEndpoint({
      cluster,
      endpoint: readOk(clusterFacts.endpoint),
      functions: Object.entries(functions).flatMap(([label, facts]) =>
        facts?.ok === true && facts.value !== undefined
          ? [{ label, ...(facts.value.vpc !== undefined ? { vpc: facts.value.vpc } : {}) }]
          : [],
      ),
    }),
  );

  if (queue !== undefined && deadLetter !== undefined && outputs.deadLetterQueueUrl !== undefined) {
    if (queue.ok) {
      const [rules, mappings] = await Promise.all([
        readQueueRules(clients, queue.value.arn),
        readMappings(clients, queue.value.arn),
      ]);
      checks.push(
        ...checkRules({
          queueArn: queue.value.arn,
          signals: expectedSignals(scope.rebalance),
          rules,
          deployCommand: deploy,
        }),
      );
      if (outputs.eventsFunctionName !== undefined)
        checks.push(
          checkMapping({
            eventsFunction: outputs.eventsFunctionName,
            mappings,
            deployCommand: deploy,
          }),
        );
    }
    checks.push(checkQueue(queue, deadLetter));
    const eventsLogGroup = events?.ok === true ? events.value?.logGroup : undefined;
    checks.push(
      checkDeadLetterQueue({
        url: outputs.deadLetterQueueUrl,
        facts: deadLetter,
        ...(eventsLogGroup !== undefined ? { eventsLogGroup } : {}),
      }),
    );
  }

  if (outputs.sweepScheduleName !== undefined && outputs.sweepFunctionName !== undefined) {
    const schedule = await readSchedule(clients, outputs.sweepScheduleName);
    checks.push(
      checkSchedule({
        name: outputs.sweepScheduleName,
        sweepFunction: outputs.sweepFunctionName,
        schedule,
        deployCommand: deploy,
      }),
    );
    const sweep = functions['sweep'];
    if (sweep?.ok === true && sweep.value !== undefined) {
      const expression = schedule.ok ? schedule.value?.expression : undefined;
      const window = lookbackMs(expression);
      const now = live.clock.now();
      checks.push(
        checkLastSweep({
          sweepFunction: outputs.sweepFunctionName,
          logGroup: sweep.value.logGroup,
          lines: await readLogLines(clients, sweep.value.logGroup, SWEEP_RUN_LOG, now - window),
          now,
          lookbackMs: window,
          ...(expression !== undefined ? { scheduleExpression: expression } : {}),
        }),
      );
    }
  }
  return finish(run, mode);
};

function finish(run: DoctorRun, mode: (typeof DOCTOR_OUTPUTS)[number]): number {
  out(mode === 'json' ? JSON.stringify(doctorJson(run), null, 2) : formatDoctor(run));
  const outcome = outcomeOf(run.checks);
  return outcome === 'fail' ? EXIT.findings : outcome === 'unknown' ? EXIT.error : EXIT.ok;
}
