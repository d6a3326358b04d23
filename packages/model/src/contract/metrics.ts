// The CloudWatch metrics the functions emit (EMF) and the dashboard and alarms read. Plain
// constants with no CDK import, so the functions' reporting code (lib/lambda/telemetry.ts) and the
// construct (infra/observability.ts) name the same metrics: a renamed metric then breaks
// compilation, not a dashboard.
import { PRODUCT_NAME } from './product.js';

/** EMF namespace; Powertools Metrics reads it from POWERTOOLS_METRICS_NAMESPACE, which the construct sets. */
export const METRIC_NAMESPACE = 'Ec2NodeReconciler';

/** Dimension every reconciler metric carries, so one account can host several clusters. */
export const CLUSTER_DIMENSION = 'ClusterName';

/**
 * Powertools Metrics adds `service` (POWERTOOLS_SERVICE_NAME) to every metric's dimensions, and a
 * CloudWatch metric is found only by its exact dimension set: the dashboard must name it too.
 */
export const SERVICE_DIMENSION = 'service';
export const SERVICE_NAME = PRODUCT_NAME;

/** Extra dimension of `Divergences`: the condition of docs/design.md §1 (`stale-object`, `identity-conflict`, …). */
export const CONDITION_DIMENSION = 'Condition';

export const METRIC_NAMES = {
  /** EventBridge events taken off the queue (signals or not). */
  eventsProcessed: 'EventsProcessed',
  /** Node objects deleted (stale-object remedy). */
  nodesDeleted: 'NodesDeleted',
  /** Nodes cordoned by the reconciler. */
  nodesCordoned: 'NodesCordoned',
  /** Drain workflows started. */
  drainsStarted: 'DrainsStarted',
  /** Actions that failed (API errors, conflicts); each is in the run report. */
  actionsFailed: 'ActionsFailed',
  /** Drains whose pods all went before the deadline. */
  drainsCompleted: 'DrainsCompleted',
  /** Drains that reached their deadline with pods still to go or terminating. */
  drainsTimedOut: 'DrainsTimedOut',
  /** Drains that ended with pods left that were refused or blocked (PodDisruptionBudgets, errors). */
  drainsIncomplete: 'DrainsIncomplete',
  /** Pods left blocked after a drain step: refused by the settings, or their eviction refused (PodDisruptionBudget, several PDBs, errors). */
  evictionsBlocked: 'EvictionsBlocked',
  /** Pairs found in a divergent condition; dimension Condition. */
  divergences: 'Divergences',
  /** Wall time of one sweep, milliseconds. */
  sweepDurationMs: 'SweepDurationMs',
  /** Runs whose circuit breaker refused every deletion (docs/design.md §4). */
  breakerTripped: 'BreakerTripped',
  /** Repair drains started (docs/design.md §1b). */
  repairsStarted: 'RepairsStarted',
  /** Repairs that stood down: their group had more unhealthy machines than repair.maxUnhealthyPercent allows. */
  repairsBlocked: 'RepairsBlocked',
  /** Repaired machines marked Unhealthy for their group to replace. */
  nodesRepaired: 'NodesRepaired',
  /** Repairs cancelled because the node recovered. */
  repairsCancelled: 'RepairsCancelled',
} as const;

export type MetricName = (typeof METRIC_NAMES)[keyof typeof METRIC_NAMES];
