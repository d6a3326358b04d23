// What one drain step is asked and what it answers, apart from the step itself: the step
// (step.ts) and its mapping into the workflow's terms (step-output.ts) both use these.
import type { DrainOutcome, LifecycleRef } from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import type { CordonOptions } from '../kube/node-writes.js';
import type { BlockedPod, DrainCounts, LeftAt, PodReport } from './pod-report.js';
import type { DrainState } from './state.js';

export interface DrainRequest {
  readonly node: string;
  /**
   * Epoch ms. The drain stops there and reports what is left (spot: warning + 2 min; lifecycle hook:
   * its timeout; Health: the event's start). An earlier deadline announced on the Node wins.
   */
  readonly deadline: number;
  /** `expectedUid` binds the drain to that Node incarnation; without it, to the one the first step finds. */
  readonly cordon: CordonOptions;
  /**
   * The drain as the Node records it (ec2-node-reconciler/drain): only a record of this drain hands
   * it an earlier deadline or a lifecycle action, and the drain writes how it ended there.
   */
  readonly execution?: string;
  /**
   * Which chained execution of the drain runs this step (0, absent: the first): the step renews the
   * record with it, so that the workflow is asked about the execution that runs now.
   */
  readonly chain?: number;
  /**
   * A label selector (the Kubernetes string form): only the pods it selects are drained, as with
   * `kubectl drain --pod-selector`; the node is cordoned all the same. @default every pod
   */
  readonly podSelector?: string;
  /**
   * Seconds each evicted pod is given to terminate instead of its own terminationGracePeriodSeconds
   * (the eviction's DeleteOptions, as `kubectl drain --grace-period`); still shortened to fit the
   * deadline under `gracePeriod: fit-deadline`. @default - the pod's own
   */
  readonly gracePeriodSeconds?: number;
}

/**
 * `in-progress`: step again after nextCheckAfterMs. Every other status ends the drain:
 * `drained`: every pod the drain had to remove is gone.
 * `incomplete`: pods it may not evict (refused) or could not (blocked) are left.
 * `deadline`: the deadline passed while pods were still to go or terminating.
 * `node-replaced` / `node-gone`: the Node the drain started on was replaced under its name, or deleted.
 * `cancelled-by-uncordon`: someone else uncordoned the node; the drain leaves it to them.
 */
export type DrainStatus = 'in-progress' | 'drained' | LeftAt;

export interface DrainStepResult {
  readonly status: DrainStatus;
  /** Pods still on the node that the drain wants gone (terminating ones included), each with its status and why. */
  readonly remaining: readonly PodReport[];
  /** The pods left that waiting cannot help: refused, or their eviction refused (PDBs, errors). */
  readonly blocked: readonly BlockedPod[];
  /** Every pod the drain knew and what became of it, by namespace/name. */
  readonly pods: readonly PodReport[];
  readonly counts: DrainCounts;
  /** When to step again; 0 once the drain has ended. */
  readonly nextCheckAfterMs: number;
  /** Epoch ms: the deadline worked to (the request's, or an earlier one announced on the Node). */
  readonly deadline: number;
  /** A lifecycle action handed over to this drain on the Node (LIFECYCLE_ANNOTATION). */
  readonly lifecycle?: LifecycleRef;
  readonly state: DrainState;
  readonly message?: string;
}

const OUTCOME: Record<DrainStatus, DrainOutcome> = {
  'in-progress': 'continue',
  drained: 'done',
  incomplete: 'incomplete',
  deadline: 'deadline',
  'node-replaced': 'node-replaced',
  'node-gone': 'node-gone',
  'cancelled-by-uncordon': 'cancelled-by-uncordon',
};

/** The drain status in the workflow's words: what the state machine branches on, and what the Node's record says. */
export const outcomeOf = (status: DrainStatus): DrainOutcome => OUTCOME[status];
