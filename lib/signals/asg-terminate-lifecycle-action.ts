/**
 * EC2 Instance-terminate Lifecycle Action: Auto Scaling put the instance in `Terminating:Wait`
 * because of a termination lifecycle hook. The drain completes the hook (CONTINUE) when it is
 * done, so the signal carries the group, the hook and the token.
 *
 * Example (Amazon EC2 Auto Scaling User Guide, "Amazon EC2 Auto Scaling event reference"):
 * ```json
 * {
 *   "version": "0",
 *   "id": "12345678-1234-1234-1234-123456789012",
 *   "detail-type": "EC2 Instance-terminate Lifecycle Action",
 *   "source": "aws.autoscaling",
 *   "account": "123456789012",
 *   "time": "2026-03-04T13:00:00Z",
 *   "region": "us-west-2",
 *   "resources": ["arn:aws:autoscaling:us-west-2:123456789012:autoScalingGroup:…:autoScalingGroupName/my-asg"],
 *   "detail": {
 *     "LifecycleActionToken": "87654321-4321-4321-4321-210987654321",
 *     "AutoScalingGroupName": "my-asg",
 *     "LifecycleHookName": "my-lifecycle-hook",
 *     "EC2InstanceId": "i-1234567890abcdef0",
 *     "LifecycleTransition": "autoscaling:EC2_INSTANCE_TERMINATING",
 *     "NotificationMetadata": "additional-info",
 *     "Origin": "AutoScalingGroup",
 *     "Destination": "EC2"
 *   }
 * }
 * ```
 *
 * Auto Scaling sends `autoscaling:TEST_NOTIFICATION` when a hook gets a notification target.
 * EventBridge is not documented to carry it, but aws-node-termination-handler has met it in
 * both `Event` and `LifecycleTransition`; either form is ignored here rather than rejected.
 */
import * as z from 'zod';
import { InstanceIdSchema } from '@ec2-node-reconciler/model/instance-id.js';
import { autoScalingGroupFilter, defineSignal, emit, fromEnvelope, ignore } from './signal-module.js';

export const TEST_NOTIFICATION = 'autoscaling:TEST_NOTIFICATION';
const TERMINATING = 'autoscaling:EC2_INSTANCE_TERMINATING';

// Limits from the CompleteLifecycleAction API: what the drain sends back must be accepted there (the token is a UUID).
const LifecycleDetailSchema = z.object({
  LifecycleTransition: z.literal(TERMINATING),
  EC2InstanceId: InstanceIdSchema,
  AutoScalingGroupName: z.string().min(1).max(1600),
  LifecycleHookName: z.string().min(1).max(255),
  LifecycleActionToken: z.string().length(36),
  NotificationMetadata: z.string().optional(),
  Origin: z.string().max(64).optional(),
  Destination: z.string().max(64).optional(),
});

const TestNotificationSchema = z.object({ LifecycleTransition: z.literal(TEST_NOTIFICATION) });

/** Folds the `Event` form of the test notification into the `LifecycleTransition` form. */
function normalizeTestNotification(detail: unknown): unknown {
  if (typeof detail === 'object' && detail !== null && !('LifecycleTransition' in detail)) {
    if ('Event' in detail && detail.Event === TEST_NOTIFICATION) return { LifecycleTransition: TEST_NOTIFICATION };
  }
  return detail;
}

export const asgTerminateLifecycleAction = defineSignal({
  kind: 'asg-terminate-lifecycle-action',
  source: 'aws.autoscaling',
  detailType: 'EC2 Instance-terminate Lifecycle Action',
  detail: z.preprocess(
    normalizeTestNotification,
    z.discriminatedUnion('LifecycleTransition', [LifecycleDetailSchema, TestNotificationSchema]),
  ),
  rule: {
    description: 'Auto Scaling terminate lifecycle action: drain, then complete the hook with CONTINUE',
    detail: (scope) => ({
      // Test notifications share the detail-type but carry no instance.
      LifecycleTransition: [TERMINATING],
      ...autoScalingGroupFilter(scope),
      ...(scope.lifecycleHookNames ? { LifecycleHookName: [...scope.lifecycleHookNames] } : {}),
    }),
  },
  toSignals(event) {
    const detail = event.detail;
    if (detail.LifecycleTransition === TEST_NOTIFICATION) {
      return ignore('Auto Scaling test notification: nothing to do');
    }
    const instanceId = detail.EC2InstanceId;
    // Scale-in into a warm pool also raises this event; the machine still leaves the cluster (stopped or hibernated).
    const whereTo = detail.Destination === 'WarmPool' ? ' (returning to the warm pool)' : '';
    return emit([
      {
        kind: 'asg-terminate-lifecycle-action',
        instanceId,
        ...fromEnvelope(event),
        lifecycle: {
          group: detail.AutoScalingGroupName,
          hook: detail.LifecycleHookName,
          token: detail.LifecycleActionToken,
        },
        description: `Auto Scaling group ${detail.AutoScalingGroupName} is terminating ${instanceId}${whereTo}; hook ${detail.LifecycleHookName} waits for the drain.`,
      },
    ]);
  },
});
