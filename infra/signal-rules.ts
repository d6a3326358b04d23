// The EventBridge rules for the signals of docs/design.md §2: one rule per signal kind, each with an exact
// pattern, all delivering to the reconciler's queue. Filtering here (state, Health category, tag
// key) keeps events the function would only ignore from costing an invocation. Each rule's
// source, detail-type, content filter and description come from the kind's module in lib/signals:
// the registry that routes the events is the one the rules are made from.
import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { SignalKind } from '@ec2-node-reconciler/model/signal.js';
import { SIGNAL_MODULES, type RuleScope, type SignalModule } from '../lib/signals/index.js';

export interface SignalPatternOptions extends RuleScope {
  /** No rule for rebalance recommendations (the `rebalance: ignore` policy). */
  readonly skipRebalance?: boolean;
}

export interface SignalRuleSpec {
  readonly kind: SignalKind;
  /** Rule description: what the signal means for a node. */
  readonly description: string;
  readonly pattern: events.EventPattern;
}

/** A module's rule in CDK's terms (`detailType`, rendered as `detail-type`). */
function ruleSpec(module: SignalModule, scope: RuleScope): SignalRuleSpec {
  const detail = module.rule.detail(scope);
  return {
    kind: module.kind,
    description: module.rule.description,
    pattern: { source: [module.source], detailType: [module.detailType], ...(detail ? { detail } : {}) },
  };
}

/**
 * The rules, one per entry of the registry (compile-time complete over the signal kinds) in its
 * order, which keeps the construct ids and their order stable. Exported for the tests, which match
 * them against real-shaped events.
 */
export function signalPatterns(options: SignalPatternOptions = {}): readonly SignalRuleSpec[] {
  const { skipRebalance, ...scope } = options;
  return Object.values<SignalModule>(SIGNAL_MODULES)
    .filter((module) => !(skipRebalance && module.kind === 'rebalance-recommendation'))
    .map((module) => ruleSpec(module, scope));
}

export interface SignalRulesProps extends SignalPatternOptions {
  /** Where matching events go. */
  readonly queue: sqs.IQueue;
  /** Where events EventBridge could not deliver to the queue go. */
  readonly deadLetterQueue: sqs.IQueue;
  /** Prefix of each rule's description, naming the cluster. */
  readonly descriptionPrefix: string;
}

/** One rule per signal kind on the default bus, each targeting the queue. */
export class SignalRules extends Construct {
  /** The rules by signal kind; a kind switched off (rebalance: ignore) has none. */
  readonly rules: ReadonlyMap<SignalKind, events.Rule>;

  constructor(scope: Construct, id: string, props: SignalRulesProps) {
    super(scope, id);
    const rules = new Map<SignalKind, events.Rule>();
    for (const spec of signalPatterns(props)) {
      const rule = new events.Rule(this, ruleId(spec.kind), {
        description: `${props.descriptionPrefix}: ${spec.description}`.slice(0, 512),
        eventPattern: spec.pattern,
      });
      rule.addTarget(
        new targets.SqsQueue(props.queue, {
          deadLetterQueue: props.deadLetterQueue,
          // A signal a day old has long been acted on by the sweep; retrying it longer buys nothing.
          maxEventAge: Duration.hours(24),
        }),
      );
      rules.set(spec.kind, rule);
    }
    this.rules = rules;
  }
}

/** `spot-interruption` → `SpotInterruption`: stable construct ids, hence stable logical ids. */
function ruleId(kind: SignalKind): string {
  return kind
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}
