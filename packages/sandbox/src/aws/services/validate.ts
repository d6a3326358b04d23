import * as z from 'zod';
import { AwsError } from '../errors.js';

export type Issue = z.core.$ZodIssue;
/** Turns the problems found in one request's input into the error its service answers with. */
export type InvalidInput = (issues: readonly Issue[]) => AwsError;

/** Validates a decoded request at the edge; handlers only ever see typed, checked input. */
export function parseInput<T>(schema: z.ZodType<T>, input: unknown, invalid: InvalidInput): T {
  // Zod 4 leaves the offending value out of issues unless asked; AWS messages quote it.
  const parsed = schema.safeParse(input, { reportInput: true });
  if (parsed.success) return parsed.data;
  throw invalid(parsed.error.issues);
}

const lowerFirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1);

/**
 * Where an issue is, with 1-based list positions as on the wire: `Filter.1.Value` (EC2 names
 * parameters as sent), or `entries.1.detail` (Smithy messages use lower camel case).
 */
export function issuePath(path: readonly PropertyKey[], style: 'wire' | 'smithy'): string {
  return path
    .map((p) => (typeof p === 'number' ? String(p + 1) : style === 'smithy' ? lowerFirst(String(p)) : String(p)))
    .join('.');
}

function constraint(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'Member must not be null' : `Member must be of type ${issue.expected}`;
    case 'too_big':
      return issue.origin === 'string' || issue.origin === 'array'
        ? `Member must have length less than or equal to ${String(issue.maximum)}`
        : `Member must have value less than or equal to ${String(issue.maximum)}`;
    case 'too_small':
      return issue.origin === 'string' || issue.origin === 'array'
        ? `Member must have length greater than or equal to ${String(issue.minimum)}`
        : `Member must have value greater than or equal to ${String(issue.minimum)}`;
    case 'invalid_value':
      return `Member must satisfy enum value set: [${issue.values.map(String).join(', ')}]`;
    case 'invalid_format':
      return issue.pattern ? `Member must satisfy regular expression pattern: ${issue.pattern}` : issue.message;
    case 'custom':
    case 'invalid_element':
    case 'invalid_key':
    case 'invalid_union':
    case 'not_multiple_of':
    case 'unrecognized_keys':
      return issue.message;
  }
}

function describeValue(input: unknown): string {
  if (input === undefined) return 'null';
  if (typeof input === 'string') return `'${input.slice(0, 200)}'`;
  return JSON.stringify(input)?.slice(0, 200) ?? typeof input;
}

/**
 * The Smithy/Coral validation message AWS services share:
 * `1 validation error detected: Value null at 'lifecycleHookName' failed to satisfy constraint: Member must not be null`.
 */
export function validationMessage(issues: readonly Issue[]): string {
  const parts = issues.map((issue) => {
    return `Value ${describeValue(issue.input)} at '${issuePath(issue.path, 'smithy')}' failed to satisfy constraint: ${constraint(issue)}`;
  });
  const count = issues.length;
  return `${count} validation error${count === 1 ? '' : 's'} detected: ${parts.join('; ')}`;
}

/** A service's validation error factory with its own code (`ValidationError`, `ValidationException`, …). */
export const smithyValidation =
  (code: string): InvalidInput =>
  (issues) =>
    new AwsError(code, validationMessage(issues));

// Query protocols carry every scalar as a string: these decode them and reject what AWS would.
export const queryInt = z
  .string()
  .regex(/^-?\d+$/, { message: 'must be an integer' })
  .transform(Number);
export const queryBool = z.enum(['true', 'false']).transform((v) => v === 'true');
/** An awsquery list: SDK v3 sends an empty list as `Name=` with no members. */
export const queryList = <T extends z.ZodType>(item: T, max?: number) =>
  z.preprocess((v) => (v === '' ? [] : v), max === undefined ? z.array(item) : z.array(item).max(max));
