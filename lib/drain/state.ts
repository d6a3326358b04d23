import * as z from 'zod';
import { LifecycleRefSchema, type LifecycleRef } from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import { podKey } from './api.js';

/**
 * What one drain step hands to the next. It travels through Step Functions (256 KiB per payload)
 * and a node may hold 737 pods, so it holds identities, codes and PDB names, never messages, in a
 * compact form (a PDB-blocked pod costs about 70 bytes). It is only an optimisation: a step that
 * starts without it re-reads the node and its pods and carries on correctly.
 */

/** Why the settings forbid a pod's eviction (the filter that refused it). */
export const REFUSALS = ['local-storage', 'unreplicated', 'daemonset-missing'] as const;
export type Refusal = (typeof REFUSALS)[number];

/** Removals the API server refused: retried after a back-off. */
export const RETRY_STAGES = ['blocked-by-pdb', 'throttled', 'multiple-pdbs', 'eviction-failed'] as const;
export type RetryStatus = (typeof RETRY_STAGES)[number];

/** Where one pod stands in this drain, and its code in the state. */
const STAGE_CODES = {
  // On the node, as the last pass judged it.
  /** To be evicted; nothing sent yet. */
  pending: 'p',
  /** Held back while its DaemonSet cannot be looked up. */
  waiting: 'w',
  'skipped-daemonset': 'sd',
  'skipped-mirror': 'sm',
  /** Terminating for longer than skipWaitForDeleteTimeout. */
  'skipped-terminating': 'st',
  /** The settings forbid its eviction (`refusal`). */
  refused: 'r',
  'blocked-by-pdb': 'b',
  throttled: 't',
  'multiple-pdbs': 'm',
  'eviction-failed': 'f',
  // Terminating.
  /** Evicted by this drain. */
  evicting: 'E',
  /** Terminating before this drain came: only waited on. */
  terminating: 'T',
  // Finished: no longer listed, or its name now belongs to another pod (a new uid).
  evicted: 'e',
  /** Was terminating before this drain came, and went. */
  terminated: 'x',
  /** Went away without terminating in this drain's sight. */
  gone: 'g',
} as const;
export type Stage = keyof typeof STAGE_CODES;
const STAGE_OF_CODE = new Map<string, Stage>(
  Object.entries(STAGE_CODES).map(([stage, code]) => [code, stage as Stage]),
);

const RETRY: ReadonlySet<Stage> = new Set<Stage>(RETRY_STAGES);
/** Stages whose pod the drain removed or saw terminating: a pod later found under its name is a successor, never evicted. */
const REMOVED: ReadonlySet<Stage> = new Set<Stage>(['evicting', 'terminating', 'evicted', 'terminated']);
const FINISHED: ReadonlySet<Stage> = new Set<Stage>(['evicted', 'terminated', 'gone']);

export const isRetryStage = (stage: Stage): stage is RetryStatus => RETRY.has(stage);
/** The pod under this name was removed by, or terminated under the eyes of, this drain. */
export const wasRemoved = (stage: Stage): boolean => REMOVED.has(stage);
export const isFinishedStage = (stage: Stage): boolean => FINISHED.has(stage);

/** One pod the drain knows, keyed by namespace/name: the name's latest incarnation the drain judged. */
export interface PodRecord {
  readonly namespace: string;
  readonly name: string;
  uid: string;
  stage: Stage;
  /** Retry stages: removals refused so far. */
  attempts?: number;
  /** Retry stages: no new attempt before this (epoch ms). */
  retryAt?: number;
  /** blocked-by-pdb: the budget that refused it (`namespace/name`), when the server named it. */
  pdb?: string;
  /** refused: which filter. */
  refusal?: Refusal;
  /** Seconds: the grace period this drain gave the pod, when it shortened the pod's own to fit the deadline. */
  grace?: { readonly pod: number; readonly given: number };
}

/** The state a drain step works on. */
export interface WorkingState {
  readonly node: string;
  /** The Node incarnation this drain is bound to: a Node of another uid under the name is not drained. */
  nodeUid?: string;
  readonly startedAt: number;
  steps: number;
  /** The cordon was confirmed by this drain: from now on an uncordon is someone else's decision. */
  cordoned: boolean;
  /** The earliest deadline the Node announced (DRAIN_DEADLINE_ANNOTATION), epoch ms: a deadline is never extended. */
  deadline?: number;
  /** A lifecycle action handed over on the Node (LIFECYCLE_ANNOTATION), kept should the Node go. */
  lifecycle?: LifecycleRef;
  /** Requests sent by this drain so far. */
  readonly sent: { evictions: number; deletions: number };
  readonly pods: Map<string, PodRecord>;
}

/** `[uid, stage code, …details]`: retry stages add attempts, retryAt − startedAt (ms) and a PDB index; refused its refusal; a shortened grace [given, pod]. */
const PodEntrySchema = z.tuple([z.string(), z.string()], z.union([z.number(), z.string()]));

export const DrainStateSchema = z.object({
  v: z.literal(2),
  node: z.string(),
  nodeUid: z.string().optional(),
  startedAt: z.number(),
  steps: z.number().int().min(0),
  cordoned: z.boolean(),
  deadline: z.number().optional(),
  lifecycle: LifecycleRefSchema.optional(),
  sent: z.object({ evictions: z.number().int(), deletions: z.number().int() }),
  /** PDB names (`namespace/name`) the entries refer to by index. */
  pdbs: z.array(z.string()),
  /** namespace → pod name → entry. */
  pods: z.record(z.string(), z.record(z.string(), PodEntrySchema)),
});
export type DrainState = z.infer<typeof DrainStateSchema>;
type PodEntry = z.infer<typeof PodEntrySchema>;

export function initialDrainState(node: string, now: number): WorkingState {
  return { node, startedAt: now, steps: 0, cordoned: false, sent: { evictions: 0, deletions: 0 }, pods: new Map() };
}

function packEntry(record: PodRecord, startedAt: number, pdbIndex: (pdb: string) => number): PodEntry {
  const entry: PodEntry = [record.uid, STAGE_CODES[record.stage]];
  if (isRetryStage(record.stage)) {
    entry.push(record.attempts ?? 1, (record.retryAt ?? startedAt) - startedAt);
    if (record.pdb !== undefined) entry.push(pdbIndex(record.pdb));
  } else if (record.stage === 'refused' && record.refusal !== undefined) {
    entry.push(record.refusal);
  } else if (record.grace !== undefined) {
    entry.push(record.grace.given, record.grace.pod);
  }
  return entry;
}

/** The state as it travels: compact, JSON only. */
export function packState(state: WorkingState): DrainState {
  const pdbs: string[] = [];
  const pdbIndex = (pdb: string): number => {
    const known = pdbs.indexOf(pdb);
    return known >= 0 ? known : pdbs.push(pdb) - 1;
  };
  const pods: Record<string, Record<string, PodEntry>> = {};
  for (const record of state.pods.values()) {
    (pods[record.namespace] ??= {})[record.name] = packEntry(record, state.startedAt, pdbIndex);
  }
  return {
    v: 2,
    node: state.node,
    ...(state.nodeUid !== undefined ? { nodeUid: state.nodeUid } : {}),
    startedAt: state.startedAt,
    steps: state.steps,
    cordoned: state.cordoned,
    ...(state.deadline !== undefined ? { deadline: state.deadline } : {}),
    ...(state.lifecycle !== undefined ? { lifecycle: state.lifecycle } : {}),
    sent: { ...state.sent },
    pdbs,
    pods,
  };
}

function unpackEntry(namespace: string, name: string, entry: PodEntry, state: DrainState): PodRecord | undefined {
  const [uid, code, ...details] = entry;
  const stage = STAGE_OF_CODE.get(code);
  if (stage === undefined) return undefined;
  const record: PodRecord = { namespace, name, uid, stage };
  const numbers = details.filter((d): d is number => typeof d === 'number');
  if (isRetryStage(stage)) {
    const [attempts, retryIn, pdb] = numbers;
    if (attempts === undefined || retryIn === undefined) return undefined;
    record.attempts = attempts;
    record.retryAt = state.startedAt + retryIn;
    if (pdb !== undefined) {
      const name = state.pdbs[pdb];
      if (name === undefined) return undefined;
      record.pdb = name;
    }
  } else if (stage === 'refused') {
    const refusal = REFUSALS.find((r) => r === details[0]);
    if (refusal !== undefined) record.refusal = refusal;
  } else {
    const [given, pod] = numbers;
    if (given !== undefined && pod !== undefined) record.grace = { given, pod };
  }
  return record;
}

/**
 * The working state if `value` is a valid state of this node, else undefined: a damaged or foreign
 * state is dropped rather than trusted, which costs at most a node read and a back-off.
 */
export function readDrainState(value: unknown, node: string): WorkingState | undefined {
  if (value === undefined || value === null) return undefined;
  const parsed = DrainStateSchema.safeParse(value);
  if (!parsed.success || parsed.data.node !== node) return undefined;
  const state = parsed.data;
  const pods = new Map<string, PodRecord>();
  for (const [namespace, names] of Object.entries(state.pods)) {
    for (const [name, entry] of Object.entries(names)) {
      const record = unpackEntry(namespace, name, entry, state);
      if (record === undefined) return undefined;
      pods.set(podKey(record), record);
    }
  }
  return {
    node: state.node,
    ...(state.nodeUid !== undefined ? { nodeUid: state.nodeUid } : {}),
    startedAt: state.startedAt,
    steps: state.steps,
    cordoned: state.cordoned,
    ...(state.deadline !== undefined ? { deadline: state.deadline } : {}),
    ...(state.lifecycle !== undefined ? { lifecycle: state.lifecycle } : {}),
    sent: { ...state.sent },
    pods,
  };
}
