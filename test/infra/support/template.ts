/** Reading synthesized CloudFormation in tests: flattened intrinsics, policy statements, definitions. */
import type { Template } from 'aws-cdk-lib/assertions';

export type Resource = {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly DeletionPolicy?: string;
};

export interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: Record<string, unknown>;
}

export function resources(template: Template, type: string): [string, Resource][] {
  return Object.entries(template.findResources(type)) as [string, Resource][];
}

/** The Properties of the resource with this logical id. */
export function propertiesOf(template: Template, logicalId: string): Record<string, unknown> {
  const all = (template.toJSON() as { Resources: Record<string, Resource> }).Resources;
  const found = all[logicalId];
  if (!found) throw new Error(`no resource ${logicalId}`);
  return found.Properties ?? {};
}

export function only(template: Template, type: string): [string, Resource] {
  const found = resources(template, type);
  if (found.length !== 1) throw new Error(`expected one ${type}, found ${found.length}`);
  const [first] = found;
  if (!first) throw new Error(`no ${type}`);
  return first;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A CloudFormation value as text: Join concatenated, Ref as `<Name>`, GetAtt as `<Logical.Attr>`. */
export function flatten(value: unknown): string {
  if (typeof value === 'string') return value;
  if (isRecord(value)) {
    const join = value['Fn::Join'];
    if (Array.isArray(join) && typeof join[0] === 'string' && Array.isArray(join[1]))
      return join[1].map(flatten).join(join[0]);
    const getAtt = value['Fn::GetAtt'];
    if (Array.isArray(getAtt)) return `<${getAtt.map(flatten).join('.')}>`;
    if (value.Ref !== undefined) return `<${flatten(value.Ref)}>`;
  }
  return JSON.stringify(value);
}

/** A JSON document CloudFormation assembles with Fn::Join (state machine definition, dashboard body), tokens as `<Logical.Attr>`. */
export function joinedJson(value: unknown): unknown {
  return JSON.parse(flatten(value));
}

export function actionsOf(statement: Statement): string[] {
  return Array.isArray(statement.Action) ? statement.Action : [statement.Action];
}

export function resourcesOfStatement(statement: Statement): string[] {
  const list: unknown[] = Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource];
  return list.map(flatten);
}

/** Every statement of every identity policy (AWS::IAM::Policy, AWS::IAM::ManagedPolicy and inline role policies). */
export function allStatements(template: Template): { readonly policy: string; readonly statement: Statement }[] {
  const out: { policy: string; statement: Statement }[] = [];
  for (const [id, policy] of [
    ...resources(template, 'AWS::IAM::Policy'),
    ...resources(template, 'AWS::IAM::ManagedPolicy'),
  ]) {
    const document = policy.Properties?.PolicyDocument as { Statement: Statement[] };
    for (const statement of document.Statement) out.push({ policy: id, statement });
  }
  for (const [id, role] of resources(template, 'AWS::IAM::Role')) {
    const inline = (role.Properties?.Policies ?? []) as { PolicyDocument: { Statement: Statement[] } }[];
    for (const policy of inline)
      for (const statement of policy.PolicyDocument.Statement) out.push({ policy: id, statement });
  }
  return out;
}

/** Statements of the policies attached to the role with logical id `roleId`. */
export function statementsOfRole(template: Template, roleId: string): Statement[] {
  return resources(template, 'AWS::IAM::Policy')
    .filter(([, policy]) => (policy.Properties?.Roles as { Ref: string }[]).some((ref) => ref.Ref === roleId))
    .flatMap(([, policy]) => (policy.Properties?.PolicyDocument as { Statement: Statement[] }).Statement);
}
