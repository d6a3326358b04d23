/**
 * EC2 Instance State-change Notification. `pending` and `running` say nothing about removal and
 * are ignored; the others slate the node (shutting-down, stopping), mark a stopped machine, or
 * report the machine gone (terminated).
 *
 * Example (AWS EC2 User Guide, "State change events for Amazon EC2 instances"):
 * ```json
 * {
 *   "version": "0",
 *   "id": "7bf73129-1428-4cd3-a780-95db273d1602",
 *   "detail-type": "EC2 Instance State-change Notification",
 *   "source": "aws.ec2",
 *   "account": "123456789012",
 *   "time": "2026-03-04T11:29:54Z",
 *   "region": "us-east-1",
 *   "resources": ["arn:aws:ec2:us-east-1:123456789012:instance/i-1234567890abcdef0"],
 *   "detail": { "instance-id": "i-1234567890abcdef0", "state": "shutting-down" }
 * }
 * ```
 */
import * as z from 'zod';
import { InstanceIdSchema } from '@ec2-node-reconciler/model/instance-id.js';
import { INSTANCE_STATES, SIGNALLED_STATES, type InstanceState } from '@ec2-node-reconciler/model/instance-states.js';
import { defineSignal, emit, fromEnvelope, ignore } from './signal-module.js';

const MEANING: Readonly<Record<InstanceState, string | undefined>> = {
  pending: undefined,
  running: undefined,
  'shutting-down': 'is shutting down (terminating)',
  stopping: 'is stopping',
  stopped: 'is stopped',
  terminated: 'is terminated',
};

export const stateChange = defineSignal({
  kind: 'state-change',
  source: 'aws.ec2',
  detailType: 'EC2 Instance State-change Notification',
  detail: z.object({ 'instance-id': InstanceIdSchema, state: z.enum(INSTANCE_STATES) }),
  rule: {
    description: 'EC2 Instance State-change Notification for shutting-down, stopping, stopped and terminated',
    // Exactly the states this module acts on (test/infra/signal-rules.test.ts holds the two together).
    detail: () => ({ state: [...SIGNALLED_STATES] }),
  },
  toSignals(event) {
    const instanceId = event.detail['instance-id'];
    const state = event.detail.state;
    const meaning = MEANING[state];
    if (meaning === undefined) return ignore(`instance ${instanceId} is ${state}: not a removal`);
    return emit([
      {
        kind: 'state-change',
        instanceId,
        ...fromEnvelope(event),
        state,
        description: `State change: instance ${instanceId} ${meaning}.`,
      },
    ]);
  },
});
