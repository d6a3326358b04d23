// `npm run bench [name-filter]`: timing and memory goals are checked here, never in timed tests.
// Each test/bench/<name>.bench.ts default-exports an async function returning its figures and the
// named results it measures. A full run (no filter) writes bench/results.json, which must then
// hold every result EXPECTED_RESULTS names; docs/benchmarks.md's table is generated from that file
// (test/bench/support/table.ts): a full run rewrites it.
import { execFileSync } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  EXPECTED_RESULTS,
  formatResults,
  meetsGoal,
  RESULTS_FILE,
  type BenchResult,
  type BenchResults,
} from './support/results.js';
import { parseResults, withBenchTable } from './support/table.js';

export type BenchFigures = Record<string, number | string | boolean>;
/** What a benchmark returns: figures to print, and the named results it measures (bench/results.json). */
export interface BenchOutput {
  readonly figures: BenchFigures;
  readonly results?: readonly BenchResult[];
}
export type Bench = () => Promise<BenchOutput>;

const here = dirname(fileURLToPath(import.meta.url));
const BENCH_DOC = join(here, '..', '..', 'docs', 'benchmarks.md');

/** `2 cores, AMD EPYC` (lscpu's model name when the kernel's is generic). */
function machine(): string {
  const model = cpus()[0]?.model.trim() ?? 'unknown';
  let detail = '';
  try {
    detail = /Model name:\s*(.+)/.exec(execFileSync('lscpu', { encoding: 'utf8' }))?.[1]?.trim() ?? '';
  } catch {
    // no lscpu: the kernel's name will do
  }
  return `${cpus().length} cores, ${detail.length > model.length ? detail : model}`;
}

async function main(): Promise<void> {
  const filter = process.argv[2] ?? '';
  const files = (await readdir(here)).filter((f) => f.endsWith('.bench.ts') && f.includes(filter)).sort();
  if (files.length === 0) process.stdout.write('no benchmarks match\n');
  let failed = false;
  const results: BenchResult[] = [];
  for (const file of files) {
    const mod = (await import(pathToFileURL(join(here, file)).href)) as { default: Bench };
    const started = performance.now();
    try {
      const output = await mod.default();
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      process.stdout.write(`${file} (${seconds} s)\n`);
      for (const [key, value] of Object.entries(output.figures)) process.stdout.write(`  ${key}: ${String(value)}\n`);
      results.push(...(output.results ?? []));
    } catch (error) {
      failed = true;
      process.stdout.write(
        `${file}: FAILED ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
    }
  }
  if (results.length > 0) process.stdout.write(`\n${formatResults(results)}\n`);
  const missed = results.filter((r) => !meetsGoal(r));
  if (filter === '' && !failed) {
    const byName = new Map(results.map((r) => [r.name, r]));
    const absent = EXPECTED_RESULTS.filter((name) => !byName.has(name));
    if (absent.length > 0) {
      failed = true;
      process.stdout.write(`missing results: ${absent.join(', ')}\n`);
    } else {
      const file: BenchResults = {
        machine: machine(),
        node: process.version,
        date: new Date().toISOString().slice(0, 10),
        results: EXPECTED_RESULTS.map((name) => byName.get(name)).filter((r): r is BenchResult => r !== undefined),
      };
      await writeFile(RESULTS_FILE, `${JSON.stringify(file, null, 2)}\n`);
      await writeFile(BENCH_DOC, withBenchTable(await readFile(BENCH_DOC, 'utf8'), file));
      process.stdout.write(`wrote ${RESULTS_FILE} and the table in ${BENCH_DOC}\n`);
    }
  }
  if (filter !== '' && !failed && results.length > 0) {
    // A filtered run updates the results it measured (one benchmark re-measured after a change, or a
    // result added) and keeps the others: the file and the table in BENCH_DOC stay whole.
    const previous = parseResults(await readFile(RESULTS_FILE, 'utf8'));
    const byName = new Map([...previous.results, ...results].map((r) => [r.name, r]));
    const file: BenchResults = {
      ...previous,
      results: EXPECTED_RESULTS.map((name) => byName.get(name)).filter((r): r is BenchResult => r !== undefined),
    };
    await writeFile(RESULTS_FILE, `${JSON.stringify(file, null, 2)}\n`);
    await writeFile(BENCH_DOC, withBenchTable(await readFile(BENCH_DOC, 'utf8'), file));
    process.stdout.write(
      `updated ${results.map((r) => r.name).join(', ')} in ${RESULTS_FILE} and the table in ${BENCH_DOC}\n`,
    );
  }
  if (missed.length > 0) process.stdout.write(`goals missed: ${missed.map((r) => r.name).join(', ')}\n`);
  process.exitCode = failed || missed.length > 0 ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
