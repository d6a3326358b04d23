// The event path end to end: real EventBridge events from test/fixtures/events, adjusted to the
// seeded world, parsed by parseEvent and run through runSignals with deps wired the Lambda way.
// Besides the effects, these tests hold the path to its budget of requests (docs/design.md §3).
import { describe, expect, it } from 'vitest';
import { SHUTDOWN_TAINT_KEY } from '@ec2-node-reconciler/model/contract/labels.js';
import { SignalRejection } from '../../lib/signals/index.js';
import { drainExecutionName } from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import {
  actionsOf,
  ASG,
  conditionCounts,
  awsRequests,
  awsWrites,
  CLUSTER,
  drainExecutions,
  fixtureEvent,
  HOUR,
  iso,
  instanceId,
  kubeRequests,
  kubeWrites,
  MINUTE,
  nodeEvents,
  nodeName,
  outputEvents,
  pairs,
  RecordingDrainLauncher,
  silentKubelet,
  usePipelineWorld,
  TERMINATE_HOOK,
  type DepsOptions,
  type PipelineWorld,
  nodeUidOf,
} from '../support/pipeline-world.js';

let world: PipelineWorld;
usePipelineWorld((w) => (world = w), { warm: true });

const counts = conditionCounts;
const eventId = (event: Record<string, unknown>): string => String(event['id']);

/** Runs one fixture event about instance n, after seeding; the logs hold only what the event did. */
async function handle(name: string, n: number, options: { detail?: Record<string, unknown>; deps?: DepsOptions } = {}) {
  const event = await fixtureEvent(world, name, {
    instanceId: instanceId(n),
    ...(options.detail ? { detail: options.detail } : {}),
  });
  world.clearLogs();
  const report = await world.event(event, options.deps);
  return { event, report };
}

describe('event path: slated-for-removal', () => {
  it('should cordon and start a drain due two minutes after a spot interruption warning, within the request budget', async () => {
    pairs.inSync(world, 1, { instance: { spot: true } });
    const now = world.clock.now();

    const { event, report } = await handle('spot-interruption', 1);

    expect(world.kube.store.getNode(nodeName(1))?.spec?.unschedulable).toBe(true);
    expect(drainExecutions(world)).toEqual([
      {
        name: drainExecutionName(CLUSTER, instanceId(1), eventId(event), nodeUidOf(world, 1)),
        input: expect.objectContaining({
          node: nodeName(1),
          deadline: iso(now + 2 * MINUTE),
          cause: eventId(event),
        }) as unknown,
      },
    ]);
    expect(report?.kind).toBe('event');
    expect(report?.conditions).toEqual(counts({ 'slated-for-removal': 1 }));
    expect(actionsOf(report)).toEqual([`cordon ${nodeName(1)} done`, `drain ${nodeName(1)} started`]);
    expect(
      nodeEvents(world)
        .map((e) => e.reason)
        .sort(),
    ).toEqual(['DrainStarted', 'NodeCordoned']);
    // DescribeInstances → GET node ∥ GET lease → PATCH (from the node just read, guarded by its resourceVersion): docs/design.md §3's cold path.
    expect(awsRequests(world)).toEqual(['ec2 DescribeInstances 200', 'states StartExecution 200']);
    expect(kubeRequests(world).filter((r) => !r.startsWith('POST events'))).toEqual([
      `GET nodes/${nodeName(1)}`,
      `GET leases/${nodeName(1)}`,
      `PATCH nodes/${nodeName(1)}`,
    ]);
    // (StartExecution shows here once the runtime starts drains through the run's counted clients.)
    expect(report?.apiCalls).toMatchObject({
      'ec2 DescribeInstances': 1,
      'kube GET nodes': 1,
      'kube GET leases': 1,
      'kube PATCH nodes': 1,
      'kube POST events': 2,
    });
    expect(world.kube.requestLog.filter({ verb: 'list' })).toEqual([]);
  });

  it('should not start a second drain for the same event delivered twice', async () => {
    pairs.inSync(world, 1, { instance: { spot: true } });
    const event = await fixtureEvent(world, 'spot-interruption', { instanceId: instanceId(1) });

    await world.event(event);
    const again = await world.event(event);

    // The Node names the drain the first delivery started, which still runs: nothing starts twice.
    expect(actionsOf(again)).toEqual([]);
    expect(again?.skipped).toContainEqual(
      expect.objectContaining({
        kind: 'drain',
        reason: expect.stringMatching(/of this removal is running$/) as unknown,
      }),
    );
    expect(drainExecutions(world)).toHaveLength(1);
  });

  it('should start a drain that carries the lifecycle action of an Auto Scaling termination', async () => {
    const token = '0befcbdb-6ecd-498a-9ff7-ae9b54447cd6';
    pairs.asgTerminatingWait(world, 2, token);
    const now = world.clock.now();

    const { event, report } = await handle('asg-terminate-lifecycle-action', 2);

    expect(drainExecutions(world)).toEqual([
      {
        name: drainExecutionName(CLUSTER, instanceId(2), eventId(event), nodeUidOf(world, 2)),
        input: expect.objectContaining({
          lifecycle: { group: ASG, hook: TERMINATE_HOOK, token },
          deadline: iso(now + 15 * MINUTE),
        }) as unknown,
      },
    ]);
    expect(actionsOf(report)).toEqual([`cordon ${nodeName(2)} done`, `drain ${nodeName(2)} started`]);
    expect(world.aws.state.autoScaling.completions).toEqual([]);
  });

  it('should drain before the start of an AWS Health scheduled retirement, bounded by drainTimeout', async () => {
    pairs.inSync(world, 3);
    const start = world.clock.now() + 2 * HOUR;
    const startTime = new Date(start).toUTCString();

    const { report } = await handle('health-scheduled-retirement', 3, {
      detail: { startTime, endTime: new Date(start + HOUR).toUTCString() },
    });

    // A start hours (or days) away does not make a drain that long: like a sweep-found one, it is bounded by drainTimeout.
    expect(drainExecutions(world).map((e) => e.input['deadline'])).toEqual([iso(world.clock.now() + 15 * MINUTE)]);
    expect(actionsOf(report)).toEqual([`cordon ${nodeName(3)} done`, `drain ${nodeName(3)} started`]);
  });

  it('should only cordon on a rebalance recommendation under the default policy, and drain under `drain`', async () => {
    pairs.inSync(world, 4, { instance: { spot: true } });
    pairs.inSync(world, 5, { instance: { spot: true } });
    const drains = new RecordingDrainLauncher();

    const cordonOnly = await handle('rebalance-recommendation', 4, { deps: { drains } });
    const drained = await handle('rebalance-recommendation', 5, { deps: { drains, settings: { rebalance: 'drain' } } });

    expect(actionsOf(cordonOnly.report)).toEqual([`cordon ${nodeName(4)} done`]);
    expect(actionsOf(drained.report)).toEqual([`cordon ${nodeName(5)} done`, `drain ${nodeName(5)} started`]);
    expect(drains.launched.map((d) => d.node)).toEqual([nodeName(5)]);
    expect(drainExecutions(world)).toEqual([]);
  });

  it('should cordon and drain when the decommission tag is put on the machine', async () => {
    // The event arrives before a sweep could see the tag; EC2 has it, as the event says.
    const tags = { 'ec2-node-reconciler/decommission': 'true', 'eks:cluster-name': CLUSTER };
    pairs.inSync(world, 6, { instance: { tags } });

    const { event, report } = await handle('tag-change-decommission', 6, {
      detail: { tags: { 'ec2-node-reconciler/decommission': 'true', 'eks:cluster-name': CLUSTER } },
    });

    expect(actionsOf(report)).toEqual([`cordon ${nodeName(6)} done`, `drain ${nodeName(6)} started`]);
    expect(drainExecutions(world).map((e) => e.name)).toEqual([
      drainExecutionName(CLUSTER, instanceId(6), eventId(event), nodeUidOf(world, 6)),
    ]);
  });

  it('should do nothing for a tag event whose tag is gone from the machine (decommission --undo), and say so', async () => {
    // A redelivery of the event after the operator took the tag off again: EC2's present tags decide.
    pairs.inSync(world, 7);

    const { report } = await handle('tag-change-decommission', 7, {
      detail: { tags: { 'ec2-node-reconciler/decommission': 'true', 'eks:cluster-name': CLUSTER } },
    });

    expect(actionsOf(report)).toEqual([]);
    expect(report?.skipped).toContainEqual(
      expect.objectContaining({
        kind: 'drain',
        reason: expect.stringMatching(/no longer carries ec2-node-reconciler\/decommission/) as unknown,
      }),
    );
  });
});

describe('event path: stale-object', () => {
  it('should delete the node when its machine is terminated and its Lease stale, finding it by a scan (no DNS name left)', async () => {
    pairs.staleTerminated(world, 7);

    const { report } = await handle('state-change-terminated', 7);

    expect(world.kube.store.getNode(nodeName(7))).toBeUndefined();
    expect(actionsOf(report)).toEqual([`delete ${nodeName(7)} done`]);
    expect(outputEvents(world).map((e) => e.detailType)).toEqual(['Node Deleted']);
    expect(nodeEvents(world).map((e) => `${e.reason} ${e.node}`)).toEqual([`NodeDeleted ${nodeName(7)}`]);
    // A terminated instance has no private DNS name any more: a cold container lists the nodes once.
    expect(kubeRequests(world)).toEqual([
      'LIST nodes',
      `GET leases/${nodeName(7)}`,
      `DELETE nodes/${nodeName(7)}`,
      'POST events',
    ]);
    expect(awsRequests(world)).toEqual(['ec2 DescribeInstances 200', 'events PutEvents 200']);
  });

  it('should find the node by the name a warm container remembers instead of listing', async () => {
    pairs.shuttingDown(world, 8);
    await world.event(await fixtureEvent(world, 'state-change-shutting-down', { instanceId: instanceId(8) }));
    // The machine terminates; its kubelet has been silent since it began shutting down.
    world.kube.store.kubelets.setHeartbeating(nodeName(8), false);
    world.clock.advance(10 * MINUTE);

    const { report } = await handle('state-change-terminated', 8);

    expect(actionsOf(report)).toEqual([`delete ${nodeName(8)} done`]);
    expect(kubeRequests(world)).toEqual([
      `GET nodes/${nodeName(8)}`,
      `GET leases/${nodeName(8)}`,
      `DELETE nodes/${nodeName(8)}`,
      'POST events',
    ]);
  });

  it('should delete the node on Auto Scaling’s "Terminate Successful"', async () => {
    pairs.staleTerminated(world, 9);

    const { report } = await handle('asg-terminate-successful', 9);

    expect(actionsOf(report)).toEqual([`delete ${nodeName(9)} done`]);
    expect(world.kube.store.getNode(nodeName(9))).toBeUndefined();
  });
});

describe('event path: stopped-machine', () => {
  it('should taint the node of a stopped machine with GET + PATCH and nothing else', async () => {
    pairs.stopped(world, 10);

    const { report } = await handle('state-change-stopped', 10);

    expect(world.kube.store.getNode(nodeName(10))?.spec?.taints).toContainEqual({
      key: SHUTDOWN_TAINT_KEY,
      effect: 'NoSchedule',
    });
    expect(actionsOf(report)).toEqual([`taint-shutdown ${nodeName(10)} done`]);
    expect(kubeWrites(world)).toEqual([`patch nodes/${nodeName(10)}`, 'create events']);
    expect(awsRequests(world)).toEqual(['ec2 DescribeInstances 200']);
    expect(nodeEvents(world).map((e) => e.reason)).toEqual(['ShutdownTaintAdded']);
  });
});

describe('event path: in-sync and unresponsive-machine', () => {
  it('should do nothing for an event that asks for nothing (state running)', async () => {
    pairs.inSync(world, 11);
    const event = await fixtureEvent(world, 'state-change-running', { instanceId: instanceId(11) });
    world.clearLogs();

    const report = await world.event(event);

    expect(report).toBeUndefined();
    expect(world.kube.requestLog.entries).toEqual([]);
    expect(world.aws.requestLog.entries).toEqual([]);
  });

  it('should find the pair in sync when the rebalance policy ignores the signal', async () => {
    pairs.inSync(world, 12, { instance: { spot: true } });

    const { report } = await handle('rebalance-recommendation', 12, { deps: { settings: { rebalance: 'ignore' } } });

    expect(report?.conditions).toEqual(counts({ 'in-sync': 1 }));
    expect(report?.actions).toEqual([]);
    expect(kubeWrites(world)).toEqual([]);
  });

  it('should report, not act on, an ignored signal about a machine whose kubelet is silent', async () => {
    world.seedInstance(13, { spot: true });
    world.seedNode(13, silentKubelet(world, 10 * MINUTE));

    const { report } = await handle('rebalance-recommendation', 13, { deps: { settings: { rebalance: 'ignore' } } });

    expect(report?.conditions).toEqual(counts({ 'unresponsive-machine': 1 }));
    expect(nodeEvents(world).map((e) => `${e.reason} ${e.type}`)).toEqual(['UnresponsiveMachine Warning']);
    expect(outputEvents(world).map((e) => e.detailType)).toEqual(['Divergence Detected']);
  });
});

describe('event path: unregistered-machine, identity-conflict, not-ec2, unknown', () => {
  it('should report a long-running machine an event names that has no node', async () => {
    world.seedInstance(14, { spot: true });

    const { report } = await handle('rebalance-recommendation', 14, { deps: { settings: { rebalance: 'ignore' } } });

    expect(report?.conditions).toEqual(counts({ 'unregistered-machine': 1 }));
    expect(outputEvents(world)).toEqual([
      expect.objectContaining({
        detailType: 'Divergence Detected',
        detail: expect.objectContaining({ condition: 'unregistered-machine' }) as unknown,
      }),
    ]);
  });

  it('should never delete a node whose machine EC2 calls terminated while its Lease is fresh', async () => {
    pairs.terminatedFreshLease(world, 15);

    const { report } = await handle('state-change-terminated', 15);

    expect(world.kube.store.getNode(nodeName(15))).toBeDefined();
    expect(report?.conditions).toEqual(counts({ 'identity-conflict': 1 }));
    expect(kubeWrites(world)).toEqual(['create events']);
    expect(nodeEvents(world).map((e) => `${e.reason} ${e.type}`)).toEqual(['IdentityConflict Warning']);
  });

  it('should report, not cordon, a node whose providerID names another zone', async () => {
    pairs.zoneMismatch(world, 16);

    const { report } = await handle('spot-interruption', 16);

    expect(report?.conditions).toEqual(counts({ 'identity-conflict': 1 }));
    expect(world.kube.store.getNode(nodeName(16))?.spec?.unschedulable).not.toBe(true);
    expect(drainExecutions(world)).toEqual([]);
  });

  it('should never take a Fargate node that happens to bear the machine’s DNS name (not-ec2 is out of its reach)', async () => {
    const fargate = pairs.fargate(world, nodeName(17));
    world.seedInstance(17, { spot: true });

    const { report } = await handle('spot-interruption', 17);

    expect(report?.conditions['not-ec2']).toBe(0);
    expect(report?.rows.map((r) => r.node)).toEqual([undefined]);
    expect(world.kube.store.getNode(fargate)?.spec?.unschedulable).not.toBe(true);
    expect(kubeWrites(world)).toEqual([]);
  });

  it('should do nothing but report the error when the instance lookup fails', async () => {
    pairs.inSync(world, 18, { instance: { spot: true } });
    world.aws.faults.fail({
      service: 'ec2',
      operation: 'DescribeInstances',
      code: 'UnauthorizedOperation',
      message: 'You are not authorized to perform this operation.',
      status: 403,
    });

    const { report } = await handle('spot-interruption', 18);

    // unknown (docs/design.md §1): nothing this time, the error reported.
    expect(report?.errors).toEqual([
      `looking up ${instanceId(18)} failed: UnauthorizedOperation: You are not authorized to perform this operation.`,
    ]);
    expect(report?.actions).toEqual([]);
    // Without an answer from EC2 the node is not even looked for.
    expect(world.kube.requestLog.entries).toEqual([]);
    expect(world.kube.store.getNode(nodeName(18))?.spec?.unschedulable).not.toBe(true);
  });

  it('should not trust an event whose instance id is malformed', async () => {
    const event = await fixtureEvent(world, 'spot-interruption', {
      instanceId: instanceId(19),
      detail: { 'instance-id': 'i-nothex' },
    });

    await expect(world.event(event)).rejects.toBeInstanceOf(SignalRejection);
    expect(awsWrites(world)).toEqual([]);
  });
});
