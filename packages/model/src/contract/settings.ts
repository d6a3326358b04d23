import * as z from 'zod';
import { DurationSchema, formatDuration } from '../duration.js';
import { LEASE_DURATION_MS } from '../kubelet.js';
import { MIN_REPAIR_AFTER_MS, type RepairCondition } from '../node-conditions.js';
import { didYouMean } from '../suggest.js';
import { describeIssues } from '../zod-issues.js';

/** No setting's duration may exceed this: beyond it a typo (`99999d`) would silently disarm a rail. */
export const MAX_SETTING_DURATION_MS = 30 * 86_400_000;

/** A setting's duration: the usual form, at most 30 days. */
const SettingDuration = DurationSchema.refine((ms) => ms <= MAX_SETTING_DURATION_MS, {
  message: `must be at most ${formatDuration(MAX_SETTING_DURATION_MS)}`,
});

/** A drain's deadline: at least a minute, or a lifecycle action would be completed without draining. */
const DrainDeadline = SettingDuration.refine((ms) => ms >= 60_000, {
  message: 'must be at least 1m: a shorter drain deadline would complete lifecycle actions without draining',
});

/** How long a condition must have been bad before its machine is repaired. */
const RepairAfter = SettingDuration.refine((ms) => ms >= MIN_REPAIR_AFTER_MS, {
  message: `must be at least ${formatDuration(MIN_REPAIR_AFTER_MS)} (Kubernetes' own not-ready toleration): a shorter wait replaces machines over a passing blip`,
});

const MINUTES = 60_000;
/** The highest repair.maxUnhealthyPercent: past half a group unhealthy, repair stands down whatever the setting. */
export const MAX_UNHEALTHY_PERCENT = 50;
/** The most repairs one group may have in flight. */
export const MAX_PARALLEL_REPAIRS = 10;
/** The highest repair.maxFailedReplacements (the group's record keeps that many). */
export const MAX_FAILED_REPLACEMENTS = 10;
/** EKS node auto repair's waits: 30 minutes, 10 for accelerated hardware. */
const REPAIR_AFTER_DEFAULTS = {
  Ready: 30 * MINUTES,
  KernelReady: 30 * MINUTES,
  NetworkingReady: 30 * MINUTES,
  StorageReady: 30 * MINUTES,
  ContainerRuntimeReady: 30 * MINUTES,
  AcceleratedHardwareReady: 10 * MINUTES,
} as const satisfies Record<RepairCondition, number>;

const RepairAfterSchema = z
  .object({
    Ready: RepairAfter.default(REPAIR_AFTER_DEFAULTS.Ready),
    KernelReady: RepairAfter.default(REPAIR_AFTER_DEFAULTS.KernelReady),
    NetworkingReady: RepairAfter.default(REPAIR_AFTER_DEFAULTS.NetworkingReady),
    StorageReady: RepairAfter.default(REPAIR_AFTER_DEFAULTS.StorageReady),
    ContainerRuntimeReady: RepairAfter.default(REPAIR_AFTER_DEFAULTS.ContainerRuntimeReady),
    AcceleratedHardwareReady: RepairAfter.default(REPAIR_AFTER_DEFAULTS.AcceleratedHardwareReady),
  })
  .strict();

/** Opt-in repair of unresponsive machines in Auto Scaling groups (docs/design.md §1b). */
export const RepairSettingsSchema = z
  .object({
    /** Off unless turned on: cordon, drain and replace machines whose node stays unhealthy. */
    enabled: z.boolean().default(false),
    /** Per condition: how long it must have been bad (since its lastTransitionTime) before the machine is repaired. */
    after: RepairAfterSchema.prefault({}),
    /**
     * Per Auto Scaling group: stand down while more than this percentage of its machines is unhealthy
     * (rounded up). At most 50: with more of a group unhealthy it is an outage, which replacing machines
     * one by one does not cure, and a higher limit would all but disarm the stand-down.
     */
    maxUnhealthyPercent: z
      .number()
      .min(0)
      .max(MAX_UNHEALTHY_PERCENT, {
        message: `must be at most ${MAX_UNHEALTHY_PERCENT}: a group with more of its machines unhealthy has an outage, and the stand-down must hold there`,
      })
      .default(20),
    /** Per Auto Scaling group: repairs in flight at once, counting drains already running there; at most 10 (more is a fleet rollout: use an instance refresh). */
    maxParallel: z
      .number()
      .int()
      .min(1)
      .max(MAX_PARALLEL_REPAIRS, {
        message: `must be at most ${MAX_PARALLEL_REPAIRS}: replacing more machines of a group at once is a rollout, which an instance refresh does`,
      })
      .default(1),
    /** The repair drain's bound: the machine is replaced when it ends, drained or not. */
    drainTimeout: DrainDeadline.default(15 * MINUTES),
    /**
     * Back-off, per Auto Scaling group: after this many failed replacements (repairs of machines
     * launched less than failureWindow before) within failureWindow of each other, the group's repairs
     * stand down until an operator clears the record (the group's REPAIR_FAILURES_TAG) or a machine
     * launched since stays healthy. At most 10: a group whose new machines keep failing has a broken
     * launch template, AMI or user data, which replacing more machines does not cure.
     */
    maxFailedReplacements: z
      .number()
      .int()
      .min(1)
      .max(MAX_FAILED_REPLACEMENTS, {
        message: `must be at most ${MAX_FAILED_REPLACEMENTS}: a group whose replacements keep failing needs its launch template fixed, not more replacements`,
      })
      .default(3),
    /** The back-off's window: a repair of a machine younger than this is a failed replacement, and the failures count within it. At least 1h. */
    failureWindow: SettingDuration.refine((ms) => ms >= 60 * MINUTES, {
      message: 'must be at least 1h: a shorter window would never see replacements fail one after another',
    }).default(6 * 60 * MINUTES),
  })
  .strict();
export type RepairSettings = z.output<typeof RepairSettingsSchema>;

/**
 * The reconciler's settings: one schema for the deployed configuration, scenarios and CLI flags.
 * Durations are written `30s`, `5m`, `2h`, `3d` and held as milliseconds.
 */
export const SettingsSchema = z
  .object({
    /** Plan and report, mutate nothing. */
    dryRun: z.boolean().default(false),
    /** What a rebalance recommendation does: cordon only, cordon and drain, or nothing. */
    rebalance: z.enum(['cordon', 'drain', 'ignore']).default('cordon'),
    /**
     * What a scheduled reboot or system maintenance does (not a removal: the machine comes back):
     * drain (as aws-node-termination-handler does), cordon only, or nothing. The cordon is held
     * while the event is pending and reversed once its window has passed and the Node is Ready.
     */
    maintenance: z.enum(['drain', 'cordon', 'ignore']).default('drain'),
    /** Circuit breaker: a run that would delete more Nodes than this deletes none. */
    maxDeletions: z.number().int().min(0).default(10),
    /** Circuit breaker: a sweep that would delete more than this percentage of the cluster's Nodes deletes none (at least one Node is always allowed). */
    maxDeletionPercent: z.number().min(0).max(100).default(20),
    /**
     * A Node is stale only when its heartbeat (Lease, else Ready condition) is older than this; at
     * least the kubelet's Lease duration (40 s), or a live kubelet could look stale between renewals.
     */
    heartbeatGrace: SettingDuration.refine((ms) => ms >= LEASE_DURATION_MS, {
      message: `must be at least ${formatDuration(LEASE_DURATION_MS)} (the kubelet Lease duration): a shorter grace lets a Node with a live kubelet be deleted`,
    }).default(120_000),
    /** An instance EC2 does not return counts as gone only for Nodes older than this (EC2 reads are eventually consistent). */
    notFoundGrace: SettingDuration.default(600_000),
    /** Nodes younger than this are never deleted. */
    minNodeAge: SettingDuration.default(600_000),
    /** A Node the reconciler cordoned whose machine still runs, with nothing slating it, is uncordoned after this. */
    uncordonAfter: SettingDuration.default(1_800_000),
    /** Drain deadline when the signal gives none. */
    drainTimeout: DrainDeadline.default(900_000),
    /** Evict pods using emptyDir (their data is lost), like kubectl drain --delete-emptydir-data. */
    deleteEmptyDirData: z.boolean().default(true),
    /** Evict pods no controller manages (they are not recreated), like kubectl drain --force. */
    evictUnreplicated: z.boolean().default(true),
    /**
     * `fit-deadline`: a pod whose terminationGracePeriodSeconds would outlast the drain's deadline is
     * evicted with the time left (less a margin) as its grace period, like kubectl drain --grace-period;
     * `pod`: every pod keeps its own.
     */
    gracePeriod: z.enum(['pod', 'fit-deadline']).default('fit-deadline'),
    /** A running cluster-tagged instance with no Node is reported only once older than this. */
    registrationGrace: SettingDuration.default(900_000),
    /** Opt-in: mark unregistered machines Unhealthy in their Auto Scaling group. */
    markUnregisteredUnhealthy: z.boolean().default(false),
    /**
     * Opt-in: treat Karpenter's Nodes (label `karpenter.sh/nodepool`) as this reconciler's to cordon,
     * drain and delete. Off, they are Karpenter's: reported, never acted on (docs/design.md §1c). A Node Karpenter
     * is disrupting (taint `karpenter.sh/disrupted`) and EKS Auto Mode's Nodes stay theirs either way.
     */
    includeKarpenterNodes: z.boolean().default(false),
    /** Opt-in: graceful repair of unresponsive machines in every Auto Scaling group (docs/design.md §1b). */
    repair: RepairSettingsSchema.prefault({}),
  })
  .strict();

export type Settings = z.output<typeof SettingsSchema>;
export type SettingsInput = z.input<typeof SettingsSchema>;

export const DEFAULT_SETTINGS: Settings = SettingsSchema.parse({});

/** Parses settings, throwing an error that names each bad field. */
export function parseSettings(input: unknown): Settings {
  const result = SettingsSchema.safeParse(input ?? {});
  if (result.success) return result.data;
  throw new Error(`invalid settings: ${describeIssues(result.error)}`);
}

/**
 * Settings written back in the form people and the deployment write them (durations as `5m`):
 * what a function's RECONCILER_SETTINGS holds. Each number the schema refuses where a duration
 * belongs is written as one; the result parses back to the same settings.
 */
export function settingsInput(settings: Settings): SettingsInput {
  const input = structuredClone(settings) as Record<string, unknown>;
  for (let round = 0; round < 64; round++) {
    const parsed = SettingsSchema.safeParse(input);
    if (parsed.success) return input;
    let changed = false;
    for (const issue of parsed.error.issues) {
      const parent = issue.path
        .slice(0, -1)
        .reduce<unknown>(
          (at, key) => (typeof at === 'object' && at !== null ? (at as Record<PropertyKey, unknown>)[key] : undefined),
          input,
        );
      const key = issue.path.at(-1);
      if (key === undefined || typeof parent !== 'object' || parent === null) continue;
      const holder = parent as Record<PropertyKey, unknown>;
      if (typeof holder[key] !== 'number') continue;
      holder[key] = formatDuration(holder[key]);
      changed = true;
    }
    if (!changed) throw new Error(`settings cannot be written as input: ${describeIssues(parsed.error)}`);
  }
  throw new Error('settings cannot be written as input: too many nested durations');
}

/** The setting names known at a path of nested settings (`[]`, `['repair']`, `['repair', 'after']`): every setting has a default. */
function knownSettingsAt(path: readonly PropertyKey[]): string[] {
  const holder = path.reduce<unknown>(
    (at, key) => (typeof at === 'object' && at !== null ? (at as Record<PropertyKey, unknown>)[key] : undefined),
    DEFAULT_SETTINGS,
  );
  return typeof holder === 'object' && holder !== null ? Object.keys(holder) : [];
}

/**
 * Each problem of a settings input as `field: problem`, fields dotted from the root
 * (`repair.after.Ready`); a field the schema does not know is named with the nearest known ones
 * (`dryrun: unknown setting (did you mean dryRun?)`). Empty when the input is valid.
 */
export function settingsProblems(input: unknown): string[] {
  const result = SettingsSchema.safeParse(input ?? {});
  if (result.success) return [];
  return result.error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const known = knownSettingsAt(issue.path);
      return issue.keys.map((key) => `${[...issue.path, key].join('.')}: unknown setting${didYouMean(key, known)}`);
    }
    return [`${issue.path.join('.') || '(root)'}: ${issue.message}`];
  });
}
