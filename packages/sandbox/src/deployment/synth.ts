// Synthesizing the project's CDK app (cdk.json's `infra/app.ts`) the way `cdk synth` does, for
// the sandbox to deploy: a child process runs the app with the CLI's environment (CDK_OUTDIR,
// CDK_CONTEXT_JSON with cdk.json's context), so lib never imports infra. Assemblies are cached
// under a directory keyed by a hash of the sources and the options: a second run with nothing
// changed reads the cached templates.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';

const REPOSITORY_ROOT = fileURLToPath(new URL('../../../..', import.meta.url));

export interface SynthAppOptions {
  /** Context for the app, over cdk.json's (`clusterName` is required by infra/app.ts). */
  readonly context: Readonly<Record<string, unknown>>;
  /** Bundle the functions with esbuild, as `cdk synth` does. @default true */
  readonly bundle?: boolean;
  /** @default <os tmpdir>/ec2-node-reconciler-synth */
  readonly cacheDir?: string;
  /** @default the repository this module lives in */
  readonly projectRoot?: string;
  /** @default 300_000 */
  readonly timeoutMs?: number;
}

export interface SynthesizedApp {
  /** The cloud assembly directory (manifest.json, templates, bundled assets). */
  readonly assemblyDir: string;
  /** Each stack's template, by stack name. */
  readonly templates: Readonly<Record<string, unknown>>;
  /** Whether the assembly came from the cache. */
  readonly cached: boolean;
  readonly key: string;
}

/** What goes into a synthesized template: the app, the functions it bundles, their dependencies. */
const SOURCE_DIRS = ['infra', 'functions', 'lib', 'packages/model'];
const SOURCE_FILES = ['cdk.json', 'package-lock.json', 'tsconfig.json'];

async function filesUnder(root: string, dir: string): Promise<string[]> {
  const entries = await readdir(join(root, dir), { withFileTypes: true }).catch(() => []);
  const out: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(root, path)));
    else if (entry.isFile() && /\.(ts|mts|js|mjs|json)$/.test(entry.name)) out.push(path);
  }
  return out;
}

/** A digest of every source file (path and content) and of the options. */
export async function sourceHash(projectRoot: string, options: unknown): Promise<string> {
  const hash = createHash('sha256').update(JSON.stringify(options));
  const files = [
    ...SOURCE_FILES,
    ...(await Promise.all(SOURCE_DIRS.map((dir) => filesUnder(projectRoot, dir)))).flat(),
  ].sort();
  for (const file of files) {
    const content = await readFile(join(projectRoot, file)).catch(() => undefined);
    if (content === undefined) continue;
    hash.update(`\0${file}\0`).update(content);
  }
  return hash.digest('hex').slice(0, 32);
}

const ManifestSchema = z.object({
  artifacts: z.record(
    z.string(),
    z.object({
      type: z.string(),
      displayName: z.string().optional(),
      properties: z.object({ templateFile: z.string().optional() }).optional(),
    }),
  ),
});

async function readTemplates(assemblyDir: string): Promise<Record<string, unknown>> {
  const manifest = ManifestSchema.parse(JSON.parse(await readFile(join(assemblyDir, 'manifest.json'), 'utf8')));
  const templates: Record<string, unknown> = {};
  for (const [id, artifact] of Object.entries(manifest.artifacts)) {
    const file = artifact.properties?.templateFile;
    if (artifact.type !== 'aws:cloudformation:stack' || !file) continue;
    templates[artifact.displayName ?? id] = JSON.parse(await readFile(join(assemblyDir, file), 'utf8')) as unknown;
  }
  return templates;
}

function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-8000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`synthesizing the CDK app: exited ${code ?? signal ?? '?'}\n${output}`));
    });
  });
}

/** Synthesizes the app (or reads the cached assembly for the same sources and options). */
export async function synthesizeApp(options: SynthAppOptions): Promise<SynthesizedApp> {
  const projectRoot = options.projectRoot ?? REPOSITORY_ROOT;
  const bundle = options.bundle ?? true;
  const cacheDir = options.cacheDir ?? join(tmpdir(), 'ec2-node-reconciler-synth');
  const cdkJson = JSON.parse(await readFile(join(projectRoot, 'cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  const context: Record<string, unknown> = {
    ...cdkJson.context,
    ...options.context,
    ...(bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
  };
  const key = await sourceHash(projectRoot, { context, bundle });
  const assemblyDir = join(cacheDir, key);
  if (existsSync(join(assemblyDir, 'manifest.json')))
    return { assemblyDir, templates: await readTemplates(assemblyDir), cached: true, key };

  await mkdir(cacheDir, { recursive: true });
  // Synthesize next to the final place, then rename: a concurrent synth of the same key never sees half an assembly.
  const staging = join(cacheDir, `${key}.${process.pid}.${Date.now()}.tmp`);
  try {
    await run(process.execPath, ['--import', 'tsx', relative(projectRoot, join(projectRoot, 'infra', 'app.ts'))], {
      cwd: projectRoot,
      env: { ...process.env, CDK_OUTDIR: staging, CDK_CONTEXT_JSON: JSON.stringify(context) },
      timeoutMs: options.timeoutMs ?? 300_000,
    });
    await rename(staging, assemblyDir).catch(async (error: unknown) => {
      // Another process won the race with the same sources: use its assembly.
      if (!existsSync(join(assemblyDir, 'manifest.json'))) throw error;
      await rm(staging, { recursive: true, force: true });
    });
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
  return { assemblyDir, templates: await readTemplates(assemblyDir), cached: false, key };
}
