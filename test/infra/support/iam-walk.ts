// The IAM walk: every Allow statement of every identity policy in a synthesized template, held to the
// stack's rules — no wildcard (or NotAction) actions, no NotResource, and no mutating action on
// resource `*` where the service supports resource-level permissions. An action on `*` that the
// Service Authorization table does not know is a finding too: it must be looked up, not guessed.
import type { Template } from 'aws-cdk-lib/assertions';
import { isMutating, SERVICE_AUTHORIZATION, type ActionFacts } from './service-authorization.js';
import { allStatements, flatten, type Statement } from './template.js';

export type IamRule = 'wildcard-action' | 'not-action' | 'not-resource' | 'mutating-on-star' | 'unclassified-on-star';

export interface IamFinding {
  /** The policy's logical id (or the role's, for an inline policy). */
  readonly policy: string;
  readonly rule: IamRule;
  /** The action the finding is about (`*`-patterns as written). */
  readonly action: string;
}

/** A statement as written: Action/NotAction and Resource/NotResource, one value or many. */
export type WalkedStatement = Statement & { readonly NotAction?: unknown; readonly NotResource?: unknown };

const listOf = (value: unknown): unknown[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** The findings of one statement, given the Service Authorization facts. */
export function statementFindings(
  policy: string,
  statement: WalkedStatement,
  facts: Readonly<Record<string, ActionFacts>> = SERVICE_AUTHORIZATION,
): IamFinding[] {
  if (statement.Effect !== 'Allow') return [];
  const findings: IamFinding[] = [];
  for (const action of listOf(statement.NotAction).map(String)) findings.push({ policy, rule: 'not-action', action });
  const actions = listOf(statement.Action).map(String);
  for (const action of actions.filter((a) => /[*?]/.test(a)))
    findings.push({ policy, rule: 'wildcard-action', action });
  if (statement.NotResource !== undefined)
    for (const action of actions) findings.push({ policy, rule: 'not-resource', action });
  const onStar = listOf(statement.Resource).map(flatten).includes('*');
  if (!onStar) return findings;
  for (const action of actions.filter((a) => !/[*?]/.test(a))) {
    const known = facts[action];
    if (known === undefined) findings.push({ policy, rule: 'unclassified-on-star', action });
    else if (isMutating(known) && known.resourceLevel) findings.push({ policy, rule: 'mutating-on-star', action });
  }
  return findings;
}

/** Every finding of every Allow statement in the template's IAM policies (AWS::IAM::Policy and inline role policies). */
export function walkIam(template: Template): IamFinding[] {
  return allStatements(template).flatMap(({ policy, statement }) => statementFindings(policy, statement));
}

/** A finding as one line. */
export const describeFinding = (f: IamFinding): string => `${f.policy}: ${f.rule} ${f.action}`;
