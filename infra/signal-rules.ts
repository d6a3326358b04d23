// The EventBridge rules for the signals of DESIGN §2: one rule per signal kind, each with an exact
// pattern, all delivering to the reconciler's queue. Filtering here (state, Health category, tag
// key) keeps events the function would only ignore from costing an invocation.
import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DECOMMISSION_TAG } from '../lib/contract/labels.js';
import { SIGNALLED_STATES } from '../lib/model/instance-states.js';
import type { SignalKind } from '../lib/model/signal.js';

export interface SignalPatternOptions {
  /** Only these Auto Scaling groups' events; every group when absent. */
  readonly autoScalingGroupNames?: readonly string[];
  /** Only these lifecycle hooks' actions; every terminate hook when absent. */
  readonly lifecycleHookNames?: readonly string[];
  /** No rule for rebalance recommendations (the `rebalance: ignore` policy). */
  readonly skipRebalance?: boolean;
}

export interface SignalRuleSpec {
  readonly kind: SignalKind;
  /** Rule description: what the signal means for a node. */
  readonly description: string;
  readonly pattern: events.EventPattern;
}

const asgScope = (options: SignalPatternOptions): Record<string, string[]> =>
  options.autoScalingGroupNames ? { AutoScalingGroupName: [...options.autoScalingGroupNames] } : {};

/**
 * The patterns, keyed by signal kind so that a kind without a rule fails to compile. Exported for
 * the tests, which match them against real-shaped events.
 */
export function signalPatterns(options: SignalPatternOptions = {}): Readonly<Record<SignalKind, SignalRuleSpec | undefined>> {
  return {
    'spot-interruption': {
      kind: 'spot-interruption',
      description: 'EC2 Spot Instance Interruption Warning: the node is slated, deadline two minutes after the event',
      pattern: { source: ['aws.ec2'], detailType: ['EC2 Spot Instance Interruption Warning'] },
    },
    'rebalance-recommendation': options.skipRebalance
      ? undefined
      : {
          kind: 'rebalance-recommendation',
          description: 'EC2 Instance Rebalance Recommendation: the node is cordoned or drained (rebalance policy)',
          pattern: { source: ['aws.ec2'], detailType: ['EC2 Instance Rebalance Recommendation'] },
        },
    'state-change': {
      kind: 'state-change',
      description: 'EC2 Instance State-change Notification for shutting-down, stopping, stopped and terminated',
      pattern: {
        source: ['aws.ec2'],
        detailType: ['EC2 Instance State-change Notification'],
        detail: { state: [...SIGNALLED_STATES] },
      },
    },
    'capacity-reservation-interruption': {
      kind: 'capacity-reservation-interruption',
      description: 'EC2 Capacity Reservation Instance Interruption Warning: the node is slated',
      pattern: { source: ['aws.ec2'], detailType: ['EC2 Capacity Reservation Instance Interruption Warning'] },
    },
    'asg-terminate-lifecycle-action': {
      kind: 'asg-terminate-lifecycle-action',
      description: 'Auto Scaling terminate lifecycle action: drain, then complete the hook with CONTINUE',
      pattern: {
        source: ['aws.autoscaling'],
        detailType: ['EC2 Instance-terminate Lifecycle Action'],
        detail: {
          // Test notifications share the detail-type but carry no instance.
          LifecycleTransition: ['autoscaling:EC2_INSTANCE_TERMINATING'],
          ...asgScope(options),
          ...(options.lifecycleHookNames ? { LifecycleHookName: [...options.lifecycleHookNames] } : {}),
        },
      },
    },
    'asg-terminate-successful': {
      kind: 'asg-terminate-successful',
      description: 'Auto Scaling EC2 Instance Terminate Successful: the machine is gone, its Node is stale',
      pattern: {
        source: ['aws.autoscaling'],
        detailType: ['EC2 Instance Terminate Successful'],
        ...(options.autoScalingGroupNames ? { detail: asgScope(options) } : {}),
      },
    },
    'scheduled-change': {
      kind: 'scheduled-change',
      description: 'AWS Health EC2 scheduled change (retirement, maintenance): the affected nodes are slated',
      pattern: {
        source: ['aws.health'],
        detailType: ['AWS Health Event'],
        detail: { service: ['EC2'], eventTypeCategory: ['scheduledChange'] },
      },
    },
    'decommission-tag': {
      kind: 'decommission-tag',
      description: `Tag Change on an EC2 instance that sets ${DECOMMISSION_TAG}: operator decommission`,
      pattern: {
        source: ['aws.tag'],
        detailType: ['Tag Change on Resource'],
        detail: {
          service: ['ec2'],
          'resource-type': ['instance'],
          'changed-tag-keys': [DECOMMISSION_TAG],
          // `tags` holds the tags after the change: a removal of the key has nothing to act on.
          tags: { [DECOMMISSION_TAG]: [{ exists: true }] },
        },
      },
    },
  };
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
    for (const spec of Object.values(signalPatterns(props))) {
      if (spec === undefined) continue;
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
