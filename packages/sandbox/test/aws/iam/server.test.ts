// IAM enforced by the emulator's server: real SDK v3 clients signed with a role session's
// credentials, allowed and refused, each service answering a refusal in its own shape; the
// operator's access; faults and IAM in AWS's order; EKS tokens signed by a role session.
import {
  AutoScalingClient,
  CompleteLifecycleActionCommand,
  DescribeAutoScalingInstancesCommand,
} from '@aws-sdk/client-auto-scaling';
import { CreateTagsCommand, DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { DescribeClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createEksToken,
  credentialArn,
  DEFAULT_CREDENTIALS,
  type AwsEmulator,
  type EmulatorCredential,
} from '../../../src/aws/index.js';
import { IamAuthorizer, parsePolicy, type PolicyDocumentInput } from '../../../src/aws/iam/index.js';
import { anInstance, errorOf, instanceId, startWorld, type World } from '../support/world.js';

const ACCOUNT = '123456789012';
const REGION = 'us-east-1';
const ROLE = `arn:aws:iam::${ACCOUNT}:role/service-role/reconciler-sweep`;
const SESSION_ARN = `arn:aws:sts::${ACCOUNT}:assumed-role/reconciler-sweep/sweep`;
const OPERATOR_ARN = credentialArn(DEFAULT_CREDENTIALS, ACCOUNT);
const MACHINE = `arn:aws:states:${REGION}:${ACCOUNT}:stateMachine:drain`;

type Statement = Extract<PolicyDocumentInput['Statement'], readonly unknown[]>[number];
let policies = 0;
const policy = (...Statement: Statement[]) => parsePolicy(`policy-${++policies}`, { Version: '2012-10-17', Statement });
const allow = (
  Action: string | string[],
  Resource: string | string[] = '*',
  extra: Partial<Statement> = {},
): Statement => ({ Effect: 'Allow', Action, Resource, ...extra });

/** The SDK clients a function running under the session would make (no retries: every answer is the first). */
function sessionClients(aws: AwsEmulator, credentials: EmulatorCredential) {
  const config = {
    endpoint: aws.endpoint,
    region: aws.region,
    maxAttempts: 1,
    credentials: {
      accessKeyId: credentials.accessKeyId,
      secretAccessKey: credentials.secretAccessKey,
      sessionToken: credentials.sessionToken,
    },
  };
  return {
    ec2: new EC2Client(config),
    autoScaling: new AutoScalingClient(config),
    eks: new EKSClient(config),
    sts: new STSClient(config),
    events: new EventBridgeClient(config),
    sfn: new SFNClient(config),
    lambda: new LambdaClient(config),
  };
}
type SessionClients = ReturnType<typeof sessionClients>;

let iam: IamAuthorizer;
let world: World;
let session: SessionClients;

beforeEach(async () => {
  iam = new IamAuthorizer();
  world = await startWorld({
    iam,
    accountId: ACCOUNT,
    seed: {
      instances: [anInstance(1, { autoScaling: { group: 'ng-a', lifecycleState: 'Terminating:Wait', hook: 'drain' } })],
      clusters: [{ name: 'demo', endpoint: 'https://127.0.0.1:6443' }],
      stateMachines: [{ name: 'drain' }],
      eventBuses: ['reconciler'],
    },
  });
  world.aws.state.functions.register('drain-step', () => Promise.resolve({ done: true }));
  session = sessionClients(world.aws, world.aws.sessionCredentials(ROLE, 'sweep'));
});
afterEach(async () => {
  Object.values(session).forEach((client: { destroy(): void }) => client.destroy());
  await world.close();
});

interface ServiceCase {
  readonly service: string;
  /** The IAM action; allowed alone, it lets the call through. */
  readonly action: string;
  readonly call: (clients: SessionClients) => Promise<unknown>;
  /** The SDK exception of a refusal: the service's own error code and HTTP status. */
  readonly code: string;
  readonly status: number;
}

const SERVICE_CASES: readonly ServiceCase[] = [
  {
    service: 'EC2',
    action: 'ec2:DescribeInstances',
    call: (c) => c.ec2.send(new DescribeInstancesCommand({})),
    code: 'UnauthorizedOperation',
    status: 403,
  },
  {
    service: 'Auto Scaling',
    action: 'autoscaling:CompleteLifecycleAction',
    call: (c) =>
      c.autoScaling.send(
        new CompleteLifecycleActionCommand({
          AutoScalingGroupName: 'ng-a',
          LifecycleHookName: 'drain',
          InstanceId: instanceId(1),
          LifecycleActionResult: 'CONTINUE',
        }),
      ),
    code: 'AccessDenied',
    status: 403,
  },
  {
    service: 'EKS',
    action: 'eks:DescribeCluster',
    call: (c) => c.eks.send(new DescribeClusterCommand({ name: 'demo' })),
    code: 'AccessDeniedException',
    status: 403,
  },
  {
    service: 'EventBridge',
    action: 'events:PutEvents',
    call: (c) =>
      c.events.send(
        new PutEventsCommand({
          Entries: [
            { EventBusName: 'reconciler', Source: 'ec2-node-reconciler', DetailType: 'Node Deleted', Detail: '{}' },
          ],
        }),
      ),
    code: 'AccessDeniedException',
    status: 400,
  },
  {
    service: 'Step Functions',
    action: 'states:StartExecution',
    call: (c) => c.sfn.send(new StartExecutionCommand({ stateMachineArn: MACHINE, name: 'demo-i-1', input: '{}' })),
    code: 'AccessDeniedException',
    status: 400,
  },
  {
    service: 'Lambda',
    action: 'lambda:InvokeFunction',
    call: (c) => c.lambda.send(new InvokeCommand({ FunctionName: 'drain-step', Payload: '{}' })),
    code: 'AccessDeniedException',
    status: 403,
  },
];

describe('IAM on every call of a role session', () => {
  it.each(SERVICE_CASES.map((c) => [c.service, c] as const))(
    'should let %s through when the role allows the action',
    async (_name, c) => {
      iam.attach(ROLE, policy(allow(c.action)));

      await c.call(session);

      expect(world.aws.requestLog.entries.at(-1)).toMatchObject({ principal: SESSION_ARN, status: 200 });
      expect(world.aws.requestLog.entries.at(-1)).not.toHaveProperty('denied');
    },
  );

  it.each(SERVICE_CASES.map((c) => [c.service, c] as const))(
    'should refuse %s with its own AccessDenied answer when the role does not allow it',
    async (_name, c) => {
      iam.attach(ROLE, policy(allow('sts:GetCallerIdentity')));

      const error = await errorOf(c.call(session));

      expect(error).toMatchObject({ name: c.code, status: c.status });
      expect(error.message).toContain(`User: ${SESSION_ARN} is not authorized to perform: ${c.action}`);
      expect(error.message).toContain(`because no identity-based policy allows the ${c.action} action`);
      const [entry] = world.aws.requestLog.filter({ denied: true });
      expect(entry).toMatchObject({ errorCode: c.code, status: c.status, denied: true, principal: SESSION_ARN });
      expect(world.aws.counters.denied()).toBe(1);
    },
  );

  it('should do nothing a refused call asks for', async () => {
    iam.attach(ROLE, policy(allow('ec2:Describe*')));

    await errorOf(
      session.ec2.send(
        new CreateTagsCommand({
          Resources: [instanceId(1)],
          Tags: [{ Key: 'ec2-node-reconciler/decommission', Value: 'x' }],
        }),
      ),
    );
    await errorOf(SERVICE_CASES[1]?.call(session) ?? Promise.resolve());
    await errorOf(session.lambda.send(new InvokeCommand({ FunctionName: 'drain-step', Payload: '{}' })));

    expect(world.aws.state.instanceView(instanceId(1))?.tags).not.toHaveProperty('ec2-node-reconciler/decommission');
    expect(world.aws.state.autoScaling.completions).toEqual([]);
    expect(world.aws.state.functions.invocations).toEqual([]);
    expect(world.aws.counters.denied('ec2')).toBe(1);
    expect(world.aws.counters.denied()).toBe(3);
  });

  it('should name the resource and the explicit deny in the refusal, and encode EC2’s mutation failures', async () => {
    iam.attach(
      ROLE,
      policy(allow('ec2:*'), {
        Effect: 'Deny',
        Action: 'ec2:CreateTags',
        Resource: `arn:aws:ec2:*:*:instance/${instanceId(1)}`,
      }),
    );

    const error = await errorOf(
      session.ec2.send(new CreateTagsCommand({ Resources: [instanceId(1)], Tags: [{ Key: 'k', Value: 'v' }] })),
    );

    expect(error.name).toBe('UnauthorizedOperation');
    expect(error.message).toMatch(
      new RegExp(
        `^You are not authorized to perform this operation\\. User: ${SESSION_ARN} is not authorized to perform: ec2:CreateTags on resource: arn:aws:ec2:us-east-1:${ACCOUNT}:instance/${instanceId(1)} with an explicit deny in an identity-based policy\\. Encoded authorization failure message: [\\w-]+$`,
      ),
    );
  });

  it('should check permission before a DryRun: DryRunOperation when allowed, UnauthorizedOperation when not', async () => {
    iam.attach(
      ROLE,
      policy(
        allow('ec2:CreateTags', 'arn:aws:ec2:*:*:instance/*', {
          Condition: { StringEquals: { 'aws:ResourceTag/eks:cluster-name': 'demo' } },
        }),
      ),
    );
    world.aws.state.seedInstance(anInstance(2, { tags: { 'eks:cluster-name': 'other' } }));

    const ours = await errorOf(
      session.ec2.send(
        new CreateTagsCommand({ DryRun: true, Resources: [instanceId(1)], Tags: [{ Key: 'k', Value: 'v' }] }),
      ),
    );
    const theirs = await errorOf(
      session.ec2.send(
        new CreateTagsCommand({ DryRun: true, Resources: [instanceId(2)], Tags: [{ Key: 'k', Value: 'v' }] }),
      ),
    );
    const both = await errorOf(
      session.ec2.send(
        new CreateTagsCommand({ Resources: [instanceId(1), instanceId(2)], Tags: [{ Key: 'k', Value: 'v' }] }),
      ),
    );

    expect(ours.name).toBe('DryRunOperation');
    expect(theirs.name).toBe('UnauthorizedOperation');
    // Every resource must be allowed: one other cluster's instance refuses the whole call.
    expect(both.name).toBe('UnauthorizedOperation');
    expect(world.aws.state.instanceView(instanceId(1))?.tags).not.toHaveProperty('k');
  });

  it('should need every bus of a PutEvents call allowed', async () => {
    iam.attach(ROLE, policy(allow('events:PutEvents', `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/reconciler`)));
    const entry = { Source: 'ec2-node-reconciler', DetailType: 'Node Deleted', Detail: '{}' };

    const out = await session.events.send(
      new PutEventsCommand({ Entries: [{ ...entry, EventBusName: 'reconciler' }] }),
    );
    const error = await errorOf(
      session.events.send(new PutEventsCommand({ Entries: [{ ...entry, EventBusName: 'reconciler' }, entry] })),
    );

    expect(out.FailedEntryCount).toBe(0);
    expect(error.message).toContain(`on resource: arn:aws:events:${REGION}:${ACCOUNT}:event-bus/default`);
    expect(world.aws.state.eventBus.events).toHaveLength(1);
  });

  it('should always answer GetCallerIdentity, even under a Deny of everything', async () => {
    iam.attach(ROLE, policy({ Effect: 'Deny', Action: '*', Resource: '*' }));

    const out = await session.sts.send(new GetCallerIdentityCommand({}));

    expect(out.Arn).toBe(SESSION_ARN);
    expect(out.UserId).toMatch(/^AROA[0-9A-F]{17}:sweep$/);
  });

  it('should refuse a call from an access key the emulator does not know (a user with no policies)', async () => {
    const stranger = sessionClients(world.aws, { accessKeyId: 'AKIAUNKNOWNEXAMPLE00', secretAccessKey: 'x' });

    const error = await errorOf(stranger.autoScaling.send(new DescribeAutoScalingInstancesCommand({})));

    expect(error).toMatchObject({ name: 'AccessDenied', status: 403 });
    expect(error.message).toContain(`User: arn:aws:iam::${ACCOUNT}:user/AKIAUNKNOWNEXAMPLE00 is not authorized`);
    Object.values(stranger).forEach((client: { destroy(): void }) => client.destroy());
  });

  it('should refuse an unsigned call before IAM', async () => {
    const response = await fetch(world.aws.endpoint, {
      method: 'POST',
      headers: { 'x-amz-target': 'AWSEvents.PutEvents', 'content-type': 'application/x-amz-json-1.1' },
      body: JSON.stringify({ Entries: [{ Source: 's', DetailType: 'd', Detail: '{}' }] }),
    });

    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ __type: 'MissingAuthenticationToken' });
    expect(world.aws.requestLog.entries.at(-1)).toMatchObject({
      service: 'events',
      operation: 'PutEvents',
      denied: true,
    });
  });

  it('should answer an operation the service does not have as the service does, not as IAM', async () => {
    const response = await fetch(world.aws.endpoint, {
      method: 'POST',
      headers: {
        'x-amz-target': 'AWSEvents.PutRule',
        'content-type': 'application/x-amz-json-1.1',
        authorization: `AWS4-HMAC-SHA256 Credential=${DEFAULT_CREDENTIALS.accessKeyId}/20261129/${REGION}/events/aws4_request, SignedHeaders=host, Signature=x`,
      },
      body: '{}',
    });

    expect(await response.json()).toMatchObject({ __type: 'UnknownOperationException' });
  });
});

describe('faults and IAM', () => {
  it('should inject a fault named by the IAM action into calls IAM allows, and never into refused ones', async () => {
    iam.attach(ROLE, policy(allow('lambda:InvokeFunction', `arn:aws:lambda:${REGION}:${ACCOUNT}:function:drain-step`)));
    world.aws.faults.fail({
      service: 'lambda',
      operation: 'InvokeFunction',
      code: 'ServiceException',
      status: 500,
      count: 1,
    });

    const refused = await errorOf(session.lambda.send(new InvokeCommand({ FunctionName: 'sweep', Payload: '{}' })));
    const failed = await errorOf(session.lambda.send(new InvokeCommand({ FunctionName: 'drain-step', Payload: '{}' })));
    const out = await session.lambda.send(new InvokeCommand({ FunctionName: 'drain-step', Payload: '{}' }));

    expect(refused).toMatchObject({ name: 'AccessDeniedException', status: 403 });
    expect(failed).toMatchObject({ name: 'ServiceException', status: 500 });
    expect(out.StatusCode).toBe(200);
    expect(world.aws.state.functions.invocations).toHaveLength(1);
  });
});

describe('principals', () => {
  it('should let the operator’s IAM user do everything', async () => {
    const out = await world.ec2.send(new DescribeInstancesCommand({}));
    await world.autoScaling.send(
      new CompleteLifecycleActionCommand({
        AutoScalingGroupName: 'ng-a',
        LifecycleHookName: 'drain',
        InstanceId: instanceId(1),
        LifecycleActionResult: 'CONTINUE',
      }),
    );

    expect(out.Reservations).toHaveLength(1);
    expect(world.aws.requestLog.entries.map((e) => [e.principal, e.denied])).toEqual([
      [OPERATOR_ARN, undefined],
      [OPERATOR_ARN, undefined],
    ]);
    expect(iam.policiesOf(OPERATOR_ARN).map((p) => p.name)).toEqual(['EmulatorOperatorAccess']);
  });

  it('should leave an operator user with policies of its own to them', async () => {
    const limited = new IamAuthorizer();
    limited.attach(OPERATOR_ARN, policy(allow('ec2:DescribeInstances')));
    const other = await startWorld({ iam: limited, accountId: ACCOUNT });
    try {
      await other.ec2.send(new DescribeInstancesCommand({}));
      const error = await errorOf(other.eks.send(new DescribeClusterCommand({ name: 'demo' })));
      expect(error).toMatchObject({ name: 'AccessDeniedException', status: 403 });
    } finally {
      await other.close();
    }
  });

  it('should mint the same session credentials for the same role and session, and a new pair for another session', () => {
    const again = world.aws.sessionCredentials(ROLE, 'sweep');
    const other = world.aws.sessionCredentials(ROLE, 'events');

    expect(again.accessKeyId).toMatch(/^ASIA[A-Z2-7]{16}$/);
    expect(again.secretAccessKey).toHaveLength(40);
    expect(again.sessionToken?.length).toBeGreaterThan(40);
    expect(again.arn).toBe(SESSION_ARN);
    expect(world.aws.credentials.filter((c) => c.accessKeyId === again.accessKeyId)).toHaveLength(1);
    expect(other.accessKeyId).not.toBe(again.accessKeyId);
    expect(() => world.aws.sessionCredentials(`arn:aws:iam::${ACCOUNT}:user/alice`, 'sweep')).toThrow(/not a role ARN/);
    expect(() => world.aws.sessionCredentials(ROLE, 'a b')).toThrow(/role session name/);
  });

  it('should verify an EKS token signed with a role session’s credentials and give the caller’s ARN', async () => {
    const credentials = world.aws.sessionCredentials(ROLE, 'drain-step');
    const token = await createEksToken({ clusterName: 'demo', region: REGION, clock: world.clock, credentials });
    const unknown = await createEksToken({
      clusterName: 'demo',
      region: REGION,
      clock: world.clock,
      credentials: { ...credentials, accessKeyId: 'ASIAAAAAAAAAAAAAAAAA' },
    });

    expect(await world.aws.verifyEksToken(token, 'demo')).toMatchObject({
      ok: true,
      arn: `arn:aws:sts::${ACCOUNT}:assumed-role/reconciler-sweep/drain-step`,
      sessionName: 'drain-step',
    });
    expect(await world.aws.verifyEksToken(unknown, 'demo')).toMatchObject({ ok: false });
  });

  it('should add a credential pair the caller brings, and know its identity at once', async () => {
    world.aws.addCredential({
      accessKeyId: 'AKIAOTHEROPERATOR000',
      secretAccessKey: 'secret',
      arn: `arn:aws:iam::${ACCOUNT}:user/bob`,
    });
    iam.attach(`arn:aws:iam::${ACCOUNT}:user/bob`, policy(allow('eks:DescribeCluster')));
    const bob = sessionClients(world.aws, { accessKeyId: 'AKIAOTHEROPERATOR000', secretAccessKey: 'secret' });
    try {
      const out = await bob.eks.send(new DescribeClusterCommand({ name: 'demo' }));
      expect(out.cluster?.name).toBe('demo');
      expect(world.aws.requestLog.entries.at(-1)?.principal).toBe(`arn:aws:iam::${ACCOUNT}:user/bob`);
    } finally {
      Object.values(bob).forEach((client: { destroy(): void }) => client.destroy());
    }
  });
});
