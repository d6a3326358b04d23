/**
 * EC2 Instance Rebalance Recommendation: a Spot instance is at elevated risk of interruption.
 * It carries no deadline; the configured policy (cordon, drain or ignore) decides what follows.
 *
 * Example (AWS EC2 User Guide, "EC2 instance rebalance recommendations"):
 * ```json
 * {
 *   "version": "0",
 *   "id": "12345678-1234-1234-1234-123456789012",
 *   "detail-type": "EC2 Instance Rebalance Recommendation",
 *   "source": "aws.ec2",
 *   "account": "123456789012",
 *   "time": "2026-03-04T10:00:00Z",
 *   "region": "us-east-2",
 *   "resources": ["arn:aws:ec2:us-east-2:123456789012:instance/i-1234567890abcdef0"],
 *   "detail": { "instance-id": "i-1234567890abcdef0" }
 * }
 * ```
 */
import * as z from 'zod';
import { InstanceIdSchema } from '@ec2-node-reconciler/model/instance-id.js';
import { defineSignal, emit, fromEnvelope } from './signal-module.js';

export const rebalanceRecommendation = defineSignal({
  kind: 'rebalance-recommendation',
  source: 'aws.ec2',
  detailType: 'EC2 Instance Rebalance Recommendation',
  detail: z.object({ 'instance-id': InstanceIdSchema }),
  rule: { description: 'EC2 Instance Rebalance Recommendation: the node is cordoned or drained (rebalance policy)' },
  toSignals(event) {
    const instanceId = event.detail['instance-id'];
    return emit([
      {
        kind: 'rebalance-recommendation',
        instanceId,
        ...fromEnvelope(event),
        description: `Rebalance recommendation: Spot instance ${instanceId} is at elevated risk of interruption.`,
      },
    ]);
  },
});
