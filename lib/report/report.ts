import type { ActionOutcome, OutcomeKind } from '../act/outcome.js';
import type { Action, ActionKind, Plan, SkippedAction } from '@ec2-node-reconciler/model/action.js';
import { CONDITIONS, type ClassifiedPair, type Condition } from '@ec2-node-reconciler/model/condition.js';

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
  /** For lifecycle completions: the result sent (ABANDON terminates at once, CONTINUE lets the hooks' order go on). */
  readonly result?: Extract<Action, { kind: 'complete-lifecycle' }>['result'];
  /** For drains: `start` records and starts one; `join` hands a running one a deadline or a lifecycle action. */
  readonly mode?: Extract<Action, { kind: 'drain' }>['mode'];
}

/** One JSON report per run (docs/design.md §3): what was seen, decided, done and skipped, and what failed. */
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

function countConditions(pairs: readonly ClassifiedPair[]): Record<Condition, number> {
  const counts = Object.fromEntries(CONDITIONS.map((c) => [c, 0])) as Record<Condition, number>;
  for (const pair of pairs) counts[pair.condition] += 1;
  return counts;
}

function toRows(pairs: readonly ClassifiedPair[]): ReportRow[] {
  return pairs.map((p) => ({
    ...(p.node ? { node: p.node.name } : {}),
    ...(p.instanceId ? { instanceId: p.instanceId } : {}),
    condition: p.condition,
    reason: p.reason,
  }));
}

function toReportActions(outcomes: readonly ActionOutcome[]): ReportAction[] {
  return outcomes.map(({ action, outcome, detail }) => ({
    kind: action.kind,
    ...('node' in action && action.node !== undefined ? { node: action.node } : {}),
    ...(action.instanceId !== undefined ? { instanceId: action.instanceId } : {}),
    reason: action.reason,
    outcome,
    ...(detail !== undefined ? { detail } : {}),
    ...(action.kind === 'report' ? { condition: action.condition } : {}),
    ...(action.kind === 'repair' ? { step: action.step } : {}),
    ...(action.kind === 'complete-lifecycle' ? { result: action.result } : {}),
    ...(action.kind === 'drain' ? { mode: action.mode } : {}),
  }));
}

/** What one run saw, decided and did: what its report is made of. */
export interface RunFacts {
  readonly kind: RunReport['kind'];
  readonly cluster: string;
  /** The run's clock when it started (virtual in the sandbox), epoch milliseconds. */
  readonly startedAt: number;
  readonly pairs: readonly ClassifiedPair[];
  readonly plan: Pick<Plan, 'dryRun' | 'skipped' | 'breaker'>;
  readonly outcomes: readonly ActionOutcome[];
  /** What could not be observed and must be tried again. */
  readonly incomplete: readonly string[];
  /** What could not be observed, where trying again would not help: an error, not incomplete. */
  readonly reported: readonly string[];
  /** Events and output events that could not be sent. */
  readonly notifyErrors: readonly string[];
  /** performance.now() as the run started and as each phase ended: wall time, apart from the run's clock. */
  readonly marks: {
    readonly start: number;
    readonly observed: number;
    readonly decided: number;
    readonly done: number;
  };
  readonly apiCalls: Readonly<Record<string, number>>;
}

/** The run's one JSON report (docs/design.md §3): its failed actions are errors beside what could not be observed or sent. */
export function runReport(facts: RunFacts): RunReport {
  const { plan, outcomes, marks } = facts;
  return {
    kind: facts.kind,
    cluster: facts.cluster,
    startedAt: new Date(facts.startedAt).toISOString(),
    durationMs: Math.round(marks.done - marks.start),
    dryRun: plan.dryRun,
    conditions: countConditions(facts.pairs),
    rows: toRows(facts.pairs),
    actions: toReportActions(outcomes),
    skipped: plan.skipped,
    ...(plan.breaker ? { breaker: plan.breaker } : {}),
    incomplete: [...facts.incomplete],
    errors: [
      ...facts.incomplete,
      ...facts.reported,
      ...outcomes
        .filter((o) => o.outcome === 'failed')
        .map(
          (o) => `${o.action.kind}${'node' in o.action && o.action.node ? ` ${o.action.node}` : ''}: ${o.detail ?? ''}`,
        ),
      ...facts.notifyErrors,
    ],
    timings: {
      observeMs: Math.round(marks.observed - marks.start),
      decideMs: Math.round(marks.decided - marks.observed),
      actMs: Math.round(marks.done - marks.decided),
    },
    apiCalls: facts.apiCalls,
  };
}
