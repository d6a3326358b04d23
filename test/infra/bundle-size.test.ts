import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENTRIES, FUNCTION_KINDS, PROJECT_ROOT } from '../../infra/functions.js';
import {
  appBuildOptions,
  DEFAULT_MAX_MB,
  formatReport,
  measure,
  packageOf,
  type BundleReport,
} from '../../scripts/bundle-size.js';

describe('scripts/bundle-size.ts', () => {
  it('should attribute bundled files to their npm package', () => {
    expect(packageOf('node_modules/@kubernetes/client-node/dist/gen/api.js')).toBe('@kubernetes/client-node');
    expect(packageOf('node_modules/zod/v4/core/core.js')).toBe('zod');
    expect(packageOf('node_modules/a/node_modules/undici/index.js')).toBe('undici');
    expect(packageOf('packages/model/src/duration.ts')).toBe('(project)');
  });

  it('should bundle an entry with the app options and weigh it by package', async () => {
    const report = await measure('sample', `${PROJECT_ROOT}packages/model/src/duration.ts`);
    expect(report.entry).toBe('packages/model/src/duration.ts');
    expect(report.bytes).toBeGreaterThan(1000);
    expect(report.mapBytes).toBeGreaterThan(0);
    expect(report.packages.map((p) => p.name)).toEqual(expect.arrayContaining(['zod', '(project)']));
    expect(report.packages.reduce((sum, p) => sum + p.bytes, 0)).toBeLessThanOrEqual(report.bytes);
  });

  it('should flag bundles over the limit and name their largest packages', () => {
    const report = (kind: string, mb: number): BundleReport => ({
      kind,
      entry: `functions/${kind}.ts`,
      bytes: mb * 1024 * 1024,
      mapBytes: 0,
      packages: [{ name: 'heavy', bytes: 900 * 1024 }],
    });
    const text = formatReport([report('events', 2.8), report('sweep', 1.2)], 1.5);
    expect(text).toMatch(/events\s+2\.80 MB .*OVER 1\.5 MB/);
    expect(text).toMatch(/sweep\s+1\.20 MB .*ok/);
    expect(text).toContain('largest: heavy 900 KB');
  });

  // The budget, kept by every change: client-node (~1.9 MB with its undici) must stay out of
  // the Lambdas, which reach the API server through lib/kube/client.ts; and so must zod's locales
  // (~260 KB, parsed at every cold start), which `import { z } from 'zod'` keeps: zod is imported
  // as a namespace (`import * as z`), and only its English messages (~100 KB of zod in all) remain.
  it.each(FUNCTION_KINDS)(
    'should keep the %s function within the size budget, without client-node or zod locales',
    async (kind) => {
      const report = await measure(kind, DEFAULT_ENTRIES[kind]);
      expect(report.bytes).toBeLessThanOrEqual(DEFAULT_MAX_MB * 1024 * 1024);
      expect(report.packages.map((p) => p.name)).not.toContain('@kubernetes/client-node');
      expect(report.packages.map((p) => p.name)).not.toContain('undici');
      expect(report.packages.find((p) => p.name === 'zod')?.bytes ?? 0).toBeLessThan(150 * 1024);
    },
  );

  // lib/lambda/node-http.ts: an ES module import of node:http costs a cold start ~20 ms (Node reads
  // every export, and three load undici); the bundles get it through require instead.
  it.each(FUNCTION_KINDS)('should give the %s function node:http through require, never an ES import', async (kind) => {
    const result = await build({ ...appBuildOptions(DEFAULT_ENTRIES[kind], '/tmp/unused/index.mjs'), write: false });
    const code = result.outputFiles.find((f) => f.path.endsWith('index.mjs'))?.text ?? '';
    expect(code).toMatch(/\("node:http"\)/);
    expect(code).not.toMatch(/from\s*"node:http"|import\s*"node:http"|import\("node:http"\)/);
  });
});
