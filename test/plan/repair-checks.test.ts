// The repair's rails (lib/plan/repair/checks.ts, docs/design.md §1b) as ordered lists: each refuses for its
// own reason, and the first in the documented order is the one reported. Behaviour through plan() is
// test/plan/repair.test.ts; this holds the order itself.
import { describe, expect, it } from 'vitest';
import type { ClassifiedPair } from '@ec2-node-reconciler/model/condition.js';
import type { InstanceView } from '@ec2-node-reconciler/model/observation.js';
import { DEFAULT_SETTINGS } from '@ec2-node-reconciler/model/contract/settings.js';
import { firstRefusal } from '../../lib/plan/check.js';
import type { Census } from '../../lib/plan/repair/census.js';
import {
  MACHINE_CHECKS,
  REPAIR_CHECKS,
  type MachineSubject,
  type RepairCheckCode,
  type RepairSubject,
} from '../../lib/plan/repair/checks.js';
import { aNode, anInstance, HOUR, instanceId, MINUTE, NOW } from '../support/world.js';

const REPAIR = { ...DEFAULT_SETTINGS.repair, enabled: true };

type Step<S> = readonly [RepairCheckCode, (s: S) => S];

/** Runs the ladder: the named rail refuses, is mended, and the next one refuses, until every rail passes. */
function climb<S>(checks: Parameters<typeof firstRefusal<S, RepairCheckCode>>[0], start: S, steps: readonly Step<S>[]) {
  let subject = start;
  const seen: (RepairCheckCode | undefined)[] = [];
  for (const [, mend] of steps) {
    seen.push(firstRefusal(checks, subject)?.code);
    subject = mend(subject);
  }
  seen.push(firstRefusal(checks, subject)?.code);
  return seen;
}

const withAsg = (instance: InstanceView, asg: Partial<NonNullable<InstanceView['autoScaling']>>): InstanceView => ({
  ...instance,
  autoScaling: { group: 'ng-a', lifecycleState: 'InService', healthStatus: 'Healthy', ...instance.autoScaling, ...asg },
});

describe('the machine rails (MACHINE_CHECKS)', () => {
  it('should refuse in the documented order: ownership, exclusion, lookups, then the group', () => {
    // Prepare: a machine that fails every rail at once.
    const instance = withAsg(anInstance(1, { state: 'stopped' }), {
      group: 'ng-b',
      suspendedProcesses: ['Launch'],
      lifecycleState: 'Pending',
      healthStatus: 'Unhealthy',
    });
    const pair: ClassifiedPair = {
      condition: 'unresponsive-machine',
      reason: 'test',
      signals: [],
      instanceId: instance.id,
      instance,
      ours: false,
    };
    const { autoScaling: _none, ...groupless } = instance;
    const start: MachineSubject = {
      pair,
      instance: groupless,
      excluded: 'instance tag ec2-node-reconciler/exclude=true',
      blindSpot: 'a lookup about it failed this run',
      ownGroups: ['ng-a'],
    };
    const mendInstance =
      (change: (i: InstanceView) => InstanceView) =>
      (s: MachineSubject): MachineSubject => ({ ...s, instance: change(s.instance) });
    const steps: Step<MachineSubject>[] = [
      ['not-ours', (s) => ({ ...s, pair: { ...s.pair, ours: true, ownedBy: 'node' } })],
      ['not-ours-by-tags', (s) => ({ ...s, pair: { ...s.pair, ownedBy: 'instance' } })],
      ['excluded', (s) => ({ ...s, excluded: undefined })],
      ['lookup-failed', (s) => ({ ...s, blindSpot: undefined })],
      ['no-group', mendInstance(() => instance)],
      ['not-configured-group', mendInstance((i) => withAsg(i, { group: 'ng-a' }))],
      ['replacement-suspended', mendInstance((i) => withAsg(i, { suspendedProcesses: ['AZRebalance'] }))],
      ['not-running', mendInstance((i) => ({ ...i, state: 'running' }))],
      ['not-in-service', mendInstance((i) => withAsg(i, { lifecycleState: 'InService' }))],
      ['already-unhealthy', mendInstance((i) => withAsg(i, { healthStatus: 'Healthy' }))],
    ];

    // Act
    const refused = climb(MACHINE_CHECKS, start, steps);

    // Assess
    expect(refused).toEqual([...steps.map(([code]) => code), undefined]);
    expect(MACHINE_CHECKS).toHaveLength(steps.length);
  });
});

describe('the repair rails (REPAIR_CHECKS)', () => {
  it('should refuse in the documented order: due, no drain beside it, not taken back, the breaker', () => {
    // Prepare: a machine due for nothing yet, under a running drain the operator once cancelled, in an outage.
    const node = aNode(1, { ready: 'Unknown' });
    const instance = withAsg(anInstance(1), {});
    const calm: Census = {
      groups: new Map(),
      cluster: { members: 10, unhealthy: 1 },
      unlocated: [],
      unlocatedMachines: [],
    };
    const start: RepairSubject = {
      node,
      instance,
      instanceId: instanceId(1),
      group: 'ng-a',
      triggers: [],
      waiting: 'Ready Unknown since …: repaired once it has been so for 30m',
      drain: {
        claim: { execution: 'drain-1', for: 'removal', outcome: 'cancelled-by-uncordon', at: NOW - MINUTE, chain: 0 },
        state: { status: 'running' },
      },
      census: { ...calm, unlocated: ['ip-10-0-0-9.ec2.internal'] },
      counts: { members: 10, unhealthy: 5, inFlight: 0, backOff: { failures: [] } },
      repair: REPAIR,
      now: NOW,
    };
    const steps: Step<RepairSubject>[] = [
      [
        'not-due',
        (s) => ({ ...s, waiting: undefined, triggers: [{ type: 'Ready', status: 'Unknown', since: NOW - HOUR }] }),
      ],
      ['drain-live', (s) => ({ ...s, drain: s.drain && { ...s.drain, state: { status: 'ended' } } })],
      ['taken-back', (s) => ({ ...s, drain: undefined })],
      ['unlocated', (s) => ({ ...s, census: calm })],
      ['stand-down', (s) => ({ ...s, counts: { ...s.counts, unhealthy: 1 } })],
    ];

    // Act
    const refused = climb(REPAIR_CHECKS, start, steps);

    // Assess
    expect(refused).toEqual([...steps.map(([code]) => code), undefined]);
    expect(REPAIR_CHECKS).toHaveLength(steps.length);
  });
});
