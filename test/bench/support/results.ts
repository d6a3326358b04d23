// bench/results.json: the figures of the last `npm run bench`, one named result each, in the
// format issue #17 fixed. The benchmark table of docs/benchmarks.md is generated from this file
// (test/bench/support/table.ts) and test/bench/table.test.ts holds the two together.
import { fileURLToPath } from 'node:url';

export interface BenchResult {
  readonly name: string;
  readonly unit: 's' | 'ms' | 'MiB' | 'MB' | 'x' | 'count' | '%' | '/s';
  readonly value: number;
  readonly goal: number;
  readonly better: 'lower' | 'higher';
}

export interface BenchResults {
  readonly machine: string;
  readonly node: string;
  readonly date: string;
  readonly results: readonly BenchResult[];
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

export const meetsGoal = (r: Pick<BenchResult, 'value' | 'goal' | 'better'>): boolean =>
  r.better === 'lower' ? r.value <= r.goal : r.value >= r.goal;

/** bench/results.json, committed with the figures of the last full run. */
export const RESULTS_FILE = fileURLToPath(new URL('../../../bench/results.json', import.meta.url));

/** Every result a full `npm run bench` must produce, in the file's order (issue #17). */
export const EXPECTED_RESULTS = [
  'sweep-100k-wall',
  'sweep-100k-rss',
  'sweep-100k-api-calls-ratio',
  'sweep-100k-wall-latency50',
  'sweep-10k-wall',
  'sweep-1k-wall',
  'event-cordon-round-trips-warm',
  'event-cordon-round-trips-cold',
  'init-events-ms',
  'init-sweep-ms',
  'init-drain-step-ms',
  'cli-help-ms',
  'bundle-events-mb',
  'bundle-sweep-mb',
  'bundle-drain-step-mb',
  'drain-110-pods-wall-ratio-vs-kubectl',
  'drain-110-pods-requests-ratio-vs-kubectl',
  'simulate-100k-seed',
  'cdk-synth-offline',
  'storm-500-spot-cordoned-within-deadline-pct',
  'storm-500-spot-max-ec2-describe-per-s',
  'storm-500-spot-max-kube-inflight',
  'refresh-200-lifecycle-completed-pct',
  'snapshot-10k-nodes',
  'snapshot-10k-nodes-rss',
  'replay-30d-1k-nodes',
  'roundtrip-30d-1k-nodes-equal',
  'roundtrip-30d-1k-nodes-wall',
] as const;

/** A plain-text table of results against their goals (the bench's last words). */
export function formatResults(results: readonly BenchResult[]): string {
  const width = Math.max(...results.map((r) => r.name.length));
  return results
    .map(
      (r) =>
        `${r.name.padEnd(width)}  ${String(r.value).padStart(8)} ${r.unit.padEnd(5)} goal ${r.better === 'lower' ? '≤' : '≥'} ${r.goal}  ${meetsGoal(r) ? 'met' : 'MISSED'}`,
    )
    .join('\n');
}
