import { z } from 'zod';

/**
 * What one drain step hands to the next. It travels through Step Functions (256 KB per state),
 * so it holds pod identities only, never objects; and it is only an optimisation: a step that
 * starts without it re-reads the node's pods and carries on correctly.
 */

const PodRecordSchema = z.object({
  ns: z.string(),
  name: z.string(),
  uid: z.string(),
  /** Epoch ms of the event the record describes. */
  at: z.number(),
});

const RetryStatusSchema = z.enum(['blocked-by-pdb', 'throttled', 'multiple-pdbs', 'eviction-failed']);

export const DrainStateSchema = z.object({
  v: z.literal(1),
  node: z.string(),
  startedAt: z.number(),
  steps: z.number().int().min(0),
  /** The cordon was confirmed in an earlier step: later steps skip the node read. */
  cordoned: z.boolean(),
  /** Pods terminating and not yet seen gone: by our eviction or delete, or already terminating when first seen (`waited`). */
  removing: z.array(PodRecordSchema.extend({ via: z.enum(['evict', 'delete', 'waited']) })),
  /** Pods seen gone, for the report. */
  gone: z.array(PodRecordSchema.extend({ how: z.enum(['evicted', 'deleted', 'vanished']) })),
  /** Removals the server refused: not retried before `at` (a back-off); `reason` explains until then. */
  retry: z.array(
    PodRecordSchema.extend({ status: RetryStatusSchema, reason: z.string(), pdb: z.string().optional(), attempts: z.number().int() }),
  ),
  /** Requests sent by this drain so far. */
  sent: z.object({ evictions: z.number().int(), deletions: z.number().int() }),
});

export type DrainState = z.infer<typeof DrainStateSchema>;
export type RetryStatus = z.infer<typeof RetryStatusSchema>;

export function initialDrainState(node: string, now: number): DrainState {
  return { v: 1, node, startedAt: now, steps: 0, cordoned: false, removing: [], gone: [], retry: [], sent: { evictions: 0, deletions: 0 } };
}

/**
 * The state if it is valid and belongs to this node, else undefined: a damaged or foreign state is
 * dropped rather than trusted, which costs at most a node read and a back-off.
 */
export function readDrainState(value: unknown, node: string): DrainState | undefined {
  if (value === undefined || value === null) return undefined;
  const parsed = DrainStateSchema.safeParse(value);
  return parsed.success && parsed.data.node === node ? parsed.data : undefined;
}
