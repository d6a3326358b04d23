// What a simulation records: each step (and each delivery of the queue meanwhile), and the whole run.
import type { Denial } from './denials.js';
import type { DrainRecord } from './drain-records.js';
import type { ReportView } from './operator.js';

export type StepRecord<Report extends ReportView = ReportView> =
  | {
      readonly step: number;
      readonly at: number;
      readonly kind: 'sweep';
      /** The sweep function's report (absent when the invocation failed). */
      readonly report?: Report;
      /** Why the invocation failed (a function error, a timeout). */
      readonly failed?: string;
    }
  | {
      readonly step: number;
      readonly at: number;
      readonly kind: 'event';
      readonly detailType: string;
      /** The EventBridge event's id (what the reconciler's reports and drain names correlate on). */
      readonly eventId?: string;
      /** The instance ids the event names (its resources and detail), whichever the reconciler made of it. */
      readonly instanceIds?: readonly string[];
      /** Which receive of the record this was (1 = first delivery; more after failures). */
      readonly attempt: number;
      readonly report?: Report;
      readonly ignored?: string;
      /** A poison event: the record fails on every receive and ends in the dead-letter queue. */
      readonly rejected?: string;
      /** The record failed this time and comes back after the visibility timeout. */
      readonly failed?: string;
      /** The record moved to the dead-letter queue. */
      readonly deadLettered?: boolean;
    }
  | { readonly step: number; readonly at: number; readonly kind: 'advance'; readonly ms: number }
  | { readonly step: number; readonly at: number; readonly kind: 'settle' }
  | {
      readonly step: number;
      readonly at: number;
      readonly kind: 'drain';
      readonly node: string;
      readonly status: string;
      readonly message?: string;
    }
  | {
      readonly step: number;
      readonly at: number;
      readonly kind: 'cordon' | 'uncordon';
      readonly node: string;
      /** What kubectl said when the API refused the change (the Node does not exist): nothing was written. */
      readonly failed?: string;
    }
  | {
      readonly step: number;
      readonly at: number;
      readonly kind: 'condition';
      readonly node: string;
      readonly type: string;
      readonly status: string;
    };

export interface Simulation<Report extends ReportView = ReportView> {
  readonly name: string;
  readonly start: number;
  /** Classification before the first step and after the last (dry-run sweeps: nothing mutated). */
  readonly before: Report;
  readonly after: Report;
  readonly steps: readonly StepRecord<Report>[];
  readonly drains: readonly DrainRecord[];
  /** Calls the deployed IAM policies or the shipped RBAC refused. */
  readonly denied: readonly Denial[];
  readonly expectations?: ExpectationResult;
  /** With `--replay`: what the history was and what became of its events (the steps hold the rest). */
  readonly replay?: ReplaySummary;
}

/** What a replayed history fed, and what the bus and the events function made of it. */
export interface ReplaySummary {
  /** The virtual clock's span: the (moved) start to the end of the tail. */
  readonly from: string;
  readonly to: string;
  /** The deployed sweep schedule's interval. */
  readonly sweepEveryMs: number;
  /** Sweeps the schedule fired: those that ran and those left out. */
  readonly sweeps: number;
  /** Sweeps left out, by reason (sweep-skip.ts): they provably changed nothing. Empty with every sweep run. */
  readonly sweepsSkipped: Readonly<Record<string, number>>;
  /** Events read from the history. */
  readonly fed: number;
  /** Events a rule of the stack matched (each put on the signal queue). */
  readonly routed: number;
  /** Copies queued (two rules matching one event queue it twice, as EventBridge does). */
  readonly queued: number;
  /** Events that carried `replay-name`, fed as their originals. */
  readonly replayNamesStripped: number;
  /** Events ignored, by reason: before the bus, by the rules, by the events function. */
  readonly ignored: Readonly<Record<string, number>>;
}

/** How a scenario's `expect` held: how many held, and what each failure says. */
export interface ExpectationResult {
  readonly passed: number;
  readonly failures: readonly string[];
}
