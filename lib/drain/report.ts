import type { PodRef } from './api.js';
import type { RetryStatus } from './state.js';

/** What happened to one pod, in words a report row or a Kubernetes Event can show as is. */
export type PodStatus =
  /** Evicted and gone. */
  | 'evicted'
  /** Deleted (an orphaned DaemonSet pod) and gone. */
  | 'deleted'
  /** Went away without our removal, or was replaced under its name. */
  | 'gone'
  /** Terminating: evicted by this drain or already terminating before; waited on. */
  | 'terminating'
  /** To be evicted, not attempted yet (only at a deadline). */
  | 'pending'
  /** Waited on for another reason (its DaemonSet could not be looked up). */
  | 'waiting'
  | 'skipped-daemonset'
  | 'skipped-mirror'
  /** Terminating for longer than skipWaitForDeleteTimeout. */
  | 'skipped-terminating'
  /** The settings forbid evicting it (emptyDir, no controller, orphaned DaemonSet pod). */
  | 'refused'
  | RetryStatus;

export interface PodReport {
  readonly pod: PodRef;
  readonly status: PodStatus;
  /** Why, ending with the fix where there is one. */
  readonly reason: string;
  /** The PodDisruptionBudget that refused the eviction, as `namespace/name`, when the server named it. */
  readonly pdb?: string;
  /** Remarks on an evicted pod (emptyDir data lost, no controller to recreate it). */
  readonly notes?: readonly string[];
  /** Still on the node when the deadline passed. */
  readonly leftAtDeadline?: true;
}

export interface BlockedPod {
  readonly pod: PodRef;
  readonly reason: string;
  readonly pdb?: string;
}

const FINISHED: ReadonlySet<PodStatus> = new Set(['evicted', 'deleted', 'gone']);
const SKIPPED: ReadonlySet<PodStatus> = new Set(['skipped-daemonset', 'skipped-mirror', 'skipped-terminating']);
const BLOCKED: ReadonlySet<PodStatus> = new Set(['blocked-by-pdb', 'throttled', 'multiple-pdbs', 'eviction-failed', 'refused']);

/** Still on the node and meant to go (refused pods included: they are left, not drained). */
export const isLeft = (report: PodReport): boolean => !FINISHED.has(report.status) && !SKIPPED.has(report.status);
export const isBlocked = (report: PodReport): boolean => BLOCKED.has(report.status);
export const isFinishedReport = (report: PodReport): boolean => FINISHED.has(report.status);
export const isSkipped = (report: PodReport): boolean => SKIPPED.has(report.status);

export interface DrainCounts {
  readonly evicted: number;
  readonly deleted: number;
  readonly gone: number;
  readonly terminating: number;
  readonly left: number;
  readonly blocked: number;
  readonly skipped: number;
}

export function countReports(reports: readonly PodReport[]): DrainCounts {
  const count = (test: (r: PodReport) => boolean): number => reports.filter(test).length;
  return {
    evicted: count((r) => r.status === 'evicted'),
    deleted: count((r) => r.status === 'deleted'),
    gone: count((r) => r.status === 'gone'),
    terminating: count((r) => r.status === 'terminating'),
    left: count(isLeft),
    blocked: count(isBlocked),
    skipped: count(isSkipped),
  };
}

/** One line per pod, e.g. `default/web-1: blocked-by-pdb (default/web-pdb) — …`. */
export function formatReport(report: PodReport): string {
  const pdb = report.pdb ? ` (${report.pdb})` : '';
  const deadline = report.leftAtDeadline ? ' [left at deadline]' : '';
  return `${report.pod.namespace}/${report.pod.name}: ${report.status}${pdb} — ${report.reason}${deadline}`;
}

/** One progress line for a CLI or a log: `evicted 5, terminating 2, left 3; blocked: default/db-0 by PDB default/db`. */
export function progressLine(counts: DrainCounts, blocked: readonly BlockedPod[]): string {
  const parts = [`evicted ${counts.evicted + counts.deleted}`, `terminating ${counts.terminating}`, `left ${counts.left}`];
  const why = blocked.map((b) => `${b.pod.namespace}/${b.pod.name}${b.pdb ? ` by PDB ${b.pdb}` : ` (${b.reason})`}`);
  return why.length > 0 ? `${parts.join(', ')}; blocked: ${why.join(', ')}` : parts.join(', ');
}
