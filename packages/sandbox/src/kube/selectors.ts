// Label and field selectors, with the syntax and semantics of k8s.io/apimachinery/pkg/labels and
// pkg/fields: what `?labelSelector=` and `?fieldSelector=` accept, and what PDB selectors mean.
import { badRequest } from './errors.js';
import type { LabelSelector } from './types.js';

export type Requirement =
  | { key: string; op: 'in' | 'notin'; values: string[] }
  | { key: string; op: 'exists' | 'doesnotexist' }
  | { key: string; op: 'gt' | 'lt'; value: number };

export type Selector = { readonly requirements: readonly Requirement[] };

export const EVERYTHING: Selector = { requirements: [] };

export function matches(selector: Selector, labels: Record<string, string> | undefined): boolean {
  for (const req of selector.requirements) {
    const value = labels?.[req.key];
    switch (req.op) {
      case 'in':
        if (value === undefined || !req.values.includes(value)) return false;
        break;
      case 'notin':
        if (value !== undefined && req.values.includes(value)) return false;
        break;
      case 'exists':
        if (value === undefined) return false;
        break;
      case 'doesnotexist':
        if (value !== undefined) return false;
        break;
      case 'gt':
      case 'lt': {
        const n = value === undefined ? Number.NaN : Number(value);
        if (!Number.isInteger(n)) return false;
        if (req.op === 'gt' ? !(n > req.value) : !(n < req.value)) return false;
        break;
      }
    }
  }
  return true;
}

const KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function checkKey(key: string): string {
  if (!KEY.test(key) || key.length > 316) throw badRequest(`unable to parse requirement: invalid label key "${key}"`);
  return key;
}

function checkValue(value: string): string {
  if (!VALUE.test(value) || value.length > 63)
    throw badRequest(`unable to parse requirement: invalid label value: "${value}"`);
  return value;
}

/** Parses the string form (`app=web,tier!=db,env in (a,b),!legacy`). */
export function parseLabelSelector(text: string | undefined): Selector {
  if (text === undefined || text.trim() === '') return EVERYTHING;
  const requirements: Requirement[] = [];
  // Split on commas outside parentheses.
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  for (const raw of parts) {
    const part = raw.trim();
    if (part === '') throw badRequest(`unable to parse requirement: found '', expected: identifier`);
    const set = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(part);
    if (set) {
      const [, key = '', op = 'in', list = ''] = set;
      const values = list.split(',').map((v) => checkValue(v.trim()));
      requirements.push({ key: checkKey(key), op: op === 'in' ? 'in' : 'notin', values });
      continue;
    }
    const binary = /^([^!=<>\s]+)\s*(==|=|!=|>|<)\s*(\S*)$/.exec(part);
    if (binary) {
      const [, key = '', op = '=', value = ''] = binary;
      if (op === '>' || op === '<') {
        const n = Number(value);
        if (!Number.isInteger(n))
          throw badRequest(`unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer`);
        requirements.push({ key: checkKey(key), op: op === '>' ? 'gt' : 'lt', value: n });
      } else {
        requirements.push({ key: checkKey(key), op: op === '!=' ? 'notin' : 'in', values: [checkValue(value)] });
      }
      continue;
    }
    if (part.startsWith('!')) {
      requirements.push({ key: checkKey(part.slice(1).trim()), op: 'doesnotexist' });
      continue;
    }
    requirements.push({ key: checkKey(part), op: 'exists' });
  }
  return { requirements };
}

/**
 * metav1.LabelSelectorAsSelector. `undefined`/`null` selects nothing and `{}` everything — the
 * caller decides what an empty selector means (the eviction API treats it as matching nothing).
 */
export function fromLabelSelector(selector: LabelSelector | null | undefined): Selector | 'nothing' {
  if (selector === null || selector === undefined) return 'nothing';
  const requirements: Requirement[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {}))
    requirements.push({ key, op: 'in', values: [value] });
  for (const expr of selector.matchExpressions ?? []) {
    switch (expr.operator) {
      case 'In':
        requirements.push({ key: expr.key, op: 'in', values: expr.values ?? [] });
        break;
      case 'NotIn':
        requirements.push({ key: expr.key, op: 'notin', values: expr.values ?? [] });
        break;
      case 'Exists':
        requirements.push({ key: expr.key, op: 'exists' });
        break;
      case 'DoesNotExist':
        requirements.push({ key: expr.key, op: 'doesnotexist' });
        break;
      default:
        // An invalid selector matches no pod (eviction.go: "This object has an invalid selector").
        return 'nothing';
    }
  }
  return { requirements };
}

export type FieldRequirement = { field: string; value: string; equal: boolean };

/** Parses `spec.nodeName=n1,status.phase!=Failed` (with `\,` `\=` `\\` escapes as fields.EscapeValue writes). */
export function parseFieldSelector(text: string | undefined): FieldRequirement[] {
  if (text === undefined || text.trim() === '') return [];
  const terms: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i);
    if (ch === '\\' && i + 1 < text.length) {
      current += ch + text.charAt(i + 1);
      i++;
    } else if (ch === ',') {
      terms.push(current);
      current = '';
    } else current += ch;
  }
  terms.push(current);
  return terms.map((term) => {
    const match = /^([^!=]+)(==|!=|=)(.*)$/s.exec(term);
    if (!match) throw badRequest(`invalid selector: '${term}'; can't understand '${term}'`);
    const [, field = '', op = '=', value = ''] = match;
    return { field: field.trim(), equal: op !== '!=', value: value.replace(/\\(.)/g, '$1') };
  });
}
