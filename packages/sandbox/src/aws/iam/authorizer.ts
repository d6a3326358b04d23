// The roles (and IAM users) of a deployed world and their identity-based policies, so a call can be
// authorized by whoever makes it: a role ARN, the session ARN its temporary credentials report, or
// a user ARN (the sandbox's operator signs as an IAM user).
import { evaluate, checkPolicy, type AuthorizationRequest, type IamDecision } from './evaluate.js';
import type { NamedPolicy } from './policy.js';

const ROLE_ARN = /^arn:(aws[\w-]*):iam::(\d{12}):role\/(?:[^/]+\/)*([^/]+)$/;
const SESSION_ARN = /^arn:(aws[\w-]*):sts::(\d{12}):assumed-role\/([^/]+)\/[^/]+$/;
const USER_ARN = /^arn:(aws[\w-]*):iam::(\d{12}):user\/(?:[^/]+\/)*([^/]+)$/;

/**
 * `partition/account/name` of the role behind a principal: a role ARN (any path) or an assumed-role
 * session ARN, which keeps the role's name but not its path. Undefined for anything else.
 */
export function roleKey(principal: string): string | undefined {
  const match = ROLE_ARN.exec(principal) ?? SESSION_ARN.exec(principal);
  if (!match) return undefined;
  const [, partition, account, name] = match;
  return `${partition}/${account}/${name}`;
}

/**
 * The key policies are kept under for a principal: its role's (`roleKey`, sessions included) or,
 * for an IAM user, `partition/account/user/name`, which no role key can equal. Undefined for
 * anything else (a federated user, the root user, an unknown shape).
 */
export function principalKey(principal: string): string | undefined {
  const role = roleKey(principal);
  if (role !== undefined) return role;
  const user = USER_ARN.exec(principal);
  if (!user) return undefined;
  const [, partition, account, name] = user;
  return `${partition}/${account}/user/${name}`;
}

export interface AuthorizedDecision {
  readonly request: AuthorizationRequest;
  readonly decision: IamDecision;
}

/**
 * Roles, users and their policies. `authorize` evaluates a request under the caller's role (or user);
 * a caller with no known policies has no identity-based policy, so everything (but
 * GetCallerIdentity) is denied.
 */
export class IamAuthorizer {
  private readonly roles = new Map<string, NamedPolicy[]>();
  /** The ARN each key was attached under (a role's path included), for the IAM API. */
  private readonly arns = new Map<string, string>();
  /** Every decision, in order, for tests and for a scenario's `expect.denied`; the oldest go first past the capacity. */
  readonly decisions: AuthorizedDecision[] = [];

  /** @param decisionCapacity decisions kept (every call of a long sandbox run is one or more). @default 100000 */
  constructor(private readonly decisionCapacity = 100_000) {}

  /** Attaches policies to a role or an IAM user (by its ARN); validates their condition operators now. */
  attach(principalArn: string, ...policies: readonly NamedPolicy[]): void {
    const key = principalKey(principalArn);
    if (key === undefined) throw new Error(`attaching policies: ${principalArn} is not a role or user ARN`);
    policies.forEach(checkPolicy);
    this.roles.set(key, [...(this.roles.get(key) ?? []), ...policies]);
    this.arns.set(key, principalArn);
  }

  /** The ARN of a role known by name (any path), as the IAM API finds roles by name. */
  roleArn(roleName: string): string | undefined {
    return [...this.arns.values()].find((arn) => ROLE_ARN.exec(arn)?.[3] === roleName);
  }

  /** Adds a policy to a role or user, or replaces the one of that name (PutRolePolicy). */
  putPolicy(principalArn: string, policy: NamedPolicy): void {
    const key = principalKey(principalArn);
    if (key === undefined) throw new Error(`putting a policy: ${principalArn} is not a role or user ARN`);
    checkPolicy(policy);
    const others = (this.roles.get(key) ?? []).filter((p) => p.name !== policy.name);
    this.roles.set(key, [...others, policy]);
    this.arns.set(key, this.arns.get(key) ?? principalArn);
  }

  /** Removes a role's or user's policy by name (DeleteRolePolicy); whether it had one. */
  deletePolicy(principalArn: string, policyName: string): boolean {
    const key = principalKey(principalArn);
    const policies = key === undefined ? undefined : this.roles.get(key);
    if (key === undefined || !policies?.some((p) => p.name === policyName)) return false;
    this.roles.set(
      key,
      policies.filter((p) => p.name !== policyName),
    );
    return true;
  }

  /** Replaces every policy of a role or user (a test removing one permission, a redeploy). */
  replace(principalArn: string, policies: readonly NamedPolicy[]): void {
    const key = principalKey(principalArn);
    if (key === undefined) throw new Error(`replacing policies: ${principalArn} is not a role or user ARN`);
    policies.forEach(checkPolicy);
    this.roles.set(key, [...policies]);
  }

  policiesOf(principal: string): readonly NamedPolicy[] {
    const key = principalKey(principal);
    return key === undefined ? [] : (this.roles.get(key) ?? []);
  }

  /**
   * The decision for a request. Adds the global keys IAM always knows about the caller
   * (`aws:PrincipalArn`: the role ARN for a session, `aws:PrincipalAccount`) unless the request sets them.
   */
  authorize(request: AuthorizationRequest): IamDecision {
    const decision = this.decide(request);
    this.decisions.push({ request, decision });
    if (this.decisions.length > this.decisionCapacity)
      this.decisions.splice(0, this.decisions.length - this.decisionCapacity);
    return decision;
  }

  /** The decision IAM would make, without it being made: a policy simulation (SimulatePrincipalPolicy). */
  simulate(request: AuthorizationRequest): IamDecision {
    return this.decide(request);
  }

  private decide(request: AuthorizationRequest): IamDecision {
    const session = SESSION_ARN.exec(request.principal);
    // A session's aws:PrincipalArn is its role's ARN (without the role's path, which the session ARN does not carry).
    const principalArn = session
      ? `arn:${session[1] ?? 'aws'}:iam::${session[2] ?? ''}:role/${session[3] ?? ''}`
      : request.principal;
    const account = (session ?? ROLE_ARN.exec(request.principal) ?? USER_ARN.exec(request.principal))?.[2];
    const context = { 'aws:PrincipalArn': principalArn, 'aws:PrincipalAccount': account, ...request.context };
    return evaluate(this.policiesOf(request.principal), { ...request, context });
  }
}
