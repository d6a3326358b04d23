// The sandbox's boundary with the product, resolved path by path (the lint rule reads specifiers as
// written; this resolves them, `..` and dynamic imports included): the sandbox reaches the
// product's model and deploy contract only (@ec2-node-reconciler/model, by name), that package
// reaches nothing else of the product, and of the product only the operator's command line (cli/)
// reaches the sandbox: lib, the functions and the CDK app never do.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"]([^'"]+)['"]/g;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sources(path);
    return /\.(ts|mts|mjs)$/.test(name) ? [path] : [];
  });
}

/** Each file's imports: relative ones resolved to repository paths, packages as written. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(SPECIFIER)].map(([, spec = '']) =>
    spec.startsWith('.')
      ? relative(ROOT, resolve(dirname(file), spec))
          .split(sep)
          .join('/')
      : spec,
  );
}

const within = (path: string, ...folders: string[]) => folders.some((f) => path.startsWith(`${f}/`));
const WORKSPACE_SCOPE = '@ec2-node-reconciler/';

/** A file's imports of workspace packages by name, and its relative imports resolved to repository paths. */
function reachOf(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(SPECIFIER)].flatMap(([, spec = '']) => {
    if (!spec.startsWith('.')) return spec.startsWith(WORKSPACE_SCOPE) ? [spec] : [];
    return [relative(ROOT, resolve(dirname(file), spec)).replaceAll(sep, '/')];
  });
}

describe('the sandbox boundary', () => {
  it('should reach into the product only through @ec2-node-reconciler/model, by name', () => {
    const crossings = sources(join(ROOT, 'packages/sandbox')).flatMap((file) =>
      reachOf(file)
        .filter((target) =>
          target.startsWith(WORKSPACE_SCOPE)
            ? !target.startsWith('@ec2-node-reconciler/model/') && !target.startsWith('@ec2-node-reconciler/sandbox/')
            : !within(target, 'packages/sandbox'),
        )
        .map((target) => `${relative(ROOT, file)} -> ${target}`),
    );
    expect(crossings).toEqual([]);
  });

  it('should keep @ec2-node-reconciler/model free of the rest of the product', () => {
    const crossings = sources(join(ROOT, 'packages/model')).flatMap((file) =>
      reachOf(file)
        .filter((target) => target.startsWith(WORKSPACE_SCOPE) || !within(target, 'packages/model'))
        .map((target) => `${relative(ROOT, file)} -> ${target}`),
    );
    expect(crossings).toEqual([]);
  });

  it('should be reached from the product only by the command line (cli/), never by lib, functions or infra', () => {
    const reaching = ['lib', 'functions', 'infra'].flatMap((folder) =>
      sources(join(ROOT, folder))
        .filter((file) =>
          importsOf(file).some((t) => t.startsWith('@ec2-node-reconciler/sandbox') || within(t, 'packages/sandbox')),
        )
        .map((file) => relative(ROOT, file).split(sep).join('/')),
    );
    expect(reaching).toEqual([]);
  });

  it('should keep the command line (cli/) out of lib, the functions and infra', () => {
    const crossings = ['lib', 'functions', 'infra'].flatMap((folder) =>
      sources(join(ROOT, folder)).flatMap((file) =>
        importsOf(file)
          .filter((target) => within(target, 'cli'))
          .map((target) => `${relative(ROOT, file)} -> ${target}`),
      ),
    );
    expect(crossings).toEqual([]);
  });
});
