import {
  SUMMARY_EXAMPLES,
  type DrainEnd,
  type DrainSummary,
} from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import { podKey, type PodRef } from './api.js';
import type { Refusal, RetryStatus } from './state.js';

/** What happened to one pod, in words a report row or a Kubernetes Event can show as is. */
export type PodStatus =
  /** Evicted by this drain and gone (or its name now belongs to a new pod). */
  | 'evicted'
  /** Went away without this drain's removal (it was already terminating, or someone else deleted it). */
  | 'gone'
  /** Terminating: evicted by this drain (`removal`) or already terminating before; waited on. */
  | 'terminating'
  /** To be evicted, not attempted yet. */
  | 'pending'
  /** Waited on for another reason (its DaemonSet could not be looked up). */
  | 'waiting'
  | 'skipped-daemonset'
  | 'skipped-mirror'
  /** Terminating for longer than skipWaitForDeleteTimeout. */
  | 'skipped-terminating'
  /** A new pod (new uid) under the name of one this drain evicted or saw terminate: finished for the drain, as for kubectl. */
  | 'recreated'
  /** The settings forbid evicting it (`refusal`: emptyDir, no controller, orphaned DaemonSet pod). */
  | 'refused'
  | RetryStatus;

/** How a drain ended without the pod gone. */
export type LeftAt = Exclude<DrainEnd, 'done'>;

export interface PodReport {
  readonly pod: PodRef;
  readonly status: PodStatus;
  /** Why, ending with the fix where there is one. */
  readonly reason: string;
  /** This drain evicted the pod (it may still be terminating). */
  readonly removal?: 'evicted';
  /** refused: the filter that refused it. */
  readonly refusal?: Refusal;
  /** The PodDisruptionBudget that refused the eviction, as `namespace/name`, when the server named it. */
  readonly pdb?: string;
  /** Remarks on an evicted pod (emptyDir data lost, no controller to recreate it). */
  readonly notes?: readonly string[];
  /** Seconds: the pod's own grace period and the shorter one this drain gave it to end before the deadline. */
  readonly grace?: { readonly pod: number; readonly given: number };
  /** Still on the node (as far as the drain knows) when the drain ended this way. */
  readonly left?: LeftAt;
}

export interface BlockedPod {
  readonly pod: PodRef;
  readonly reason: string;
  readonly pdb?: string;
}

const FINISHED: ReadonlySet<PodStatus> = new Set(['evicted', 'gone']);
const SKIPPED: ReadonlySet<PodStatus> = new Set([
  'skipped-daemonset',
  'skipped-mirror',
  'skipped-terminating',
  'recreated',
]);
const BLOCKED: ReadonlySet<PodStatus> = new Set([
  'blocked-by-pdb',
  'throttled',
  'multiple-pdbs',
  'eviction-failed',
  'refused',
]);
const LEFT: ReadonlySet<PodStatus> = new Set(['pending', 'waiting', ...BLOCKED]);

/** Still on the node, meant to go, and not going: not yet evicted, refused or blocked (terminating pods are going). */
export const isLeft = (report: PodReport): boolean => LEFT.has(report.status);
export const isBlocked = (report: PodReport): boolean => BLOCKED.has(report.status);
export const isFinishedReport = (report: PodReport): boolean => FINISHED.has(report.status);
export const isSkipped = (report: PodReport): boolean => SKIPPED.has(report.status);
/** The drain waits for it: still to go, terminating, or blocked for now (refused pods wait for nothing). */
export const isUnfinished = (report: PodReport): boolean =>
  report.status === 'terminating' || (isLeft(report) && report.status !== 'refused');

/** A left pod's reason as a code: its status, or for a refused pod the filter that refused it. */
export const reasonCode = (report: PodReport): string =>
  report.status === 'refused' ? (report.refusal ?? 'refused') : report.status;

export interface DrainCounts {
  /** Evicted by this drain, gone or still terminating. */
  readonly evicted: number;
  /** Went away without this drain's removal. */
  readonly gone: number;
  /** Still terminating (evicted by this drain or not). */
  readonly terminating: number;
  /** Still on the node and not going (isLeft). */
  readonly left: number;
  /** Of those left: refused, or whose eviction was refused. */
  readonly blocked: number;
  readonly skipped: number;
}

export function countReports(reports: readonly PodReport[]): DrainCounts {
  const count = (test: (r: PodReport) => boolean): number => reports.filter(test).length;
  return {
    evicted: count((r) => r.removal === 'evicted'),
    gone: count((r) => r.status === 'gone'),
    terminating: count((r) => r.status === 'terminating'),
    left: count(isLeft),
    blocked: count(isBlocked),
    skipped: count(isSkipped),
  };
}

/** The bounded summary of a drain: counts, reasons and PDBs by count, and at most SUMMARY_EXAMPLES named pods per list. */
export function summarize(reports: readonly PodReport[]): DrainSummary {
  const counts = countReports(reports);
  const left = reports.filter(isLeft);
  const leftByReason: Record<string, number> = {};
  for (const report of left) leftByReason[reasonCode(report)] = (leftByReason[reasonCode(report)] ?? 0) + 1;
  const byPdb = new Map<string, number>();
  for (const report of left) if (report.pdb !== undefined) byPdb.set(report.pdb, (byPdb.get(report.pdb) ?? 0) + 1);
  const shortened = reports.filter((r) => r.grace !== undefined);
  return {
    evicted: counts.evicted,
    terminating: counts.terminating,
    gone: counts.gone,
    left: counts.left,
    skipped: counts.skipped,
    leftByReason,
    blockingPdbs: [...byPdb]
      .sort(([a, m], [b, n]) => n - m || a.localeCompare(b))
      .slice(0, SUMMARY_EXAMPLES)
      .map(([pdb, pods]) => ({ pdb, pods })),
    examples: left
      .slice(0, SUMMARY_EXAMPLES)
      .map((r) => ({ pod: podKey(r.pod), reason: reasonCode(r), ...(r.pdb !== undefined ? { pdb: r.pdb } : {}) })),
    graceShortened: {
      pods: shortened.length,
      examples: shortened.slice(0, SUMMARY_EXAMPLES).map((r) => ({
        pod: podKey(r.pod),
        seconds: r.grace?.given ?? 0,
        ...(r.grace ? { podSeconds: r.grace.pod } : {}),
      })),
    },
  };
}

/** One line per pod, e.g. `default/web-1: blocked-by-pdb (default/web-pdb) — … [left: deadline]`. */
export function formatReport(report: PodReport): string {
  const pdb = report.pdb ? ` (${report.pdb})` : '';
  const left = report.left ? ` [left: ${report.left}]` : '';
  return `${report.pod.namespace}/${report.pod.name}: ${report.status}${pdb} — ${report.reason}${left}`;
}

/** What an operator reads when a drain ends: each pod left (and why), and each grace period shortened. */
export function endLines(reports: readonly PodReport[]): string[] {
  return [
    ...reports.filter((r) => r.left !== undefined && r.status !== 'terminating').map((r) => `left ${formatReport(r)}`),
    ...reports.flatMap((r) =>
      r.grace ? [`grace shortened ${r.pod.namespace}/${r.pod.name}: ${r.grace.pod}s → ${r.grace.given}s`] : [],
    ),
  ];
}

/** Pods named in one progress line at most; the rest are counted. */
const PROGRESS_NAMES = 5;

/** One progress line for a CLI or a log: `evicted 5, terminating 2, left 3; blocked: default/db-0 by PDB default/db`. */
export function progressLine(counts: DrainCounts, blocked: readonly BlockedPod[]): string {
  const parts = [`evicted ${counts.evicted}`, `terminating ${counts.terminating}`, `left ${counts.left}`];
  const why = blocked
    .slice(0, PROGRESS_NAMES)
    .map((b) => `${b.pod.namespace}/${b.pod.name}${b.pdb ? ` by PDB ${b.pdb}` : ` (${b.reason})`}`);
  if (blocked.length > PROGRESS_NAMES) why.push(`and ${blocked.length - PROGRESS_NAMES} more`);
  return why.length > 0 ? `${parts.join(', ')}; blocked: ${why.join(', ')}` : parts.join(', ');
}
