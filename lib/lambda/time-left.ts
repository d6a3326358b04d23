import type { Context } from 'aws-lambda';

/** Kept back from the invocation's remaining time to return the report, log and flush metrics. */
export const REPORT_MARGIN_MS = 2_000;

/** The time Kubernetes calls may still take in this invocation (Lambda's remaining time, less the margin). */
export function timeLeftIn(context: Pick<Context, 'getRemainingTimeInMillis'> | undefined): {
  remainingMs?: () => number;
} {
  return context ? { remainingMs: () => context.getRemainingTimeInMillis() - REPORT_MARGIN_MS } : {};
}
