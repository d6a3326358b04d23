// IAM (awsquery, global): the role policies of the deployed world, read, changed and simulated.
// The policies are the authorizer's (src/aws/iam): what PutRolePolicy or DeleteRolePolicy changes
// governs the role's next call at once, as on AWS (give or take IAM's propagation delay), and
// SimulatePrincipalPolicy evaluates exactly what a call would be evaluated under.
import * as z from 'zod';
import { AwsError } from '../errors.js';
import type { IamAuthorizer } from '../iam/authorizer.js';
import type { ContextValue } from '../iam/conditions.js';
import type { IamDecision } from '../iam/evaluate.js';
import { parsePolicy } from '../iam/policy.js';
import type { AwsQueryService, QueryResultValue, RequestContext } from './types.js';
import { parseInput, queryList, smithyValidation } from './validate.js';

const invalid = smithyValidation('ValidationError');

function authorizerOf(ctx: RequestContext): IamAuthorizer {
  // Without an authorizer the emulator knows no roles: every lookup is for a role that does not exist.
  const iam = ctx.iam;
  if (!iam) throw new AwsError('ServiceFailure', 'this emulator was started without IAM (no roles, no policies)', 500);
  return iam;
}

const ROLE_NAME = z.string().regex(/^[\w+=,.@-]{1,64}$/);
const POLICY_NAME = z.string().regex(/^[\w+=,.@-]{1,128}$/);

function roleArnOf(iam: IamAuthorizer, roleName: string): string {
  const arn = iam.roleArn(roleName);
  if (arn === undefined) throw new AwsError('NoSuchEntity', `The role with name ${roleName} cannot be found.`, 404);
  return arn;
}

const noSuchPolicy = (roleName: string, policyName: string): AwsError =>
  new AwsError('NoSuchEntity', `The role policy with name ${policyName} cannot be found.`, 404);

function listRolePolicies(params: unknown, ctx: RequestContext): Record<string, QueryResultValue> {
  const input = parseInput(z.object({ RoleName: ROLE_NAME }), params, invalid);
  const iam = authorizerOf(ctx);
  const names = iam.policiesOf(roleArnOf(iam, input.RoleName)).map((p) => p.name);
  return { PolicyNames: [...new Set(names)].sort(), IsTruncated: false };
}

function getRolePolicy(params: unknown, ctx: RequestContext): Record<string, QueryResultValue> {
  const input = parseInput(z.object({ RoleName: ROLE_NAME, PolicyName: POLICY_NAME }), params, invalid);
  const iam = authorizerOf(ctx);
  const policy = iam.policiesOf(roleArnOf(iam, input.RoleName)).find((p) => p.name === input.PolicyName);
  if (!policy) throw noSuchPolicy(input.RoleName, input.PolicyName);
  // IAM hands policy documents out URL-encoded (RFC 3986); the CLI decodes them, the SDKs leave that to you.
  return {
    RoleName: input.RoleName,
    PolicyName: policy.name,
    PolicyDocument: encodeURIComponent(JSON.stringify(policy.document)),
  };
}

function putRolePolicy(params: unknown, ctx: RequestContext): null {
  const input = parseInput(
    z.object({ RoleName: ROLE_NAME, PolicyName: POLICY_NAME, PolicyDocument: z.string().min(1).max(131_072) }),
    params,
    invalid,
  );
  const iam = authorizerOf(ctx);
  const arn = roleArnOf(iam, input.RoleName);
  let document: unknown;
  try {
    document = JSON.parse(input.PolicyDocument);
  } catch {
    throw new AwsError('MalformedPolicyDocument', 'This policy contains invalid Json', 400);
  }
  let policy;
  try {
    policy = parsePolicy(input.PolicyName, document);
    iam.putPolicy(arn, policy);
  } catch (error) {
    throw new AwsError('MalformedPolicyDocument', error instanceof Error ? error.message : String(error), 400);
  }
  return null;
}

function deleteRolePolicy(params: unknown, ctx: RequestContext): null {
  const input = parseInput(z.object({ RoleName: ROLE_NAME, PolicyName: POLICY_NAME }), params, invalid);
  const iam = authorizerOf(ctx);
  if (!iam.deletePolicy(roleArnOf(iam, input.RoleName), input.PolicyName))
    throw noSuchPolicy(input.RoleName, input.PolicyName);
  return null;
}

const CONTEXT_TYPES = [
  'string',
  'stringList',
  'numeric',
  'numericList',
  'boolean',
  'booleanList',
  'ip',
  'ipList',
  'binary',
  'binaryList',
  'date',
  'dateList',
] as const;

const SimulateInput = z.object({
  PolicySourceArn: z.string().min(20).max(2048),
  ActionNames: queryList(z.string().min(3).max(128)).pipe(z.array(z.string()).min(1)),
  ResourceArns: queryList(z.string().min(1).max(2048)).optional(),
  ContextEntries: queryList(
    z.object({
      ContextKeyName: z.string().min(5).max(256),
      ContextKeyValues: queryList(z.string()),
      ContextKeyType: z.enum(CONTEXT_TYPES),
    }),
  ).optional(),
  // Set by the SDKs' paginators; one page holds every action here.
  MaxItems: z.string().optional(),
  Marker: z.string().optional(),
});

/** IAM's decision words. */
const DECISION: Readonly<Record<IamDecision['kind'], string>> = {
  allow: 'allowed',
  'explicit-deny': 'explicitDeny',
  'implicit-deny': 'implicitDeny',
};

function matched(decision: IamDecision): QueryResultValue[] {
  return decision.statement ? [{ SourcePolicyId: decision.statement.policy, SourcePolicyType: 'IAM Policy' }] : [];
}

/**
 * SimulatePrincipalPolicy over the principal's identity-based policies, with the context entries
 * given (IAM fills in no resource's tags: the caller says what a condition is to see). One result
 * per action, its decision the most restrictive over the resources, each resource's in
 * ResourceSpecificResults, as IAM answers today.
 */
function simulatePrincipalPolicy(params: unknown, ctx: RequestContext): Record<string, QueryResultValue> {
  const input = parseInput(SimulateInput, params, invalid);
  const iam = authorizerOf(ctx);
  const principal = input.PolicySourceArn;
  if (!/^arn:aws[\w-]*:iam::\d{12}:(role|user|group)\//.test(principal))
    throw new AwsError('InvalidInput', `Invalid ARN: ${principal} is not a user, group or role ARN.`, 400);
  const role = /:role\/(?:[^/]+\/)*([^/]+)$/.exec(principal)?.[1];
  if (role !== undefined && iam.roleArn(role) === undefined)
    throw new AwsError('NoSuchEntity', `Role ${role} not found.`, 404);
  const context: Record<string, ContextValue> = {};
  for (const entry of input.ContextEntries ?? []) {
    const values = entry.ContextKeyValues;
    context[entry.ContextKeyName] = entry.ContextKeyType.endsWith('List') ? values : (values[0] ?? '');
  }
  const resources = input.ResourceArns && input.ResourceArns.length > 0 ? input.ResourceArns : ['*'];
  const results = input.ActionNames.map((action): QueryResultValue => {
    const each = resources.map((resource) => ({
      resource,
      decision: iam.simulate({ principal, action, resources: [resource], context }),
    }));
    const worst =
      each.find((r) => r.decision.kind === 'explicit-deny') ??
      each.find((r) => r.decision.kind === 'implicit-deny') ??
      each[0];
    const decision = worst?.decision ?? iam.simulate({ principal, action, context });
    return {
      EvalActionName: action,
      EvalResourceName: worst?.resource ?? '*',
      EvalDecision: DECISION[decision.kind],
      MatchedStatements: matched(decision),
      MissingContextValues: [],
      ...(input.ResourceArns && input.ResourceArns.length > 0
        ? {
            ResourceSpecificResults: each.map((r) => ({
              EvalResourceName: r.resource,
              EvalResourceDecision: DECISION[r.decision.kind],
              MatchedStatements: matched(r.decision),
              MissingContextValues: [],
            })),
          }
        : {}),
    };
  });
  return { EvaluationResults: results, IsTruncated: false };
}

export const iamService: AwsQueryService = {
  name: 'iam',
  protocol: 'query',
  xmlns: 'https://iam.amazonaws.com/doc/2010-05-08/',
  throttlingError: () => new AwsError('Throttling', 'Rate exceeded'),
  operations: {
    ListRolePolicies: listRolePolicies,
    GetRolePolicy: getRolePolicy,
    PutRolePolicy: putRolePolicy,
    DeleteRolePolicy: deleteRolePolicy,
    SimulatePrincipalPolicy: simulatePrincipalPolicy,
  },
};
