import type { InstanceId } from './instance-id.js';
import type { Condition } from './condition.js';
import type { ConditionStatus, RepairCondition } from './node-conditions.js';
import type { LifecycleRef } from './signal.js';

/** What a drain is for; the Node records it (DRAIN_FOR_ANNOTATION). */
export const DRAIN_PURPOSES = ['removal', 'maintenance', 'manual', 'repair'] as const;
export type DrainPurpose = (typeof DRAIN_PURPOSES)[number];

/** A condition that made a machine due for repair, and since when (epoch ms). */
export interface RepairTrigger {
  readonly type: RepairCondition;
  readonly status: ConditionStatus;
  readonly since: number;
}

/** Records a drain execution as the owner of a Node's removal (lib/drain/claim.ts). */
export interface DrainClaimRequest {
  /** The workflow execution: the one to start, or the running one to join. */
  readonly execution: string;
  /** A claim whose execution never started, which may be overwritten. */
  readonly replaces?: string;
  /** Epoch ms by which the drain must be done; it stops there and reports what is left. */
  readonly deadline: number;
  /** Completed with CONTINUE by the drain workflow when the drain ends. */
  readonly lifecycle?: LifecycleRef;
  /** What the drain is for: a removal, maintenance, the operator's own drain (CLI), or a repair (docs/design.md §1b). */
  readonly for: DrainPurpose;
  /** The instance's LaunchTime (epoch ms): a machine started since has new removals. */
  readonly launchedAt?: number;
}

/** The Node an action was planned on: a write to it is guarded by this uid and resourceVersion. */
export interface NodeTarget {
  readonly node: string;
  readonly uid: string;
  readonly resourceVersion: string;
}

/** What plan() decides; act() carries it out. Every action says why. */
export type Action =
  | ({ readonly kind: 'delete'; readonly instanceId?: InstanceId; readonly reason: string } & NodeTarget)
  | ({
      readonly kind: 'cordon';
      readonly instanceId?: InstanceId;
      readonly reason: string;
      /** Epoch ms before which the cordon is not reversed (the end of a maintenance window). */
      readonly until?: number;
      /** The drain that follows, claimed in the same patch (one write before the workflow starts). */
      readonly claim?: DrainClaimRequest;
    } & NodeTarget)
  | ({
      readonly kind: 'drain';
      readonly instanceId?: InstanceId;
      readonly reason: string;
      /** Id of the signal that caused it (for a deterministic workflow execution name). */
      readonly cause: string;
      /**
       * `start`: record this drain on the Node (guarded; `replaces` names a record that may be
       * overwritten) and start it; `join`: a drain of this removal runs (`execution`): hand it an
       * earlier deadline or a lifecycle action, start nothing.
       */
      readonly mode: 'start' | 'join';
    } & DrainClaimRequest &
      NodeTarget)
  | ({ readonly kind: 'taint-shutdown'; readonly instanceId: InstanceId; readonly reason: string } & NodeTarget)
  | ({ readonly kind: 'remove-shutdown-taint'; readonly instanceId: InstanceId; readonly reason: string } & NodeTarget)
  | ({ readonly kind: 'uncordon-own'; readonly instanceId?: InstanceId; readonly reason: string } & NodeTarget)
  /** Nothing slates the machine any more: its removal is over, and the Node's record of that removal's drain goes. */
  | ({
      readonly kind: 'forget-drain';
      readonly instanceId?: InstanceId;
      readonly reason: string;
      readonly execution?: string;
    } & NodeTarget)
  | {
      readonly kind: 'complete-lifecycle';
      readonly instanceId: InstanceId;
      readonly lifecycle: LifecycleRef;
      readonly result: 'CONTINUE' | 'ABANDON';
      readonly reason: string;
      /**
       * The machine's Node, when it has one: told by an Event. No target to guard: completing the
       * action never depends on the Node (it may be gone, or replaced, by then).
       */
      readonly node?: string;
      readonly nodeUid?: string;
    }
  | {
      readonly kind: 'mark-unhealthy';
      readonly instanceId: InstanceId;
      readonly group: string;
      readonly reason: string;
    }
  /**
   * Repair of an unresponsive machine in an Auto Scaling group (docs/design.md §1b), in three steps:
   * `drain`: record the repair drain on the Node (after its cordon) and start it, bounded by
   * repair.drainTimeout; `replace`: its drain has ended, mark the instance Unhealthy so the group
   * replaces it; `cancel`: the node recovered, so uncordon it (our cordon) and drop the record,
   * which also stops a drain still running.
   */
  | ({
      readonly kind: 'repair';
      readonly step: 'drain';
      readonly instanceId: InstanceId;
      readonly group: string;
      readonly reason: string;
      readonly cause: string;
      readonly mode: 'start';
      /** The conditions that made it due. */
      readonly triggers: readonly RepairTrigger[];
      /**
       * The machine is a failed replacement (launched less than repair.failureWindow ago): the group's
       * back-off record to write (REPAIR_FAILURES_TAG) before the drain starts.
       */
      readonly failureRecord?: string;
    } & DrainClaimRequest &
      NodeTarget)
  | ({
      readonly kind: 'repair';
      readonly step: 'replace';
      readonly instanceId: InstanceId;
      readonly group: string;
      readonly reason: string;
      /** The repair drain that ended, and how. */
      readonly execution: string;
      readonly drainOutcome?: string;
      readonly triggers: readonly RepairTrigger[];
    } & NodeTarget)
  | ({
      readonly kind: 'repair';
      readonly step: 'cancel';
      readonly instanceId: InstanceId;
      readonly group?: string;
      readonly reason: string;
      readonly execution: string;
    } & NodeTarget)
  | {
      readonly kind: 'report';
      readonly condition: Condition;
      readonly node?: string;
      readonly instanceId?: InstanceId;
      readonly reason: string;
      /** Told once per Node object: its Event is made the first time and not counted again on later runs. */
      readonly once?: true;
    };

export type ActionKind = Action['kind'];

/** An action plan() considered and declined, with the rail that stopped it. */
export interface SkippedAction {
  readonly kind: ActionKind;
  readonly node?: string;
  readonly instanceId?: InstanceId;
  readonly reason: string;
  /** For a repair: the group's unhealthy share that made the reconciler stand down (a RepairBlocked Event, a Node Repair Blocked output event). */
  readonly standDown?: StandDown;
  /** For a repair: the group's back-off after failed replacements (a RepairBlocked Event, a Node Repair Blocked output event). */
  readonly backOff?: RepairBackOff;
}

/** A group whose replacements kept failing: repair.maxFailedReplacements of them within repair.failureWindow (lib/plan/repair/backoff.ts). */
export interface RepairBackOff {
  readonly group: string;
  /** The failed replacements that hold it, the first and the last (epoch ms). */
  readonly failures: number;
  readonly first: number;
  readonly last: number;
  readonly maxFailedReplacements: number;
  readonly failureWindow: number;
  /** The command that clears it. */
  readonly clear: string;
}

/** A group with more unhealthy machines than repair.maxUnhealthyPercent allows (rounded up). */
export interface StandDown {
  /** What stood down: the Auto Scaling group's share, or the whole cluster's (every group's machines). */
  readonly scope: 'group' | 'cluster';
  /** The group the machine is in (whatever the scope). */
  readonly group: string;
  readonly unhealthy: number;
  readonly members: number;
  readonly allowed: number;
  readonly maxUnhealthyPercent: number;
}

export interface Plan {
  readonly dryRun: boolean;
  readonly actions: readonly Action[];
  readonly skipped: readonly SkippedAction[];
  /** Set when the circuit breaker refused this run's deletions. */
  readonly breaker?: { readonly wouldDelete: number; readonly allowed: number; readonly reason: string };
}
