// JSONata as Step Functions evaluates it: `{% … %}` strings in a field are expressions over the
// workflow variables and `$states`; everything else is literal. Time functions follow the
// interpreter's clock, and the functions Step Functions adds ($partition, $range, $hash, $random,
// $uuid, $parse) are provided. Errors become States.QueryEvaluationError, as in Step Functions.
import { createHash, randomUUID } from 'node:crypto';
import jsonata from 'jsonata';
import { STATES_ERRORS, StatesError } from './errors.js';

const EXPRESSION = /^\{%(.*)%\}$/s;

export interface EvaluationScope {
  /** Workflow variables, by name without `$`. */
  readonly variables: Readonly<Record<string, unknown>>;
  /** `$states`: input, result, errorOutput, context. */
  readonly states: Readonly<Record<string, unknown>>;
  readonly now: () => number;
  readonly random: () => number;
}

const compiled = new Map<string, jsonata.Expression>();

function compile(expression: string, field: string): jsonata.Expression {
  const cached = compiled.get(expression);
  if (cached) return cached;
  try {
    const parsed = jsonata(expression);
    compiled.set(expression, parsed);
    return parsed;
  } catch (error) {
    throw new StatesError(
      STATES_ERRORS.queryEvaluation,
      `The JSONata expression '${expression}' specified for the field '${field}' could not be parsed: ${describe(error)}`,
    );
  }
}

function describe(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    return [code, message].filter((part) => typeof part === 'string').join(': ');
  }
  return String(error);
}

/** The functions Step Functions adds to JSONata, bound to the scope's clock and random source. */
function stepFunctionsFunctions(scope: EvaluationScope): Record<string, unknown> {
  return {
    millis: () => scope.now(),
    now: () => new Date(scope.now()).toISOString(),
    partition: (array: unknown[], size: number) => {
      const out: unknown[][] = [];
      for (let i = 0; i < array.length; i += size) out.push(array.slice(i, i + size));
      return out;
    },
    range: (start: number, end: number, step = 1) => {
      const out: number[] = [];
      for (let n = start; step > 0 ? n <= end : n >= end; n += step) out.push(n);
      return out;
    },
    hash: (data: unknown, algorithm: string) => {
      const names: Record<string, string> = {
        MD5: 'md5',
        'SHA-1': 'sha1',
        'SHA-256': 'sha256',
        'SHA-384': 'sha384',
        'SHA-512': 'sha512',
      };
      const name = names[algorithm];
      if (!name) throw new Error(`$hash: unsupported algorithm ${algorithm}`);
      return createHash(name)
        .update(typeof data === 'string' ? data : JSON.stringify(data))
        .digest('hex');
    },
    random: () => scope.random(),
    uuid: () => randomUUID(),
    parse: (text: string) => JSON.parse(text) as unknown,
  };
}

/** Plain JSON: JSONata marks its sequences with extra properties, which no state should see. */
const plain = (value: unknown): unknown =>
  value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown);

async function evaluateExpression(expression: string, field: string, scope: EvaluationScope): Promise<unknown> {
  const compiledExpression = compile(expression.trim(), field);
  let result: unknown;
  try {
    result = await compiledExpression.evaluate(undefined, {
      ...stepFunctionsFunctions(scope),
      ...scope.variables,
      states: scope.states,
    });
  } catch (error) {
    throw new StatesError(
      STATES_ERRORS.queryEvaluation,
      `An error occurred while evaluating the expression '${expression.trim()}' specified for the field '${field}': ${describe(error)}`,
    );
  }
  if (result === undefined) {
    throw new StatesError(
      STATES_ERRORS.queryEvaluation,
      `The JSONata expression '${expression.trim()}' specified for the field '${field}' returned nothing (undefined).`,
    );
  }
  return plain(result);
}

/**
 * Evaluates a field's template: an expression string, or a JSON value whose strings may be
 * expressions (object keys are literal). `field` names the field in error messages (`Arguments/Payload`).
 */
export async function evaluateTemplate(template: unknown, field: string, scope: EvaluationScope): Promise<unknown> {
  if (typeof template === 'string') {
    const match = EXPRESSION.exec(template);
    return match ? evaluateExpression(match[1] ?? '', field, scope) : template;
  }
  if (Array.isArray(template)) {
    const out: unknown[] = [];
    for (const [index, item] of template.entries()) out.push(await evaluateTemplate(item, `${field}[${index}]`, scope));
    return out;
  }
  if (typeof template === 'object' && template !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(template))
      out[key] = await evaluateTemplate(value, `${field}/${key}`, scope);
    return out;
  }
  return template;
}

/** Whether a value is (or holds) a JSONata expression, i.e. depends on the scope. */
export const isExpression = (value: unknown): value is string => typeof value === 'string' && EXPRESSION.test(value);
