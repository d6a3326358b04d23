/**
 * EC2 Spot Instance Interruption Warning: EC2 reclaims the instance two minutes after this event.
 *
 * Example (AWS EC2 User Guide, "Spot Instance interruption notices"):
 * ```json
 * {
 *   "version": "0",
 *   "id": "12345678-1234-1234-1234-123456789012",
 *   "detail-type": "EC2 Spot Instance Interruption Warning",
 *   "source": "aws.ec2",
 *   "account": "123456789012",
 *   "time": "2026-03-04T10:15:00Z",
 *   "region": "us-east-2",
 *   "resources": ["arn:aws:ec2:us-east-2:123456789012:instance/i-1234567890abcdef0"],
 *   "detail": { "instance-id": "i-1234567890abcdef0", "instance-action": "terminate" }
 * }
 * ```
 */
import * as z from 'zod';
import { InstanceIdSchema } from '@ec2-node-reconciler/model/instance-id.js';
import { SPOT_NOTICE_MS } from '@ec2-node-reconciler/model/spot-notice.js';
import { defineSignal, emit, fromEnvelope, isoTime } from './signal-module.js';

export const spotInterruption = defineSignal({
  kind: 'spot-interruption',
  source: 'aws.ec2',
  detailType: 'EC2 Spot Instance Interruption Warning',
  detail: z.object({
    'instance-id': InstanceIdSchema,
    // Only descriptive: a new action AWS might add must not turn a two-minute warning into a poison message.
    'instance-action': z.string().max(64).optional(),
  }),
  rule: {
    description: 'EC2 Spot Instance Interruption Warning: the node is slated, deadline two minutes after the event',
  },
  toSignals(event) {
    const envelope = fromEnvelope(event);
    const instanceId = event.detail['instance-id'];
    const action = event.detail['instance-action'] ?? 'interrupt';
    const deadline = envelope.observedAt + SPOT_NOTICE_MS;
    return emit([
      {
        kind: 'spot-interruption',
        instanceId,
        ...envelope,
        deadline,
        description: `Spot interruption warning: EC2 will ${action} ${instanceId} at ${isoTime(deadline)}.`,
      },
    ]);
  },
});
