// The Condition element, with the semantics of the IAM User Guide ("Condition operators",
// "Set operators for multivalued context keys"):
// - every operator of a block must hold, and every key under an operator (AND);
// - the values listed for one key are alternatives (OR), and for a negated operator none may
//   match (NOR: `StringNotEquals: {k: [a, b]}` holds when k is neither a nor b);
// - a key missing from the request context makes an operator false, a negated one true, except
//   `…IfExists` (true when missing) and `Null` (which tests presence itself);
// - `ForAllValues:` holds when every request value matches (vacuously true for a missing or
//   empty set); `ForAnyValue:` when at least one does (false for a missing or empty set).
import { arnMatches, globMatches } from './match.js';

/** A request context value: single-valued keys hold a string, multivalued ones (aws:TagKeys) a list. */
export type ContextValue = string | boolean | number | readonly string[];
/** Keys as IAM names them; lookups ignore case (`aws:ResourceTag/…` is `AWS:resourcetag/…`), values keep theirs. */
export type RequestContextKeys = Readonly<Record<string, ContextValue | undefined>>;

type Compare = (requestValue: string, policyValue: string) => boolean;

interface OperatorSpec {
  readonly compare: Compare;
  /** Negated operators hold when the request value matches none of the policy's values. */
  readonly negated: boolean;
}

const number = (text: string): number => (text.trim() === '' ? Number.NaN : Number(text));
/** Dates as IAM reads them: ISO 8601, or epoch seconds. */
const date = (text: string): number => (/^\d+$/.test(text) ? Number(text) * 1000 : Date.parse(text));
const both = (parse: (text: string) => number, test: (a: number, b: number) => boolean): Compare => {
  return (requestValue, policyValue) => {
    const a = parse(requestValue);
    const b = parse(policyValue);
    return !Number.isNaN(a) && !Number.isNaN(b) && test(a, b);
  };
};

const stringEquals: Compare = (a, b) => a === b;
const stringEqualsIgnoreCase: Compare = (a, b) => a.toLowerCase() === b.toLowerCase();
const stringLike: Compare = (a, b) => globMatches(b, a);
const arnLike: Compare = (a, b) => arnMatches(b, a);
const boolEquals: Compare = (a, b) => a.toLowerCase() === b.toLowerCase();

const OPERATORS: Readonly<Record<string, OperatorSpec>> = {
  StringEquals: { compare: stringEquals, negated: false },
  StringNotEquals: { compare: stringEquals, negated: true },
  StringEqualsIgnoreCase: { compare: stringEqualsIgnoreCase, negated: false },
  StringNotEqualsIgnoreCase: { compare: stringEqualsIgnoreCase, negated: true },
  StringLike: { compare: stringLike, negated: false },
  StringNotLike: { compare: stringLike, negated: true },
  // ArnEquals and ArnLike are the same operator in IAM: both take wildcards in every segment.
  ArnEquals: { compare: arnLike, negated: false },
  ArnLike: { compare: arnLike, negated: false },
  ArnNotEquals: { compare: arnLike, negated: true },
  ArnNotLike: { compare: arnLike, negated: true },
  NumericEquals: { compare: both(number, (a, b) => a === b), negated: false },
  NumericNotEquals: { compare: both(number, (a, b) => a === b), negated: true },
  NumericLessThan: { compare: both(number, (a, b) => a < b), negated: false },
  NumericLessThanEquals: { compare: both(number, (a, b) => a <= b), negated: false },
  NumericGreaterThan: { compare: both(number, (a, b) => a > b), negated: false },
  NumericGreaterThanEquals: { compare: both(number, (a, b) => a >= b), negated: false },
  DateEquals: { compare: both(date, (a, b) => a === b), negated: false },
  DateNotEquals: { compare: both(date, (a, b) => a === b), negated: true },
  DateLessThan: { compare: both(date, (a, b) => a < b), negated: false },
  DateLessThanEquals: { compare: both(date, (a, b) => a <= b), negated: false },
  DateGreaterThan: { compare: both(date, (a, b) => a > b), negated: false },
  DateGreaterThanEquals: { compare: both(date, (a, b) => a >= b), negated: false },
  Bool: { compare: boolEquals, negated: false },
};

/** Operator names the evaluator knows, for validation messages. */
export const CONDITION_OPERATORS: readonly string[] = [...Object.keys(OPERATORS), 'Null'];

type SetQualifier = 'ForAllValues' | 'ForAnyValue' | undefined;

interface ParsedOperator {
  readonly qualifier: SetQualifier;
  readonly base: string;
  readonly ifExists: boolean;
}

function parseOperator(name: string): ParsedOperator {
  const [first, second] = name.split(':');
  const qualified = second !== undefined;
  const qualifier = qualified ? first : undefined;
  if (qualifier !== undefined && qualifier !== 'ForAllValues' && qualifier !== 'ForAnyValue') {
    throw new Error(`unknown condition set operator ${qualifier} in ${name}`);
  }
  const rest = (qualified ? second : first) ?? '';
  const ifExists = rest.endsWith('IfExists');
  const base = ifExists ? rest.slice(0, -'IfExists'.length) : rest;
  if (base !== 'Null' && !Object.hasOwn(OPERATORS, base)) throw new Error(`unknown condition operator ${name}`);
  if (base === 'Null' && (ifExists || qualifier))
    throw new Error(`Null takes neither IfExists nor a set operator: ${name}`);
  return { qualifier, base, ifExists };
}

/** The request's values for a key as strings: `undefined` when the key is absent. */
function lookup(context: ReadonlyMap<string, ContextValue>, key: string): readonly string[] | undefined {
  const value = context.get(key.toLowerCase());
  if (value === undefined) return undefined;
  return typeof value === 'object' ? value : [String(value)];
}

/** One request value against the policy's values for the key: OR, or NOR for a negated operator. */
function valueHolds(spec: OperatorSpec, requestValue: string, policyValues: readonly string[]): boolean {
  const matchesAny = policyValues.some((policyValue) => spec.compare(requestValue, policyValue));
  return spec.negated ? !matchesAny : matchesAny;
}

function keyHolds(
  operator: ParsedOperator,
  requestValues: readonly string[] | undefined,
  policyValues: readonly string[],
): boolean {
  if (operator.base === 'Null') {
    // `"Null": {"k": "true"}` holds when k is absent; "false" when it is present. An empty set is absent.
    const absent = requestValues === undefined || requestValues.length === 0;
    return policyValues.some((value) => (value.toLowerCase() === 'true') === absent);
  }
  const spec = OPERATORS[operator.base];
  if (!spec) throw new Error(`unknown condition operator ${operator.base}`);
  const missing = requestValues === undefined || requestValues.length === 0;
  if (operator.qualifier === 'ForAllValues') {
    return missing || requestValues.every((value) => valueHolds(spec, value, policyValues));
  }
  if (operator.qualifier === 'ForAnyValue') {
    return !missing && requestValues.some((value) => valueHolds(spec, value, policyValues));
  }
  if (missing) return operator.ifExists || spec.negated;
  // A multivalued key without a set operator (IAM Access Analyzer flags these): any value decides, as ForAnyValue.
  return requestValues.some((value) => valueHolds(spec, value, policyValues));
}

/** The first operator and key that failed, for a decision's explanation. */
export interface ConditionFailure {
  readonly operator: string;
  readonly key: string;
}

/** Evaluates a statement's Condition block; `undefined` when it holds, else what failed first. */
export function failedCondition(
  block: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> | undefined,
  context: ReadonlyMap<string, ContextValue>,
): ConditionFailure | undefined {
  if (!block) return undefined;
  for (const [operatorName, keys] of Object.entries(block)) {
    const operator = parseOperator(operatorName);
    for (const [key, policyValues] of Object.entries(keys)) {
      if (!keyHolds(operator, lookup(context, key), policyValues)) return { operator: operatorName, key };
    }
  }
  return undefined;
}

/** A context with case-insensitive keys; keys whose value is undefined are absent. */
export function normaliseContext(keys: RequestContextKeys | undefined): ReadonlyMap<string, ContextValue> {
  const map = new Map<string, ContextValue>();
  for (const [key, value] of Object.entries(keys ?? {})) {
    if (value !== undefined) map.set(key.toLowerCase(), value);
  }
  return map;
}

/** Throws on an operator the evaluator does not know, so a policy is refused when read, not when a call happens to reach it. */
export function checkOperators(block: Readonly<Record<string, unknown>> | undefined): void {
  for (const operatorName of Object.keys(block ?? {})) parseOperator(operatorName);
}
