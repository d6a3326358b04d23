// What every part of plan() shares about the pair it decides for: the plan context, the decision it
// adds to, and how to read the drain a Node records.
import type { Clock } from '@ec2-node-reconciler/model/clock.js';
import type { Action, SkippedAction } from '@ec2-node-reconciler/model/action.js';
import type { ClassifiedPair } from '@ec2-node-reconciler/model/condition.js';
import type { DrainExecutionState, NodeView, Observation } from '@ec2-node-reconciler/model/observation.js';
import type { Settings } from '@ec2-node-reconciler/model/contract/settings.js';
import { recordLiveness } from './drain-liveness.js';
import { drainClaimOf, type DrainClaim } from './own-cordon.js';

export interface PlanContext {
  readonly settings: Settings;
  readonly clock: Clock;
  /** Names the drain executions this run starts. */
  readonly clusterName: string;
  /** Cluster size for the breaker's percentage; unknown in the event path. */
  readonly clusterNodeCount?: number;
  /** What the workflow says of the drains the observed Nodes name, by record name (Observation.drains). */
  readonly drains?: ReadonlyMap<string, DrainExecutionState>;
  /** Prefix of the drain names this run records: LOCAL_DRAIN_PREFIX when drains run in this process (the CLI). */
  readonly executionPrefix?: string;
  /**
   * What the run observed: a sweep sees every machine of every group, an event one instance. Repairs
   * start and replace only in sweeps (the stand-down needs the whole group); absent counts as an event.
   */
  readonly scope?: Observation['scope'];
  /** Auto Scaling groups configured as the cluster's (autoScalingGroupNames): when set, only their machines are repaired. */
  readonly ownGroups?: readonly string[];
}

export type PlannedActions = { actions: Action[]; skipped: SkippedAction[] };

export interface PairPlanner {
  readonly pair: ClassifiedPair;
  readonly now: number;
  readonly ctx: PlanContext;
  readonly out: PlannedActions;
  readonly excluded: string | undefined;
  /** Lookups about the instance that failed this run; no "nothing slates it" action is taken then. */
  readonly blindSpot: string | undefined;
  skip(kind: Action['kind'], reason: string, extra?: Pick<SkippedAction, 'standDown' | 'backOff'>): void;
  /** Reports the pair's condition; `once`: told once per Node (its Event is not counted again each sweep). */
  report(options?: { readonly once: true }): void;
}

export function target(node: NodeView): { node: string; uid: string; resourceVersion: string } {
  return { node: node.name, uid: node.uid, resourceVersion: node.resourceVersion };
}

export const iso = (ms: number): string => new Date(ms).toISOString();

export interface RecordedDrain {
  readonly claim: DrainClaim;
  readonly state: DrainExecutionState;
}

/**
 * What the Node records of a drain, and whether that drain is alive (lib/plan/drain-liveness.ts): a
 * record that wrote its end has ended; one not renewed lately has lost its drain unless the workflow
 * says it runs.
 */
export function recordedDrain(
  node: NodeView,
  ctx: Pick<PlanContext, 'drains'>,
  now: number,
): RecordedDrain | undefined {
  const claim = drainClaimOf(node);
  if (!claim) return undefined;
  return { claim, state: recordLiveness(claim, ctx.drains?.get(claim.execution), now) };
}
