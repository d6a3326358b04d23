import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** test/fixtures/events: AWS's documented event shapes, shared with scenarios and CDK rule tests. */
export const FIXTURE_DIR = fileURLToPath(new URL('../fixtures/events/', import.meta.url));

export const FIXTURE_NAMES: readonly string[] = readdirSync(FIXTURE_DIR)
  .filter((file) => file.endsWith('.json'))
  .map((file) => file.slice(0, -'.json'.length))
  .sort();

/** A fresh copy of a fixture each call, so tests can change it freely. */
export function fixture(name: string): Record<string, unknown> {
  const value: unknown = JSON.parse(readFileSync(`${FIXTURE_DIR}${name}.json`, 'utf8'));
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`fixture ${name} is not an object`);
  return value as Record<string, unknown>;
}

export type Path = readonly (string | number)[];

/** The container holding the last key of `path`, walking objects and arrays. */
function parentOf(root: unknown, path: Path): Record<string | number, unknown> {
  let node = root;
  for (const key of path.slice(0, -1)) {
    if (typeof node !== 'object' || node === null) throw new Error(`no ${path.join('.')} in the event`);
    node = (node as Record<string | number, unknown>)[key];
  }
  if (typeof node !== 'object' || node === null) throw new Error(`no ${path.join('.')} in the event`);
  return node as Record<string | number, unknown>;
}

function lastKey(path: Path): string | number {
  const key = path.at(-1);
  if (key === undefined) throw new Error('empty path');
  return key;
}

/** A fixture with one field replaced (or added). */
export function withField(name: string, path: Path, value: unknown): Record<string, unknown> {
  const event = fixture(name);
  parentOf(event, path)[lastKey(path)] = value;
  return event;
}

/** A fixture with one field removed. */
export function without(name: string, path: Path): Record<string, unknown> {
  const event = fixture(name);
  const parent = parentOf(event, path);
  delete parent[lastKey(path)];
  return event;
}

/** Every path to a value inside `value` (objects and arrays), for mutation-based property tests. */
export function pathsOf(value: unknown, prefix: Path = []): Path[] {
  if (typeof value !== 'object' || value === null) return [];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return entries.flatMap(([key, child]) => {
    const path = [...prefix, key];
    return [path, ...pathsOf(child, path)];
  });
}
