// "Every event that could not be processed is in the DLQ, and no event processed is": each message
// the rules put on the signal queue ends exactly once, either taken by the events function (which
// said it reconciled or ignored it, on that very delivery) or in the dead-letter queue.
import { EVENT_RECORD_LOG } from '@ec2-node-reconciler/model/contract/function-logs.js';
import type { Delivery } from '../deployed/queue-poller.js';
import { functionLogLines } from '../simulate/function-logs.js';
import type { Sandbox } from '../simulate/sandbox.js';

/** The EventBridge event's id, else the message's: what names an event across runs. */
const eventIdOf = (delivery: Pick<Delivery, 'message'>): string => {
  const event = delivery.message.event;
  const id = typeof event === 'object' && event !== null && 'id' in event ? event.id : undefined;
  return typeof id === 'string' ? id : delivery.message.messageId;
};

export interface DeadLetterAccount {
  /** Events in the dead-letter queue (their EventBridge ids, sorted). */
  readonly deadLettered: readonly string[];
  /** Broken accounting: a message left in the queue, dropped, taken twice, or taken and dead-lettered. */
  readonly problems: readonly string[];
}

export function accountDeadLetters(sandbox: Sandbox): DeadLetterAccount {
  const problems: string[] = [];
  if (sandbox.queue.size > 0)
    problems.push(`${sandbox.queue.size} message(s) still in the signal queue after settling`);
  const byMessage = new Map<string, Delivery[]>();
  for (const d of sandbox.poller.deliveries)
    byMessage.set(d.message.messageId, [...(byMessage.get(d.message.messageId) ?? []), d]);
  const deadIds = new Set(sandbox.queue.deadLetters.map((l) => l.message.messageId));
  for (const [messageId, deliveries] of byMessage) {
    const taken = deliveries.filter((d) => d.succeeded);
    const first = deliveries[0];
    const name = first ? `${first.message.detailType} ${eventIdOf(first)}` : messageId;
    if (taken.length > 1) problems.push(`${name}: taken ${taken.length} times`);
    if (taken.length > 0 && deadIds.has(messageId)) problems.push(`${name}: taken, and dead-lettered too`);
    for (const d of taken) {
      // Taken means the function said what it did with it on that delivery; a "failed" line is a silent drop.
      const lines = functionLogLines(d.invocation?.logs ?? []).filter((l) => l.messageId === messageId);
      const said = lines.some(
        (l) => l.message === EVENT_RECORD_LOG.reconciled || l.message === EVENT_RECORD_LOG.ignored,
      );
      const failed = lines.some((l) => l.message === EVENT_RECORD_LOG.failed);
      if (!said || failed)
        problems.push(
          `${name}: deleted from the queue on receive ${d.attempt} though the function ${failed ? 'failed it' : 'said nothing about it'}`,
        );
    }
  }
  return {
    deadLettered: sandbox.queue.deadLetters.map((l) => eventIdOf(l)).sort(),
    problems,
  };
}
