import { describe, expect, it } from 'vitest';
import { isInstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import { SIGNAL_KINDS, type Signal } from '@ec2-node-reconciler/model/signal.js';
import {
  parseEvent,
  SIGNAL_MODULES,
  signalKindOf,
  SignalRejection,
  type ParseOutcome,
} from '../../lib/signals/index.js';
import { fixture, withField, without } from './events.js';

const I1 = 'i-1234567890abcdef0';
const I2 = 'i-0fedcba9876543210';
const I3 = 'i-0a1b2c3d4e5f60718';
const INSTANCE_ARN = 'arn:aws:ec2:us-east-1:123456789012:instance/';
const at = (iso: string): number => Date.parse(iso);

function signalsOf(outcome: ParseOutcome): readonly Signal[] {
  if (outcome.outcome !== 'signals') throw new Error(`expected signals, got ignored: ${outcome.reason}`);
  return outcome.signals;
}

function reasonOf(outcome: ParseOutcome): string {
  if (outcome.outcome !== 'ignored') throw new Error(`expected ignored, got ${outcome.signals.length} signal(s)`);
  return outcome.reason;
}

function skippedOf(outcome: ParseOutcome): readonly string[] {
  if (outcome.outcome !== 'signals') throw new Error(`expected signals, got ignored: ${outcome.reason}`);
  return outcome.skipped;
}

function rejectionOf(event: unknown): SignalRejection {
  try {
    parseEvent(event);
  } catch (error) {
    if (error instanceof SignalRejection) return error;
    throw error;
  }
  throw new Error('expected a SignalRejection, got an outcome');
}

describe('parseEvent: signals', () => {
  it.each([
    {
      name: 'spot-interruption',
      expected: [
        {
          kind: 'spot-interruption',
          instanceId: I1,
          observedAt: at('2026-03-04T10:15:00Z'),
          deadline: at('2026-03-04T10:17:00Z'),
        },
      ],
    },
    {
      name: 'spot-interruption-hibernate',
      expected: [{ kind: 'spot-interruption', instanceId: I2, deadline: at('2026-03-04T10:18:00Z') }],
    },
    {
      name: 'rebalance-recommendation',
      expected: [{ kind: 'rebalance-recommendation', instanceId: I1, observedAt: at('2026-03-04T10:00:00Z') }],
    },
    {
      name: 'state-change-shutting-down',
      expected: [{ kind: 'state-change', instanceId: I1, state: 'shutting-down' }],
    },
    { name: 'state-change-stopping', expected: [{ kind: 'state-change', instanceId: I1, state: 'stopping' }] },
    { name: 'state-change-stopped', expected: [{ kind: 'state-change', instanceId: I1, state: 'stopped' }] },
    { name: 'state-change-terminated', expected: [{ kind: 'state-change', instanceId: I1, state: 'terminated' }] },
    {
      name: 'state-change-terminated-legacy-id',
      expected: [{ kind: 'state-change', instanceId: 'i-0a1b2c3d', state: 'terminated' }],
    },
    {
      name: 'capacity-reservation-interruption',
      expected: [{ kind: 'capacity-reservation-interruption', instanceId: I2, deadline: at('2026-03-04T12:02:00Z') }],
    },
    {
      name: 'capacity-reservation-interruption-no-termination-time',
      expected: [{ kind: 'capacity-reservation-interruption', instanceId: I3, deadline: at('2026-03-04T12:12:00Z') }],
    },
    {
      name: 'asg-terminate-lifecycle-action',
      expected: [
        {
          kind: 'asg-terminate-lifecycle-action',
          instanceId: I1,
          lifecycle: {
            group: 'eks-workers',
            hook: 'ec2-node-reconciler-drain',
            token: '0befcbdb-6ecd-498a-9ff7-ae9b54447cd6',
          },
        },
      ],
    },
    { name: 'asg-terminate-successful', expected: [{ kind: 'asg-terminate-successful', instanceId: I1 }] },
    {
      name: 'health-scheduled-retirement',
      expected: [
        {
          kind: 'scheduled-change',
          instanceId: I1,
          deadline: Date.UTC(2022, 5, 3, 6, 27, 57),
          observedAt: at('2022-05-20T06:27:57Z'),
        },
      ],
    },
    {
      name: 'health-scheduled-maintenance-multi',
      expected: [
        { kind: 'scheduled-change', instanceId: I1, deadline: Date.UTC(2022, 5, 7, 15, 10, 9) },
        { kind: 'scheduled-change', instanceId: I2, deadline: Date.UTC(2022, 5, 7, 15, 10, 9) },
      ],
    },
    {
      name: 'tag-change-decommission',
      expected: [{ kind: 'decommission-tag', instanceId: I3, observedAt: at('2026-03-04T14:00:00Z') }],
    },
  ])('should turn $name into its signals', ({ name, expected }) => {
    // prepare
    const event = fixture(name);

    // act
    const signals = signalsOf(parseEvent(event));

    // assess
    expect(signals).toMatchObject(expected);
    for (const signal of signals) {
      expect(signal.eventId).toBe(event.id);
      expect(signal.observedAt).toBe(at(String(event.time)));
      expect(signal.description).toContain(signal.instanceId);
    }
  });

  it.each([
    'rebalance-recommendation',
    'asg-terminate-lifecycle-action',
    'state-change-stopping',
    'tag-change-decommission',
  ])('should set no deadline for %s, which does not announce one', (name) => {
    // act
    const signals = signalsOf(parseEvent(fixture(name)));

    // assess
    expect(signals.map((s) => s.deadline)).toEqual([undefined]);
  });

  it('should carry the envelope header with the signals', () => {
    // prepare
    const event = fixture('spot-interruption');

    // act
    const outcome = parseEvent(event);

    // assess
    expect(outcome.header).toEqual({
      id: '0bd4a41b-8a4d-4c8b-9c4c-1f6a1c1e2a01',
      source: 'aws.ec2',
      detailType: 'EC2 Spot Instance Interruption Warning',
      time: '2026-03-04T10:15:00Z',
      account: '123456789012',
      region: 'us-east-2',
    });
  });

  it('should say which Health entities were skipped and why', () => {
    // prepare
    const event = fixture('health-scheduled-maintenance-multi');

    // act
    const outcome = parseEvent(event);

    // assess
    expect(skippedOf(outcome)).toEqual([
      'detail.affectedEntities[2].entityValue: "h-0123456789abcdef0" is not an instance id',
    ]);
  });

  it('should emit one signal per instance when a Health event lists an instance twice', () => {
    // prepare
    const event = withField(
      'health-scheduled-retirement',
      ['detail', 'affectedEntities'],
      [{ entityValue: I1 }, { entityValue: I1 }],
    );

    // act
    const outcome = parseEvent(event);

    // assess
    expect(signalsOf(outcome)).toHaveLength(1);
    expect(skippedOf(outcome)).toEqual([`detail.affectedEntities[1].entityValue: ${I1} is listed twice`]);
  });

  it('should mention the warm pool when a lifecycle action returns the instance to it', () => {
    // prepare
    const event = fixture('asg-terminate-lifecycle-action-warm-pool');

    // act
    const [signal] = signalsOf(parseEvent(event));

    // assess
    expect(signal).toMatchObject({ kind: 'asg-terminate-lifecycle-action', instanceId: I2 });
    expect(signal?.description).toContain('warm pool');
  });

  it('should accept a Health start time without a weekday or with a two-digit day', () => {
    // prepare
    const bare = withField('health-scheduled-retirement', ['detail', 'startTime'], '3 Jun 2022 06:27:57 GMT');
    const padded = withField('health-scheduled-retirement', ['detail', 'startTime'], 'Fri, 03 Jun 2022 06:27:57 GMT');

    // act
    const deadlines = [bare, padded].map((event) => signalsOf(parseEvent(event))[0]?.deadline);

    // assess
    expect(deadlines).toEqual([Date.UTC(2022, 5, 3, 6, 27, 57), Date.UTC(2022, 5, 3, 6, 27, 57)]);
  });
});

describe('parseEvent: ignored', () => {
  it.each([
    { name: 'state-change-pending', reason: 'pending' },
    { name: 'state-change-running', reason: 'running' },
    { name: 'health-issue-ec2', reason: 'only EC2 scheduled changes' },
    { name: 'health-scheduled-rds', reason: 'for RDS' },
    { name: 'health-scheduled-closed', reason: 'closed' },
    { name: 'health-scheduled-dedicated-host', reason: 'not an instance id' },
    { name: 'tag-change-decommission-removed', reason: 'was removed' },
    { name: 'tag-change-other-key', reason: 'does not touch' },
    { name: 'tag-change-decommission-volume', reason: 'not an EC2 instance' },
  ])('should ignore $name with a reason', ({ name, reason }) => {
    // prepare
    const event = fixture(name);

    // act
    const outcome = parseEvent(event);

    // assess
    expect(reasonOf(outcome)).toContain(reason);
    expect(outcome.header.id).toBe(event.id);
  });

  it('should ignore an EC2 scheduled change that names no entities', () => {
    // prepare
    const event = without('health-scheduled-retirement', ['detail', 'affectedEntities']);

    // act
    const outcome = parseEvent(event);

    // assess
    expect(reasonOf(outcome)).toContain('no instance');
  });

  it.each([
    {
      form: 'LifecycleTransition',
      detail: { LifecycleTransition: 'autoscaling:TEST_NOTIFICATION', AutoScalingGroupName: 'eks-workers' },
    },
    {
      form: 'Event',
      detail: {
        Event: 'autoscaling:TEST_NOTIFICATION',
        AutoScalingGroupName: 'eks-workers',
        Service: 'AWS Auto Scaling',
      },
    },
  ])('should ignore an Auto Scaling test notification in its $form form', ({ detail }) => {
    // prepare
    const event = withField('asg-terminate-lifecycle-action', ['detail'], detail);

    // act
    const outcome = parseEvent(event);

    // assess
    expect(reasonOf(outcome)).toContain('test notification');
  });

  it('should ignore a Health event of another category even when its details have another shape', () => {
    // prepare
    const event = withField('health-issue-ec2', ['detail', 'startTime'], 12345);

    // act
    const outcome = parseEvent(event);

    // assess
    expect(outcome.outcome).toBe('ignored');
  });
});

describe('parseEvent: rejected', () => {
  const HOSTILE_IDS = [
    'i-123/../nodes',
    'i-ABCDEF0123456789A',
    'i-1234567890abcdef',
    `i-${'a'.repeat(10_000)}`,
    'i-1234567890abcdef0\n',
    ' i-1234567890abcdef0',
    '',
  ];

  it.each(HOSTILE_IDS)('should reject the instance id %j in every kind that carries one', (id) => {
    // prepare
    const events = [
      withField('spot-interruption', ['detail', 'instance-id'], id),
      withField('rebalance-recommendation', ['detail', 'instance-id'], id),
      withField('state-change-terminated', ['detail', 'instance-id'], id),
      withField('capacity-reservation-interruption', ['detail', 'instance-id'], id),
      withField('asg-terminate-lifecycle-action', ['detail', 'EC2InstanceId'], id),
      withField('asg-terminate-successful', ['detail', 'EC2InstanceId'], id),
    ];

    // act
    const messages = events.map((event) => rejectionOf(event).message);

    // assess
    expect(messages).toEqual([
      expect.stringMatching(/^detail\.instance-id: must be an EC2 instance id/),
      expect.stringMatching(/^detail\.instance-id: must be an EC2 instance id/),
      expect.stringMatching(/^detail\.instance-id: must be an EC2 instance id/),
      expect.stringMatching(/^detail\.instance-id: must be an EC2 instance id/),
      expect.stringMatching(/^detail\.EC2InstanceId: must be an EC2 instance id/),
      expect.stringMatching(/^detail\.EC2InstanceId: must be an EC2 instance id/),
    ]);
    for (const message of messages) expect(message.length).toBeLessThan(200);
  });

  it.each([
    {
      why: 'a missing instance id',
      event: without('spot-interruption', ['detail', 'instance-id']),
      message: 'detail.instance-id: is required',
    },
    {
      why: 'an instance id of the wrong type',
      event: withField('spot-interruption', ['detail', 'instance-id'], 42),
      message: 'detail.instance-id: must be a string, not a number',
    },
    {
      why: 'a missing detail',
      event: without('rebalance-recommendation', ['detail']),
      message: 'detail: is required',
    },
    {
      why: 'a detail that is an array',
      event: withField('rebalance-recommendation', ['detail'], []),
      message: 'detail: must be an object, not an array',
    },
    {
      why: 'a missing version',
      event: without('spot-interruption', ['version']),
      message: 'version: is required',
    },
    {
      why: 'a time that is not ISO 8601',
      event: withField('spot-interruption', ['time'], 'yesterday'),
      message: 'time: ',
    },
    {
      why: 'an impossible time',
      event: withField('spot-interruption', ['time'], '2026-02-30T10:00:00Z'),
      message: 'time: ',
    },
    {
      why: 'an event id with a path in it',
      event: withField('spot-interruption', ['id'], '../../etc/passwd'),
      message: 'id: must be an event id',
    },
    {
      why: 'resources that are not a list',
      event: withField('spot-interruption', ['resources'], 'arn'),
      message: 'resources: must be an array, not a string',
    },
    {
      why: 'an unknown state',
      event: withField('state-change-stopped', ['detail', 'state'], 'exploded'),
      message: 'detail.state: must be one of "pending", "running"',
    },
    {
      why: 'a termination time that is not ISO 8601',
      event: withField('capacity-reservation-interruption', ['detail', 'instance-termination-time'], 'in two minutes'),
      message: 'detail.instance-termination-time: must be an ISO 8601',
    },
    {
      why: 'a lifecycle action without its token',
      event: without('asg-terminate-lifecycle-action', ['detail', 'LifecycleActionToken']),
      message: 'detail.LifecycleActionToken: is required',
    },
    {
      why: 'a lifecycle action token that is not a UUID',
      event: withField('asg-terminate-lifecycle-action', ['detail', 'LifecycleActionToken'], 'x'),
      message: 'detail.LifecycleActionToken: must be exactly 36 characters long',
    },
    {
      why: 'a lifecycle action without its hook',
      event: without('asg-terminate-lifecycle-action', ['detail', 'LifecycleHookName']),
      message: 'detail.LifecycleHookName: is required',
    },
    {
      why: 'a launch transition under the terminate detail-type',
      event: withField(
        'asg-terminate-lifecycle-action',
        ['detail', 'LifecycleTransition'],
        'autoscaling:EC2_INSTANCE_LAUNCHING',
      ),
      message: 'detail.LifecycleTransition: must be one of "autoscaling:EC2_INSTANCE_TERMINATING"',
    },
    {
      why: 'a lifecycle action without its transition',
      event: without('asg-terminate-lifecycle-action', ['detail', 'LifecycleTransition']),
      message: 'detail.LifecycleTransition: must be one of',
    },
    {
      why: 'a terminate-successful event without its instance',
      event: without('asg-terminate-successful', ['detail', 'EC2InstanceId']),
      message: 'detail.EC2InstanceId: is required',
    },
    {
      why: 'an EC2 scheduled change without a start time',
      event: without('health-scheduled-retirement', ['detail', 'startTime']),
      message: 'detail.startTime: is required',
    },
    {
      why: 'an EC2 scheduled change with an ISO start time',
      event: withField('health-scheduled-retirement', ['detail', 'startTime'], '2022-06-03T06:27:57Z'),
      message: 'detail.startTime: must be an RFC 1123 time',
    },
    {
      why: 'an EC2 scheduled change starting on 31 June',
      event: withField('health-scheduled-retirement', ['detail', 'startTime'], 'Fri, 31 Jun 2022 06:27:57 GMT'),
      message: 'detail.startTime: must be an RFC 1123 time',
    },
    {
      why: 'an EC2 scheduled change with a malformed end time',
      event: withField('health-scheduled-retirement', ['detail', 'endTime'], 'Fri, 3 Jun 2022 25:00:00 GMT'),
      message: 'detail.endTime: must be an RFC 1123 time',
    },
    {
      why: 'an EC2 scheduled change naming a hostile instance id',
      event: withField('health-scheduled-maintenance-multi', ['detail', 'affectedEntities', 1], {
        entityValue: 'i-123/../nodes',
      }),
      message: 'detail.affectedEntities[1].entityValue: must be an EC2 instance id',
    },
    {
      why: 'an EC2 scheduled change whose entities are not a list',
      event: withField('health-scheduled-retirement', ['detail', 'affectedEntities'], { entityValue: I1 }),
      message: 'detail.affectedEntities: must be an array, not an object',
    },
    {
      why: 'a Health event without a service',
      event: without('health-scheduled-retirement', ['detail', 'service']),
      message: 'detail.service: is required',
    },
    {
      why: 'an instance ARN with a hostile id',
      event: withField('tag-change-decommission', ['resources'], [`${INSTANCE_ARN}i-123/../nodes`]),
      message: 'resources[0]: must be an EC2 instance ARN',
    },
    {
      why: 'a resource that is not an ARN',
      event: withField('tag-change-decommission', ['resources'], [I3]),
      message: 'resources[0]: must be a resource ARN',
    },
    {
      why: 'a tag change on two resources',
      event: withField('tag-change-decommission', ['resources'], [`${INSTANCE_ARN}${I3}`, `${INSTANCE_ARN}${I1}`]),
      message: 'resources: must hold at most 1 item(s)',
    },
    {
      why: 'a tag change without resources',
      event: withField('tag-change-decommission', ['resources'], []),
      message: 'resources: ',
    },
    {
      why: 'a tag change without changed keys',
      event: without('tag-change-decommission', ['detail', 'changed-tag-keys']),
      message: 'detail.changed-tag-keys: is required',
    },
    {
      why: 'tags that are not a map',
      event: withField('tag-change-decommission', ['detail', 'tags'], 'ec2-node-reconciler/decommission'),
      message: 'detail.tags: must be a record, not a string',
    },
  ])('should reject $why, naming the field', ({ event, message }) => {
    // act
    const rejection = rejectionOf(event);

    // assess
    expect(rejection.message.slice(0, message.length)).toBe(message);
    expect(rejection.header.id).toBe(event.id);
  });

  it('should echo a bounded, escaped copy of a hostile value', () => {
    // prepare
    const event = withField('spot-interruption', ['detail', 'instance-id'], `i-\u001b[31m${'x'.repeat(500)}`);

    // act
    const rejection = rejectionOf(event);

    // assess
    expect(rejection.message).toContain('got "i-\\u001b[31m');
    expect(rejection.message).not.toContain('\u001b');
    expect(rejection.message.length).toBeLessThan(200);
  });

  it('should name every offending field, the first one leading', () => {
    // prepare
    const event = withField('asg-terminate-lifecycle-action', ['detail'], {
      LifecycleTransition: 'autoscaling:EC2_INSTANCE_TERMINATING',
      EC2InstanceId: 'i-bad',
    });

    // act
    const rejection = rejectionOf(event);

    // assess
    expect(rejection.field).toBe('detail.EC2InstanceId');
    expect(rejection.others.map((o) => o.field)).toEqual([
      'detail.AutoScalingGroupName',
      'detail.LifecycleHookName',
      'detail.LifecycleActionToken',
    ]);
    expect(rejection.message).toContain(
      '(also: detail.AutoScalingGroupName, detail.LifecycleHookName, detail.LifecycleActionToken)',
    );
  });

  it.each([
    { source: 'aws.ec2', detailType: 'EC2 Instance Launch Successful' },
    { source: 'aws.autoscaling', detailType: 'EC2 Instance-launch Lifecycle Action' },
    { source: 'aws.health', detailType: 'AWS Health Abuse Event' },
    { source: 'custom.app', detailType: 'EC2 Spot Instance Interruption Warning' },
  ])('should reject the unknown pair $source / $detailType, naming source/detail-type', ({ source, detailType }) => {
    // prepare
    const event = fixture('spot-interruption');
    event.source = source;
    event['detail-type'] = detailType;

    // act
    const rejection = rejectionOf(event);

    // assess
    expect(rejection.message).toMatch(/^source\/detail-type: no signal kind for/);
    expect(rejection.header).toMatchObject({ source, detailType, id: event.id });
  });

  it.each([null, [], 'event', 42, true])('should reject %j, which is not an event object', (input) => {
    // act
    const rejection = rejectionOf(input);

    // assess
    expect(rejection.message).toMatch(/^\(event\): must be a JSON object/);
  });

  it.each([
    { why: 'a missing source', event: without('spot-interruption', ['source']), message: 'source: must be a string' },
    {
      why: 'a numeric detail-type',
      event: withField('spot-interruption', ['detail-type'], 7),
      message: 'detail-type: must be a string',
    },
  ])('should reject $why before routing', ({ event, message }) => {
    // act
    const rejection = rejectionOf(event);

    // assess
    expect(rejection.message.slice(0, message.length)).toBe(message);
  });

  it('should reject an Auto Scaling notification sent straight to the queue, with the fix', () => {
    // prepare
    const event = fixture('asg-test-notification-raw');

    // act
    const rejection = rejectionOf(event);

    // assess
    expect(rejection.message).toMatch(/^source: must be a string .*route it through EventBridge/);
  });

  it('should be an Error named SignalRejection', () => {
    // act
    const rejection = rejectionOf(without('spot-interruption', ['detail']));

    // assess
    expect(rejection).toBeInstanceOf(Error);
    expect(rejection.name).toBe('SignalRejection');
  });
});

describe('SIGNAL_MODULES', () => {
  it('should have one module per signal kind, each under its own kind', () => {
    // act
    const kinds = Object.entries(SIGNAL_MODULES).map(([key, module]) => [key, module.kind]);

    // assess
    expect(kinds.map(([key]) => key).sort()).toEqual([...SIGNAL_KINDS].sort());
    for (const [key, kind] of kinds) expect(kind).toBe(key);
  });

  it('should route the fixture of every kind to that kind', () => {
    // prepare
    const byKind = {
      'spot-interruption': 'spot-interruption',
      'rebalance-recommendation': 'rebalance-recommendation',
      'state-change': 'state-change-stopped',
      'capacity-reservation-interruption': 'capacity-reservation-interruption',
      'asg-terminate-lifecycle-action': 'asg-terminate-lifecycle-action',
      'asg-terminate-successful': 'asg-terminate-successful',
      'scheduled-change': 'health-scheduled-retirement',
      'decommission-tag': 'tag-change-decommission',
    } as const;

    // act
    const routed = Object.entries(byKind).map(([kind, name]) => [kind, signalsOf(parseEvent(fixture(name)))[0]?.kind]);

    // assess
    for (const [kind, signalKind] of routed) expect(signalKind).toBe(kind);
  });

  it("should validate each kind's own fixture with its schema alone", () => {
    // prepare
    const cases = [
      [SIGNAL_MODULES['spot-interruption'], 'spot-interruption'],
      [SIGNAL_MODULES['decommission-tag'], 'tag-change-decommission'],
      [SIGNAL_MODULES['scheduled-change'], 'health-scheduled-retirement'],
    ] as const;

    // act
    const results = cases.map(([module, name]) => module.schema.safeParse(fixture(name)).success);

    // assess
    expect(results).toEqual([true, true, true]);
  });

  it("should name each module's (source, detail-type) as its kind, and no kind for a pair no module owns", () => {
    // act
    const kinds = Object.values(SIGNAL_MODULES).map((module) => signalKindOf(module.source, module.detailType));

    // assess
    expect(kinds).toEqual(Object.keys(SIGNAL_MODULES));
    expect(signalKindOf('aws.ec2', 'EC2 Instance Launch Successful')).toBeUndefined();
    expect(signalKindOf('custom.app', 'EC2 Spot Instance Interruption Warning')).toBeUndefined();
  });

  it('should only ever produce valid instance ids from the fixtures', () => {
    // prepare
    const names = [
      'health-scheduled-maintenance-multi',
      'tag-change-decommission',
      'state-change-terminated-legacy-id',
    ];

    // act
    const ids = names.flatMap((name) => signalsOf(parseEvent(fixture(name))).map((s) => s.instanceId));

    // assess
    expect(ids.every((id) => isInstanceId(id))).toBe(true);
  });
});
