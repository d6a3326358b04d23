// The sweep end to end, one (node, instance) pair per condition of docs/design.md §1: both emulators on one
// clock, deps wired the Lambda way (DescribeCluster, EKS token verified by the STS emulator, the
// shipped RBAC). Each test asserts the Kubernetes effect, the AWS effect and the report.
import { describe, expect, it } from 'vitest';
import { EC2_SWEEP_LISTING } from '@ec2-node-reconciler/model/contract/api-budgets.js';
import {
  CORDON_REASON_ANNOTATION,
  CORDONED_AT_ANNOTATION,
  CORDONED_BY_ANNOTATION,
  SHUTDOWN_TAINT_KEY,
} from '@ec2-node-reconciler/model/contract/labels.js';
import type { ReconcilerDeps } from '../../lib/pipeline/deps.js';
import type { RunReport } from '../../lib/report/report.js';
import { sweepCause } from '../../lib/plan/plan.js';
import { drainExecutionName, DrainWorkflowInputSchema } from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import {
  actionsOf,
  ASG,
  conditionCounts,
  awsWrites,
  CLUSTER,
  drainExecutions,
  HOUR,
  iso,
  instanceId,
  kubeWrites,
  MINUTE,
  nodeEvents,
  nodeName,
  outputEvents,
  pairs,
  usePipelineWorld,
  TERMINATE_HOOK,
  type PipelineWorld,
  nodeUidOf,
} from '../support/pipeline-world.js';

let world: PipelineWorld;
// Every request was made as the reconciler's EKS identity and allowed by the shipped RBAC.
usePipelineWorld((w) => (world = w));

const counts = conditionCounts;
const sorted = (items: readonly string[]): string[] => [...items].sort();

/**
 * The base cost of a sweep of a small cluster by a cold container: the cluster's endpoint, one page
 * of each list, one listing of the cluster's instances whatever tags they carry, one scheduled-event
 * query; no Auto Scaling call when no instance is in a group.
 */
const SWEEP_READS = {
  'eks DescribeCluster': 1,
  'ec2 DescribeInstanceStatus': 1,
  'ec2 DescribeInstances': 1,
  'kube GET leases': 1,
  'kube GET nodes': 1,
};

describe('sweep: in-sync', () => {
  it('should leave an in-sync pair alone and count every API call it made', async () => {
    pairs.inSync(world, 1);

    const report = await world.sweep();

    expect(report.conditions).toEqual(counts({ 'in-sync': 1 }));
    expect(report.actions).toEqual([]);
    expect(report.errors).toEqual([]);
    expect(report.apiCalls).toEqual(SWEEP_READS);
    expect(kubeWrites(world)).toEqual([]);
    expect(awsWrites(world)).toEqual([]);
  });
});

describe('sweep: finding each node’s instance', () => {
  it('should pair a node without providerID with the instance whose private DNS name it bears', async () => {
    world.seedInstance(21, { tags: {} });
    world.kube.store.seedNode({ name: nodeName(21), createdAt: world.clock.now() - HOUR });

    const report = await world.sweep();

    expect(report.rows).toEqual([
      {
        node: nodeName(21),
        instanceId: instanceId(21),
        condition: 'in-sync',
        reason: `${instanceId(21)} is running and the node is Ready`,
      },
    ]);
    const lookups = world.aws.requestLog
      .filter({ operation: 'DescribeInstances' })
      .map((e) => JSON.stringify(e.params));
    expect(lookups).toHaveLength(2);
    expect(lookups[1]).toContain('private-dns-name');
    expect(lookups[1]).toContain(nodeName(21));
  });

  it('should find instances tagged with either cluster tag convention, or both, in one listing and without looking them up by id', async () => {
    pairs.inSync(world, 22);
    pairs.inSync(world, 23, { instance: { tags: { 'kubernetes.io/cluster/demo': 'owned' } } });
    pairs.inSync(world, 24, {
      instance: { tags: { 'eks:cluster-name': 'demo', 'kubernetes.io/cluster/demo': 'owned' } },
    });
    // Another cluster's managed instance comes along in the listing and is dropped: not a machine of ours without a Node.
    world.seedInstance(25, { tags: { 'eks:cluster-name': 'other', 'kubernetes.io/cluster/other': 'owned' } });

    const report = await world.sweep();

    expect(report.conditions).toEqual(counts({ 'in-sync': 3 }));
    expect(report.apiCalls).toEqual(SWEEP_READS);
  });

  it('should list the cluster’s instances in pages of 1000 (more than one: again, in partitions at once), and ask their Auto Scaling groups 100 a call', async () => {
    for (let n = 1; n <= 1_001; n++)
      world.seedInstance(n, { launchedAgo: '1m', autoScaling: { group: `ng-${n % 150}` } });

    const report = await world.sweep();

    expect(report.conditions).toEqual(counts({ 'in-sync': 1_001 }));
    // The first page says there is more; each partition's ~250 instances then fit one page.
    expect(report.apiCalls).toEqual({
      ...SWEEP_READS,
      'ec2 DescribeInstances': 1 + EC2_SWEEP_LISTING.partitions,
      'autoscaling DescribeAutoScalingGroups': 2,
    });
    const listings = world.aws.requestLog
      .filter({ operation: 'DescribeInstances' })
      .map((e) => JSON.stringify(e.params));
    expect(listings.filter((p) => p.includes('NextToken'))).toEqual([]);
    expect(listings.filter((p) => p.includes('"instance-id"'))).toHaveLength(EC2_SWEEP_LISTING.partitions);
  });

  it('should look the missing instances up 200 ids a call, a few calls at a time', async () => {
    for (let n = 1; n <= 1_001; n++) pairs.inSync(world, n, { instance: { tags: {} } });
    world.clearLogs();

    const report = await world.sweep();

    expect(report.conditions).toEqual(counts({ 'in-sync': 1_001 }));
    expect(report.apiCalls).toEqual({
      ...SWEEP_READS,
      'ec2 DescribeInstances': 7,
      'kube GET nodes': 3,
      'kube GET leases': 3,
    });
    expect(report.errors).toEqual([]);
  });
});

describe('sweep: in-sync, our own cordon', () => {
  const ourCordon = (minutesAgo: number) => ({
    unschedulable: true,
    annotations: {
      [CORDONED_BY_ANNOTATION]: 'ec2-node-reconciler',
      [CORDON_REASON_ANNOTATION]: 'Rebalance recommendation',
      [CORDONED_AT_ANNOTATION]: iso(world.clock.now() - minutesAgo * MINUTE),
    },
  });

  it('should uncordon a node it cordoned itself once the machine has kept running for uncordonAfter', async () => {
    pairs.inSync(world, 24, { node: ourCordon(31) });

    const report = await world.sweep();

    const node = world.kube.store.getNode(nodeName(24));
    expect(node?.spec?.unschedulable).not.toBe(true);
    expect(Object.keys(node?.metadata.annotations ?? {}).filter((k) => k.startsWith('ec2-node-reconciler/'))).toEqual(
      [],
    );
    expect(actionsOf(report)).toEqual([`uncordon-own ${nodeName(24)} done`]);
    expect(nodeEvents(world).map((e) => `${e.reason} ${e.type}`)).toEqual(['NodeUncordoned Normal']);
  });

  it('should leave its own recent cordon, and never touch an operator’s cordon', async () => {
    pairs.inSync(world, 25, { node: ourCordon(10) });
    pairs.inSync(world, 26, { node: { unschedulable: true } });

    const report = await world.sweep();

    expect(report.actions).toEqual([]);
    expect(kubeWrites(world)).toEqual([]);
    expect(world.kube.store.getNode(nodeName(25))?.spec?.unschedulable).toBe(true);
    expect(world.kube.store.getNode(nodeName(26))?.spec?.unschedulable).toBe(true);
  });
});

describe('sweep: stale-object', () => {
  it('should delete the node of a terminated machine, with the uid precondition, and announce it', async () => {
    pairs.inSync(world, 1);
    pairs.staleTerminated(world, 2);
    const uid = world.kube.store.getNode(nodeName(2))?.metadata.uid;

    const report = await world.sweep();

    expect(world.kube.store.getNode(nodeName(2))).toBeUndefined();
    expect(world.kube.store.getNode(nodeName(1))).toBeDefined();
    expect(world.kube.requestLog.filter({ verb: 'delete', resource: 'nodes' }).map((e) => e.body)).toEqual([
      expect.objectContaining({ preconditions: { uid, resourceVersion: expect.any(String) as unknown } }),
    ]);
    expect(nodeEvents(world)).toEqual([
      expect.objectContaining({
        node: nodeName(2),
        uid,
        reason: 'NodeDeleted',
        type: 'Normal',
        component: 'ec2-node-reconciler',
      }),
    ]);
    expect(outputEvents(world)).toEqual([
      {
        detailType: 'Node Deleted',
        detail: {
          cluster: CLUSTER,
          node: nodeName(2),
          instanceId: instanceId(2),
          reason: expect.stringContaining('is terminated') as unknown,
        },
        resources: [
          expect.stringMatching(
            new RegExp(`^arn:aws:ec2:us-east-1:111122223333:instance/${instanceId(2)}$`),
          ) as unknown,
        ],
      },
    ]);
    expect(report.conditions).toEqual(counts({ 'in-sync': 1, 'stale-object': 1 }));
    expect(actionsOf(report)).toEqual([`delete ${nodeName(2)} done`]);
    expect(report.errors).toEqual([]);
    expect(report.apiCalls).toEqual({
      ...SWEEP_READS,
      'kube DELETE nodes': 1,
      'kube POST events': 1,
      'events PutEvents': 1,
    });
  });

  it('should delete the node of a machine EC2 no longer knows, after looking its id up', async () => {
    pairs.inSync(world, 1);
    pairs.staleUnknownToEc2(world, 2);

    const report = await world.sweep();

    expect(world.kube.store.getNode(nodeName(2))).toBeUndefined();
    expect(report.rows).toContainEqual(
      expect.objectContaining({
        node: nodeName(2),
        condition: 'stale-object',
        reason: expect.stringContaining('EC2 does not know') as unknown,
      }),
    );
    // The two tag listings, then one lookup by the instance-id filter for the id they did not return.
    const lookups = world.aws.requestLog
      .filter({ service: 'ec2', operation: 'DescribeInstances' })
      .map((e) => JSON.stringify(e.params));
    expect(lookups).toHaveLength(2);
    expect(lookups[1]).toContain('instance-id');
    expect(lookups[1]).toContain(instanceId(2));
    expect(report.apiCalls['ec2 DescribeInstances']).toBe(2);
    expect(outputEvents(world).map((e) => e.detailType)).toEqual(['Node Deleted']);
  });
});

describe('sweep: slated-for-removal', () => {
  it('should cordon and start a drain that completes the lifecycle action when Auto Scaling waits on our hook', async () => {
    pairs.asgTerminatingWait(world, 3);
    const uid = world.kube.store.getNode(nodeName(3))?.metadata.uid;
    const now = world.clock.now();

    const report = await world.sweep();

    const node = world.kube.store.getNode(nodeName(3));
    expect(node?.spec?.unschedulable).toBe(true);
    expect(node?.metadata.annotations).toMatchObject({
      [CORDONED_BY_ANNOTATION]: 'ec2-node-reconciler',
      [CORDON_REASON_ANNOTATION]: expect.stringContaining('Terminating:Wait') as unknown,
      [CORDONED_AT_ANNOTATION]: iso(now),
    });
    const executions = drainExecutions(world);
    expect(executions).toEqual([
      {
        name: drainExecutionName(CLUSTER, instanceId(3), sweepCause(now), nodeUidOf(world, 3)),
        input: {
          cluster: CLUSTER,
          node: nodeName(3),
          nodeUid: uid,
          instanceId: instanceId(3),
          deadline: iso(now + 15 * MINUTE),
          reason: expect.stringContaining(`Auto Scaling group ${ASG} is terminating it`) as unknown,
          cause: sweepCause(now),
          execution: drainExecutionName(CLUSTER, instanceId(3), sweepCause(now), nodeUidOf(world, 3)),
          lifecycle: { group: ASG, hook: TERMINATE_HOOK },
        },
      },
    ]);
    expect(DrainWorkflowInputSchema.safeParse(executions[0]?.input).success).toBe(true);
    // The workflow completes the lifecycle action when the drain ends, not the sweep.
    expect(world.aws.state.autoScaling.completions).toEqual([]);
    expect(sorted(nodeEvents(world).map((e) => `${e.reason} ${e.type}`))).toEqual([
      'DrainStarted Normal',
      'NodeCordoned Normal',
    ]);
    expect(report.conditions).toEqual(counts({ 'slated-for-removal': 1 }));
    expect(actionsOf(report)).toEqual([`cordon ${nodeName(3)} done`, `drain ${nodeName(3)} started`]);
    expect(report.apiCalls).toMatchObject({
      'autoscaling DescribeLifecycleHooks': 1,
      'kube PATCH nodes': 1,
      'kube POST events': 2,
    });
    expect(report.errors).toEqual([]);
  });

  it('should complete the lifecycle action at once for a terminating machine that has no node', async () => {
    world.seedInstance(4, { autoScaling: { group: ASG, lifecycleState: 'Terminating:Wait', hook: TERMINATE_HOOK } });

    const report = await world.sweep();

    expect(world.aws.state.autoScaling.completions).toEqual([
      expect.objectContaining({
        instanceId: instanceId(4),
        group: ASG,
        hook: TERMINATE_HOOK,
        result: 'CONTINUE',
        by: 'api',
      }),
    ]);
    expect(actionsOf(report)).toEqual([`complete-lifecycle ${instanceId(4)} done`]);
    expect(report.conditions).toEqual(counts({ 'slated-for-removal': 1 }));
    expect(drainExecutions(world)).toEqual([]);
  });

  it('should report a lifecycle action that ended before the sweep could complete it as moot', async () => {
    world.seedInstance(4, { autoScaling: { group: ASG, lifecycleState: 'Terminating:Wait', hook: TERMINATE_HOOK } });
    const wrap = (deps: ReconcilerDeps): ReconcilerDeps => ({
      ...deps,
      autoScaling: {
        describeGroups: (groups) => deps.autoScaling.describeGroups(groups),
        warmPoolMembers: (group) => deps.autoScaling.warmPoolMembers(group),
        terminateHooks: (group) => deps.autoScaling.terminateHooks(group),
        markUnhealthy: (id) => deps.autoScaling.markUnhealthy(id),
        recordRepairFailures: (group, value) => deps.autoScaling.recordRepairFailures(group, value),
        completeLifecycleAction: (id, lifecycle, result) => {
          // The hook's heartbeat timeout (1 h) runs out between observe and act.
          world.clock.advance(HOUR + 1_000);
          return deps.autoScaling.completeLifecycleAction(id, lifecycle, result);
        },
      },
    });

    const report = await world.sweep({ wrap });

    expect(report.actions).toEqual([
      expect.objectContaining({
        kind: 'complete-lifecycle',
        outcome: 'moot',
        detail: `ValidationError: No active Lifecycle Action found with instance ID ${instanceId(4)}`,
      }),
    ]);
    expect(world.aws.state.autoScaling.completions).toEqual([
      expect.objectContaining({ instanceId: instanceId(4), result: 'ABANDON', by: 'timeout' }),
    ]);
    expect(report.errors).toEqual([]);
  });

  it('should cordon and drain a machine carrying the decommission tag', async () => {
    pairs.decommissionTagged(world, 5);
    const now = world.clock.now();

    const report = await world.sweep();

    expect(world.kube.store.getNode(nodeName(5))?.spec?.unschedulable).toBe(true);
    expect(drainExecutions(world)).toEqual([
      {
        name: drainExecutionName(CLUSTER, instanceId(5), sweepCause(now), nodeUidOf(world, 5)),
        input: expect.objectContaining({
          deadline: iso(now + 15 * MINUTE),
          cause: sweepCause(now),
          reason: expect.stringContaining('ec2-node-reconciler/decommission') as unknown,
        }) as unknown,
      },
    ]);
    expect(drainExecutions(world)[0]?.input).not.toHaveProperty('lifecycle');
    expect(actionsOf(report)).toEqual([`cordon ${nodeName(5)} done`, `drain ${nodeName(5)} started`]);
  });

  it('should drain before a scheduled instance-retirement, the deadline capped at drainTimeout', async () => {
    pairs.retiring(world, 6);
    const retirement = world.clock.now() + 2 * HOUR;

    const report = await world.sweep();

    // A sweep-found deadline hours or days away is capped (docs/design.md §2): the drain is bounded by drainTimeout.
    expect(drainExecutions(world).map((e) => e.input['deadline'])).toEqual([iso(world.clock.now() + 15 * MINUTE)]);
    expect(report.rows).toEqual([
      expect.objectContaining({
        condition: 'slated-for-removal',
        reason: `scheduled instance-retirement not before ${iso(retirement)}`,
      }),
    ]);
    expect(actionsOf(report)).toEqual([`cordon ${nodeName(6)} done`, `drain ${nodeName(6)} started`]);
    expect(report.errors).toEqual([]);
  });

  it('should cordon and drain (best effort) a machine already shutting down', async () => {
    pairs.shuttingDown(world, 7);

    const report = await world.sweep();

    expect(report.rows).toEqual([
      expect.objectContaining({ condition: 'slated-for-removal', reason: 'instance is shutting-down' }),
    ]);
    expect(world.kube.store.getNode(nodeName(7))?.spec?.unschedulable).toBe(true);
    expect(drainExecutions(world).map((e) => e.name)).toEqual([
      drainExecutionName(CLUSTER, instanceId(7), sweepCause(world.clock.now()), nodeUidOf(world, 7)),
    ]);
  });

  it('should not start a second drain on the next sweep', async () => {
    pairs.decommissionTagged(world, 5);
    await world.sweep();
    world.clock.advance(MINUTE);
    world.clearLogs();

    const report = await world.sweep();

    // The Node names the running drain of its removal (one removal, one drain): nothing to start or write.
    expect(actionsOf(report)).toEqual([]);
    expect(report.skipped).toContainEqual(
      expect.objectContaining({
        kind: 'drain',
        node: nodeName(5),
        reason: expect.stringMatching(/^drain .* of this removal is running$/) as unknown,
      }),
    );
    expect(drainExecutions(world)).toHaveLength(1);
    expect(kubeWrites(world)).toEqual([]);
  });
});

describe('sweep: stopped-machine', () => {
  it('should taint a stopped machine’s node, never delete it, and lift the taint when it runs again', async () => {
    pairs.stopped(world, 8);

    const stopped = await world.sweep();

    const taints = () => world.kube.store.getNode(nodeName(8))?.spec?.taints ?? [];
    expect(taints()).toContainEqual({ key: SHUTDOWN_TAINT_KEY, effect: 'NoSchedule' });
    expect(stopped.conditions).toEqual(counts({ 'stopped-machine': 1 }));
    expect(actionsOf(stopped)).toEqual([`taint-shutdown ${nodeName(8)} done`]);

    // Hours later it is still stopped: nothing more to do, and never a delete.
    world.clock.advance(3 * HOUR);
    world.clearLogs();
    const still = await world.sweep();
    expect(still.actions).toEqual([]);
    expect(kubeWrites(world)).toEqual([]);

    world.aws.state.setInstanceState(instanceId(8), 'running');
    world.kube.store.kubelets.setHeartbeating(nodeName(8), true);
    const running = await world.sweep();

    expect(taints().map((t) => t.key)).not.toContain(SHUTDOWN_TAINT_KEY);
    expect(running.conditions).toEqual(counts({ 'in-sync': 1 }));
    expect(actionsOf(running)).toEqual([`remove-shutdown-taint ${nodeName(8)} done`]);
    expect(nodeEvents(world).map((e) => `${e.reason} ${e.type}`)).toEqual([
      'ShutdownTaintAdded Normal',
      'ShutdownTaintRemoved Normal',
    ]);
    expect(outputEvents(world)).toEqual([]);
  });
});

describe('sweep: unresponsive-machine', () => {
  it('should report a running machine whose kubelet is silent, warn on the node and alert downstream', async () => {
    pairs.unresponsive(world, 9);

    const report = await world.sweep();

    expect(report.conditions).toEqual(counts({ 'unresponsive-machine': 1 }));
    expect(actionsOf(report)).toEqual([`report ${nodeName(9)} done`]);
    expect(report.actions[0]?.condition).toBe('unresponsive-machine');
    expect(kubeWrites(world)).toEqual(['create events']);
    expect(nodeEvents(world)).toEqual([
      expect.objectContaining({
        node: nodeName(9),
        reason: 'UnresponsiveMachine',
        type: 'Warning',
        message: expect.stringContaining('kubelet is silent') as unknown,
      }),
    ]);
    expect(outputEvents(world)).toEqual([
      expect.objectContaining({
        detailType: 'Divergence Detected',
        detail: expect.objectContaining({
          cluster: CLUSTER,
          condition: 'unresponsive-machine',
          node: nodeName(9),
          instanceId: instanceId(9),
        }) as unknown,
      }),
    ]);
  });
});

describe('sweep: unregistered-machine', () => {
  it('should report a machine that never registered, and leave its group alone by default', async () => {
    pairs.unregistered(world, 10);

    const report = await world.sweep();

    expect(report.conditions).toEqual(counts({ 'unregistered-machine': 1 }));
    expect(actionsOf(report)).toEqual([`report ${instanceId(10)} done`]);
    expect(outputEvents(world)).toEqual([
      expect.objectContaining({
        detailType: 'Divergence Detected',
        detail: expect.objectContaining({ condition: 'unregistered-machine', instanceId: instanceId(10) }) as unknown,
      }),
    ]);
    expect(world.aws.state.autoScaling.healthChanges).toEqual([]);
    expect(nodeEvents(world)).toEqual([]);
  });

  it('should mark it Unhealthy in its Auto Scaling group when opted in', async () => {
    pairs.unregistered(world, 10);

    const report = await world.sweep({ settings: { markUnregisteredUnhealthy: true } });

    expect(world.aws.state.autoScaling.healthChanges).toEqual([
      expect.objectContaining({
        instanceId: instanceId(10),
        group: ASG,
        healthStatus: 'UNHEALTHY',
        shouldRespectGracePeriod: true,
      }),
    ]);
    expect(actionsOf(report)).toEqual([`report ${instanceId(10)} done`, `mark-unhealthy ${instanceId(10)} done`]);
    expect(report.apiCalls['autoscaling SetInstanceHealth']).toBe(1);
  });

  it('should give a machine the registration grace before calling it unregistered', async () => {
    world.seedInstance(11, { launchedAgo: '5m', autoScaling: { group: ASG } });

    const report = await world.sweep({ settings: { markUnregisteredUnhealthy: true } });

    expect(report.conditions).toEqual(counts({ 'in-sync': 1 }));
    expect(report.actions).toEqual([]);
    expect(world.aws.state.autoScaling.healthChanges).toEqual([]);
  });
});

describe('sweep: identity-conflict', () => {
  const expectReportedNotTouched = (report: RunReport, nodes: readonly string[]): void => {
    expect(report.conditions).toEqual(counts({ 'identity-conflict': nodes.length }));
    expect(sorted(actionsOf(report))).toEqual(sorted(nodes.map((n) => `report ${n} done`)));
    expect(kubeWrites(world)).toEqual(nodes.map(() => 'create events'));
    expect(drainExecutions(world)).toEqual([]);
    for (const n of nodes) expect(world.kube.store.getNode(n)?.spec?.unschedulable).not.toBe(true);
    expect(sorted(nodeEvents(world).map((e) => `${e.reason} ${e.type} ${e.node}`))).toEqual(
      sorted(nodes.map((n) => `IdentityConflict Warning ${n}`)),
    );
    expect(outputEvents(world).map((e) => `${e.detailType} ${String(e.detail['condition'])}`)).toEqual(
      nodes.map(() => 'Divergence Detected identity-conflict'),
    );
  };

  it('should report, never act on, a node whose providerID names another zone', async () => {
    pairs.zoneMismatch(world, 12);

    const report = await world.sweep();

    expectReportedNotTouched(report, [nodeName(12)]);
    expect(report.rows[0]?.reason).toBe(`providerID says zone us-east-1b but ${instanceId(12)} is in us-east-1a`);
  });

  it('should report both nodes when two claim one instance', async () => {
    const nodes = pairs.twoNodesOneInstance(world, 13);

    const report = await world.sweep();

    expectReportedNotTouched(report, nodes);
  });

  it('should never delete a node whose machine EC2 calls terminated while its Lease is fresh', async () => {
    pairs.terminatedFreshLease(world, 14);

    const report = await world.sweep();

    expectReportedNotTouched(report, [nodeName(14)]);
    expect(report.rows[0]?.reason).toBe(`${instanceId(14)} is terminated, yet the node's Lease is live`);
  });
});

describe('sweep: not-ec2', () => {
  it('should ignore a Fargate node without looking it up in EC2', async () => {
    pairs.inSync(world, 1);
    const fargate = pairs.fargate(world);

    const report = await world.sweep();

    expect(report.conditions).toEqual(counts({ 'in-sync': 1, 'not-ec2': 1 }));
    expect(report.actions).toEqual([]);
    expect(report.apiCalls).toEqual(SWEEP_READS);
    const params = JSON.stringify(world.aws.requestLog.entries.map((e) => e.params));
    expect(params).not.toContain(fargate);
    expect(params).not.toContain('private-dns-name');
    expect(kubeWrites(world)).toEqual([]);
  });
});

describe('sweep: unknown', () => {
  it('should do nothing to a node whose instance lookup was throttled past every retry, and say why', async () => {
    pairs.inSync(world, 1);
    // Not cluster-tagged: found only by the lookup by id, which is the call throttled below.
    world.seedInstance(2, { tags: {} });
    world.seedNode(2, { heartbeating: false, lastHeartbeat: world.clock.now() - HOUR });
    const runtime = world.newRuntime({ maxAttempts: 2 });
    world.aws.faults.throttle({ service: 'ec2', operation: 'DescribeInstances', script: [false, true, true] });

    const report = await world.sweep({ runtime });

    expect(report.conditions).toEqual(counts({ 'in-sync': 1, unknown: 1 }));
    expect(report.rows).toContainEqual({
      node: nodeName(2),
      instanceId: instanceId(2),
      condition: 'unknown',
      reason: `looking up ${instanceId(2)} failed: RequestLimitExceeded: Request limit exceeded.`,
    });
    expect(world.kube.store.getNode(nodeName(2))).toBeDefined();
    expect(kubeWrites(world)).toEqual(['create events']);
    expect(nodeEvents(world)).toEqual([
      expect.objectContaining({ node: nodeName(2), reason: 'InstanceLookupFailed', type: 'Warning' }),
    ]);
    // Counted once per command whatever the retries; the emulator saw both attempts.
    expect(report.apiCalls['ec2 DescribeInstances']).toBe(2);
    expect(world.aws.requestLog.filter({ operation: 'DescribeInstances' }).map((e) => e.errorCode ?? 'ok')).toEqual([
      'ok',
      'RequestLimitExceeded',
      'RequestLimitExceeded',
    ]);
    expect(outputEvents(world)).toEqual([]);
  });

  it('should report a malformed providerID as unknown, never guess an instance, and never look it up', async () => {
    pairs.inSync(world, 1);
    const malformed = pairs.malformedProviderId(world);

    const report = await world.sweep();

    expect(report.conditions).toEqual(counts({ 'in-sync': 1, unknown: 1 }));
    expect(report.rows).toContainEqual(
      expect.objectContaining({
        node: malformed,
        condition: 'unknown',
        reason: expect.stringContaining('malformed providerID') as unknown,
      }),
    );
    expect(report.apiCalls['ec2 DescribeInstances']).toBe(1);
    expect(kubeWrites(world)).toEqual(['create events']);
    expect(nodeEvents(world)).toEqual([
      expect.objectContaining({ node: malformed, reason: 'InstanceLookupFailed', type: 'Warning' }),
    ]);
  });
});
