// Acknowledging cdk-nag findings precisely. A finding on a wildcard resource names it as cdk-nag
// flattens it (`Resource::arn:<AWS::Partition>:ec2:us-east-1:<AWS::AccountId>:instance/*`), which
// depends on the stack's environment; building the id from the same ARN keeps the acknowledgement
// exact in an environment-agnostic stack and in a pinned one alike.
import { CfnElement, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A resolved CloudFormation value as one string, the way cdk-nag names resources in findings
 * (its utils/flatten-cfn-reference): Ref → `<Name>`, GetAtt → `<Logical.Attr>`, Join
 * concatenated, ImportValue and Sub unwrapped, and `${…}` written `<…>` in strings.
 */
export function flattenReference(value: unknown): string {
  if (typeof value === 'string') return value.replace(/\$\{/g, '<').replace(/}/g, '>');
  if (isRecord(value)) {
    const join = value['Fn::Join'];
    if (Array.isArray(join) && typeof join[0] === 'string' && Array.isArray(join[1])) {
      return join[1].map(flattenReference).join(join[0]);
    }
    if (value['Fn::Sub'] !== undefined) return flattenReference(value['Fn::Sub']);
    const getAtt = value['Fn::GetAtt'];
    if (Array.isArray(getAtt)) return `<${flattenReference(getAtt[0])}.${flattenReference(getAtt[1])}>`;
    if (value['Fn::ImportValue'] !== undefined) return flattenReference(value['Fn::ImportValue']);
    if (value.Ref !== undefined) return `<${flattenReference(value.Ref)}>`;
  }
  return JSON.stringify(value);
}

/** The AwsSolutions-IAM5 finding for a wildcard resource `arn` (a string, tokens allowed). */
export function wildcardResourceFinding(scope: IConstruct, arn: string): string {
  return `AwsSolutions-IAM5[Resource::${flattenReference(Stack.of(scope).resolve(arn))}]`;
}

/** The finding for the `ARN:*` half of CDK's grantInvoke on a function (its versions and aliases). */
export function invokeGrantFinding(fn: IConstruct & { readonly functionArn: string }): string {
  return wildcardResourceFinding(fn, `${fn.functionArn}:*`);
}

/** The logical id of the resource behind an L2 construct (its default child). */
export function logicalIdOf(construct: IConstruct): string {
  const child = construct.node.defaultChild;
  if (!(child instanceof CfnElement)) throw new Error(`${construct.node.path} has no CloudFormation resource`);
  const id: unknown = Stack.of(child).resolve(child.logicalId);
  if (typeof id !== 'string') throw new Error(`${construct.node.path} has no resolvable logical id`);
  return id;
}
