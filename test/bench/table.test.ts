// bench/results.json is the last full `npm run bench`; docs/benchmarks.md's table must be the one generated from it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXPECTED_RESULTS, RESULTS_FILE } from './support/results.js';
import { benchTable, parseResults, TABLE_END, TABLE_START, withBenchTable } from './support/table.js';

const benchDoc = readFileSync(new URL('../../docs/benchmarks.md', import.meta.url), 'utf8');
const results = parseResults(readFileSync(RESULTS_FILE, 'utf8'));

describe('benchmark results', () => {
  it('should hold every named result, in order, in the format issue #17 fixed', () => {
    expect(results.results.map((r) => r.name)).toEqual([...EXPECTED_RESULTS]);
    expect(results.node).toMatch(/^v\d+\./);
    expect(results.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('should be what docs/benchmarks.md’s table shows', () => {
    expect(withBenchTable(benchDoc, results)).toBe(benchDoc);
    expect(benchDoc).toContain(benchTable(results));
  });

  it('should put the table between its markers, replacing what was there', () => {
    const text = `a\n${TABLE_START}\nSTALE-TABLE\n${TABLE_END}\nb`;
    const out = withBenchTable(text, results);
    expect(out).not.toContain('STALE-TABLE');
    expect(out.startsWith(`a\n${TABLE_START}\nLast full run: ${results.date}`)).toBe(true);
    expect(out.endsWith(`${TABLE_END}\nb`)).toBe(true);
    expect(() => withBenchTable('no markers', results)).toThrow(/no <!-- bench-table:start/);
  });
});
