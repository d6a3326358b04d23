// How signals reach the events function and sweeps reach the sweep function: a rule per signal,
// enabled and targeting the queue; the queue redriving to its dead-letter queue, which is empty; the
// queue's event source mapping enabled on the events function; the schedule enabled on the sweep
// function.
import * as z from 'zod';
import type { SignalKind } from '@ec2-node-reconciler/model/signal.js';
import { SIGNAL_MODULES, type SignalModule } from '../../lib/signals/index.js';
import { couldNotRead, failed, passed, type Check, type Read } from './check.js';

export interface ExpectedSignal {
  readonly kind: SignalKind;
  readonly source: string;
  readonly detailType: string;
}

/** The signals the stack has a rule for: every kind, but rebalance recommendations under `rebalance: ignore`. */
export function expectedSignals(rebalance: string): ExpectedSignal[] {
  return Object.values<SignalModule>(SIGNAL_MODULES)
    .filter((m) => !(rebalance === 'ignore' && m.kind === 'rebalance-recommendation'))
    .map((m) => ({ kind: m.kind, source: m.source, detailType: m.detailType }));
}

export interface RuleFacts {
  readonly name: string;
  readonly state: string;
  /** The pattern's JSON text, as DescribeRule gives it. */
  readonly eventPattern?: string;
  readonly targets: readonly { readonly arn: string; readonly deadLetterArn?: string }[];
}

const PatternSchema = z
  .object({ source: z.array(z.string()).optional(), 'detail-type': z.array(z.string()).optional() })
  .loose();

function covers(rule: RuleFacts, signal: ExpectedSignal): boolean {
  if (rule.eventPattern === undefined) return false;
  let pattern: unknown;
  try {
    pattern = JSON.parse(rule.eventPattern);
  } catch {
    return false;
  }
  const parsed = PatternSchema.safeParse(pattern);
  return (
    parsed.success &&
    (parsed.data.source?.includes(signal.source) ?? false) &&
    (parsed.data['detail-type']?.includes(signal.detailType) ?? false)
  );
}

/**
 * One check for the rules when every signal has an enabled rule delivering it to the queue; else one
 * failed check per signal that has none (disabled: enable it; missing or not targeting the queue:
 * redeploy).
 */
export function checkRules(input: {
  readonly queueArn: string;
  readonly signals: readonly ExpectedSignal[];
  /** The rules with a target of the queue (ListRuleNamesByTarget, then each one described). */
  readonly rules: Read<readonly RuleFacts[]>;
  readonly deployCommand: string;
}): Check[] {
  if (!input.rules.ok)
    return [
      couldNotRead(
        'rules',
        'signal rules',
        input.rules.error,
        'events:ListRuleNamesByTarget, DescribeRule and ListTargetsByRule',
      ),
    ];
  const toQueue = input.rules.value.filter((r) => r.targets.some((t) => t.arn === input.queueArn));
  const problems: Check[] = [];
  let withoutDlq = 0;
  for (const signal of input.signals) {
    const rules = toQueue.filter((r) => covers(r, signal));
    const enabled = rules.filter((r) => r.state === 'ENABLED');
    const subject = signal.detailType;
    if (enabled.length > 0) {
      if (!enabled.some((r) => r.targets.some((t) => t.arn === input.queueArn && t.deadLetterArn !== undefined)))
        withoutDlq += 1;
      continue;
    }
    const disabled = rules[0];
    problems.push(
      disabled !== undefined
        ? failed(
            'rule',
            subject,
            `rule ${disabled.name} is ${disabled.state}: these events are dropped`,
            `aws events enable-rule --name ${disabled.name}`,
          )
        : failed(
            'rule',
            subject,
            `no rule delivers ${signal.source} “${signal.detailType}” to the queue: these events are dropped`,
            `redeploy the stack: ${input.deployCommand}`,
          ),
    );
  }
  if (problems.length > 0) return problems;
  return [
    passed(
      'rules',
      'signal rules',
      `${input.signals.length} signal(s), each with an enabled rule targeting the queue${withoutDlq > 0 ? ` (${withoutDlq} without a dead-letter queue for failed deliveries)` : ''}`,
    ),
  ];
}

export interface QueueFacts {
  readonly arn: string;
  /** ApproximateNumberOfMessages. */
  readonly visible: number;
  /** ApproximateNumberOfMessagesNotVisible. */
  readonly notVisible: number;
  /** The redrive policy's target ARN, when the queue has one. */
  readonly deadLetterTargetArn?: string;
}

/** The signal queue redrives to the stack's dead-letter queue (a failed event is kept, not lost or retried forever). */
export function checkQueue(queue: Read<QueueFacts>, deadLetter: Read<QueueFacts>): Check {
  if (!queue.ok)
    return couldNotRead('queue', 'signal queue', queue.error, 'sqs:GetQueueAttributes on the signal queue');
  if (!deadLetter.ok)
    return couldNotRead('queue', 'signal queue', deadLetter.error, 'sqs:GetQueueAttributes on the dead-letter queue');
  if (queue.value.deadLetterTargetArn !== deadLetter.value.arn)
    return failed(
      'queue',
      'signal queue',
      queue.value.deadLetterTargetArn === undefined
        ? 'no redrive policy: a failed event is retried until it expires'
        : `redrives to ${queue.value.deadLetterTargetArn}, not the stack's dead-letter queue ${deadLetter.value.arn}`,
      'restore the stack’s redrive policy (a cdk deploy of an unchanged template changes nothing: aws sqs set-queue-attributes)',
    );
  return passed(
    'queue',
    'signal queue',
    `${queue.value.visible} waiting, ${queue.value.notVisible} in flight; a failed event goes to the dead-letter queue`,
  );
}

/** Nothing in the dead-letter queue: every event so far was handled. */
export function checkDeadLetterQueue(input: {
  readonly url: string;
  readonly facts: Read<QueueFacts>;
  readonly eventsLogGroup?: string;
}): Check {
  const { url, facts } = input;
  if (!facts.ok)
    return couldNotRead('queue', 'dead-letter queue', facts.error, 'sqs:GetQueueAttributes on the dead-letter queue');
  const count = facts.value.visible + facts.value.notVisible;
  if (count === 0) return passed('queue', 'dead-letter queue', `empty (${url})`);
  const logs =
    input.eventsLogGroup === undefined
      ? ''
      : `; why they failed: aws logs tail ${input.eventsLogGroup} --since 1d --filter-pattern '"record failed"'`;
  return failed(
    'queue',
    'dead-letter queue',
    `${count} event(s) that could not be handled`,
    `read them: aws sqs receive-message --queue-url ${url} --max-number-of-messages 10${logs}; once dealt with: aws sqs purge-queue --queue-url ${url}`,
  );
}

export interface MappingFacts {
  readonly uuid: string;
  readonly functionArn: string;
  readonly state: string;
}

const sameFunction = (arn: string, name: string): boolean =>
  arn === name || arn.replace(/:\$LATEST$/, '').endsWith(`:function:${name}`);

/** The queue feeds the events function: its event source mapping exists and is Enabled. */
export function checkMapping(input: {
  readonly eventsFunction: string;
  readonly mappings: Read<readonly MappingFacts[]>;
  readonly deployCommand: string;
}): Check {
  const subject = 'queue → events function';
  if (!input.mappings.ok)
    return couldNotRead('event source mapping', subject, input.mappings.error, 'lambda:ListEventSourceMappings');
  const ours = input.mappings.value.filter((m) => sameFunction(m.functionArn, input.eventsFunction));
  const enabled = ours.find((m) => m.state === 'Enabled');
  if (enabled) return passed('event source mapping', subject, `Enabled (${enabled.uuid})`);
  const other = ours[0];
  if (other !== undefined)
    return failed(
      'event source mapping',
      subject,
      `${other.state}: nothing reads the queue`,
      `aws lambda update-event-source-mapping --uuid ${other.uuid} --enabled`,
    );
  return failed(
    'event source mapping',
    subject,
    `no mapping from the queue to ${input.eventsFunction}: nothing reads the queue`,
    `redeploy the stack: ${input.deployCommand}`,
  );
}

export interface ScheduleFacts {
  readonly state: string;
  readonly expression: string;
  readonly targetArn: string;
}

/** The sweep schedule is enabled and invokes the sweep function. */
export function checkSchedule(input: {
  readonly name: string;
  readonly sweepFunction: string;
  readonly schedule: Read<ScheduleFacts | undefined>;
  readonly deployCommand: string;
}): Check {
  const { name, schedule } = input;
  if (!schedule.ok)
    return couldNotRead('schedule', 'sweep schedule', schedule.error, `scheduler:GetSchedule on ${name}`);
  if (schedule.value === undefined)
    return failed(
      'schedule',
      'sweep schedule',
      'no such schedule: no periodic sweep runs',
      `redeploy the stack: ${input.deployCommand}`,
    );
  const { state, expression, targetArn } = schedule.value;
  if (state !== 'ENABLED')
    return failed(
      'schedule',
      'sweep schedule',
      `${state} (${expression}): no periodic sweep runs`,
      `enable it in the EventBridge Scheduler console, or aws scheduler update-schedule --name ${name} --state ENABLED with its expression, target and time window (aws scheduler get-schedule --name ${name})`,
    );
  if (!sameFunction(targetArn, input.sweepFunction))
    return failed(
      'schedule',
      'sweep schedule',
      `${state}, but it invokes ${targetArn}, not ${input.sweepFunction}`,
      `redeploy the stack: ${input.deployCommand}`,
    );
  return passed('schedule', 'sweep schedule', `${name}: ${state}, ${expression}`);
}
