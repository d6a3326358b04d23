// What `doctor` reports: one line per check, ✓ passed, ✗ failed (with the fix), or ? could not be
// checked (an API the caller may not read, a deploy in progress). Every decision of cli/doctor is a
// function from what was read to Checks; the reads are cli/aws/deployment-reads.ts and
// cli/kube/access-reviews.ts, the wiring cli/run/doctor.ts.

export const CHECK_STATUSES = ['pass', 'fail', 'unknown'] as const;
export type CheckStatus = (typeof CHECK_STATUSES)[number];

export interface Check {
  /** What kind of thing is checked: `access entry`, `rbac`, `iam`, `rules`, `dead-letter queue`, … */
  readonly check: string;
  /** Which one: `events role`, the stack's name, a rule's signal, … */
  readonly subject: string;
  readonly status: CheckStatus;
  /** What was found, in a line. */
  readonly detail: string;
  /** What to run or change, for a check that did not pass. */
  readonly fix?: string;
}

export const passed = (check: string, subject: string, detail: string): Check => ({
  check,
  subject,
  status: 'pass',
  detail,
});

export const failed = (check: string, subject: string, detail: string, fix: string): Check => ({
  check,
  subject,
  status: 'fail',
  detail,
  fix,
});

export const unknown = (check: string, subject: string, detail: string, fix?: string): Check => ({
  check,
  subject,
  status: 'unknown',
  detail,
  ...(fix !== undefined ? { fix } : {}),
});

/** What a read gave: its value, or why there is none (the API's error, in a line). */
export type Read<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

export const readOk = <T>(value: T): Read<T> => ({ ok: true, value });
export const readFailed = <T>(error: string): Read<T> => ({ ok: false, error });

/** A check that could not be made because a read failed: the error, and what the caller needs to be allowed. */
export const couldNotRead = (check: string, subject: string, error: string, needs?: string): Check =>
  unknown(check, subject, `could not read: ${error}`, needs === undefined ? undefined : `doctor needs ${needs}`);

export interface CheckSummary {
  readonly passed: number;
  readonly failed: number;
  readonly unknown: number;
}

export function summarize(checks: readonly Check[]): CheckSummary {
  return {
    passed: checks.filter((c) => c.status === 'pass').length,
    failed: checks.filter((c) => c.status === 'fail').length,
    unknown: checks.filter((c) => c.status === 'unknown').length,
  };
}

/** The whole run's outcome: failed when a check failed, else unknown when one could not be made, else passed. */
export function outcomeOf(checks: readonly Check[]): CheckStatus {
  const { failed: fails, unknown: unknowns } = summarize(checks);
  if (fails > 0) return 'fail';
  return unknowns > 0 ? 'unknown' : 'pass';
}
