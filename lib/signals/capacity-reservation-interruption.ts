/**
 * EC2 Capacity Reservation Instance Interruption Warning: the owner of an interruptible Capacity
 * Reservation reclaims capacity and the instance is terminated two minutes later. The event
 * names the termination time; without it the two minutes count from the event time.
 *
 * Example (AWS EC2 User Guide, "Monitor interruptible Capacity Reservations"):
 * ```json
 * {
 *   "version": "0",
 *   "id": "12345678-1234-1234-1234-123456789012",
 *   "detail-type": "EC2 Capacity Reservation Instance Interruption Warning",
 *   "source": "aws.ec2",
 *   "account": "123456789012",
 *   "time": "2026-03-04T12:00:00Z",
 *   "region": "us-east-1",
 *   "resources": ["arn:aws:ec2:us-east-1:123456789012:instance/i-1234567890abcdef0"],
 *   "detail": {
 *     "instance-id": "i-1234567890abcdef0",
 *     "instance-action": "terminate",
 *     "instance-termination-time": "2026-03-04T12:02:00Z",
 *     "azId": "use1-az2"
 *   }
 * }
 * ```
 */
import * as z from 'zod';
import { InstanceIdSchema } from '@ec2-node-reconciler/model/instance-id.js';
import { defineSignal, emit, fromEnvelope, IsoTimeSchema, isoTime } from './signal-module.js';

/** AWS documents the warning as sent two minutes before termination. */
export const CAPACITY_RESERVATION_NOTICE_MS = 2 * 60_000;

export const capacityReservationInterruption = defineSignal({
  kind: 'capacity-reservation-interruption',
  source: 'aws.ec2',
  detailType: 'EC2 Capacity Reservation Instance Interruption Warning',
  detail: z.object({
    'instance-id': InstanceIdSchema,
    'instance-action': z.string().max(64).optional(),
    // Optional so that a warning without it still drains (on the documented two minutes); wrong when present is an error.
    'instance-termination-time': IsoTimeSchema.optional(),
    azId: z.string().max(64).optional(),
  }),
  rule: { description: 'EC2 Capacity Reservation Instance Interruption Warning: the node is slated' },
  toSignals(event) {
    const envelope = fromEnvelope(event);
    const instanceId = event.detail['instance-id'];
    const deadline = event.detail['instance-termination-time'] ?? envelope.observedAt + CAPACITY_RESERVATION_NOTICE_MS;
    const action = event.detail['instance-action'] ?? 'terminate';
    return emit([
      {
        kind: 'capacity-reservation-interruption',
        instanceId,
        ...envelope,
        deadline,
        description: `Capacity Reservation interruption warning: EC2 will ${action} ${instanceId} at ${isoTime(deadline)}.`,
      },
    ]);
  },
});
