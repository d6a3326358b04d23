// The repair back-off (docs/design.md §1b): a group whose replacements keep failing is not repaired again and
// again. A failed replacement is the repair of a machine the group launched less than
// repair.failureWindow before (a replacement, or any new machine of its launch template, that went
// bad): after repair.maxFailedReplacements of them within one failureWindow, the group's repairs stand
// down until an operator clears the record or a machine launched since has stayed healthy.
//
// The record lives on the group, as a tag (REPAIR_FAILURES_TAG): Lambdas keep nothing between sweeps,
// the machines it is about are terminated and their Nodes deleted, and the group is where an operator
// looks (`aws autoscaling describe-tags`) and clears it (REPAIR_BACK_OFF_CLEAR_COMMAND). Pure.
import { REPAIR_BACK_OFF_CLEAR_COMMAND, REPAIR_FAILURES_TAG } from '@ec2-node-reconciler/model/contract/labels.js';
import { MAX_FAILED_REPLACEMENTS, type RepairSettings } from '@ec2-node-reconciler/model/contract/settings.js';
import { formatDuration } from '@ec2-node-reconciler/model/duration.js';
import type { RepairBackOff } from '@ec2-node-reconciler/model/action.js';

const MINUTE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z$/;

/** The failures a group's tag records, oldest first; anything unreadable in it is ignored. */
export function parseFailures(text: string | undefined): number[] {
  if (text === undefined) return [];
  return text
    .split(/\s+/)
    .filter((word) => MINUTE.test(word))
    .map((word) => Date.parse(word.replace('Z', ':00Z')))
    .filter((ms) => Number.isFinite(ms))
    .sort((a, b) => a - b);
}

/** The tag's value for these failures: the newest MAX_FAILED_REPLACEMENTS, to the minute (well under the tag's 256 characters). */
export function formatFailures(times: readonly number[]): string {
  return times
    .slice(-MAX_FAILED_REPLACEMENTS)
    .map((ms) => new Date(ms).toISOString().slice(0, 16) + 'Z')
    .join(' ');
}

/** Whether repairing a machine launched at `launchedAt` is a failed replacement: it was launched less than failureWindow ago. */
export const isFailedReplacement = (launchedAt: number, now: number, repair: RepairSettings): boolean =>
  launchedAt > 0 && now - launchedAt < repair.failureWindow;

/** What a group's census knows for the back-off. */
export interface BackOffCensus {
  /** The recorded failures (the tag), oldest first. */
  failures: number[];
  /** The latest launch of a member that has stayed healthy (in service, its Node healthy) since at least repair.after.Ready after it. */
  readonly healthyLaunchedAt?: number;
}

/** The recorded failures that still count: those after the latest machine that stayed healthy (a replacement that worked forgives them). */
const counting = (census: BackOffCensus): number[] =>
  census.failures.filter((at) => census.healthyLaunchedAt === undefined || at > census.healthyLaunchedAt);

/**
 * The group's back-off, when it holds: its last maxFailedReplacements counting failures lie within one
 * failureWindow. It does not lapse with time (no repair starts, so nothing would show the group healed):
 * only a machine that stays healthy, or the operator, ends it.
 */
export function backOffOf(
  group: string,
  census: BackOffCensus,
  repair: RepairSettings,
): { readonly reason: string; readonly backOff: RepairBackOff } | undefined {
  const failures = counting(census);
  const last = failures.slice(-repair.maxFailedReplacements);
  if (last.length < repair.maxFailedReplacements) return undefined;
  const first = last[0] ?? 0;
  const newest = last[last.length - 1] ?? 0;
  if (newest - first > repair.failureWindow) return undefined;
  const clear = REPAIR_BACK_OFF_CLEAR_COMMAND.replace('{group}', group);
  return {
    reason: `back-off: Auto Scaling group ${group} had ${last.length} failed replacements (machines it launched going bad within ${formatDuration(repair.failureWindow)}) between ${new Date(first).toISOString()} and ${new Date(newest).toISOString()} (repair.maxFailedReplacements ${repair.maxFailedReplacements}): its repairs stand down until a machine launched since stays healthy, or an operator clears the record (tag ${REPAIR_FAILURES_TAG}): ${clear}`,
    backOff: {
      group,
      failures: last.length,
      first,
      last: newest,
      maxFailedReplacements: repair.maxFailedReplacements,
      failureWindow: repair.failureWindow,
      clear,
    },
  };
}

/** The failures to record once a repair of a failed replacement starts at `now`: those still counting within failureWindow, and this one. */
export function withFailure(census: BackOffCensus, now: number, repair: RepairSettings): number[] {
  return [...counting(census).filter((at) => now - at <= repair.failureWindow), now];
}
