// The three PATCH flavours the API server accepts, applied copy-on-write: untouched subtrees of
// the stored object stay shared (a patched Node keeps sharing its big status.images list).
import * as z from 'zod';
import { isRecord } from './types.js';

/** Why a patch could not apply; the handler turns it into the Status the real server sends. */
export class PatchError extends Error {
  constructor(
    message: string,
    /** 400 (malformed patch) or 422 (well-formed but does not apply, e.g. a failed `test`). */
    readonly code: 400 | 422,
    readonly path?: string,
  ) {
    super(message);
    this.name = 'PatchError';
  }
}

/** Sets an own property, even `__proto__` (an assignment would change the prototype instead). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  if (isRecord(a) && isRecord(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

// ---- JSON Patch (RFC 6902) ----

const OperationSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('add'), path: z.string(), value: z.unknown() }),
  z.object({ op: z.literal('replace'), path: z.string(), value: z.unknown() }),
  z.object({ op: z.literal('test'), path: z.string(), value: z.unknown() }),
  z.object({ op: z.literal('remove'), path: z.string() }),
  z.object({ op: z.literal('move'), from: z.string(), path: z.string() }),
  z.object({ op: z.literal('copy'), from: z.string(), path: z.string() }),
]);
export const JsonPatchSchema = z.array(OperationSchema);
export type JsonPatchOperation = z.infer<typeof OperationSchema>;

function pointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/'))
    throw new PatchError(`invalid JSON pointer ${JSON.stringify(path)}: must start with /`, 400, path);
  return path
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

const MISSING = Symbol('missing');

function getAt(doc: unknown, tokens: string[]): unknown {
  let node: unknown = doc;
  for (const token of tokens) {
    if (Array.isArray(node)) {
      if (!/^(0|[1-9]\d*)$/.test(token)) return MISSING;
      const index = Number(token);
      if (index >= node.length) return MISSING;
      node = node[index];
    } else if (isRecord(node)) {
      if (!Object.hasOwn(node, token)) return MISSING;
      node = node[token];
    } else return MISSING;
  }
  return node;
}

type Edit = (container: unknown[] | Record<string, unknown>, token: string) => void;

/** Copies the containers along `tokens` and applies `edit` to the (copied) parent of the last token. */
function editAt(doc: unknown, tokens: string[], path: string, edit: Edit): unknown {
  const [head, ...rest] = tokens;
  if (head === undefined) throw new PatchError(`cannot edit the document root at ${path}`, 422, path);
  if (Array.isArray(doc)) {
    const copy = [...(doc as unknown[])];
    if (rest.length === 0) {
      edit(copy, head);
      return copy;
    }
    const index = Number(head);
    if (!/^(0|[1-9]\d*)$/.test(head) || index >= copy.length)
      throw new PatchError(`doc is missing path: ${path}: missing value`, 422, path);
    copy[index] = editAt(copy[index], rest, path, edit);
    return copy;
  }
  if (isRecord(doc)) {
    const copy: Record<string, unknown> = { ...doc };
    if (rest.length === 0) {
      edit(copy, head);
      return copy;
    }
    if (!Object.hasOwn(copy, head)) throw new PatchError(`doc is missing path: ${path}: missing value`, 422, path);
    setOwn(copy, head, editAt(copy[head], rest, path, edit));
    return copy;
  }
  throw new PatchError(`doc is missing path: ${path}: missing value`, 422, path);
}

function arrayIndex(container: unknown[], token: string, path: string, forInsert: boolean): number {
  if (forInsert && token === '-') return container.length;
  if (!/^(0|[1-9]\d*)$/.test(token))
    throw new PatchError(`invalid array index ${JSON.stringify(token)} in ${path}`, 422, path);
  const index = Number(token);
  if (index > container.length || (!forInsert && index === container.length)) {
    throw new PatchError(`index out of bounds at ${path}`, 422, path);
  }
  return index;
}

function add(doc: unknown, path: string, value: unknown): unknown {
  const tokens = pointer(path);
  if (tokens.length === 0) return value;
  return editAt(doc, tokens, path, (c, t) => {
    if (Array.isArray(c)) c.splice(arrayIndex(c, t, path, true), 0, value);
    else setOwn(c, t, value);
  });
}

function remove(doc: unknown, path: string): unknown {
  const tokens = pointer(path);
  return editAt(doc, tokens, path, (c, t) => {
    if (Array.isArray(c)) c.splice(arrayIndex(c, t, path, false), 1);
    else {
      if (!Object.hasOwn(c, t))
        throw new PatchError(`unable to remove nonexistent key: ${t}: missing value`, 422, path);
      delete c[t];
    }
  });
}

function replace(doc: unknown, path: string, value: unknown): unknown {
  const tokens = pointer(path);
  if (tokens.length === 0) return value;
  return editAt(doc, tokens, path, (c, t) => {
    if (Array.isArray(c)) c[arrayIndex(c, t, path, false)] = value;
    else {
      if (!Object.hasOwn(c, t))
        throw new PatchError(`replace operation does not apply: doc is missing key: ${path}: missing value`, 422, path);
      setOwn(c, t, value);
    }
  });
}

export function applyJsonPatch(doc: unknown, operations: JsonPatchOperation[]): unknown {
  let current = doc;
  for (const op of operations) {
    switch (op.op) {
      case 'add':
        current = add(current, op.path, op.value);
        break;
      case 'remove':
        current = remove(current, op.path);
        break;
      case 'replace':
        current = replace(current, op.path, op.value);
        break;
      case 'test': {
        const found = getAt(current, pointer(op.path));
        if (found === MISSING ? op.value !== null : !deepEqual(found, op.value)) {
          throw new PatchError(`testing value ${op.path} failed: test failed`, 422, op.path);
        }
        break;
      }
      case 'move':
      case 'copy': {
        const value = getAt(current, pointer(op.from));
        if (value === MISSING)
          throw new PatchError(
            `${op.op} operation does not apply: doc is missing from path: ${op.from}: missing value`,
            422,
            op.from,
          );
        if (op.op === 'move') {
          if (op.path.startsWith(`${op.from}/`))
            throw new PatchError(`cannot move ${op.from} into its own child ${op.path}`, 422, op.path);
          current = remove(current, op.from);
        }
        current = add(current, op.path, value);
        break;
      }
    }
  }
  return current;
}

// ---- JSON Merge Patch (RFC 7386) ----

export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return patch;
  const result: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else setOwn(result, key, applyMergePatch(result[key], value));
  }
  return result;
}

// ---- Strategic Merge Patch ----

/**
 * patchMergeKey / patchStrategy tags of the Go types, by field path (list indices dropped).
 * A name means "merge list items by this key"; `primitive` means "union of scalar lists".
 * Every list not named here is replaced whole, as for Node spec.taints (untagged upstream).
 */
export type MergeKeys = Readonly<Record<string, string>>;

const POD_SPEC_KEYS = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  volumes: 'name',
  imagePullSecrets: 'name',
  'containers.env': 'name',
  'containers.ports': 'containerPort',
  'containers.volumeMounts': 'mountPath',
  'initContainers.env': 'name',
  'initContainers.volumeMounts': 'mountPath',
} as const;

export const COMMON_MERGE_KEYS: MergeKeys = {
  'metadata.ownerReferences': 'uid',
  'metadata.finalizers': 'primitive',
  'status.conditions': 'type',
  'status.addresses': 'type',
  ...Object.fromEntries(Object.entries(POD_SPEC_KEYS).map(([k, v]) => [`spec.${k}`, v])),
  ...Object.fromEntries(Object.entries(POD_SPEC_KEYS).map(([k, v]) => [`spec.template.spec.${k}`, v])),
};

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const SET_ORDER_PREFIX = '$setElementOrder/';
const DELETE_PRIMITIVE_PREFIX = '$deleteFromPrimitiveList/';

export function applyStrategicMergePatch(
  target: unknown,
  patch: unknown,
  keys: MergeKeys = COMMON_MERGE_KEYS,
): unknown {
  return mergeMap(target, patch, '', keys);
}

function mergeMap(target: unknown, patch: unknown, path: string, keys: MergeKeys): unknown {
  if (!isRecord(patch)) return patch;
  const directive = patch[DIRECTIVE];
  if (directive === 'delete') return undefined;
  if (directive === 'replace') {
    const { [DIRECTIVE]: _drop, ...rest } = patch;
    return stripDirectives(rest);
  }
  if (directive !== undefined)
    throw new PatchError(`Unknown patch type: ${JSON.stringify(directive)} in map patch`, 400, path);

  let result: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  const retain = patch[RETAIN_KEYS];
  for (const [key, value] of Object.entries(patch)) {
    if (key === RETAIN_KEYS || key.startsWith(SET_ORDER_PREFIX)) continue;
    if (key.startsWith(DELETE_PRIMITIVE_PREFIX)) {
      const field = key.slice(DELETE_PRIMITIVE_PREFIX.length);
      const current = result[field];
      if (Array.isArray(current) && Array.isArray(value))
        setOwn(
          result,
          field,
          current.filter((v) => !value.some((d) => deepEqual(d, v))),
        );
      continue;
    }
    const childPath = path === '' ? key : `${path}.${key}`;
    if (value === null) {
      delete result[key];
      continue;
    }
    if (Array.isArray(value)) {
      setOwn(result, key, mergeList(result[key], value, childPath, keys));
      continue;
    }
    if (isRecord(value)) {
      const merged = mergeMap(result[key], value, childPath, keys);
      if (merged === undefined) delete result[key];
      else setOwn(result, key, merged);
      continue;
    }
    setOwn(result, key, value);
  }
  if (Array.isArray(retain)) {
    const keep = new Set(retain.filter((k): k is string => typeof k === 'string'));
    result = Object.fromEntries(Object.entries(result).filter(([k]) => keep.has(k)));
  }
  return result;
}

function mergeList(target: unknown, patch: unknown[], path: string, keys: MergeKeys): unknown[] {
  const mergeKey = keys[path];
  const current: unknown[] = Array.isArray(target) ? (target as unknown[]) : [];
  if (patch.some((item) => isRecord(item) && item[DIRECTIVE] === 'replace')) {
    return patch.filter((item) => !(isRecord(item) && item[DIRECTIVE] === 'replace')).map(stripDirectives);
  }
  if (mergeKey === undefined) return patch.map(stripDirectives);
  if (mergeKey === 'primitive') {
    const out = [...current];
    for (const item of patch) if (!out.some((v) => deepEqual(v, item))) out.push(item);
    return out;
  }
  const out = [...current];
  for (const item of patch) {
    if (!isRecord(item) || !Object.hasOwn(item, mergeKey)) {
      throw new PatchError(`map: ${JSON.stringify(item)} does not contain declared merge key: ${mergeKey}`, 400, path);
    }
    const index = out.findIndex((existing) => isRecord(existing) && deepEqual(existing[mergeKey], item[mergeKey]));
    if (item[DIRECTIVE] === 'delete') {
      if (index >= 0) out.splice(index, 1);
      continue;
    }
    if (index >= 0) out[index] = mergeMap(out[index], item, path, keys);
    else out.push(stripDirectives(item));
  }
  return out;
}

function stripDirectives(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripDirectives);
  if (!isRecord(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(
        ([k]) =>
          k !== DIRECTIVE &&
          k !== RETAIN_KEYS &&
          !k.startsWith(SET_ORDER_PREFIX) &&
          !k.startsWith(DELETE_PRIMITIVE_PREFIX),
      )
      .map(([k, v]) => [k, stripDirectives(v)]),
  );
}

export const PATCH_TYPES = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

/** Applies a PATCH body of the given content type to `target`; throws PatchError. */
export function applyPatch(
  target: unknown,
  contentType: string,
  body: unknown,
  keys: MergeKeys = COMMON_MERGE_KEYS,
): unknown {
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  switch (type) {
    case PATCH_TYPES.json: {
      const parsed = JsonPatchSchema.safeParse(body);
      if (!parsed.success)
        throw new PatchError(`invalid JSON patch: ${parsed.error.issues[0]?.message ?? 'malformed'}`, 400);
      return applyJsonPatch(target, parsed.data);
    }
    case PATCH_TYPES.merge:
      if (!isRecord(body)) throw new PatchError('a merge patch must be a JSON object', 400);
      return applyMergePatch(target, body);
    case PATCH_TYPES.strategic:
      if (!isRecord(body)) throw new PatchError('a strategic merge patch must be a JSON object', 400);
      return applyStrategicMergePatch(target, body, keys);
    default:
      throw new PatchError(`unsupported patch type ${type}`, 400);
  }
}
