import { z } from 'zod';
import { DurationSchema } from './model/duration.js';
import { describeIssues } from './model/zod-issues.js';

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
    /** Circuit breaker: a run that would delete more Nodes than this deletes none. */
    maxDeletions: z.number().int().min(0).default(10),
    /** Circuit breaker: a sweep that would delete more than this percentage of the cluster's Nodes deletes none (at least one Node is always allowed). */
    maxDeletionPercent: z.number().min(0).max(100).default(20),
    /** A Node is stale only when its heartbeat (Lease, else Ready condition) is older than this. */
    heartbeatGrace: DurationSchema.default(120_000),
    /** An instance EC2 does not return counts as gone only for Nodes older than this (EC2 reads are eventually consistent). */
    notFoundGrace: DurationSchema.default(600_000),
    /** Nodes younger than this are never deleted. */
    minNodeAge: DurationSchema.default(600_000),
    /** A Node the reconciler cordoned whose machine still runs, with nothing slating it, is uncordoned after this. */
    uncordonAfter: DurationSchema.default(1_800_000),
    /** Drain deadline when the signal gives none. */
    drainTimeout: DurationSchema.default(900_000),
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
    registrationGrace: DurationSchema.default(900_000),
    /** Opt-in: mark unregistered machines Unhealthy in their Auto Scaling group. */
    markUnregisteredUnhealthy: z.boolean().default(false),
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
