// Label selectors in their string form (`app=web,tier!=db,env in (a,b),!legacy`), checked before they
// are sent: the grammar of k8s.io/apimachinery/pkg/labels (Parse), so that a mistyped selector is
// refused naming what is wrong instead of coming back as the API server's 400.

/** A label name, optionally under a DNS-subdomain prefix (`app.kubernetes.io/name`). */
const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;
const MAX_NAME = 63;
const MAX_PREFIX = 253;

function keyProblem(key: string): string | undefined {
  const slash = key.indexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (key === '') return 'a label key is missing';
  if (prefix !== undefined && (prefix.length > MAX_PREFIX || !PREFIX.test(prefix)))
    return `invalid label key "${key}": the prefix must be a DNS subdomain (lowercase letters, digits, '-', '.')`;
  if (name.length > MAX_NAME || !NAME.test(name))
    return `invalid label key "${key}": a name is at most ${MAX_NAME} letters, digits, '-', '_' or '.', beginning and ending with a letter or digit`;
  return undefined;
}

function valueProblem(value: string): string | undefined {
  if (value.length > MAX_NAME || !VALUE.test(value))
    return `invalid label value "${value}": at most ${MAX_NAME} letters, digits, '-', '_' or '.', beginning and ending with a letter or digit`;
  return undefined;
}

/** Splits on the commas that separate requirements (not those inside `in (…)`). */
function requirements(text: string): string[] | string {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (depth < 0 || depth > 1) return 'unbalanced parentheses';
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  if (depth !== 0) return 'unbalanced parentheses';
  parts.push(current);
  return parts.map((p) => p.trim());
}

function requirementProblem(part: string): string | undefined {
  if (part === '') return 'an empty requirement (two commas in a row, or one at an end)';
  const set = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(part);
  if (set) {
    const [, key = '', op = '', list = ''] = set;
    const values = list.split(',').map((v) => v.trim());
    if (list.trim() === '') return `"${part}": ${op} needs at least one value`;
    return keyProblem(key) ?? values.map(valueProblem).find((p) => p !== undefined);
  }
  const binary = /^([^!=<>\s]+)\s*(==|=|!=|>|<)\s*(\S*)$/.exec(part);
  if (binary) {
    const [, key = '', op = '', value = ''] = binary;
    if ((op === '>' || op === '<') && !/^-?\d+$/.test(value))
      return `"${part}": ${op} compares with a whole number, not "${value}"`;
    return keyProblem(key) ?? (op === '>' || op === '<' ? undefined : valueProblem(value));
  }
  if (part.startsWith('!')) return keyProblem(part.slice(1).trim());
  if (/\s/.test(part) || /[=!<>()]/.test(part))
    return `"${part}" is not a requirement (key, !key, key=value, key!=value, key in (a,b), key notin (a,b))`;
  return keyProblem(part);
}

/**
 * Why `text` is not a label selector the API server accepts (the string form), or undefined when it
 * is one. The empty selector selects everything.
 */
export function labelSelectorProblem(text: string): string | undefined {
  if (text.trim() === '') return undefined;
  const parts = requirements(text);
  if (typeof parts === 'string') return parts;
  return parts.map(requirementProblem).find((p) => p !== undefined);
}
