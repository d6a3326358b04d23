// Identity-based policy evaluation (IAM User Guide, "Policy evaluation logic", within one account
// and with identity-based policies only): an explicit Deny in any statement wins; otherwise any
// Allow; otherwise the request is implicitly denied. A statement applies when its action, its
// resource and its whole Condition block match the request.
import { checkOperators, failedCondition, normaliseContext, type RequestContextKeys } from './conditions.js';
import { actionMatches, arnMatches } from './match.js';
import type { NamedPolicy, Statement } from './policy.js';

/** One call as IAM sees it. */
export interface AuthorizationRequest {
  /** Who calls: a role ARN or an assumed-role session ARN (`arn:aws:sts::<account>:assumed-role/<role>/<session>`). */
  readonly principal: string;
  /** `service:Operation`, e.g. `ec2:DescribeInstances`. */
  readonly action: string;
  /**
   * The ARNs the call acts on, each of which must be allowed; `*` (the default) for actions that
   * support no resource-level permissions (the Service Authorization Reference lists which).
   */
  readonly resources?: readonly string[];
  /** Condition keys (`aws:ResourceTag/<k>`, `aws:TagKeys`, `aws:SourceArn`, …); names are case-insensitive. */
  readonly context?: RequestContextKeys;
}

/** Where a deciding statement lives, for messages and tests. */
export interface StatementRef {
  readonly policy: string;
  /** Position in the policy's Statement list. */
  readonly index: number;
  readonly sid?: string;
}

export type IamDecision =
  | { readonly allowed: true; readonly kind: 'allow'; readonly statement?: StatementRef }
  | {
      readonly allowed: false;
      readonly kind: 'explicit-deny' | 'implicit-deny';
      /** The Deny statement that matched (explicit deny only). */
      readonly statement?: StatementRef;
      /** The resource the decision was about: the first one not allowed. */
      readonly resource: string;
    };

/**
 * Actions IAM never denies: GetCallerIdentity needs no permission and "works even when an
 * administrator explicitly denies it" (STS API reference).
 */
const ALWAYS_ALLOWED = new Set(['sts:getcalleridentity']);

function statementMatches(statement: Statement, action: string, resource: string): boolean {
  const actionHit = statement.Action
    ? statement.Action.some((pattern) => actionMatches(pattern, action))
    : !(statement.NotAction ?? []).some((pattern) => actionMatches(pattern, action));
  return actionHit && resourceMatches(statement, resource);
}

function resourceMatches(statement: Statement, resource: string): boolean {
  return statement.Resource
    ? statement.Resource.some((pattern) => arnMatches(pattern, resource))
    : !(statement.NotResource ?? []).some((pattern) => arnMatches(pattern, resource));
}

interface ResourceDecision {
  readonly kind: IamDecision['kind'];
  readonly statement?: StatementRef;
}

function decideOne(
  policies: readonly NamedPolicy[],
  action: string,
  resource: string,
  context: ReturnType<typeof normaliseContext>,
): ResourceDecision {
  let allow: StatementRef | undefined;
  for (const policy of policies) {
    for (const [index, statement] of policy.document.Statement.entries()) {
      if (!statementMatches(statement, action, resource)) continue;
      if (failedCondition(statement.Condition, context) !== undefined) continue;
      const ref: StatementRef = { policy: policy.name, index, sid: statement.Sid };
      // A Deny ends the evaluation: nothing can override it.
      if (statement.Effect === 'Deny') return { kind: 'explicit-deny', statement: ref };
      allow ??= ref;
    }
  }
  return allow ? { kind: 'allow', statement: allow } : { kind: 'implicit-deny' };
}

/**
 * The decision for one request under a principal's identity-based policies. Every resource must be
 * allowed; the first one that is not decides (an explicit deny on any resource wins over an
 * implicit one on an earlier resource).
 */
export function evaluate(policies: readonly NamedPolicy[], request: AuthorizationRequest): IamDecision {
  if (ALWAYS_ALLOWED.has(request.action.toLowerCase())) return { allowed: true, kind: 'allow' };
  const context = normaliseContext(request.context);
  const resources = request.resources && request.resources.length > 0 ? request.resources : ['*'];
  let firstAllow: StatementRef | undefined;
  let implicit: string | undefined;
  for (const resource of resources) {
    const decision = decideOne(policies, request.action, resource, context);
    if (decision.kind === 'explicit-deny')
      return { allowed: false, kind: 'explicit-deny', statement: decision.statement, resource };
    if (decision.kind === 'implicit-deny') implicit ??= resource;
    else firstAllow ??= decision.statement;
  }
  if (implicit !== undefined) return { allowed: false, kind: 'implicit-deny', resource: implicit };
  return { allowed: true, kind: 'allow', statement: firstAllow };
}

/** Refuses a policy whose conditions use an operator the evaluator does not know (better at load than at the first call). */
export function checkPolicy(policy: NamedPolicy): void {
  for (const [index, statement] of policy.document.Statement.entries()) {
    try {
      checkOperators(statement.Condition);
    } catch (error) {
      throw new Error(`reading policy ${policy.name}, statement ${statement.Sid ?? index}`, { cause: error });
    }
  }
}
