// The arithmetic of packages/model/src/contract/signal-queue.ts on what the stack deploys: the signal queue's
// visibility timeout and redrive policy against the events function's timeout, Lambda's advice for
// SQS event sources and a spot warning's two minutes (issue #28, 4).
import { describe, expect, it } from 'vitest';
import {
  LAMBDA_ADVISED_MIN_RECEIVES,
  LAMBDA_ADVISED_VISIBILITY_FACTOR,
} from '@ec2-node-reconciler/model/contract/signal-queue.js';
import { SPOT_NOTICE_MS } from '@ec2-node-reconciler/model/spot-notice.js';
import { defaultStack } from './support/synth.js';
import { propertiesOf, resources } from './support/template.js';

interface QueueProperties {
  readonly VisibilityTimeout: number;
  readonly RedrivePolicy: { readonly maxReceiveCount: number };
}

/** The signal queue (the one with a redrive policy) and the events function it feeds, as synthesized. */
function deployed(): { queue: QueueProperties; eventsTimeoutSeconds: number } {
  const { template } = defaultStack();
  const queues = resources(template, 'AWS::SQS::Queue').filter(([, q]) => q.Properties?.['RedrivePolicy']);
  expect(queues).toHaveLength(1);
  const [mapping] = resources(template, 'AWS::Lambda::EventSourceMapping');
  const functionRef = mapping?.[1].Properties?.['FunctionName'] as { Ref?: string } | undefined;
  const events = propertiesOf(template, functionRef?.Ref ?? '');
  return {
    queue: queues[0]?.[1].Properties as unknown as QueueProperties,
    eventsTimeoutSeconds: events['Timeout'] as number,
  };
}

describe('the signal queue’s redelivery, against a spot warning’s two minutes', () => {
  it('should send a record to the dead-letter queue only after Lambda’s advised 5 receives, throttled ones included', () => {
    expect(deployed().queue.RedrivePolicy.maxReceiveCount).toBeGreaterThanOrEqual(LAMBDA_ADVISED_MIN_RECEIVES);
  });

  it('should hide a received record for six times the events function’s timeout, so throttling retries do not overlap', () => {
    const { queue, eventsTimeoutSeconds } = deployed();
    expect(queue.VisibilityTimeout).toBeGreaterThanOrEqual(LAMBDA_ADVISED_VISIBILITY_FACTOR * eventsTimeoutSeconds);
  });

  it('should dead-letter a spot warning throttled on every receive only after 30 minutes, 15 times its notice', () => {
    // A redelivery comes a visibility timeout later, past the warning's deadline: its first receive is the one that acts.
    const { queue } = deployed();
    expect(queue.VisibilityTimeout * 1000).toBeGreaterThan(SPOT_NOTICE_MS);
    // Failed or throttled on every receive, the record leaves for the DLQ a visibility timeout after its last one.
    const secondsToDeadLetter = queue.RedrivePolicy.maxReceiveCount * queue.VisibilityTimeout;
    expect(secondsToDeadLetter).toBe(30 * 60);
    expect(secondsToDeadLetter * 1000).toBeGreaterThanOrEqual(15 * SPOT_NOTICE_MS);
  });
});
