// The IAM evaluator on its own: statement matching and the evaluation order, from the IAM User
// Guide's "Policy evaluation logic" and "IAM JSON policy elements" pages.
import { describe, expect, it } from 'vitest';
import {
  accessDeniedError,
  deniedSentence,
  evaluate,
  IamAuthorizer,
  parsePolicy,
  roleKey,
  type AuthorizationRequest,
  type NamedPolicy,
  type PolicyDocumentInput,
} from '../../../src/aws/iam/index.js';

const ACCOUNT = '111122223333';
const ROLE = `arn:aws:iam::${ACCOUNT}:role/reconciler`;
const SESSION = `arn:aws:sts::${ACCOUNT}:assumed-role/reconciler/fn-session`;
const QUEUE = `arn:aws:sqs:us-east-1:${ACCOUNT}:signals`;

type StatementInput = Extract<PolicyDocumentInput['Statement'], readonly unknown[]>[number];

let counter = 0;
/** A policy of the given statements, named for messages. */
const policy = (...statements: StatementInput[]): NamedPolicy =>
  parsePolicy(`policy-${++counter}`, { Version: '2012-10-17', Statement: statements });
const allow = (
  Action: string | string[],
  Resource: string | string[] = '*',
  extra: Partial<StatementInput> = {},
): StatementInput => ({ Effect: 'Allow', Action, Resource, ...extra });
const deny = (
  Action: string | string[],
  Resource: string | string[] = '*',
  extra: Partial<StatementInput> = {},
): StatementInput => ({ Effect: 'Deny', Action, Resource, ...extra });
const call = (
  action: string,
  resources?: string[],
  context?: AuthorizationRequest['context'],
): AuthorizationRequest => ({ principal: SESSION, action, resources, context });

describe('IAM evaluation order', () => {
  it('should allow a call that an Allow statement matches', () => {
    const decision = evaluate([policy(allow('ec2:DescribeInstances'))], call('ec2:DescribeInstances'));
    expect(decision).toMatchObject({ allowed: true, kind: 'allow', statement: { index: 0 } });
  });

  it('should deny implicitly when no statement matches', () => {
    const decision = evaluate([policy(allow('ec2:DescribeInstances'))], call('autoscaling:DescribeLifecycleHooks'));
    expect(decision).toEqual({ allowed: false, kind: 'implicit-deny', resource: '*' });
  });

  it('should let an explicit Deny in another policy win over an Allow', () => {
    const denying = policy({ Sid: 'NoTerminate', ...deny('ec2:TerminateInstances') });
    const decision = evaluate([policy(allow('ec2:*')), denying], call('ec2:TerminateInstances'));
    expect(decision).toMatchObject({
      allowed: false,
      kind: 'explicit-deny',
      statement: { policy: denying.name, sid: 'NoTerminate' },
    });
  });

  it('should not let a Deny on another resource stop an allowed call', () => {
    const decision = evaluate(
      [policy(allow('sqs:SendMessage', QUEUE), deny('sqs:SendMessage', `${QUEUE}-dlq`))],
      call('sqs:SendMessage', [QUEUE]),
    );
    expect(decision.allowed).toBe(true);
  });

  it('should require every resource of a call to be allowed, naming the first that is not', () => {
    const policies = [policy(allow('ec2:CreateTags', `arn:aws:ec2:us-east-1:${ACCOUNT}:instance/*`))];
    const instance = `arn:aws:ec2:us-east-1:${ACCOUNT}:instance/i-1`;
    const volume = `arn:aws:ec2:us-east-1:${ACCOUNT}:volume/vol-1`;
    expect(evaluate(policies, call('ec2:CreateTags', [instance])).allowed).toBe(true);
    expect(evaluate(policies, call('ec2:CreateTags', [instance, volume]))).toEqual({
      allowed: false,
      kind: 'implicit-deny',
      resource: volume,
    });
  });

  it('should allow sts:GetCallerIdentity even against an explicit Deny, as STS documents', () => {
    expect(evaluate([policy(deny('*'))], call('sts:GetCallerIdentity')).allowed).toBe(true);
    expect(evaluate([policy(deny('*'))], call('sts:AssumeRole')).allowed).toBe(false);
  });
});

describe('IAM action and resource matching', () => {
  it('should match actions case-insensitively, with * and ? wildcards', () => {
    expect(evaluate([policy(allow('EC2:describeinstances'))], call('ec2:DescribeInstances')).allowed).toBe(true);
    expect(evaluate([policy(allow('ec2:Describe*'))], call('ec2:DescribeInstanceStatus')).allowed).toBe(true);
    expect(evaluate([policy(allow('ec2:DescribeInstance?'))], call('ec2:DescribeInstances')).allowed).toBe(true);
    expect(evaluate([policy(allow('ec2:DescribeInstance?'))], call('ec2:DescribeInstanceStatus')).allowed).toBe(false);
    expect(evaluate([policy(allow('ec2:Describe*'))], call('autoscaling:DescribeAutoScalingInstances')).allowed).toBe(
      false,
    );
  });

  it('should apply NotAction to every action but the listed ones', () => {
    const policies = [policy({ Effect: 'Allow', NotAction: 'ec2:*', Resource: '*' })];
    expect(evaluate(policies, call('autoscaling:DescribeLifecycleHooks')).allowed).toBe(true);
    expect(evaluate(policies, call('ec2:DescribeInstances')).allowed).toBe(false);
  });

  it('should apply NotResource to every resource but the listed ones', () => {
    const policies = [
      policy(allow('sqs:*'), { Effect: 'Deny', Action: 'sqs:DeleteQueue', NotResource: `${QUEUE}-scratch` }),
    ];
    expect(evaluate(policies, call('sqs:DeleteQueue', [QUEUE]))).toMatchObject({ kind: 'explicit-deny' });
    expect(evaluate(policies, call('sqs:DeleteQueue', [`${QUEUE}-scratch`])).allowed).toBe(true);
  });

  it('should match ARNs segment by segment, case-sensitively, with wildcards inside segments', () => {
    const group = `arn:aws:autoscaling:us-east-1:${ACCOUNT}:autoScalingGroup:0f2a-uuid:autoScalingGroupName/eks-ng-1`;
    const anyGroup = `arn:aws:autoscaling:us-east-1:${ACCOUNT}:autoScalingGroup:*:autoScalingGroupName/*`;
    const check = (pattern: string, resource: string) =>
      evaluate(
        [policy(allow('autoscaling:CompleteLifecycleAction', pattern))],
        call('autoscaling:CompleteLifecycleAction', [resource]),
      ).allowed;
    expect(check(anyGroup, group)).toBe(true);
    expect(check(`arn:aws:autoscaling:us-*:${ACCOUNT}:autoScalingGroup:*:autoScalingGroupName/eks-*`, group)).toBe(
      true,
    );
    expect(check(`arn:aws:autoscaling:*:*:autoScalingGroup:*:autoScalingGroupName/eks-ng-?`, group)).toBe(true);
    expect(check(anyGroup.replace(ACCOUNT, '444455556666'), group)).toBe(false);
    expect(check(anyGroup.replace('autoScalingGroupName', 'autoscalinggroupname'), group)).toBe(false);
    // A wildcard in one segment never reaches into the next: `us-east-1*` is not `us-east-1:<account>`.
    expect(check(`arn:aws:autoscaling:us-east-1*:autoScalingGroup:*:autoScalingGroupName/*`, group)).toBe(false);
  });

  it('should let only Resource "*" cover an action that has no resource type', () => {
    expect(
      evaluate(
        [policy(allow('ec2:DescribeInstances', `arn:aws:ec2:*:${ACCOUNT}:instance/*`))],
        call('ec2:DescribeInstances'),
      ).allowed,
    ).toBe(false);
    expect(evaluate([policy(allow('ec2:DescribeInstances', '*'))], call('ec2:DescribeInstances')).allowed).toBe(true);
  });
});

describe('IAM policy documents', () => {
  it('should read a lone statement object as a one-statement list', () => {
    const single = parsePolicy('single', {
      Version: '2012-10-17',
      Statement: { Effect: 'Allow', Action: 'ec2:DescribeInstances', Resource: '*' },
    });
    expect(evaluate([single], call('ec2:DescribeInstances')).allowed).toBe(true);
  });

  it('should refuse a statement with a Principal, with both Action and NotAction, or without a resource', () => {
    expect(() =>
      parsePolicy('trust', {
        Statement: [
          { Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole', Resource: '*' },
        ],
      }),
    ).toThrow(/trust/);
    expect(() =>
      parsePolicy('both', {
        Statement: [{ Effect: 'Allow', Action: 'ec2:*', NotAction: 'ec2:RunInstances', Resource: '*' }],
      }),
    ).toThrow(/exactly one of Action and NotAction/);
    expect(() => parsePolicy('none', { Statement: [{ Effect: 'Allow', Action: 'ec2:*' }] })).toThrow(
      /exactly one of Resource and NotResource/,
    );
  });

  it('should refuse an unknown condition operator when the policy is attached, not at the first call', () => {
    const authorizer = new IamAuthorizer();
    const odd = policy(allow('ec2:*', '*', { Condition: { StringSortOf: { 'aws:SourceAccount': ACCOUNT } } }));
    expect(() => authorizer.attach(ROLE, odd)).toThrow(/reading policy/);
  });
});

describe('IamAuthorizer', () => {
  it('should authorize a session by the policies of its role, whatever the role path', () => {
    const authorizer = new IamAuthorizer();
    authorizer.attach(`arn:aws:iam::${ACCOUNT}:role/service-role/reconciler`, policy(allow('ec2:DescribeInstances')));
    expect(authorizer.authorize(call('ec2:DescribeInstances')).allowed).toBe(true);
    expect(authorizer.decisions).toHaveLength(1);
  });

  it('should deny everything to a principal with no known role', () => {
    const authorizer = new IamAuthorizer();
    authorizer.attach(ROLE, policy(allow('*')));
    const stranger = { ...call('ec2:DescribeInstances'), principal: `arn:aws:sts::${ACCOUNT}:assumed-role/other/s` };
    expect(authorizer.authorize(stranger)).toMatchObject({ allowed: false, kind: 'implicit-deny' });
    expect(roleKey(`arn:aws:iam::${ACCOUNT}:user/alice`)).toBeUndefined();
  });

  it('should give conditions the caller as aws:PrincipalArn and aws:PrincipalAccount', () => {
    const authorizer = new IamAuthorizer();
    authorizer.attach(
      ROLE,
      policy(
        allow('ec2:DescribeInstances', '*', {
          Condition: { ArnEquals: { 'aws:PrincipalArn': ROLE }, StringEquals: { 'aws:PrincipalAccount': ACCOUNT } },
        }),
      ),
    );
    expect(authorizer.authorize(call('ec2:DescribeInstances')).allowed).toBe(true);
  });

  it('should let replace() take a permission away', () => {
    const authorizer = new IamAuthorizer();
    authorizer.attach(ROLE, policy(allow('ec2:DescribeInstances')));
    authorizer.replace(ROLE, []);
    expect(authorizer.authorize(call('ec2:DescribeInstances')).allowed).toBe(false);
  });
});

describe('access denied answers', () => {
  const denied = (action: string, resources?: string[], policies: NamedPolicy[] = []) => {
    const request = call(action, resources);
    const decision = evaluate(policies, request);
    if (decision.allowed) throw new Error('expected a denial');
    return { request, decision };
  };

  it('should answer EC2 reads with UnauthorizedOperation 403 and IAM sentence, without an encoded message', () => {
    const { request, decision } = denied('ec2:DescribeInstances');
    const error = accessDeniedError('ec2', 'DescribeInstances', request, decision);
    expect({ code: error.code, status: error.status }).toEqual({ code: 'UnauthorizedOperation', status: 403 });
    expect(error.message).toBe(
      `You are not authorized to perform this operation. User: ${SESSION} is not authorized to perform: ec2:DescribeInstances because no identity-based policy allows the ec2:DescribeInstances action`,
    );
  });

  it('should add the encoded authorization failure message to EC2 mutations, naming the resource', () => {
    const instance = `arn:aws:ec2:us-east-1:${ACCOUNT}:instance/i-1`;
    const { request, decision } = denied('ec2:CreateTags', [instance], [policy(deny('ec2:CreateTags'))]);
    const error = accessDeniedError('ec2', 'CreateTags', request, decision);
    expect(error.message).toMatch(
      new RegExp(
        `^You are not authorized to perform this operation\\. User: .* on resource: ${instance} with an explicit deny in an identity-based policy\\. Encoded authorization failure message: [\\w-]+$`,
      ),
    );
  });

  it('should answer the query services with AccessDenied 403, JSON ones with AccessDeniedException 400 and REST ones with 403', () => {
    const { request, decision } = denied('autoscaling:DescribeLifecycleHooks');
    const answers = (['autoscaling', 'sts', 'events', 'states', 'eks', 'lambda'] as const).map((service) => {
      const error = accessDeniedError(service, 'Op', request, decision);
      return `${service} ${error.code} ${error.status}`;
    });
    expect(answers).toEqual([
      'autoscaling AccessDenied 403',
      'sts AccessDenied 403',
      'events AccessDeniedException 400',
      'states AccessDeniedException 400',
      'eks AccessDeniedException 403',
      'lambda AccessDeniedException 403',
    ]);
    expect(deniedSentence(request, decision)).toBe(
      `User: ${SESSION} is not authorized to perform: autoscaling:DescribeLifecycleHooks because no identity-based policy allows the autoscaling:DescribeLifecycleHooks action`,
    );
  });
});
