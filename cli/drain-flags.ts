// The drain command's own flags, read at the edge: the dry run, the pod selector, the grace period in
// seconds, and kubectl drain's flag names, each taken for what it means here or refused naming why.
import * as z from 'zod';
import { labelSelectorProblem } from './kube/label-selector.js';
import { CliError } from './exit-codes.js';

export interface DrainFlags {
  /** Judge the pods and print the verdicts; write nothing. */
  readonly dryRun: boolean;
  /** Only the pods this label selector selects. */
  readonly podSelector?: string;
  /** Each eviction's grace period; undefined: the pod's own. */
  readonly gracePeriodSeconds?: number;
}

/** The drain's own flags that stand for a setting flag: settingsFromFlags reads them under that name. */
export const DRAIN_SETTING_ALIASES: Readonly<Record<string, string>> = {
  timeout: 'drain-timeout',
  force: 'evict-unreplicated',
  'delete-emptydir-data': 'delete-empty-dir-data',
};

/** `--grace-period` is the gracePeriod setting when written as one of its values, seconds otherwise. */
const GRACE_PERIOD_MODES: readonly string[] = ['pod', 'fit-deadline'];

const Seconds = z
  .string()
  .regex(/^-?\d+$/, {
    message: "expected whole seconds (-1: the pod's own), or pod|fit-deadline (the gracePeriod setting)",
  })
  .transform(Number)
  .pipe(z.number().int().min(-1, { message: "expected 0 or more seconds, or -1 for the pod's own" }));

const DrainFlagsSchema = z.object({
  'dry-run': z.boolean().optional(),
  'pod-selector': z
    .string()
    .superRefine((text, ctx) => {
      const problem = labelSelectorProblem(text);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: `not a label selector: ${problem}` });
    })
    .optional(),
  'grace-period': Seconds.optional(),
  'ignore-daemonsets': z
    .boolean()
    .refine((on) => on, {
      message:
        'this drain always leaves DaemonSet pods in place (their DaemonSet would recreate them at once) and never stops for them; drop the flag',
    })
    .optional(),
  'disable-eviction': z
    .boolean()
    .refine((on) => !on, {
      message:
        'not supported: this drain only evicts (policy/v1 Eviction), so PodDisruptionBudgets always hold; to delete a pod regardless, kubectl delete pod',
    })
    .optional(),
});

/**
 * Reads the drain's own flags (kubectl's aliases that stand for settings are read with the settings,
 * DRAIN_SETTING_ALIASES). Returns the flags and the values the settings are to be read from: a
 * `--grace-period` in seconds is the drain's, not the gracePeriod setting's.
 */
export function drainFlags(values: Record<string, unknown>): {
  flags: DrainFlags;
  settingValues: Record<string, unknown>;
} {
  const grace = values['grace-period'];
  const isMode = typeof grace === 'string' && GRACE_PERIOD_MODES.includes(grace);
  const parsed = DrainFlagsSchema.safeParse({ ...values, ...(isMode ? { 'grace-period': undefined } : {}) });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const flag = String(issue.path[0] ?? '');
      // A boolean flag as it was written: `--flag`, or `--flag=false`.
      const written = values[flag] === false ? `--${flag}=false` : `--${flag}`;
      return `${written}: ${issue.message}`;
    });
    throw new CliError(problems.join('; '));
  }
  const { 'dry-run': dryRun, 'pod-selector': podSelector, 'grace-period': seconds } = parsed.data;
  const settingValues = { ...values };
  if (!isMode) delete settingValues['grace-period'];
  return {
    flags: {
      dryRun: dryRun === true,
      ...(podSelector !== undefined && podSelector.trim() !== '' ? { podSelector } : {}),
      ...(seconds !== undefined && seconds >= 0 ? { gracePeriodSeconds: seconds } : {}),
    },
    settingValues,
  };
}
