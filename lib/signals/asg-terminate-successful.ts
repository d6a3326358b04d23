/**
 * EC2 Instance Terminate Successful: Auto Scaling terminated the instance; its Node, if any, is
 * now a stale object.
 *
 * Example (Amazon EC2 Auto Scaling User Guide, "Amazon EC2 Auto Scaling event reference"):
 * ```json
 * {
 *   "version": "0",
 *   "id": "12345678-1234-1234-1234-123456789012",
 *   "detail-type": "EC2 Instance Terminate Successful",
 *   "source": "aws.autoscaling",
 *   "account": "123456789012",
 *   "time": "2026-03-04T13:05:00Z",
 *   "region": "us-west-2",
 *   "resources": ["auto-scaling-group-arn", "instance-arn"],
 *   "detail": {
 *     "StatusCode": "InProgress",
 *     "Description": "Terminating EC2 instance: i-1234567890abcdef0",
 *     "AutoScalingGroupName": "my-asg",
 *     "ActivityId": "87654321-4321-4321-4321-210987654321",
 *     "Details": { "Availability Zone": "us-west-2b", "Subnet ID": "subnet-12345678" },
 *     "RequestId": "12345678-1234-1234-1234-123456789012",
 *     "StatusMessage": "",
 *     "EndTime": "2026-03-04T13:05:00Z",
 *     "EC2InstanceId": "i-1234567890abcdef0",
 *     "StartTime": "2026-03-04T13:00:00Z",
 *     "Cause": "At 2026-03-04T13:00:00Z an instance was taken out of service in response to a user request.",
 *     "Origin": "AutoScalingGroup",
 *     "Destination": "EC2"
 *   }
 * }
 * ```
 */
import * as z from 'zod';
import { InstanceIdSchema } from '@ec2-node-reconciler/model/instance-id.js';
import { autoScalingGroupFilter, defineSignal, emit, fromEnvelope } from './signal-module.js';

export const asgTerminateSuccessful = defineSignal({
  kind: 'asg-terminate-successful',
  source: 'aws.autoscaling',
  detailType: 'EC2 Instance Terminate Successful',
  detail: z.object({
    EC2InstanceId: InstanceIdSchema,
    // Descriptive only: the instance id alone decides what happens to the Node.
    AutoScalingGroupName: z.string().max(255).optional(),
  }),
  rule: {
    description: 'Auto Scaling EC2 Instance Terminate Successful: the machine is gone, its Node is stale',
    detail: (scope) => (scope.autoScalingGroupNames ? autoScalingGroupFilter(scope) : undefined),
  },
  toSignals(event) {
    const instanceId = event.detail.EC2InstanceId;
    const group = event.detail.AutoScalingGroupName;
    return emit([
      {
        kind: 'asg-terminate-successful',
        instanceId,
        ...fromEnvelope(event),
        description: `Auto Scaling${group === undefined ? '' : ` group ${group}`} terminated ${instanceId}.`,
      },
    ]);
  },
});
