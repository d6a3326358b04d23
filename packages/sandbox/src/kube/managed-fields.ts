// metadata.managedFields, as the API server keeps them for Update operations (PUT, and every PATCH
// that is not server-side apply): who last set each field. A tool that must tell its own write from
// someone else's (the reconciler's cordon from an operator's `kubectl cordon`) reads them; so the
// emulator keeps them the way the server does:
// - the manager is the request's `fieldManager`, else the User-Agent up to its first `/`
//   (`kubectl/v1.31.9 (linux/amd64) …` → `kubectl`), as apiserver's prefixFromUserAgent;
// - one entry per (manager, operation, subresource); a write gives its manager every field whose
//   value it changed or added, takes those fields from every other manager, and drops a removed field
//   from everyone; an entry left with no field goes; `time` is that of the entry's last change;
// - status is tracked under the `status` subresource only, and metadata only for labels,
//   annotations, ownerReferences and finalizers (the server ignores the rest of metadata).
// Simplified, and said so: lists are atomic (one field each; the server keys associative lists such
// as containers by name), and a map's own `.` marker is not written. An object the emulator seeded
// without managed fields has none until a request writes it, as a server that never tracked them.
import type { KubeObject } from './types.js';

export interface ManagedFieldsEntry {
  readonly manager: string;
  readonly operation: 'Update';
  readonly apiVersion: string;
  readonly time: string;
  readonly fieldsType: 'FieldsV1';
  readonly fieldsV1: FieldsV1;
  readonly subresource?: string;
}

export interface FieldsV1 {
  readonly [key: string]: FieldsV1;
}

/** The metadata fields the server tracks ownership of. */
const TRACKED_METADATA = new Set(['labels', 'annotations', 'ownerReferences', 'finalizers']);
const SEP = '\u0000';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The manager a write is attributed to: the fieldManager asked for, else the User-Agent's product name. */
export function managerOf(fieldManager: string | null | undefined, userAgent: string | undefined): string {
  if (fieldManager !== undefined && fieldManager !== null && fieldManager !== '') return fieldManager;
  const product = (userAgent ?? '').split('/')[0]?.trim() ?? '';
  return product === '' ? 'unknown' : product;
}

/** Leaf paths of `value` (objects recursed, lists and scalars leaves), each with its value. */
function leaves(value: unknown, prefix: readonly string[], out: Map<string, unknown>): void {
  if (isRecord(value) && Object.keys(value).length > 0) {
    for (const [key, child] of Object.entries(value)) leaves(child, [...prefix, key], out);
  } else out.set(prefix.join(SEP), value);
}

/** The tracked fields of an object as one write of `subresource` sees them. */
function trackedFields(object: KubeObject | undefined, subresource: string | undefined): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (object === undefined) return out;
  for (const [key, value] of Object.entries(object)) {
    if (key === 'apiVersion' || key === 'kind') continue;
    if (key === 'metadata') {
      if (subresource !== undefined) continue;
      for (const [meta, child] of Object.entries(object.metadata))
        if (TRACKED_METADATA.has(meta)) leaves(child, ['metadata', meta], out);
      continue;
    }
    if ((key === 'status') !== (subresource === 'status')) continue;
    leaves(value, [key], out);
  }
  return out;
}

function toPaths(fields: FieldsV1, prefix: readonly string[] = [], out = new Set<string>()): Set<string> {
  for (const [key, child] of Object.entries(fields)) {
    if (!key.startsWith('f:')) continue;
    const path = [...prefix, key.slice(2)];
    if (Object.keys(child).length === 0) out.add(path.join(SEP));
    else toPaths(child, path, out);
  }
  return out;
}

function toFieldsV1(paths: Iterable<string>): FieldsV1 {
  const root: Record<string, Record<string, unknown>> = {};
  for (const path of paths) {
    let node: Record<string, unknown> = root;
    for (const part of path.split(SEP)) {
      const key = `f:${part}`;
      const next = node[key];
      if (isRecord(next)) node = next;
      else {
        const created: Record<string, unknown> = {};
        node[key] = created;
        node = created;
      }
    }
  }
  return root as FieldsV1;
}

const sameValue = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

export function managedFieldsOf(object: KubeObject | undefined): readonly ManagedFieldsEntry[] {
  const entries = object?.metadata['managedFields'];
  return Array.isArray(entries) ? (entries as ManagedFieldsEntry[]) : [];
}

export interface ManagedWrite {
  readonly manager: string;
  readonly apiVersion: string;
  readonly subresource?: string;
  readonly at: string;
}

/**
 * The managed fields after `write` turned `old` (undefined for a create) into `next`; the fields a
 * client sent in `next` are ignored, as the server ignores them on an update that does not reset them.
 */
export function updateManagedFields(
  old: KubeObject | undefined,
  next: KubeObject,
  write: ManagedWrite,
): ManagedFieldsEntry[] {
  const before = trackedFields(old, write.subresource);
  const after = trackedFields(next, write.subresource);
  const changed = new Set<string>();
  for (const [path, value] of after) if (!before.has(path) || !sameValue(before.get(path), value)) changed.add(path);
  const removed = new Set<string>();
  for (const path of before.keys()) if (!after.has(path)) removed.add(path);
  // A map that became empty or was emptied leaves a leaf of its own: its inner fields went.
  const previous = managedFieldsOf(old);
  const isWriter = (e: ManagedFieldsEntry) =>
    e.manager === write.manager && e.operation === 'Update' && e.subresource === write.subresource;
  const out: ManagedFieldsEntry[] = [];
  let writerPaths = new Set<string>();
  let writerEntry: ManagedFieldsEntry | undefined;
  for (const entry of previous) {
    if (isWriter(entry)) {
      writerEntry = entry;
      writerPaths = toPaths(entry.fieldsV1);
      continue;
    }
    if (entry.subresource !== write.subresource) {
      out.push(entry);
      continue;
    }
    const paths = toPaths(entry.fieldsV1);
    const kept = [...paths].filter((p) => !changed.has(p) && !removed.has(p) && !isUnder(p, changed, removed));
    if (kept.length === paths.size) out.push(entry);
    else if (kept.length > 0) out.push({ ...entry, fieldsV1: toFieldsV1(kept) });
  }
  const owned = new Set([...writerPaths].filter((p) => !removed.has(p) && !isUnder(p, changed, removed)));
  for (const path of changed) owned.add(path);
  if (owned.size > 0) {
    const same = writerEntry !== undefined && changed.size === 0 && owned.size === writerPaths.size;
    out.push(
      same && writerEntry !== undefined
        ? writerEntry
        : {
            manager: write.manager,
            operation: 'Update',
            apiVersion: write.apiVersion,
            time: write.at,
            fieldsType: 'FieldsV1',
            fieldsV1: toFieldsV1(owned),
            ...(write.subresource !== undefined ? { subresource: write.subresource } : {}),
          },
    );
  }
  return out;
}

/** Whether `path` lies inside a field that changed or went (a map replaced by a scalar, or removed whole). */
function isUnder(path: string, ...sets: readonly Set<string>[]): boolean {
  for (const set of sets) for (const other of set) if (path.startsWith(other + SEP)) return true;
  return false;
}

/** One entry as a write by `manager` at `at` that set exactly these fields would have left (for seeds). */
export function entryFor(
  manager: string,
  apiVersion: string,
  at: string,
  paths: readonly (readonly string[])[],
): ManagedFieldsEntry {
  return {
    manager,
    operation: 'Update',
    apiVersion,
    time: at,
    fieldsType: 'FieldsV1',
    fieldsV1: toFieldsV1(paths.map((p) => p.join(SEP))),
  };
}
