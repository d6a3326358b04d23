import type { ActionOutcome, OutcomeKind } from '../act/outcome.js';
import type { Action, ActionKind, Plan, SkippedAction } from '../model/action.js';
import { CONDITIONS, type ClassifiedPair, type Condition } from '../model/condition.js';

export interface ReportRow {
  readonly node?: string;
  readonly instanceId?: string;
  readonly condition: Condition;
  readonly reason: string;
}

export interface ReportAction {
  readonly kind: ActionKind;
  readonly node?: string;
  readonly instanceId?: string;
  readonly reason: string;
  readonly outcome: OutcomeKind;
  readonly detail?: string;
  /** For report actions: the condition reported. */
  readonly condition?: Condition;
  /** For repair actions: which step (drain, replace, cancel). */
  readonly step?: Extract<Action, { kind: 'repair' }>['step'];
}

/** One JSON report per run (DESIGN §3): what was seen, decided, done and skipped, and what failed. */
export interface RunReport {
  readonly kind: 'sweep' | 'event';
  readonly cluster: string;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly dryRun: boolean;
  readonly conditions: Readonly<Record<Condition, number>>;
  readonly rows: readonly ReportRow[];
  readonly actions: readonly ReportAction[];
  readonly skipped: readonly SkippedAction[];
  readonly breaker?: Plan['breaker'];
  readonly errors: readonly string[];
  /** What could not be observed this run (failed lookups): an event run with any must be retried. */
  readonly incomplete: readonly string[];
  readonly timings: { readonly observeMs: number; readonly decideMs: number; readonly actMs: number };
  readonly apiCalls: Readonly<Record<string, number>>;
}

export function countConditions(pairs: readonly ClassifiedPair[]): Record<Condition, number> {
  const counts = Object.fromEntries(CONDITIONS.map((c) => [c, 0])) as Record<Condition, number>;
  for (const pair of pairs) counts[pair.condition] += 1;
  return counts;
}

export function toRows(pairs: readonly ClassifiedPair[]): ReportRow[] {
  return pairs.map((p) => ({
    ...(p.node ? { node: p.node.name } : {}),
    ...(p.instanceId ? { instanceId: p.instanceId } : {}),
    condition: p.condition,
    reason: p.reason,
  }));
}

export function toReportActions(outcomes: readonly ActionOutcome[]): ReportAction[] {
  return outcomes.map(({ action, outcome, detail }) => ({
    kind: action.kind,
    ...('node' in action && action.node !== undefined ? { node: action.node } : {}),
    ...(action.instanceId !== undefined ? { instanceId: action.instanceId } : {}),
    reason: action.reason,
    outcome,
    ...(detail !== undefined ? { detail } : {}),
    ...(action.kind === 'report' ? { condition: action.condition } : {}),
    ...(action.kind === 'repair' ? { step: action.step } : {}),
  }));
}
