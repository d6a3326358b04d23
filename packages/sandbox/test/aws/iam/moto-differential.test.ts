// Oracle for the IAM evaluator, written by others: moto 5's IAM enforcement. Each case gives a role
// the same policies in moto (support/moto_iam_oracle.py: the role is assumed, the call made with its
// session while moto enforces IAM) and in our evaluator, fed the request moto evaluates: the action,
// and the resource moto knows the call targets (an SQS queue's ARN; `*` for EC2 and Auto Scaling,
// where moto never knows the ARN). moto does not evaluate conditions (they always pass there);
// conditions are held to the IAM User Guide in conditions.test.ts instead.
// Where moto departs from AWS, the case says so (MOTO DIFFERS) and asserts both answers.
//
// The same cases, where the call is one the emulator serves, are also made through the emulator's
// server with IAM enforced (SDK v3 clients signed as the role's session, the server building the
// IAM request itself: real ARNs and tags), and its answer is held to moto's. moto enforces IAM on
// EC2, Auto Scaling, EventBridge, Step Functions and STS (its generic query/JSON dispatcher), by
// action, checking every call of these services against `*`; it does not evaluate conditions; EKS
// and Lambda (restJson) calls fail its signature check under enforcement, so they are not compared
// here. Where the server, knowing the resource, answers as AWS does and moto cannot, the case says so
// (SERVER KNOWS THE RESOURCE).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  CompleteLifecycleActionCommand,
  DescribeAutoScalingGroupsCommand,
  DescribeLifecycleHooksCommand,
  RecordLifecycleActionHeartbeatCommand,
  SetInstanceHealthCommand,
} from '@aws-sdk/client-auto-scaling';
import { CreateTagsCommand, DescribeInstancesCommand, DescribeInstanceStatusCommand } from '@aws-sdk/client-ec2';
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { DescribeExecutionCommand, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { GetCallerIdentityCommand } from '@aws-sdk/client-sts';
import { beforeAll, expect, it } from 'vitest';
import { DECOMMISSION_TAG } from '@ec2-node-reconciler/model/contract/labels.js';
import {
  deniedSentence,
  evaluate,
  IamAuthorizer,
  parsePolicy,
  type PolicyDocumentInput,
} from '../../../src/aws/iam/index.js';
import { describeWithOracle, motoMissing, motoVersion } from '../support/oracles.js';
import { clientsFor, destroyClients, startWorld, type Clients, type World } from '../support/world.js';
import { byLogicalId, deployedStack, ENV } from '../../support/deployment.js';

const ACCOUNT = ENV.accountId; // moto's default account
const QUEUE_URL = (name: string) => `https://sqs.us-east-1.amazonaws.com/${ACCOUNT}/${name}`;
const QUEUE_ARN = (name: string) => `arn:aws:sqs:us-east-1:${ACCOUNT}:${name}`;

interface MotoCall {
  readonly service: string;
  readonly method: string;
  readonly params?: Record<string, unknown>;
}

/** A call as both sides see it: boto3's for moto, the IAM request moto evaluates for ours. */
interface Call {
  readonly moto: MotoCall;
  readonly action: string;
  readonly resource: string;
  /** The same call with the SDK v3 clients, through the emulator's server (absent: a service it does not serve). */
  readonly sdk?: (clients: Clients) => Promise<unknown>;
}

const INSTANCE = 'i-0123456789abcdef0';
const GROUP = 'eks-ng-1';
const MACHINE_ARN = (name: string) => `arn:aws:states:us-east-1:${ACCOUNT}:stateMachine:${name}`;
const BUS_ARN = (name: string) => `arn:aws:events:us-east-1:${ACCOUNT}:event-bus/${name}`;
const ENTRY = { Source: 'ec2-node-reconciler', DetailType: 'Node Deleted', Detail: '{}' };

const { deployment } = await deployedStack();
const [STACK_MACHINE] = deployment.stateMachines;
if (!STACK_MACHINE) throw new Error('the stack has a drain state machine');

const CALLS = {
  describeInstances: {
    moto: { service: 'ec2', method: 'describe_instances' },
    action: 'ec2:DescribeInstances',
    resource: '*',
    sdk: (c: Clients) => c.ec2.send(new DescribeInstancesCommand({})),
  },
  describeInstanceStatus: {
    moto: { service: 'ec2', method: 'describe_instance_status' },
    action: 'ec2:DescribeInstanceStatus',
    resource: '*',
    sdk: (c: Clients) => c.ec2.send(new DescribeInstanceStatusCommand({})),
  },
  describeAsgGroups: {
    moto: { service: 'autoscaling', method: 'describe_auto_scaling_groups' },
    action: 'autoscaling:DescribeAutoScalingGroups',
    resource: '*',
    sdk: (c: Clients) => c.autoScaling.send(new DescribeAutoScalingGroupsCommand({})),
  },
  describeLifecycleHooks: {
    moto: { service: 'autoscaling', method: 'describe_lifecycle_hooks', params: { AutoScalingGroupName: GROUP } },
    action: 'autoscaling:DescribeLifecycleHooks',
    resource: '*',
    sdk: (c: Clients) => c.autoScaling.send(new DescribeLifecycleHooksCommand({ AutoScalingGroupName: GROUP })),
  },
  completeLifecycleAction: {
    moto: {
      service: 'autoscaling',
      method: 'complete_lifecycle_action',
      params: {
        AutoScalingGroupName: GROUP,
        LifecycleHookName: 'drain',
        LifecycleActionResult: 'CONTINUE',
        InstanceId: INSTANCE,
      },
    },
    action: 'autoscaling:CompleteLifecycleAction',
    // AWS authorizes this against the group's ARN; moto does not know it and uses `*`.
    resource: '*',
    sdk: (c: Clients) =>
      c.autoScaling.send(
        new CompleteLifecycleActionCommand({
          AutoScalingGroupName: GROUP,
          LifecycleHookName: 'drain',
          LifecycleActionResult: 'CONTINUE',
          InstanceId: INSTANCE,
        }),
      ),
  },
  recordHeartbeat: {
    moto: {
      service: 'autoscaling',
      method: 'record_lifecycle_action_heartbeat',
      params: { AutoScalingGroupName: GROUP, LifecycleHookName: 'drain', InstanceId: INSTANCE },
    },
    action: 'autoscaling:RecordLifecycleActionHeartbeat',
    resource: '*',
    sdk: (c: Clients) =>
      c.autoScaling.send(
        new RecordLifecycleActionHeartbeatCommand({
          AutoScalingGroupName: GROUP,
          LifecycleHookName: 'drain',
          InstanceId: INSTANCE,
        }),
      ),
  },
  setInstanceHealth: {
    moto: {
      service: 'autoscaling',
      method: 'set_instance_health',
      params: { InstanceId: INSTANCE, HealthStatus: 'Healthy' },
    },
    action: 'autoscaling:SetInstanceHealth',
    resource: '*',
    sdk: (c: Clients) =>
      c.autoScaling.send(new SetInstanceHealthCommand({ InstanceId: INSTANCE, HealthStatus: 'Healthy' })),
  },
  createDecommissionTag: {
    moto: {
      service: 'ec2',
      method: 'create_tags',
      params: { Resources: [INSTANCE], Tags: [{ Key: DECOMMISSION_TAG, Value: 'oracle' }] },
    },
    action: 'ec2:CreateTags',
    resource: '*',
    sdk: (c: Clients) =>
      c.ec2.send(new CreateTagsCommand({ Resources: [INSTANCE], Tags: [{ Key: DECOMMISSION_TAG, Value: 'oracle' }] })),
  },
  putEvents: (bus?: string): Call => ({
    moto: {
      service: 'events',
      method: 'put_events',
      params: { Entries: [{ ...ENTRY, ...(bus ? { EventBusName: bus } : {}) }] },
    },
    action: 'events:PutEvents',
    resource: '*',
    sdk: (c: Clients) =>
      c.events.send(new PutEventsCommand({ Entries: [{ ...ENTRY, ...(bus ? { EventBusName: bus } : {}) }] })),
  }),
  startExecution: (machineArn: string): Call => ({
    moto: {
      service: 'stepfunctions',
      method: 'start_execution',
      params: { stateMachineArn: machineArn, name: 'oracle', input: '{}' },
    },
    action: 'states:StartExecution',
    resource: '*',
    sdk: (c: Clients) =>
      c.sfn.send(new StartExecutionCommand({ stateMachineArn: machineArn, name: 'oracle', input: '{}' })),
  }),
  describeExecution: {
    moto: {
      service: 'stepfunctions',
      method: 'describe_execution',
      params: { executionArn: `arn:aws:states:us-east-1:${ACCOUNT}:execution:drain:oracle` },
    },
    action: 'states:DescribeExecution',
    resource: '*',
    sdk: (c: Clients) =>
      c.sfn.send(
        new DescribeExecutionCommand({ executionArn: `arn:aws:states:us-east-1:${ACCOUNT}:execution:drain:oracle` }),
      ),
  },
  getCallerIdentity: {
    moto: { service: 'sts', method: 'get_caller_identity' },
    action: 'sts:GetCallerIdentity',
    resource: '*',
    sdk: (c: Clients) => c.sts.send(new GetCallerIdentityCommand({})),
  },
  queueAttributes: (name: string): Call => ({
    moto: {
      service: 'sqs',
      method: 'get_queue_attributes',
      params: { QueueUrl: QUEUE_URL(name), AttributeNames: ['All'] },
    },
    action: 'sqs:GetQueueAttributes',
    resource: QUEUE_ARN(name),
  }),
} as const;

type Statement = Extract<PolicyDocumentInput['Statement'], readonly unknown[]>[number];
const doc = (...statements: Statement[]): PolicyDocumentInput => ({ Version: '2012-10-17', Statement: statements });
const allow = (Action: string | string[], Resource: string | string[] = '*'): Statement => ({
  Effect: 'Allow',
  Action,
  Resource,
});
const deny = (Action: string | string[], Resource: string | string[] = '*'): Statement => ({
  Effect: 'Deny',
  Action,
  Resource,
});

interface Case {
  readonly name: string;
  readonly policies: readonly PolicyDocumentInput[];
  readonly call: Call;
  /** AWS's (and our) answer. */
  readonly allowed: boolean;
  /** MOTO DIFFERS: moto's answer and why. */
  readonly moto?: { readonly allowed: boolean; readonly why: string };
  /** SERVER KNOWS THE RESOURCE: the server's answer (AWS's, for the real ARN and tags) where it differs from `allowed`. */
  readonly server?: { readonly allowed: boolean; readonly why: string };
}

const SERVER_KNOWS =
  'the server authorizes the real resource (ARN and tags), as AWS does; the evaluator here, like moto, is given `*`';
const reconcilerPolicy = (): PolicyDocumentInput => {
  const role = byLogicalId(deployment.roles, 'ReconcilerFunctionsSweepRole');
  const policy = role.policies.find((p) => p.name.startsWith('ReconcilerSweepPolicy'));
  if (!policy) throw new Error('the sweep role has the SweepPolicy');
  return policy.document;
};

const CASES: readonly Case[] = [
  {
    name: 'an Allow naming the action',
    policies: [doc(allow('ec2:DescribeInstances'))],
    call: CALLS.describeInstances,
    allowed: true,
  },
  {
    name: 'an Allow naming another action',
    policies: [doc(allow('ec2:DescribeInstanceStatus'))],
    call: CALLS.describeInstances,
    allowed: false,
  },
  {
    name: 'an action wildcard',
    policies: [doc(allow('ec2:Describe*'))],
    call: CALLS.describeInstanceStatus,
    allowed: true,
  },
  { name: 'the all-actions wildcard', policies: [doc(allow('*'))], call: CALLS.describeLifecycleHooks, allowed: true },
  {
    name: 'a service wildcard of another service',
    policies: [doc(allow('ec2:*'))],
    call: CALLS.describeLifecycleHooks,
    allowed: false,
  },
  {
    name: 'a Deny in another policy',
    policies: [doc(allow('ec2:*')), doc(deny('ec2:DescribeInstances'))],
    call: CALLS.describeInstances,
    allowed: false,
  },
  {
    name: 'a Deny in the same policy',
    policies: [doc(allow('*'), deny('autoscaling:Describe*'))],
    call: CALLS.describeLifecycleHooks,
    allowed: false,
  },
  {
    name: 'NotAction covering the call',
    policies: [doc({ Effect: 'Allow', NotAction: 'ec2:*', Resource: '*' })],
    call: CALLS.describeLifecycleHooks,
    allowed: true,
  },
  {
    name: 'NotAction excluding the call',
    policies: [doc({ Effect: 'Allow', NotAction: 'ec2:*', Resource: '*' })],
    call: CALLS.describeInstances,
    allowed: false,
  },
  {
    name: 'a lone statement object',
    policies: [{ Version: '2012-10-17', Statement: allow('ec2:DescribeInstances') }],
    call: CALLS.describeInstances,
    allowed: true,
  },
  {
    name: 'the exact queue ARN',
    policies: [doc(allow('sqs:GetQueueAttributes', QUEUE_ARN('signals')))],
    call: CALLS.queueAttributes('signals'),
    allowed: true,
  },
  {
    name: 'a queue name wildcard',
    policies: [doc(allow('sqs:GetQueueAttributes', QUEUE_ARN('sig*')))],
    call: CALLS.queueAttributes('signals'),
    allowed: true,
  },
  {
    name: 'a queue name wildcard that misses',
    policies: [doc(allow('sqs:GetQueueAttributes', QUEUE_ARN('sig*')))],
    call: CALLS.queueAttributes('other'),
    allowed: false,
  },
  {
    name: 'region and account wildcards',
    policies: [doc(allow('sqs:*', 'arn:aws:sqs:*:*:signals'))],
    call: CALLS.queueAttributes('signals'),
    allowed: true,
  },
  {
    name: 'another account’s queue',
    policies: [doc(allow('sqs:*', 'arn:aws:sqs:us-east-1:444455556666:signals'))],
    call: CALLS.queueAttributes('signals'),
    allowed: false,
  },
  {
    name: 'a Deny on another queue',
    policies: [doc(allow('sqs:*'), deny('sqs:*', QUEUE_ARN('signals-dlq')))],
    call: CALLS.queueAttributes('signals'),
    allowed: true,
  },
  {
    name: 'a Deny on a queue wildcard',
    policies: [doc(allow('sqs:*'), deny('sqs:*', 'arn:aws:sqs:*:*:signals*'))],
    call: CALLS.queueAttributes('signals-dlq'),
    allowed: false,
  },
  {
    name: 'an ARN-scoped Allow for an action with no resource type',
    policies: [doc(allow('ec2:DescribeInstances', `arn:aws:ec2:*:${ACCOUNT}:instance/*`))],
    call: CALLS.describeInstances,
    allowed: false,
  },
  {
    name: 'GetCallerIdentity under a Deny of everything',
    policies: [doc(deny('*'))],
    call: CALLS.getCallerIdentity,
    allowed: true,
  },
  {
    name: 'the stack’s SweepPolicy: DescribeInstances',
    policies: [reconcilerPolicy()],
    call: CALLS.describeInstances,
    allowed: true,
  },
  {
    name: 'the stack’s SweepPolicy: DescribeInstanceStatus',
    policies: [reconcilerPolicy()],
    call: CALLS.describeInstanceStatus,
    allowed: true,
  },
  {
    name: 'the stack’s SweepPolicy: DescribeAutoScalingGroups',
    policies: [reconcilerPolicy()],
    call: CALLS.describeAsgGroups,
    allowed: true,
  },
  {
    name: 'the stack’s SweepPolicy: DescribeLifecycleHooks (denied before issue #15)',
    policies: [reconcilerPolicy()],
    call: CALLS.describeLifecycleHooks,
    allowed: true,
  },
  {
    // Same inputs on both sides (resource `*`): denied, as the statements are scoped to group ARNs.
    // With the group's ARN and tags, AWS and our evaluator allow it (template-policies.test.ts).
    name: 'the stack’s SweepPolicy: CompleteLifecycleAction against `*`',
    policies: [reconcilerPolicy()],
    call: CALLS.completeLifecycleAction,
    allowed: false,
    server: { allowed: true, why: `${SERVER_KNOWS}: the group is tagged eks:cluster-name=demo` },
  },
  {
    // Only the operator's decommission tags; the functions' policy grants no CreateTags (issue #15).
    name: 'the stack’s SweepPolicy: CreateTags of the decommission tag is refused',
    policies: [reconcilerPolicy()],
    call: CALLS.createDecommissionTag,
    allowed: false,
  },
  {
    name: 'the stack’s SweepPolicy: StartExecution of the stack’s drain machine',
    policies: [reconcilerPolicy()],
    call: CALLS.startExecution(STACK_MACHINE.arn),
    allowed: false,
    server: { allowed: true, why: `${SERVER_KNOWS}: the state machine's ARN` },
  },
  {
    name: 'the stack’s SweepPolicy: PutEvents on the default bus',
    policies: [reconcilerPolicy()],
    call: CALLS.putEvents(),
    allowed: false,
  },
  {
    name: 'PutEvents allowed by its action',
    policies: [doc(allow('events:PutEvents'))],
    call: CALLS.putEvents(),
    allowed: true,
  },
  {
    name: 'PutEvents under another service’s wildcard',
    policies: [doc(allow('ec2:*'))],
    call: CALLS.putEvents('reconciler'),
    allowed: false,
  },
  {
    name: 'PutEvents allowed on another bus only',
    policies: [doc(allow('events:PutEvents', BUS_ARN('reconciler')))],
    call: CALLS.putEvents(),
    allowed: false,
  },
  {
    name: 'PutEvents allowed on the bus it names',
    policies: [doc(allow('events:PutEvents', BUS_ARN('reconciler')))],
    call: CALLS.putEvents('reconciler'),
    allowed: false,
    server: {
      allowed: true,
      why: `${SERVER_KNOWS}: the bus's ARN (moto, checking every EventBridge call against \`*\`, denies it)`,
    },
  },
  {
    name: 'StartExecution allowed by a states wildcard',
    policies: [doc(allow('states:*'))],
    call: CALLS.startExecution(MACHINE_ARN('drain')),
    allowed: true,
  },
  {
    name: 'StartExecution under a Deny of states:Start*',
    policies: [doc(allow('*'), deny('states:Start*'))],
    call: CALLS.startExecution(MACHINE_ARN('drain')),
    allowed: false,
  },
  {
    name: 'DescribeExecution needs an action of its own',
    policies: [doc(allow('states:StartExecution'))],
    call: CALLS.describeExecution,
    allowed: false,
  },
  {
    name: 'CreateTags allowed on *',
    policies: [doc(allow('ec2:CreateTags'))],
    call: CALLS.createDecommissionTag,
    allowed: true,
  },
  {
    name: 'CreateTags under ec2:Describe*',
    policies: [doc(allow('ec2:Describe*'))],
    call: CALLS.createDecommissionTag,
    allowed: false,
  },
  {
    name: 'SetInstanceHealth allowed by its action',
    policies: [doc(allow('autoscaling:SetInstanceHealth'))],
    call: CALLS.setInstanceHealth,
    allowed: true,
  },
  {
    name: 'a heartbeat excluded by NotAction',
    policies: [doc({ Effect: 'Allow', NotAction: 'autoscaling:Record*', Resource: '*' })],
    call: CALLS.recordHeartbeat,
    allowed: false,
  },
  {
    name: 'a heartbeat under autoscaling:*',
    policies: [doc(allow('autoscaling:*'))],
    call: CALLS.recordHeartbeat,
    allowed: true,
  },
  {
    name: 'an action name in other letter case',
    policies: [doc(allow('EC2:describeinstances'))],
    call: CALLS.describeInstances,
    allowed: true,
    moto: { allowed: false, why: 'moto matches actions case-sensitively; IAM action names are case-insensitive' },
  },
  {
    name: 'the single-character wildcard',
    policies: [doc(allow('ec2:DescribeInstance?'))],
    call: CALLS.describeInstances,
    allowed: true,
    moto: {
      allowed: false,
      why: 'moto turns the pattern into a regular expression without escaping: `?` makes the `e` optional instead of matching one character',
    },
  },
  {
    name: 'a Deny with NotResource',
    policies: [
      doc(allow('sqs:*'), { Effect: 'Deny', Action: 'sqs:GetQueueAttributes', NotResource: QUEUE_ARN('other') }),
    ],
    call: CALLS.queueAttributes('signals'),
    allowed: false,
    moto: {
      allowed: true,
      why: 'moto reads a statement without Resource as PERMITTED, whatever its Effect, so NotResource never denies',
    },
  },
  {
    name: 'an Allow whose condition key is missing',
    policies: [
      doc({ ...allow('ec2:DescribeInstances'), Condition: { StringEquals: { 'aws:ResourceTag/team': 'nodes' } } }),
    ],
    call: CALLS.describeInstances,
    allowed: false,
    moto: {
      allowed: true,
      why: 'moto does not evaluate identity-policy conditions (it has no request context): they always hold',
    },
  },
];

interface MotoAnswer {
  readonly allowed: boolean;
  readonly code: string | null;
  readonly message: string | null;
}

/** Runs every case through moto in one Python process (moto's import is the slow part). */
function askMoto(cases: readonly Case[]): Promise<MotoAnswer[]> {
  const script = fileURLToPath(new URL('../support/moto_iam_oracle.py', import.meta.url));
  const input = JSON.stringify(cases.map((c) => ({ policies: c.policies, call: c.call.moto })));
  return new Promise((resolve, reject) => {
    const child = spawn('python3', [script], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4000)));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`moto IAM oracle exited ${code}: ${stderr}`));
      resolve(JSON.parse(stdout) as MotoAnswer[]);
    });
    child.stdin.end(input);
  });
}

const missing = motoMissing();

/** Our server's answer for one case: whether IAM let the call through, and its refusal's message. */
interface ServerAnswer {
  readonly allowed: boolean;
  readonly message?: string;
}

/**
 * Makes each case's call through the emulator's server with IAM enforced, as the session of a role
 * named like moto's (`case-<n>`, session `oracle`), so principals and sentences compare as text.
 */
async function askServer(cases: readonly Case[]): Promise<(ServerAnswer | undefined)[]> {
  const iam = new IamAuthorizer();
  const world: World = await startWorld({
    iam,
    accountId: ACCOUNT,
    seed: {
      instances: [
        {
          id: INSTANCE,
          state: 'running',
          zone: 'us-east-1a',
          tags: { 'eks:cluster-name': 'demo' },
          autoScaling: { group: GROUP, lifecycleState: 'Terminating:Wait', hook: 'drain' },
        },
      ],
      stateMachines: [{ name: 'drain' }, { name: STACK_MACHINE?.name ?? 'drain' }],
      eventBuses: ['reconciler'],
    },
  });
  try {
    const answers: (ServerAnswer | undefined)[] = [];
    for (const [index, c] of cases.entries()) {
      const { sdk } = c.call;
      if (!sdk) {
        answers.push(undefined);
        continue;
      }
      const role = `arn:aws:iam::${ACCOUNT}:role/case-${index}`;
      iam.attach(role, ...c.policies.map((p, n) => parsePolicy(`policy-${n}`, p)));
      const credentials = world.aws.sessionCredentials(role, 'oracle');
      const clients = clientsFor({ endpoint: world.aws.endpoint, region: world.aws.region, credentials });
      const before = world.aws.counters.denied();
      try {
        await sdk(clients).catch((error: unknown) => error);
      } finally {
        destroyClients(clients);
      }
      const allowed = world.aws.counters.denied() === before;
      // The IAM sentence of the refusal, as decided (EC2's wire message wraps it in its own words).
      const last = iam.decisions.at(-1);
      answers.push({
        allowed,
        message: !allowed && last && !last.decision.allowed ? deniedSentence(last.request, last.decision) : undefined,
      });
    }
    return answers;
  } finally {
    await world.close();
  }
}

describeWithOracle(
  `IAM evaluator and the emulator's server vs moto's IAM enforcement (moto ${missing ? 'missing' : motoVersion()})`,
  missing,
  () => {
    let answers: MotoAnswer[] = [];
    let server: (ServerAnswer | undefined)[] = [];
    beforeAll(async () => {
      [answers, server] = await Promise.all([askMoto(CASES), askServer(CASES)]);
    }, 60_000);

    it.each(CASES.map((c, index) => [c.name, c, index] as const))(
      'should decide %s as moto does (or as marked)',
      (_name, c, index) => {
        const principal = `arn:aws:sts::${ACCOUNT}:assumed-role/case-${index}/oracle`;
        const request = { principal, action: c.call.action, resources: [c.call.resource] };
        const ours = evaluate(
          c.policies.map((p, n) => parsePolicy(`policy-${n}`, p)),
          request,
        );
        const moto = answers[index];
        expect(ours.allowed).toBe(c.allowed);
        expect(moto?.allowed).toBe(c.moto?.allowed ?? c.allowed);
        if (!ours.allowed && moto && !moto.allowed) {
          // moto says only the first half of IAM's sentence (no resource, no reason); ours starts with it.
          expect(moto.message).toBe(`User: ${principal} is not authorized to perform: ${c.call.action}`);
          expect(deniedSentence(request, ours).startsWith(moto.message ?? '(none)')).toBe(true);
        }
      },
    );

    const served = CASES.map((c, index) => [c.name, c, index] as const).filter(([, c]) => c.call.sdk !== undefined);
    it.each(served)('should answer %s through the server as moto does (or as marked)', (_name, c, index) => {
      const ours = server[index];
      const moto = answers[index];
      expect(ours?.allowed).toBe(c.server?.allowed ?? c.allowed);
      expect(moto?.allowed).toBe(c.moto?.allowed ?? c.allowed);
      if (!c.server && !c.moto) expect(ours?.allowed).toBe(moto?.allowed);
      if (ours && !ours.allowed && moto && !moto.allowed) {
        // moto says the first half of IAM's sentence; the server says all of it.
        expect(ours.message?.startsWith(moto.message ?? '(none)')).toBe(true);
      }
    });
  },
);
