// Field validation for the kinds whose every field the emulator knows (RBAC): the real server decodes
// a body into its Go type, so a field the type does not have is dropped (fieldValidation Ignore or
// Warn, with a Warning header for Warn) or refused (Strict, what kubectl sends). Other kinds are stored
// as given: the emulator does not carry their schemas.
import { badRequest } from './errors.js';
import type { ResourceDef } from './resources.js';
import { isRecord, type KubeObject } from './types.js';

/** A field's shape: `true` any value, an object of known fields, or a list of such objects. */
type Shape = true | { readonly [field: string]: Shape } | readonly [Shape];

const RULE: Shape = { verbs: true, apiGroups: true, resources: true, resourceNames: true, nonResourceURLs: true };
const ROLE: Shape = { apiVersion: true, kind: true, metadata: true, rules: [RULE] };
const CLUSTER_ROLE: Shape = { ...ROLE, aggregationRule: { clusterRoleSelectors: true } };
const BINDING: Shape = {
  apiVersion: true,
  kind: true,
  metadata: true,
  roleRef: { apiGroup: true, kind: true, name: true },
  subjects: [{ kind: true, apiGroup: true, name: true, namespace: true }],
};

const SHAPES: Readonly<Record<string, Shape>> = {
  clusterroles: CLUSTER_ROLE,
  roles: ROLE,
  clusterrolebindings: BINDING,
  rolebindings: BINDING,
};

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** The `fieldValidation` query parameter; the server's default is Warn. */
export function fieldValidationOf(query: URLSearchParams): FieldValidation {
  const value = query.get('fieldValidation');
  if (value === null || value === '') return 'Warn';
  if (value === 'Ignore' || value === 'Warn' || value === 'Strict') return value;
  throw badRequest(`fieldValidation parameter unsupported: ${value}. Valid values are Ignore, Warn or Strict`);
}

/** Paths of the fields `value` has that `shape` does not (`rules[0].verb`), and the value without them. */
function prune(value: unknown, shape: Shape, path: string, unknown: string[]): unknown {
  if (shape === true) return value;
  if (Array.isArray(shape)) {
    const [item] = shape as readonly [Shape];
    return Array.isArray(value) ? value.map((v, i) => prune(v, item, `${path}[${i}]`, unknown)) : value;
  }
  if (!isRecord(value)) return value;
  const known = shape as { readonly [field: string]: Shape };
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const child = known[key];
    const at = path === '' ? key : `${path}.${key}`;
    if (child === undefined) unknown.push(at);
    else out[key] = prune(v, child, at, unknown);
  }
  return out;
}

/**
 * Applies field validation to an object about to be stored: refuses unknown fields under Strict,
 * drops them otherwise (returning a warning per field for Warn). Kinds without a known shape pass as they are.
 */
export function validateFields(
  def: ResourceDef,
  object: KubeObject,
  mode: FieldValidation,
): { object: KubeObject; warnings: string[] } {
  const shape = SHAPES[def.storage];
  if (shape === undefined) return { object, warnings: [] };
  const unknown: string[] = [];
  const pruned = prune(object, shape, '', unknown) as KubeObject;
  if (unknown.length === 0) return { object, warnings: [] };
  if (mode === 'Strict') {
    const list = unknown.map((f) => `unknown field "${f}"`).join(', ');
    throw badRequest(
      `${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: strict decoding error: ${list}`,
    );
  }
  return { object: pruned, warnings: mode === 'Warn' ? unknown.map((f) => `unknown field "${f}"`) : [] };
}
