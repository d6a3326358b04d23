import { describe, expect, it } from 'vitest';
import { readFailed, readOk } from '../../cli/doctor/check.js';
import {
  checkDeadLetterQueue,
  checkMapping,
  checkQueue,
  checkRules,
  checkSchedule,
  expectedSignals,
  type RuleFacts,
} from '../../cli/doctor/delivery.js';

const QUEUE = 'arn:aws:sqs:eu-west-1:111122223333:signals';
const DLQ = 'arn:aws:sqs:eu-west-1:111122223333:dead';
const DEPLOY = 'npx cdk deploy -c clusterName=demo';

const ruleFor = (source: string, detailType: string, overrides: Partial<RuleFacts> = {}): RuleFacts => ({
  name: `rule-${detailType.replaceAll(' ', '-')}`,
  state: 'ENABLED',
  eventPattern: JSON.stringify({ source: [source], 'detail-type': [detailType] }),
  targets: [{ arn: QUEUE, deadLetterArn: DLQ }],
  ...overrides,
});

describe('expectedSignals', () => {
  it('should be every signal kind, without rebalance recommendations under rebalance: ignore', () => {
    expect(expectedSignals('cordon')).toHaveLength(8);
    expect(expectedSignals('ignore').map((s) => s.kind)).not.toContain('rebalance-recommendation');
    expect(expectedSignals('ignore')).toHaveLength(7);
  });
});

describe('checkRules', () => {
  const signals = expectedSignals('cordon');
  const healthy = signals.map((s) => ruleFor(s.source, s.detailType));

  it('should pass once when every signal has an enabled rule targeting the queue', () => {
    const checks = checkRules({ queueArn: QUEUE, signals, rules: readOk(healthy), deployCommand: DEPLOY });

    expect(checks).toEqual([
      expect.objectContaining({ status: 'pass', detail: '8 signal(s), each with an enabled rule targeting the queue' }),
    ]);
  });

  it('should fail a disabled rule with enable-rule, and a missing one with a redeploy', () => {
    const [first, second, ...rest] = healthy;
    if (first === undefined || second === undefined) throw new Error('no rules');
    const rules = [
      { ...first, state: 'DISABLED' },
      { ...second, targets: [{ arn: 'arn:aws:sqs:eu-west-1:111122223333:other' }] },
      ...rest,
    ];

    const checks = checkRules({ queueArn: QUEUE, signals, rules: readOk(rules), deployCommand: DEPLOY });

    expect(checks.map((c) => [c.status, c.subject, c.fix])).toEqual([
      ['fail', signals[0]?.detailType, `aws events enable-rule --name ${first.name}`],
      ['fail', signals[1]?.detailType, `redeploy the stack: ${DEPLOY}`],
    ]);
  });

  it('should be unknown when the rules could not be listed', () => {
    const checks = checkRules({
      queueArn: QUEUE,
      signals,
      rules: readFailed('AccessDeniedException'),
      deployCommand: DEPLOY,
    });

    expect(checks.map((c) => c.status)).toEqual(['unknown']);
  });
});

describe('queues', () => {
  const deadLetter = readOk({ arn: DLQ, visible: 0, notVisible: 0 });

  it('should pass a queue redriving to the stack’s DLQ, and fail one without a redrive policy', () => {
    expect(
      checkQueue(readOk({ arn: QUEUE, visible: 2, notVisible: 1, deadLetterTargetArn: DLQ }), deadLetter).status,
    ).toBe('pass');
    const none = checkQueue(readOk({ arn: QUEUE, visible: 0, notVisible: 0 }), deadLetter);
    expect(none).toMatchObject({
      status: 'fail',
      detail: 'no redrive policy: a failed event is retried until it expires',
    });
  });

  it('should fail a dead-letter queue with messages, saying how to read them and the events function’s logs', () => {
    const check = checkDeadLetterQueue({
      url: 'https://sqs/dead',
      facts: readOk({ arn: DLQ, visible: 2, notVisible: 1 }),
      eventsLogGroup: '/aws/lambda/events',
    });

    expect(check).toMatchObject({ status: 'fail', detail: '3 event(s) that could not be handled' });
    expect(check.fix).toContain('aws sqs receive-message --queue-url https://sqs/dead');
    expect(check.fix).toContain('aws logs tail /aws/lambda/events');
    expect(checkDeadLetterQueue({ url: 'u', facts: deadLetter }).status).toBe('pass');
  });
});

describe('checkMapping', () => {
  const fn = 'arn:aws:lambda:eu-west-1:111122223333:function:events';

  it('should pass an Enabled mapping to the events function, and fail a disabled or missing one', () => {
    const enabled = checkMapping({
      eventsFunction: 'events',
      mappings: readOk([{ uuid: 'u-1', functionArn: fn, state: 'Enabled' }]),
      deployCommand: DEPLOY,
    });
    const disabled = checkMapping({
      eventsFunction: 'events',
      mappings: readOk([{ uuid: 'u-1', functionArn: fn, state: 'Disabled' }]),
      deployCommand: DEPLOY,
    });
    const missing = checkMapping({ eventsFunction: 'events', mappings: readOk([]), deployCommand: DEPLOY });

    expect(enabled.status).toBe('pass');
    expect(disabled).toMatchObject({
      status: 'fail',
      fix: 'aws lambda update-event-source-mapping --uuid u-1 --enabled',
    });
    expect(missing).toMatchObject({ status: 'fail', fix: `redeploy the stack: ${DEPLOY}` });
  });
});

describe('checkSchedule', () => {
  const sweep = 'sweep';
  const target = 'arn:aws:lambda:eu-west-1:111122223333:function:sweep';

  it('should pass an enabled schedule invoking the sweep function; fail a disabled one, one invoking another, none', () => {
    const check = (schedule: Parameters<typeof checkSchedule>[0]['schedule']) =>
      checkSchedule({ name: 'sched', sweepFunction: sweep, schedule, deployCommand: DEPLOY });

    expect(check(readOk({ state: 'ENABLED', expression: 'rate(10 minutes)', targetArn: target })).status).toBe('pass');
    expect(check(readOk({ state: 'DISABLED', expression: 'rate(10 minutes)', targetArn: target }))).toMatchObject({
      status: 'fail',
      detail: 'DISABLED (rate(10 minutes)): no periodic sweep runs',
    });
    expect(
      check(readOk({ state: 'ENABLED', expression: 'rate(10 minutes)', targetArn: `${target}-other` })).status,
    ).toBe('fail');
    expect(check(readOk(undefined)).status).toBe('fail');
  });
});
