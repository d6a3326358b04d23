/**
 * Builds the command line (cli/main.ts) to plain JavaScript, so `ec2-node-reconciler` starts
 * without compiling TypeScript: `npm ci` runs it (`prepare`), so do the tests that run the binary
 * (test/support/build-cli.setup.ts) and `npm start`.
 *
 *   npx tsx scripts/build-cli.ts
 *
 * Where the build goes is package.json's `imports["#cli"]`, the specifier the binary imports. The
 * npm packages stay external (node_modules is next to the build). Each command is a chunk of its own,
 * imported when it runs: `--help` loads the entry alone. Beside the entry, `inputs.json` lists the
 * repository files the build read: the binary runs the TypeScript sources instead of a build older
 * than one of them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
const ENTRY = join(PROJECT_ROOT, 'cli', 'main.ts');
/** The list of the build's inputs, beside its entry (read by bin/ec2-node-reconciler.mjs). */
export const INPUTS_FILE = 'inputs.json';

/** The built entry, as package.json's `imports["#cli"]` names it. */
export function cliEntry(projectRoot: string = PROJECT_ROOT): string {
  const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as {
    imports?: Record<string, unknown>;
  };
  const target = manifest.imports?.['#cli'];
  if (typeof target !== 'string' || !target.endsWith('.mjs'))
    throw new Error('building the CLI: package.json imports["#cli"] must name the built entry (an .mjs file)');
  return join(projectRoot, target);
}

/**
 * `import.meta.url` as the source file's own URL, wherever its code lands: the sandbox finds the
 * files it builds and runs (the Lambda runtime worker, the CDK app) next to its own sources.
 * Every output file is in one directory, so the source is one relative URL away from any chunk.
 */
function sourceLocation(outdir: string): Plugin {
  return {
    name: 'source-location',
    setup(plugin) {
      plugin.onLoad({ filter: /\.ts$/ }, async ({ path }) => {
        if (path.split(sep).includes('node_modules')) return undefined;
        const text = await readFile(path, 'utf8');
        if (!text.includes('import.meta')) return undefined;
        if (/import\.meta\.(dirname|filename)/.test(text))
          throw new Error(
            `${relative(PROJECT_ROOT, path)}: use import.meta.url (the CLI build maps only that to the source's location)`,
          );
        const url = `new URL(${JSON.stringify(relative(outdir, path).split(sep).join('/'))}, import.meta.url).href`;
        return { contents: text.replaceAll('import.meta.url', url), loader: 'ts' };
      });
    },
  };
}

/** The repository's own workspace packages (the sandbox), bundled with the CLI like its sources. */
const WORKSPACE_SCOPE = '@ec2-node-reconciler/';

/** npm packages stay external (node_modules is next to the build); the workspace's are sources. */
const npmPackagesExternal: Plugin = {
  name: 'npm-packages-external',
  setup(plugin) {
    plugin.onResolve({ filter: /^[^./]/ }, ({ path }) =>
      path.startsWith(WORKSPACE_SCOPE) ? undefined : { path, external: true },
    );
  },
};

export interface CliBuild {
  /** The built entry (package.json `imports["#cli"]`). */
  readonly entry: string;
  /** The repository files it was built from, relative to the repository. */
  readonly inputs: readonly string[];
}

/** Builds the CLI into a staging directory, then puts it in place of the previous build. */
export async function buildCli(projectRoot: string = PROJECT_ROOT): Promise<CliBuild> {
  const entry = cliEntry(projectRoot);
  const outdir = dirname(entry);
  const staging = `${outdir}.${process.pid}.tmp`;
  await rm(staging, { recursive: true, force: true });
  try {
    const result = await build({
      absWorkingDir: projectRoot,
      entryPoints: [{ in: ENTRY, out: relative(outdir, entry).replace(/\.mjs$/, '') }],
      outdir: staging,
      outExtension: { '.js': '.mjs' },
      chunkNames: 'chunk-[hash]',
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node22',
      sourcemap: true,
      metafile: true,
      logLevel: 'warning',
      plugins: [npmPackagesExternal, sourceLocation(outdir)],
    });
    const inputs = Object.keys(result.metafile.inputs)
      .filter((file) => !file.includes('node_modules/'))
      .sort();
    await writeFile(join(staging, INPUTS_FILE), `${JSON.stringify(inputs, null, 1)}\n`);
    await mkdir(dirname(outdir), { recursive: true });
    await rm(outdir, { recursive: true, force: true });
    await rename(staging, outdir).catch(async (error: unknown) => {
      // Another build of the same sources got there in between: keep its output.
      if (!existsSync(entry)) throw error;
      await rm(staging, { recursive: true, force: true });
    });
    return { entry, inputs };
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw new Error('building the CLI', { cause: error });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { entry, inputs } = await buildCli();
  process.stdout.write(`built ${relative(PROJECT_ROOT, entry)} from ${inputs.length} files\n`);
}
