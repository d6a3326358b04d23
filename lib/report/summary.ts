import type { ReportAction, ReportRow, RunReport } from './report.js';

/** How many of each list a summary keeps: with ~200 bytes an entry, a summary stays well under 100 KB. */
export const SUMMARY_LIST_LIMIT = 50;

/** How many entries of each list a summary left out (only the lists it cut). */
export interface OmittedCounts {
  readonly rows?: number;
  readonly actions?: number;
  readonly skipped?: number;
  readonly errors?: number;
  readonly incomplete?: number;
}

/**
 * A run report cut to a bounded size, whatever the cluster's: the counts whole, at most `limit` of
 * each list, and how many it left out (a report within bounds is the report). What a sweep logs and returns (a log line is cut past 256 KB,
 * a synchronous Lambda response fails past 6 MB, and a full report is ~173 bytes a node). The
 * rows kept are the divergences first (an in-sync pair says little the counts do not); the actions kept
 * are the failed ones first, then the mutations, then reports; every action also goes out as an
 * output event, and `sweep --dry-run` prints every row.
 */
export interface ReportSummary extends RunReport {
  readonly omitted?: OmittedCounts;
}

/** The first `limit` of `items`, taken in order of `rank` (lower first), kept in their own order. */
function firstByRank<T>(items: readonly T[], limit: number, rank: (item: T) => number): T[] {
  if (items.length <= limit) return [...items];
  const kept = items
    .map((item, index) => ({ index, rank: rank(item) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .slice(0, limit)
    .map((entry) => entry.index)
    .sort((a, b) => a - b);
  return kept.flatMap((index) => (index < items.length ? [items[index] as T] : []));
}

const actionRank = (action: ReportAction): number =>
  action.outcome === 'failed' ? 0 : action.kind === 'report' ? 2 : 1;
const rowRank = (row: ReportRow): number => (row.condition === 'in-sync' ? 1 : 0);

/** `report` with each list cut to `limit` entries (see ReportSummary); a report within bounds comes back whole. */
export function summarizeReport(report: RunReport, limit = SUMMARY_LIST_LIMIT): ReportSummary {
  const rows = firstByRank(report.rows, limit, rowRank);
  const actions = firstByRank(report.actions, limit, actionRank);
  const skipped = report.skipped.slice(0, limit);
  const errors = report.errors.slice(0, limit);
  const incomplete = report.incomplete.slice(0, limit);
  const omitted: Record<keyof OmittedCounts, number> = {
    rows: report.rows.length - rows.length,
    actions: report.actions.length - actions.length,
    skipped: report.skipped.length - skipped.length,
    errors: report.errors.length - errors.length,
    incomplete: report.incomplete.length - incomplete.length,
  };
  const cut = Object.entries(omitted).filter(([, n]) => n > 0);
  return {
    ...report,
    rows,
    actions,
    skipped,
    errors,
    incomplete,
    ...(cut.length > 0 ? { omitted: Object.fromEntries(cut) } : {}),
  };
}
