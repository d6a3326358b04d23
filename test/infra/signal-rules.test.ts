import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { logicalIdOf } from '../../infra/findings.js';
import { SignalRules, signalPatterns, type SignalPatternOptions } from '../../infra/signal-rules.js';
import { SIGNAL_KINDS, type SignalKind } from '@ec2-node-reconciler/model/signal.js';
import { INSTANCE_STATES } from '@ec2-node-reconciler/model/instance-states.js';
import { parseEvent, SIGNAL_MODULES } from '../../lib/signals/index.js';
import { DECOMMISSION_TAG } from '@ec2-node-reconciler/model/contract/labels.js';
import { fixture, FIXTURE_NAMES, withField } from '../signals/events.js';
import { matchesPattern } from '@ec2-node-reconciler/sandbox/aws/event-pattern.js';
import { propertiesOf } from './support/template.js';

/** The rendered event patterns (as deployed, `detail-type` and all) of a SignalRules construct, by kind. */
function deployedPatterns(options: SignalPatternOptions = {}): Map<SignalKind, unknown> {
  const stack = new Stack(new App(), 'Rules');
  const queue = new sqs.Queue(stack, 'Queue');
  const rules = new SignalRules(stack, 'Rules', {
    ...options,
    queue,
    deadLetterQueue: new sqs.Queue(stack, 'Dlq'),
    descriptionPrefix: 'test',
  });
  const template = Template.fromStack(stack);
  const patterns = new Map<SignalKind, unknown>();
  for (const [kind, rule] of rules.rules) patterns.set(kind, propertiesOf(template, logicalIdOf(rule)).EventPattern);
  return patterns;
}

function matchingKinds(patterns: Map<SignalKind, unknown>, event: unknown): SignalKind[] {
  return [...patterns].filter(([, pattern]) => matchesPattern(pattern, event)).map(([kind]) => kind);
}

const DEFAULT_PATTERNS = deployedPatterns();

/**
 * What each sample event should reach: the rule of that kind, or no rule. Events the function
 * would only ignore are filtered by the rules where a pattern can tell (running, other Health
 * categories and services, other tag keys, removed tags, other resource types).
 */
const EXPECTED: Readonly<Record<string, SignalKind | null>> = {
  'spot-interruption': 'spot-interruption',
  'spot-interruption-hibernate': 'spot-interruption',
  'rebalance-recommendation': 'rebalance-recommendation',
  'state-change-pending': null,
  'state-change-running': null,
  'state-change-shutting-down': 'state-change',
  'state-change-stopping': 'state-change',
  'state-change-stopped': 'state-change',
  'state-change-terminated': 'state-change',
  'state-change-terminated-legacy-id': 'state-change',
  'capacity-reservation-interruption': 'capacity-reservation-interruption',
  'capacity-reservation-interruption-no-termination-time': 'capacity-reservation-interruption',
  'asg-terminate-lifecycle-action': 'asg-terminate-lifecycle-action',
  'asg-terminate-lifecycle-action-warm-pool': 'asg-terminate-lifecycle-action',
  'asg-terminate-successful': 'asg-terminate-successful',
  // A notification sent straight to a queue, not an EventBridge event.
  'asg-test-notification-raw': null,
  'health-scheduled-retirement': 'scheduled-change',
  'health-scheduled-maintenance-multi': 'scheduled-change',
  // The rule cannot see the entity type or the status: the function skips hosts and closed changes.
  'health-scheduled-dedicated-host': 'scheduled-change',
  'health-scheduled-closed': 'scheduled-change',
  'health-issue-ec2': null,
  'health-scheduled-rds': null,
  'tag-change-decommission': 'decommission-tag',
  'tag-change-decommission-removed': null,
  'tag-change-decommission-volume': null,
  'tag-change-other-key': null,
};

describe('signal rules', () => {
  it('should have one rule per signal kind of docs/design.md §2', () => {
    expect([...DEFAULT_PATTERNS.keys()].sort()).toEqual([...SIGNAL_KINDS].sort());
  });

  it('should route each rule by the same source and detail-type as the signal module of its kind', () => {
    for (const kind of SIGNAL_KINDS) {
      const { source, detailType } = SIGNAL_MODULES[kind];
      expect(DEFAULT_PATTERNS.get(kind), kind).toMatchObject({ source: [source], 'detail-type': [detailType] });
    }
  });

  it.each(Object.entries(EXPECTED))('should route the sample event %s to %s', (name, kind) => {
    expect(matchingKinds(DEFAULT_PATTERNS, fixture(name))).toEqual(kind === null ? [] : [kind]);
  });

  it('should match every sample event that the function turns into signals (no rule drops a signal)', () => {
    const dropped = FIXTURE_NAMES.filter((name) => {
      const event = fixture(name);
      let actionable = false;
      try {
        actionable = parseEvent(event).outcome === 'signals';
      } catch {
        // A poison message: whether a rule passes it on does not matter.
      }
      return actionable && matchingKinds(DEFAULT_PATTERNS, event).length === 0;
    });
    expect(dropped).toEqual([]);
  });

  it('should let through exactly the instance states whose events become signals', () => {
    const pattern = DEFAULT_PATTERNS.get('state-change');
    const event = (state: string) => withField('state-change-terminated', ['detail', 'state'], state);
    const passed = INSTANCE_STATES.filter((state) => matchesPattern(pattern, event(state)));
    const signalled = INSTANCE_STATES.filter((state) => parseEvent(event(state)).outcome === 'signals');
    expect(passed.sort()).toEqual(signalled.sort());
    expect(passed).not.toContain('running');
  });

  it('should pass a decommission tag whose value changed but not a change to another key on the same instance', () => {
    const pattern = DEFAULT_PATTERNS.get('decommission-tag');
    const keys = ['detail', 'changed-tag-keys'];
    expect(matchesPattern(pattern, withField('tag-change-decommission', keys, ['Name', DECOMMISSION_TAG]))).toBe(true);
    expect(matchesPattern(pattern, withField('tag-change-decommission', keys, ['Name']))).toBe(false);
  });

  describe('Auto Scaling scoping', () => {
    it('should pass only the named groups when autoScalingGroupNames is set', () => {
      const mine = deployedPatterns({ autoScalingGroupNames: ['eks-workers'] });
      const others = deployedPatterns({ autoScalingGroupNames: ['batch-workers'] });
      for (const name of ['asg-terminate-lifecycle-action', 'asg-terminate-successful']) {
        expect(matchingKinds(mine, fixture(name)), name).toHaveLength(1);
        expect(matchingKinds(others, fixture(name)), name).toEqual([]);
      }
    });

    it('should pass only the named lifecycle hooks when lifecycleHookNames is set, leaving Terminate Successful alone', () => {
      const patterns = deployedPatterns({ lifecycleHookNames: ['another-tools-hook'] });
      expect(matchingKinds(patterns, fixture('asg-terminate-lifecycle-action'))).toEqual([]);
      expect(matchingKinds(patterns, fixture('asg-terminate-successful'))).toEqual(['asg-terminate-successful']);
      const ours = deployedPatterns({ lifecycleHookNames: ['ec2-node-reconciler-drain'] });
      expect(matchingKinds(ours, fixture('asg-terminate-lifecycle-action'))).toEqual([
        'asg-terminate-lifecycle-action',
      ]);
    });

    it('should not pass Auto Scaling test notifications routed through EventBridge', () => {
      const test = withField('asg-terminate-lifecycle-action', ['detail'], {
        Event: 'autoscaling:TEST_NOTIFICATION',
        AutoScalingGroupName: 'eks-workers',
      });
      expect(matchingKinds(DEFAULT_PATTERNS, test)).toEqual([]);
    });
  });

  it('should create no rebalance rule under the rebalance policy ignore', () => {
    const patterns = deployedPatterns({ skipRebalance: true });
    expect(patterns.has('rebalance-recommendation')).toBe(false);
    expect(matchingKinds(patterns, fixture('rebalance-recommendation'))).toEqual([]);
    expect(patterns.size).toBe(SIGNAL_KINDS.length - 1);
  });

  it('should keep the pure pattern table and the deployed rules in step', () => {
    const table = signalPatterns();
    expect(table.map((spec) => spec.kind)).toEqual([...SIGNAL_KINDS]);
    for (const kind of SIGNAL_KINDS) {
      const spec = table.find((s) => s.kind === kind);
      const { detailType, ...rest } = spec?.pattern ?? {};
      expect(DEFAULT_PATTERNS.get(kind)).toEqual({ ...rest, 'detail-type': detailType });
    }
  });
});
