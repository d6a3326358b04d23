// Adapter operations outside a reconcile run, against the emulators through the warm runtime's
// clients: what the drain workflow (lifecycle heartbeats) and the `decommission` command call.
import { describe, expect, it } from 'vitest';
import { AutoScalingAdapter } from '../../lib/aws/autoscaling.js';
import { Ec2Adapter } from '../../lib/aws/ec2.js';
import { DECOMMISSION_TAG } from '@ec2-node-reconciler/model/contract/labels.js';
import { sweepCause } from '../../lib/plan/plan.js';
import { drainExecutionName } from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import {
  ASG,
  CLUSTER,
  drainExecutions,
  instanceId,
  MINUTE,
  nodeName,
  pairs,
  usePipelineWorld,
  TERMINATE_HOOK,
  type PipelineWorld,
  nodeUidOf,
} from '../support/pipeline-world.js';

let world: PipelineWorld;
usePipelineWorld((w) => (world = w));

describe('Auto Scaling lifecycle heartbeats (the drain workflow)', () => {
  it('should keep a lifecycle action alive by token and by instance id, then complete it', async () => {
    const token = '0befcbdb-6ecd-498a-9ff7-ae9b54447cd6';
    pairs.asgTerminatingWait(world, 1, token);
    const asg = new AutoScalingAdapter(world.runtime.aws.autoScaling);

    await asg.recordHeartbeat(instanceId(1), { group: ASG, hook: TERMINATE_HOOK, token });
    world.clock.advance(50 * MINUTE);
    await asg.recordHeartbeat(instanceId(1), { group: ASG, hook: TERMINATE_HOOK });
    // Past the hook's 1-hour timeout from the first heartbeat: still waiting, thanks to the second.
    world.clock.advance(50 * MINUTE);
    await asg.completeLifecycleAction(instanceId(1), { group: ASG, hook: TERMINATE_HOOK, token }, 'CONTINUE');

    expect(world.aws.state.autoScaling.heartbeats.map((h) => h.instanceId)).toEqual([instanceId(1), instanceId(1)]);
    expect(world.aws.state.autoScaling.completions).toEqual([
      expect.objectContaining({ instanceId: instanceId(1), token, result: 'CONTINUE', by: 'api' }),
    ]);
  });
});

describe('decommission (the operator tags an instance)', () => {
  it('should tag the instance, and the next sweep cordons and drains its node', async () => {
    pairs.inSync(world, 2);

    await new Ec2Adapter(world.runtime.aws.ec2).tagDecommission(instanceId(2), 'disk errors');
    const report = await world.sweep();

    expect(world.aws.state.instanceView(instanceId(2))?.tags[DECOMMISSION_TAG]).toBe('disk errors');
    expect(report.actions.map((a) => `${a.kind} ${a.outcome}`)).toEqual(['cordon done', 'drain started']);
    expect(world.kube.store.getNode(nodeName(2))?.spec?.unschedulable).toBe(true);
    expect(drainExecutions(world).map((e) => e.name)).toEqual([
      drainExecutionName(CLUSTER, instanceId(2), sweepCause(world.clock.now()), nodeUidOf(world, 2)),
    ]);
  });
});
