// `npm run bench [name-filter]`: timing and memory goals are checked here, never in timed tests.
// Each test/bench/<name>.bench.ts default-exports an async function returning its figures.
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export type BenchFigures = Record<string, number | string | boolean>;
export type Bench = () => Promise<BenchFigures>;

const here = dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2] ?? '';
const files = (await readdir(here)).filter((f) => f.endsWith('.bench.ts') && f.includes(filter)).sort();
if (files.length === 0) process.stdout.write('no benchmarks yet\n');
let failed = false;
for (const file of files) {
  const mod = (await import(pathToFileURL(join(here, file)).href)) as { default: Bench };
  const started = performance.now();
  try {
    const figures = await mod.default();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    process.stdout.write(`${file} (${seconds} s)\n`);
    for (const [key, value] of Object.entries(figures)) process.stdout.write(`  ${key}: ${String(value)}\n`);
  } catch (error) {
    failed = true;
    process.stdout.write(`${file}: FAILED ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  }
}
process.exitCode = failed ? 1 : 0;
