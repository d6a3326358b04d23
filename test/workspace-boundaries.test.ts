// The workspace's packages (the root, packages/*) reach each other by name only: no relative import,
// static or dynamic, resolves into another package (issue #30). A package's name goes through its
// `exports`, so what a package offers is what its manifest says.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SPECIFIER =
  /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\bvi\.(?:mock|doMock|importActual)\(\s*)['"](\.[^'"]*)['"]/g;
const SKIPPED = new Set(['node_modules', 'dist', 'cdk.out', 'coverage', '.tmp', '.git']);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED.has(entry.name) || entry.name.startsWith('.') ? [] : sources(path);
    return /\.(ts|mts|cts|js|mjs|cjs)$/.test(entry.name) ? [path] : [];
  });
}

/** `packages/<name>` for a file of a workspace package, '' for the root's. */
function packageOf(path: string): string {
  const [first, second] = relative(ROOT, path).split(sep);
  return first === 'packages' && second !== undefined ? `packages/${second}` : '';
}

describe('the workspace', () => {
  it('should have no relative import reaching across packages', () => {
    const crossings = sources(ROOT).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(SPECIFIER)]
        .map(([, spec = '']) => resolve(dirname(file), spec))
        .filter((target) => packageOf(target) !== packageOf(file))
        .map((target) => `${relative(ROOT, file)} -> ${relative(ROOT, target)}`),
    );
    expect(crossings).toEqual([]);
  });
});
