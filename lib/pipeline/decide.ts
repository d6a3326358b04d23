import { classify, type ClassifyContext } from '../classify/classify.js';
import type { Plan } from '@ec2-node-reconciler/model/action.js';
import type { ClassifiedPair } from '@ec2-node-reconciler/model/condition.js';
import type { Observation } from '@ec2-node-reconciler/model/observation.js';
import type { Signal } from '@ec2-node-reconciler/model/signal.js';
import { plan } from '../plan/plan.js';

export interface DecideContext extends ClassifyContext {
  /** Prefix of the drain names this run records: LOCAL_DRAIN_PREFIX when drains run in this process (the CLI). */
  readonly executionPrefix?: string;
}

/** What a run decided: every pair in its condition, and the plan for them. */
export interface Decision {
  readonly pairs: readonly ClassifiedPair[];
  readonly plan: Plan;
}

/**
 * The decision of a run, classify then plan: a pure function of the observation, the signals, the
 * settings and the clock (with the deployment's cluster, region and groups). What the observation says of
 * its own scope, its drains and the cluster's size goes to plan as it is.
 */
export function decide(observation: Observation, signals: readonly Signal[], ctx: DecideContext): Decision {
  const pairs = classify(observation, signals, ctx);
  return {
    pairs,
    plan: plan(pairs, {
      ...ctx,
      scope: observation.scope,
      drains: observation.drains,
      ...(observation.clusterNodeCount !== undefined ? { clusterNodeCount: observation.clusterNodeCount } : {}),
    }),
  };
}
