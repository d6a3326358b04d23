// Oracle for the IAM evaluator, written by others: moto 5's IAM enforcement. Each case gives a role
// the same policies in moto (support/moto_iam_oracle.py: the role is assumed, the call made with its
// session while moto enforces IAM) and in our evaluator, fed the request moto evaluates: the action,
// and the resource moto knows the call targets (an SQS queue's ARN; `*` for EC2 and Auto Scaling,
// where moto never knows the ARN). moto does not evaluate conditions (they always pass there);
// conditions are held to the IAM User Guide in conditions.test.ts instead.
// Where moto departs from AWS, the case says so (MOTO DIFFERS) and asserts both answers.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import { deniedSentence, evaluate, parsePolicy, type PolicyDocumentInput } from '../../../../lib/sandbox/aws/iam/index.js';
import { describeWithOracle, motoMissing, motoVersion } from '../support/oracles.js';
import { byLogicalId, deployedStack, ENV } from '../../support/deployment.js';

const ACCOUNT = ENV.accountId; // moto's default account
const QUEUE_URL = (name: string) => `https://sqs.us-east-1.amazonaws.com/${ACCOUNT}/${name}`;
const QUEUE_ARN = (name: string) => `arn:aws:sqs:us-east-1:${ACCOUNT}:${name}`;

interface MotoCall {
  readonly service: string;
  readonly method: string;
  readonly params?: Record<string, unknown>;
}

/** A call as both sides see it: boto3's for moto, the IAM request for ours. */
interface Call {
  readonly moto: MotoCall;
  readonly action: string;
  readonly resource: string;
}

const CALLS = {
  describeInstances: { moto: { service: 'ec2', method: 'describe_instances' }, action: 'ec2:DescribeInstances', resource: '*' },
  describeInstanceStatus: { moto: { service: 'ec2', method: 'describe_instance_status' }, action: 'ec2:DescribeInstanceStatus', resource: '*' },
  describeAsgGroups: { moto: { service: 'autoscaling', method: 'describe_auto_scaling_groups' }, action: 'autoscaling:DescribeAutoScalingGroups', resource: '*' },
  describeLifecycleHooks: {
    moto: { service: 'autoscaling', method: 'describe_lifecycle_hooks', params: { AutoScalingGroupName: 'eks-ng-1' } },
    action: 'autoscaling:DescribeLifecycleHooks',
    resource: '*',
  },
  completeLifecycleAction: {
    moto: {
      service: 'autoscaling',
      method: 'complete_lifecycle_action',
      params: { AutoScalingGroupName: 'eks-ng-1', LifecycleHookName: 'drain', LifecycleActionResult: 'CONTINUE', InstanceId: 'i-0123456789abcdef0' },
    },
    action: 'autoscaling:CompleteLifecycleAction',
    // AWS authorizes this against the group's ARN; moto does not know it and uses `*`.
    resource: '*',
  },
  getCallerIdentity: { moto: { service: 'sts', method: 'get_caller_identity' }, action: 'sts:GetCallerIdentity', resource: '*' },
  queueAttributes: (name: string): Call => ({
    moto: { service: 'sqs', method: 'get_queue_attributes', params: { QueueUrl: QUEUE_URL(name), AttributeNames: ['All'] } },
    action: 'sqs:GetQueueAttributes',
    resource: QUEUE_ARN(name),
  }),
} as const;

type Statement = Extract<PolicyDocumentInput['Statement'], readonly unknown[]>[number];
const doc = (...statements: Statement[]): PolicyDocumentInput => ({ Version: '2012-10-17', Statement: statements });
const allow = (Action: string | string[], Resource: string | string[] = '*'): Statement => ({ Effect: 'Allow', Action, Resource });
const deny = (Action: string | string[], Resource: string | string[] = '*'): Statement => ({ Effect: 'Deny', Action, Resource });

interface Case {
  readonly name: string;
  readonly policies: readonly PolicyDocumentInput[];
  readonly call: Call;
  /** AWS's (and our) answer. */
  readonly allowed: boolean;
  /** MOTO DIFFERS: moto's answer and why. */
  readonly moto?: { readonly allowed: boolean; readonly why: string };
}

const { deployment } = await deployedStack();
const reconcilerPolicy = (): PolicyDocumentInput => {
  const role = byLogicalId(deployment.roles, 'ReconcilerFunctionsSweepRole');
  const policy = role.policies.find((p) => p.name.startsWith('ReconcilerReconcilerPolicy'));
  if (!policy) throw new Error('the sweep role has the ReconcilerPolicy');
  return policy.document;
};

const CASES: readonly Case[] = [
  { name: 'an Allow naming the action', policies: [doc(allow('ec2:DescribeInstances'))], call: CALLS.describeInstances, allowed: true },
  { name: 'an Allow naming another action', policies: [doc(allow('ec2:DescribeInstanceStatus'))], call: CALLS.describeInstances, allowed: false },
  { name: 'an action wildcard', policies: [doc(allow('ec2:Describe*'))], call: CALLS.describeInstanceStatus, allowed: true },
  { name: 'the all-actions wildcard', policies: [doc(allow('*'))], call: CALLS.describeLifecycleHooks, allowed: true },
  { name: 'a service wildcard of another service', policies: [doc(allow('ec2:*'))], call: CALLS.describeLifecycleHooks, allowed: false },
  { name: 'a Deny in another policy', policies: [doc(allow('ec2:*')), doc(deny('ec2:DescribeInstances'))], call: CALLS.describeInstances, allowed: false },
  { name: 'a Deny in the same policy', policies: [doc(allow('*'), deny('autoscaling:Describe*'))], call: CALLS.describeLifecycleHooks, allowed: false },
  { name: 'NotAction covering the call', policies: [doc({ Effect: 'Allow', NotAction: 'ec2:*', Resource: '*' })], call: CALLS.describeLifecycleHooks, allowed: true },
  { name: 'NotAction excluding the call', policies: [doc({ Effect: 'Allow', NotAction: 'ec2:*', Resource: '*' })], call: CALLS.describeInstances, allowed: false },
  { name: 'a lone statement object', policies: [{ Version: '2012-10-17', Statement: allow('ec2:DescribeInstances') }], call: CALLS.describeInstances, allowed: true },
  { name: 'the exact queue ARN', policies: [doc(allow('sqs:GetQueueAttributes', QUEUE_ARN('signals')))], call: CALLS.queueAttributes('signals'), allowed: true },
  { name: 'a queue name wildcard', policies: [doc(allow('sqs:GetQueueAttributes', QUEUE_ARN('sig*')))], call: CALLS.queueAttributes('signals'), allowed: true },
  { name: 'a queue name wildcard that misses', policies: [doc(allow('sqs:GetQueueAttributes', QUEUE_ARN('sig*')))], call: CALLS.queueAttributes('other'), allowed: false },
  { name: 'region and account wildcards', policies: [doc(allow('sqs:*', 'arn:aws:sqs:*:*:signals'))], call: CALLS.queueAttributes('signals'), allowed: true },
  { name: 'another account’s queue', policies: [doc(allow('sqs:*', 'arn:aws:sqs:us-east-1:444455556666:signals'))], call: CALLS.queueAttributes('signals'), allowed: false },
  { name: 'a Deny on another queue', policies: [doc(allow('sqs:*'), deny('sqs:*', QUEUE_ARN('signals-dlq')))], call: CALLS.queueAttributes('signals'), allowed: true },
  { name: 'a Deny on a queue wildcard', policies: [doc(allow('sqs:*'), deny('sqs:*', 'arn:aws:sqs:*:*:signals*'))], call: CALLS.queueAttributes('signals-dlq'), allowed: false },
  { name: 'an ARN-scoped Allow for an action with no resource type', policies: [doc(allow('ec2:DescribeInstances', `arn:aws:ec2:*:${ACCOUNT}:instance/*`))], call: CALLS.describeInstances, allowed: false },
  { name: 'GetCallerIdentity under a Deny of everything', policies: [doc(deny('*'))], call: CALLS.getCallerIdentity, allowed: true },
  { name: 'the stack’s ReconcilerPolicy: DescribeInstances', policies: [reconcilerPolicy()], call: CALLS.describeInstances, allowed: true },
  { name: 'the stack’s ReconcilerPolicy: DescribeInstanceStatus', policies: [reconcilerPolicy()], call: CALLS.describeInstanceStatus, allowed: true },
  { name: 'the stack’s ReconcilerPolicy: DescribeAutoScalingGroups', policies: [reconcilerPolicy()], call: CALLS.describeAsgGroups, allowed: true },
  { name: 'the stack’s ReconcilerPolicy: DescribeLifecycleHooks (issue #15)', policies: [reconcilerPolicy()], call: CALLS.describeLifecycleHooks, allowed: false },
  {
    // Same inputs on both sides (resource `*`): denied, as the statements are scoped to group ARNs.
    // With the group's ARN and tags, AWS and our evaluator allow it (template-policies.test.ts).
    name: 'the stack’s ReconcilerPolicy: CompleteLifecycleAction against `*`',
    policies: [reconcilerPolicy()],
    call: CALLS.completeLifecycleAction,
    allowed: false,
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
    moto: { allowed: false, why: 'moto turns the pattern into a regular expression without escaping: `?` makes the `e` optional instead of matching one character' },
  },
  {
    name: 'a Deny with NotResource',
    policies: [doc(allow('sqs:*'), { Effect: 'Deny', Action: 'sqs:GetQueueAttributes', NotResource: QUEUE_ARN('other') })],
    call: CALLS.queueAttributes('signals'),
    allowed: false,
    moto: { allowed: true, why: 'moto reads a statement without Resource as PERMITTED, whatever its Effect, so NotResource never denies' },
  },
  {
    name: 'an Allow whose condition key is missing',
    policies: [doc({ ...allow('ec2:DescribeInstances'), Condition: { StringEquals: { 'aws:ResourceTag/team': 'nodes' } } })],
    call: CALLS.describeInstances,
    allowed: false,
    moto: { allowed: true, why: 'moto does not evaluate identity-policy conditions (it has no request context): they always hold' },
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

describeWithOracle(`IAM evaluator vs moto's IAM enforcement (moto ${missing ? 'missing' : motoVersion()})`, missing, () => {
  let answers: MotoAnswer[] = [];
  beforeAll(async () => {
    answers = await askMoto(CASES);
  }, 60_000);

  it.each(CASES.map((c, index) => [c.name, c, index] as const))('should decide %s as moto does (or as marked)', (_name, c, index) => {
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
  });
});
