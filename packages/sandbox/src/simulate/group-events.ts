// What Auto Scaling tells EventBridge of its own accord. A scenario's `event` steps stand for the
// events AWS sends about what happened outside the stack; a termination the group starts because the
// reconciler marked a member Unhealthy is the stack's own doing, and Auto Scaling announces its
// terminate lifecycle action on the default bus as it always does ("EC2 Instance-terminate Lifecycle
// Action"), where the deployed rules route it to the signal queue.
import type { AwsState } from '../aws/state/index.js';
import { autoScalingGroupUuid } from '../aws/state/autoscaling.js';
import { stableHex } from '../aws/ids.js';

/** Puts each terminate lifecycle action a group starts for an Unhealthy member on the bus through `put`. */
export function announceHealthTerminations(state: AwsState, put: (event: unknown) => void): () => void {
  return state.onChange((change) => {
    if (change.kind !== 'lifecycle-action-started' || change.origin !== 'health') return;
    if (change.transition !== 'autoscaling:EC2_INSTANCE_TERMINATING') return;
    const id = stableHex(`lifecycle-event:${change.token}`, 32);
    put({
      version: '0',
      id: `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20, 32)}`,
      'detail-type': 'EC2 Instance-terminate Lifecycle Action',
      source: 'aws.autoscaling',
      account: state.accountId,
      // EventBridge writes the time to the second.
      time: new Date(Math.floor(change.at / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      region: state.region,
      resources: [
        `arn:aws:autoscaling:${state.region}:${state.accountId}:autoScalingGroup:${autoScalingGroupUuid(change.group)}:autoScalingGroupName/${change.group}`,
      ],
      detail: {
        LifecycleActionToken: change.token,
        AutoScalingGroupName: change.group,
        LifecycleHookName: change.hook,
        EC2InstanceId: change.instanceId,
        LifecycleTransition: change.transition,
        Origin: 'AutoScalingGroup',
        Destination: 'EC2',
      },
    });
  });
}
