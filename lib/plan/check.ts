// The rails a planned action passes, shaped like kubectl's drain filters (lib/drain/filters.ts): each rail
// is a plain function from what is decided about to a verdict, and a list of them runs in a fixed order
// until one refuses. The order is the documented order of evaluation (docs/design.md §1b, §4): the first
// refusal is the one the report gives.
import type { SkippedAction } from '@ec2-node-reconciler/model/action.js';

export interface Refusal<Code extends string> {
  readonly action: 'refuse';
  /** Which rail refused: one code per rail. */
  readonly code: Code;
  /** Why, in a sentence fit for the report's skipped action and the Node's Event. */
  readonly reason: string;
  /** What a refusal for the group's health carries into the skipped action (a stand-down, a back-off). */
  readonly extra: RefusalExtra;
}

export type RefusalExtra = Pick<SkippedAction, 'standDown' | 'backOff'>;

export type Verdict<Code extends string> = { readonly action: 'pass' } | Refusal<Code>;

export type Check<Subject, Code extends string> = (subject: Subject) => Verdict<Code>;

// Verdicts are built only here, so every refusal carries a code and a reason.
const PASSED = { action: 'pass' } as const;
export const pass = (): { readonly action: 'pass' } => PASSED;
export const refuse = <Code extends string>(code: Code, reason: string, extra: RefusalExtra = {}): Refusal<Code> => ({
  action: 'refuse',
  code,
  reason,
  extra,
});

/** Runs the checks in their order; the first refusal decides, and undefined means every check passed. */
export function firstRefusal<Subject, Code extends string>(
  checks: readonly Check<Subject, Code>[],
  subject: Subject,
): Refusal<Code> | undefined {
  for (const check of checks) {
    const verdict = check(subject);
    if (verdict.action === 'refuse') return verdict;
  }
  return undefined;
}
