// The benchmark table of docs/benchmarks.md, generated from bench/results.json: `npm run bench` (a full run)
// rewrites it between the two markers, and test/bench/table.test.ts holds the two together.
import * as z from 'zod';
import { meetsGoal, type BenchResults } from './results.js';

export const TABLE_START = '<!-- bench-table:start (generated from bench/results.json by `npm run bench`) -->';
export const TABLE_END = '<!-- bench-table:end -->';

const ResultSchema = z.object({
  name: z.string().min(1),
  unit: z.enum(['s', 'ms', 'MiB', 'MB', 'x', 'count', '%', '/s']),
  value: z.number(),
  goal: z.number(),
  better: z.enum(['lower', 'higher']),
});

export const BenchResultsSchema = z.object({
  machine: z.string(),
  node: z.string(),
  date: z.string(),
  results: z.array(ResultSchema),
});

/** bench/results.json's text, checked. */
export function parseResults(text: string): BenchResults {
  return BenchResultsSchema.parse(JSON.parse(text));
}

/** The Markdown table (and the line naming where it was measured) for `results`. */
export function benchTable(file: BenchResults): string {
  const rows = file.results.map(
    (r) =>
      `| ${r.name} | ${r.value} ${r.unit} | ${r.better === 'lower' ? '≤' : '≥'} ${r.goal} ${r.unit} | ${meetsGoal(r) ? 'met' : '**missed**'} |`,
  );
  return [
    `Last full run: ${file.date}, Node ${file.node}, ${file.machine}.`,
    '',
    '| result | value | goal | |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** `doc` with the text between the markers replaced by the table of `file`; throws if the markers are missing. */
export function withBenchTable(doc: string, file: BenchResults): string {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`no ${TABLE_START} … ${TABLE_END} section`);
  return `${doc.slice(0, start + TABLE_START.length)}\n${benchTable(file)}\n${doc.slice(end)}`;
}
