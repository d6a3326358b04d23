/**
 * Bundles each Lambda entry the way the CDK app does (infra/functions.ts BUNDLING, local esbuild)
 * and prints its size, with the packages that weigh most. Exits 1 when a bundle is over the limit.
 *
 *   npx tsx scripts/bundle-size.ts [--max-mb 1.5] [--json]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import {
  BUNDLE_ALIASES,
  BUNDLE_LOG_OVERRIDES,
  BUNDLING,
  DEFAULT_ENTRIES,
  FUNCTION_KINDS,
  PROJECT_ROOT,
  type FunctionKind,
} from '../infra/functions.js';

export const DEFAULT_MAX_MB = 1.5;
const MB = 1024 * 1024;

export interface BundleReport {
  readonly kind: string;
  readonly entry: string;
  readonly bytes: number;
  readonly mapBytes: number;
  /** Bytes in the bundle by npm package (`(project)` for the repository's own code), largest first. */
  readonly packages: readonly { readonly name: string; readonly bytes: number }[];
}

/** `…node_modules/@scope/name/…` → `@scope/name` (the innermost package); the repository's own files → `(project)`. */
export function packageOf(path: string): string {
  const match = /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  return match?.[1] ?? '(project)';
}

/** Bytes by package from an esbuild metafile's single output. */
export function weighPackages(metafile: Metafile): { name: string; bytes: number }[] {
  const output = Object.entries(metafile.outputs).find(([file]) => !file.endsWith('.map'))?.[1];
  const totals = new Map<string, number>();
  for (const [path, input] of Object.entries(output?.inputs ?? {})) {
    const name = packageOf(path);
    totals.set(name, (totals.get(name) ?? 0) + input.bytesInOutput);
  }
  return [...totals].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes);
}

/** esbuild options equal to the CDK app's bundling (infra/functions.ts BUNDLING) for one entry. */
export function appBuildOptions(entry: string, outfile: string): BuildOptions {
  return {
    entryPoints: [entry],
    absWorkingDir: PROJECT_ROOT,
    bundle: true,
    platform: 'node',
    format: BUNDLING.format,
    target: BUNDLING.target,
    mainFields: [...BUNDLING.mainFields],
    banner: { js: BUNDLING.banner },
    minify: BUNDLING.minify,
    sourcemap: BUNDLING.sourceMap ? 'external' : false,
    sourcesContent: BUNDLING.sourcesContent,
    external: [...BUNDLING.externalModules],
    alias: { ...BUNDLE_ALIASES },
    logOverride: { ...BUNDLE_LOG_OVERRIDES },
    outfile,
    logLevel: 'error',
  };
}

/** Builds one entry with the app's bundling options into a scratch directory. */
export async function measure(kind: string, entry: string): Promise<BundleReport> {
  const outdir = mkdtempSync(join(tmpdir(), 'bundle-size-'));
  try {
    const result = await build({ ...appBuildOptions(entry, join(outdir, 'index.mjs')), metafile: true, write: false });
    const bytesOf = (suffix: string) =>
      result.outputFiles.find((f) => f.path.endsWith(suffix))?.contents.byteLength ?? 0;
    return {
      kind,
      entry: relative(PROJECT_ROOT, entry),
      bytes: bytesOf('index.mjs'),
      mapBytes: bytesOf('index.mjs.map'),
      packages: weighPackages(result.metafile),
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

export function formatReport(reports: readonly BundleReport[], maxMb: number): string {
  const lines = reports.map((r) => {
    const verdict = r.bytes > maxMb * MB ? `OVER ${maxMb} MB` : 'ok';
    const top = r.packages
      .slice(0, 5)
      .map((p) => `${p.name} ${(p.bytes / 1024).toFixed(0)} KB`)
      .join(', ');
    return `${r.kind.padEnd(10)} ${(r.bytes / MB).toFixed(2).padStart(5)} MB (map ${(r.mapBytes / MB).toFixed(2)} MB) ${verdict.padEnd(12)} ${r.entry}\n${' '.repeat(11)}largest: ${top}`;
  });
  return [`bundle sizes (limit ${maxMb} MB, minified ESM, @aws-sdk/* external):`, ...lines].join('\n');
}

function parseArgs(argv: readonly string[]): { maxMb: number; json: boolean } {
  const at = argv.indexOf('--max-mb');
  const maxMb = at >= 0 ? Number(argv[at + 1]) : DEFAULT_MAX_MB;
  if (!Number.isFinite(maxMb) || maxMb <= 0)
    throw new Error(`--max-mb: expected a positive number, got ${argv[at + 1]}`);
  return { maxMb, json: argv.includes('--json') };
}

async function main(): Promise<void> {
  const { maxMb, json } = parseArgs(process.argv.slice(2));
  const reports = await Promise.all(FUNCTION_KINDS.map((kind: FunctionKind) => measure(kind, DEFAULT_ENTRIES[kind])));
  console.log(json ? JSON.stringify({ maxMb, reports }, null, 2) : formatReport(reports, maxMb));
  const over = reports.filter((r) => r.bytes > maxMb * MB);
  if (over.length > 0) {
    console.error(`bundle-size: ${over.map((r) => r.kind).join(', ')} over ${maxMb} MB`);
    process.exitCode = 1;
  }
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
