import type { InstanceId } from './instance-id.js';
import type { Condition } from './condition.js';
import type { LifecycleRef } from './signal.js';

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
  /** What the drain is for: a removal, maintenance, or the operator's own drain (CLI). */
  readonly for: 'removal' | 'maintenance' | 'manual';
  /** The instance's LaunchTime (epoch ms): a machine started since has new removals. */
  readonly launchedAt?: number;
}

interface NodeTarget {
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
  | ({ readonly kind: 'forget-drain'; readonly instanceId?: InstanceId; readonly reason: string; readonly execution?: string } & NodeTarget)
  | {
      readonly kind: 'complete-lifecycle';
      readonly instanceId: InstanceId;
      readonly lifecycle: LifecycleRef;
      readonly result: 'CONTINUE' | 'ABANDON';
      readonly reason: string;
    }
  | { readonly kind: 'mark-unhealthy'; readonly instanceId: InstanceId; readonly group: string; readonly reason: string }
  | {
      readonly kind: 'report';
      readonly condition: Condition;
      readonly node?: string;
      readonly instanceId?: InstanceId;
      readonly reason: string;
    };

export type ActionKind = Action['kind'];

/** An action plan() considered and declined, with the rail that stopped it. */
export interface SkippedAction {
  readonly kind: ActionKind;
  readonly node?: string;
  readonly instanceId?: InstanceId;
  readonly reason: string;
}

export interface Plan {
  readonly dryRun: boolean;
  readonly actions: readonly Action[];
  readonly skipped: readonly SkippedAction[];
  /** Set when the circuit breaker refused this run's deletions. */
  readonly breaker?: { readonly wouldDelete: number; readonly allowed: number; readonly reason: string };
}
