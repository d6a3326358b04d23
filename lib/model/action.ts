import type { InstanceId } from './instance-id.js';
import type { Condition } from './condition.js';
import type { LifecycleRef } from './signal.js';

interface NodeTarget {
  readonly node: string;
  readonly uid: string;
  readonly resourceVersion: string;
}

/** What plan() decides; act() carries it out. Every action says why. */
export type Action =
  | ({ readonly kind: 'delete'; readonly instanceId?: InstanceId; readonly reason: string } & NodeTarget)
  | ({ readonly kind: 'cordon'; readonly instanceId?: InstanceId; readonly reason: string } & NodeTarget)
  | ({
      readonly kind: 'drain';
      readonly instanceId?: InstanceId;
      readonly reason: string;
      /** Epoch ms by which the drain must be done; it stops there and reports what is left. */
      readonly deadline: number;
      /** Completed with CONTINUE by the drain workflow when the drain ends. */
      readonly lifecycle?: LifecycleRef;
      /** Id of the signal that caused it (for a deterministic workflow execution name). */
      readonly cause: string;
    } & NodeTarget)
  | ({ readonly kind: 'taint-shutdown'; readonly instanceId: InstanceId; readonly reason: string } & NodeTarget)
  | ({ readonly kind: 'remove-shutdown-taint'; readonly instanceId: InstanceId; readonly reason: string } & NodeTarget)
  | ({ readonly kind: 'uncordon-own'; readonly instanceId?: InstanceId; readonly reason: string } & NodeTarget)
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
