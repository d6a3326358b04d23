/**
 * A small EventBridge event-pattern matcher: the sandbox's event bus routes by it, and tests ask
 * whether a rule's pattern matches a sample event (test/infra).
 * No maintained npm package does this offline (the only candidate found, eb-patterns, is not on
 * the registry), and TestEventPattern needs the AWS API.
 *
 * Semantics, after the EventBridge User Guide ("Event patterns", "Content filtering"):
 * - A pattern is an object; every key must match the event's field at the same path. Keys the
 *   pattern does not name are ignored.
 * - A nested object recurses; a leaf is a non-empty array of matchers, any of which may match.
 * - An event field holding an array matches when any of its elements matches.
 * - A field missing from the event matches only `{ "exists": false }`.
 * - Matchers: literal strings, numbers, booleans and null (exact), `prefix`, `suffix` (each also as
 *   `{ "equals-ignore-case": … }`), `equals-ignore-case`, `wildcard` (`*` only), `exists` (leaves
 *   only), `numeric` (comparison pairs), `anything-but` (a literal, a list, or a prefix / suffix /
 *   equals-ignore-case / wildcard object), and `$or` (a list of alternative patterns).
 * Anything else (`cidr`, misspelled operators, empty lists) throws, so that an unsupported pattern
 * fails a test instead of silently not matching.
 */

export class PatternError extends Error {
  override readonly name = 'PatternError';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Stands for a field the event does not have (distinct from a field holding null). */
const MISSING = Symbol('missing');
/** An event field's value, or MISSING. */
type Field = unknown;

/** Whether `event` matches `pattern`. Throws PatternError for a pattern this matcher does not support. */
export function matchesPattern(pattern: unknown, event: unknown): boolean {
  if (!isObject(pattern)) throw new PatternError(`a pattern must be an object, got ${JSON.stringify(pattern)}`);
  return matchObject(pattern, event, '');
}

function matchObject(pattern: Record<string, unknown>, value: unknown, path: string): boolean {
  return Object.entries(pattern).every(([key, sub]) => {
    const here = path === '' ? key : `${path}.${key}`;
    if (key === '$or') {
      if (!Array.isArray(sub) || sub.length < 2)
        throw new PatternError(`${here}: $or needs a list of at least two patterns`);
      return sub.some((alternative, i) => {
        if (!isObject(alternative)) throw new PatternError(`${here}[${i}]: must be a pattern object`);
        return matchObject(alternative, value, path);
      });
    }
    const field: Field = isObject(value) && Object.hasOwn(value, key) ? value[key] : MISSING;
    if (isObject(sub)) {
      // Nested pattern: the event must have an object there (or an array holding one).
      if (field === MISSING) return false;
      const candidates = Array.isArray(field) ? field : [field];
      return candidates.some((candidate) => isObject(candidate) && matchObject(sub, candidate, here));
    }
    if (!Array.isArray(sub) || sub.length === 0)
      throw new PatternError(`${here}: a leaf must be a non-empty array of matchers`);
    return sub.some((matcher) => matchLeaf(matcher, field, here));
  });
}

function matchLeaf(matcher: unknown, field: Field, path: string): boolean {
  if (!isObject(matcher)) {
    if (field === MISSING || isObject(field)) return false;
    return valuesOf(field).some((v) => v === matcher);
  }
  const entries = Object.entries(matcher);
  const [entry] = entries;
  if (entries.length !== 1 || entry === undefined)
    throw new PatternError(`${path}: an operator object has exactly one key, got ${JSON.stringify(matcher)}`);
  const [operator, operand] = entry;

  if (operator === 'exists') {
    if (typeof operand !== 'boolean') throw new PatternError(`${path}: exists takes true or false`);
    // Existence is checked on leaves: an object is not a leaf.
    const present = field !== MISSING && !isObject(field) && !(Array.isArray(field) && field.length === 0);
    return operand ? present : field === MISSING;
  }
  if (field === MISSING || isObject(field)) return false;
  const values = valuesOf(field);

  switch (operator) {
    case 'prefix':
      return values.some((v) => typeof v === 'string' && affix(v, operand, path, 'prefix'));
    case 'suffix':
      return values.some((v) => typeof v === 'string' && affix(v, operand, path, 'suffix'));
    case 'equals-ignore-case':
      return values.some(
        (v) => typeof v === 'string' && v.toLowerCase() === stringOperand(operand, path, operator).toLowerCase(),
      );
    case 'wildcard':
      return values.some((v) => typeof v === 'string' && wildcard(stringOperand(operand, path, operator)).test(v));
    case 'numeric':
      return values.some((v) => typeof v === 'number' && numeric(v, operand, path));
    case 'anything-but':
      // Every value must differ: anything-but "a" does not match ["a", "b"].
      return values.length > 0 && values.every((v) => !anythingButExcludes(v, operand, path));
    default:
      throw new PatternError(`${path}: unsupported operator ${JSON.stringify(operator)}`);
  }
}

function valuesOf(field: unknown): unknown[] {
  return Array.isArray(field) ? field : [field];
}

function stringOperand(operand: unknown, path: string, operator: string): string {
  if (typeof operand !== 'string') throw new PatternError(`${path}: ${operator} takes a string`);
  return operand;
}

function affix(value: string, operand: unknown, path: string, kind: 'prefix' | 'suffix'): boolean {
  const test = (v: string, a: string) => (kind === 'prefix' ? v.startsWith(a) : v.endsWith(a));
  if (typeof operand === 'string') return test(value, operand);
  if (isObject(operand) && typeof operand['equals-ignore-case'] === 'string' && Object.keys(operand).length === 1) {
    return test(value.toLowerCase(), operand['equals-ignore-case'].toLowerCase());
  }
  throw new PatternError(`${path}: ${kind} takes a string or { "equals-ignore-case": string }`);
}

function wildcard(operand: string): RegExp {
  const escaped = operand
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${escaped}$`, 's');
}

function numeric(value: number, operand: unknown, path: string): boolean {
  if (!Array.isArray(operand) || operand.length === 0 || operand.length % 2 !== 0) {
    throw new PatternError(`${path}: numeric takes comparison pairs such as [">", 0, "<=", 5]`);
  }
  for (let i = 0; i < operand.length; i += 2) {
    const op: unknown = operand[i];
    const bound: unknown = operand[i + 1];
    if (typeof bound !== 'number') throw new PatternError(`${path}: numeric bounds must be numbers`);
    const ok =
      op === '='
        ? value === bound
        : op === '<'
          ? value < bound
          : op === '<='
            ? value <= bound
            : op === '>'
              ? value > bound
              : op === '>='
                ? value >= bound
                : undefined;
    if (ok === undefined) throw new PatternError(`${path}: unknown numeric comparison ${JSON.stringify(op)}`);
    if (!ok) return false;
  }
  return true;
}

/** Whether `anything-but <operand>` rules `value` out. */
function anythingButExcludes(value: unknown, operand: unknown, path: string): boolean {
  if (Array.isArray(operand)) return operand.some((item: unknown) => item === value);
  if (!isObject(operand)) return operand === value;
  const entries = Object.entries(operand);
  const [entry] = entries;
  if (entries.length !== 1 || entry === undefined) throw new PatternError(`${path}: anything-but takes one operator`);
  const [operator, inner] = entry;
  if (typeof value !== 'string') return false;
  switch (operator) {
    case 'prefix':
      return affix(value, inner, path, 'prefix');
    case 'suffix':
      return affix(value, inner, path, 'suffix');
    case 'equals-ignore-case': {
      const options = Array.isArray(inner) ? inner : [inner];
      return options.some((o) => value.toLowerCase() === stringOperand(o, path, operator).toLowerCase());
    }
    case 'wildcard':
      return wildcard(stringOperand(inner, path, operator)).test(value);
    default:
      throw new PatternError(`${path}: unsupported anything-but operator ${JSON.stringify(operator)}`);
  }
}
