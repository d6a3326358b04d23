// Identity-based policy documents as CloudFormation and CDK synthesize them (AWS::IAM::Policy and
// a role's inline Policies), read with zod at the edge so the evaluator works on one normal form.
import * as z from 'zod';

/** A policy element that IAM accepts as one string or a list of strings. */
const OneOrMany = z
  .union([z.string(), z.array(z.string())])
  .transform((value) => (typeof value === 'string' ? [value] : value));

/**
 * A condition value as written in a policy: strings, and the booleans and numbers IAM also
 * accepts (`"Null": {"k": false}`, `"NumericLessThan": {"k": 3}`), always compared as text.
 */
const ConditionValue = z.union([z.string(), z.boolean(), z.number()]).transform(String);
const ConditionValues = z
  .union([ConditionValue, z.array(ConditionValue)])
  .transform((value) => (Array.isArray(value) ? value : [value]));

/** `{ "<operator>": { "<key>": value | [values] } }`. */
const ConditionBlock = z.record(z.string(), z.record(z.string(), ConditionValues));

const StatementSchema = z
  .object({
    Sid: z.string().optional(),
    Effect: z.enum(['Allow', 'Deny']),
    Action: OneOrMany.optional(),
    NotAction: OneOrMany.optional(),
    Resource: OneOrMany.optional(),
    NotResource: OneOrMany.optional(),
    Condition: ConditionBlock.optional(),
  })
  // Identity-based policies name no Principal; one that does is a resource or trust policy, which this evaluator does not read.
  .strict()
  .superRefine((statement, ctx) => {
    if ((statement.Action === undefined) === (statement.NotAction === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'a statement needs exactly one of Action and NotAction' });
    }
    if ((statement.Resource === undefined) === (statement.NotResource === undefined)) {
      ctx.addIssue({
        code: 'custom',
        message: 'an identity-based statement needs exactly one of Resource and NotResource',
      });
    }
  });

export const PolicyDocumentSchema = z
  .object({
    Version: z.enum(['2012-10-17', '2008-10-17']).optional(),
    Id: z.string().optional(),
    // IAM accepts a lone statement object as well as a list.
    Statement: z
      .union([StatementSchema, z.array(StatementSchema)])
      .transform((value) => (Array.isArray(value) ? value : [value])),
  })
  .strict();

export type PolicyDocumentInput = z.input<typeof PolicyDocumentSchema>;
export type PolicyDocument = z.output<typeof PolicyDocumentSchema>;
export type Statement = PolicyDocument['Statement'][number];

/** A document with the name it goes by in messages and decisions (the policy's name or logical id). */
export interface NamedPolicy {
  readonly name: string;
  readonly document: PolicyDocument;
}

/** Validates a policy document; the error names the policy and each problem's path. */
export function parsePolicy(name: string, document: unknown): NamedPolicy {
  const parsed = PolicyDocumentSchema.safeParse(document);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(document)'}: ${issue.message}`);
    throw new Error(`reading policy ${name}: ${problems.join('; ')}`);
  }
  return { name, document: parsed.data };
}
