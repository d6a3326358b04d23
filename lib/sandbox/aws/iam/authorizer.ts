// The roles of a deployed world and their identity-based policies, so a call can be authorized by
// whoever makes it: a role ARN, or the session ARN its temporary credentials report.
import { evaluate, checkPolicy, type AuthorizationRequest, type Decision } from './evaluate.js';
import type { NamedPolicy } from './policy.js';

const ROLE_ARN = /^arn:(aws[\w-]*):iam::(\d{12}):role\/(?:[^/]+\/)*([^/]+)$/;
const SESSION_ARN = /^arn:(aws[\w-]*):sts::(\d{12}):assumed-role\/([^/]+)\/[^/]+$/;

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

export interface AuthorizedDecision {
  readonly request: AuthorizationRequest;
  readonly decision: Decision;
}

/**
 * Roles and their policies. `authorize` evaluates a request under the caller's role; a caller with
 * no known role has no identity-based policy, so everything (but GetCallerIdentity) is denied.
 */
export class IamAuthorizer {
  private readonly roles = new Map<string, NamedPolicy[]>();
  /** Every decision, in order, for tests and for a scenario's `expect.denied`. */
  readonly decisions: AuthorizedDecision[] = [];

  /** Attaches policies to a role (by its ARN); validates their condition operators now. */
  attach(roleArn: string, ...policies: readonly NamedPolicy[]): void {
    const key = roleKey(roleArn);
    if (key === undefined) throw new Error(`attaching policies: ${roleArn} is not a role ARN`);
    policies.forEach(checkPolicy);
    this.roles.set(key, [...(this.roles.get(key) ?? []), ...policies]);
  }

  /** Replaces every policy of a role (a test removing one permission, a redeploy). */
  replace(roleArn: string, policies: readonly NamedPolicy[]): void {
    const key = roleKey(roleArn);
    if (key === undefined) throw new Error(`replacing policies: ${roleArn} is not a role ARN`);
    policies.forEach(checkPolicy);
    this.roles.set(key, [...policies]);
  }

  policiesOf(principal: string): readonly NamedPolicy[] {
    const key = roleKey(principal);
    return key === undefined ? [] : (this.roles.get(key) ?? []);
  }

  /**
   * The decision for a request. Adds the global keys IAM always knows about the caller
   * (`aws:PrincipalArn`: the role ARN for a session, `aws:PrincipalAccount`) unless the request sets them.
   */
  authorize(request: AuthorizationRequest): Decision {
    const session = SESSION_ARN.exec(request.principal);
    // A session's aws:PrincipalArn is its role's ARN (without the role's path, which the session ARN does not carry).
    const principalArn = session ? `arn:${session[1] ?? 'aws'}:iam::${session[2] ?? ''}:role/${session[3] ?? ''}` : request.principal;
    const account = (session ?? ROLE_ARN.exec(request.principal))?.[2];
    const context = { 'aws:PrincipalArn': principalArn, 'aws:PrincipalAccount': account, ...request.context };
    const decision = evaluate(this.policiesOf(request.principal), { ...request, context });
    this.decisions.push({ request, decision });
    return decision;
  }
}
