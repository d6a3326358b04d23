// One removal, one drain, under races and beside the operator's CLI (issue #12): what the Node's drain
// record does when two runs meet it, when the CLI drains in-process, and which terminate hook is ours.
// Found by an adversarial review; each test failed before its fix.
import { describe, expect, it } from 'vitest';
import { LocalDrainLauncher } from '../../cli/live.js';
import { sleepOn } from '@ec2-node-reconciler/model/clock.js';
import { runOperatorDrain } from '../../cli/drain/operator-drain.js';
import { drainSettings } from '../../lib/drain/settings.js';
import type { DrainApi } from '../../lib/drain/api.js';
import {
  DRAIN_ANNOTATION,
  DRAIN_DEADLINE_ANNOTATION,
  LIFECYCLE_ANNOTATION,
} from '@ec2-node-reconciler/model/contract/labels.js';
import type { ReconcilerDeps } from '../../lib/pipeline/deps.js';
import { runSweep } from '../../lib/pipeline/run.js';
import { DEFAULT_SETTINGS } from '@ec2-node-reconciler/model/contract/settings.js';
import {
  ASG,
  fixtureEvent,
  instanceId,
  nodeName,
  RecordingDrainLauncher,
  REGION,
  TERMINATE_HOOK,
  usePipelineWorld,
  type PipelineWorld,
} from '../support/pipeline-world.js';

let world: PipelineWorld;
usePipelineWorld((w) => (world = w), { warm: true });

const annotationsOf = (n: number) => world.kube.store.getNode(nodeName(n))?.metadata.annotations ?? {};

/** Runs `during` once, just before the run under test patches its first node: the other run wins the race. */
function raceBeforeFirstPatch(during: () => Promise<unknown>) {
  let fired = false;
  return (deps: ReconcilerDeps): ReconcilerDeps => ({
    ...deps,
    drainApi: {
      ...deps.drainApi,
      patchNode: async (name, patch) => {
        if (!fired) {
          fired = true;
          await during();
        }
        return deps.drainApi.patchNode(name, patch);
      },
    },
  });
}

/** Node 1's pod is held by a PodDisruptionBudget whose other pod runs on node 2: node 1's drain takes a while. */
function seedBlockedPair(): string {
  world.seedInstance(2);
  const name = world.seedNode(1);
  world.seedNode(2);
  world.kube.store.seedPod({
    name: 'db-0',
    namespace: 'data',
    node: name,
    labels: { app: 'db' },
    owner: 'StatefulSet/db',
  });
  world.kube.store.seedPod({
    name: 'db-1',
    namespace: 'data',
    node: nodeName(2),
    labels: { app: 'db' },
    owner: 'StatefulSet/db',
  });
  world.kube.store.seedPdb({ name: 'db', namespace: 'data', selector: { app: 'db' }, minAvailable: 2 });
  return name;
}

async function lifecycleEvent(n: number) {
  return fixtureEvent(world, 'asg-terminate-lifecycle-action', {
    instanceId: instanceId(n),
    detail: { AutoScalingGroupName: ASG, LifecycleHookName: TERMINATE_HOOK, EC2InstanceId: instanceId(n) },
  });
}

describe('two runs racing for one removal', () => {
  it('should hand the loser’s lifecycle action to the drain that recorded itself first', async () => {
    world.seedInstance(1, {
      spot: true,
      autoScaling: { group: ASG, lifecycleState: 'Terminating:Wait', hook: TERMINATE_HOOK },
    });
    world.seedNode(1);
    const drains = new RecordingDrainLauncher();
    const spot = await fixtureEvent(world, 'spot-interruption', { instanceId: instanceId(1) });

    const report = await world.event(await lifecycleEvent(1), {
      drains,
      wrap: raceBeforeFirstPatch(() => world.event(spot, { drains })),
    });

    expect(drains.launched).toHaveLength(1);
    expect(report?.actions.find((a) => a.kind === 'drain')).toEqual(
      expect.objectContaining({ outcome: 'already-running', detail: expect.stringMatching(/joined it$/) as unknown }),
    );
    expect(JSON.parse(annotationsOf(1)[LIFECYCLE_ANNOTATION] ?? '{}')).toEqual({ group: ASG, hook: TERMINATE_HOOK });
  });

  it('should bring the winner’s deadline forward to the loser’s earlier one', async () => {
    world.seedInstance(1, {
      spot: true,
      autoScaling: { group: ASG, lifecycleState: 'Terminating:Wait', hook: TERMINATE_HOOK },
    });
    world.seedNode(1);
    const drains = new RecordingDrainLauncher();
    const lifecycle = await lifecycleEvent(1);
    const spot = await fixtureEvent(world, 'spot-interruption', { instanceId: instanceId(1) });

    await world.event(spot, { drains, wrap: raceBeforeFirstPatch(() => world.event(lifecycle, { drains })) });

    expect(drains.launched).toHaveLength(1);
    expect(annotationsOf(1)[DRAIN_DEADLINE_ANNOTATION]).toBe(new Date(world.clock.now() + 120_000).toISOString());
  });

  it('should not take over a drain record whose StartExecution is still under way', async () => {
    world.seedInstance(1, { spot: true });
    world.seedNode(1);
    const drains = new RecordingDrainLauncher();
    const spot = await fixtureEvent(world, 'spot-interruption', { instanceId: instanceId(1) });
    const shuttingDown = await fixtureEvent(world, 'state-change-shutting-down', {
      instanceId: instanceId(1),
      detail: { 'instance-id': instanceId(1), state: 'shutting-down' },
    });
    let fired = false;
    // The first run's StartExecution has not reached Step Functions yet when the second run asks about it.
    const slow = {
      launch: async (input: Parameters<RecordingDrainLauncher['launch']>[0]) => {
        if (!fired) {
          fired = true;
          await world.event(shuttingDown, { drains });
        }
        return drains.launch(input);
      },
      status: (names: readonly string[]) =>
        Promise.resolve(new Map(names.map((name) => [name, { status: 'absent' as const }]))),
    };

    await world.event(spot, { drains: slow });

    expect(drains.launched).toHaveLength(1);
  });
});

describe('the CLI’s in-process drains', () => {
  it('should keep the record of a CLI drain the operator cancelled, so the deployed sweep does not drain the removal again', async () => {
    world.seedInstance(1, { autoScaling: { group: ASG, lifecycleState: 'Terminating:Wait', hook: TERMINATE_HOOK } });
    const name = seedBlockedPair();
    const deps = await world.deps();
    let passes = 0;
    // The operator uncordons on the drain's third look at the pods.
    const api: DrainApi = {
      ...deps.drainApi,
      listPodsOnNode: async (n) => {
        if (++passes === 3)
          world.kube.store.patch(
            world.kube.store.resource('nodes'),
            undefined,
            name,
            'application/strategic-merge-patch+json',
            { spec: { unschedulable: null } },
          );
        return deps.drainApi.listPodsOnNode(n);
      },
    };
    const completed: string[] = [];
    const local = new LocalDrainLauncher(
      { api, clock: world.clock, settings: drainSettings(DEFAULT_SETTINGS), sleep: sleepOn(world.clock) },
      {
        completeLifecycleAction: (_id, lifecycle) => Promise.resolve(void completed.push(lifecycle.hook)),
        recordHeartbeat: () => Promise.resolve(),
      },
      () => undefined,
    );

    await runSweep({ ...deps, drains: local }, { region: REGION });
    expect(local.outcomes.map((o) => o.outcome)).toEqual(['cancelled-by-uncordon']);
    expect(annotationsOf(1)[DRAIN_ANNOTATION]).toMatch(/^local-/);

    world.clock.advance(10 * 60_000);
    const deployed = new RecordingDrainLauncher();
    const later = await world.sweep({ drains: deployed });

    expect(deployed.launched).toEqual([]);
    expect(completed).toEqual([]);
    expect(later.actions.filter((a) => a.kind === 'complete-lifecycle')).toEqual([]);
    expect(world.kube.store.getNode(name)?.spec?.unschedulable).not.toBe(true);
  });

  it('should record `decommission --now`’s drain, so the tag event it causes starts no second drain', async () => {
    world.seedInstance(1);
    const name = seedBlockedPair();
    world.aws.state.instances.setTags(
      instanceId(1),
      new Map([['ec2-node-reconciler/decommission', 'replace disk']]),
      world.clock.now(),
    );
    const tagEvent = await fixtureEvent(world, 'tag-change-decommission', { instanceId: instanceId(1) });
    const deployed = new RecordingDrainLauncher();
    const deps = await world.deps();
    const sleep = sleepOn(world.clock);
    let delivered = false;

    await runOperatorDrain(
      {
        api: deps.drainApi,
        clock: world.clock,
        settings: drainSettings(DEFAULT_SETTINGS),
        sleep: async (ms) => {
          if (!delivered) {
            delivered = true;
            // EventBridge delivers the tag change while the CLI drains.
            await world.event(tagEvent, { drains: deployed });
          }
          return sleep(ms);
        },
      },
      {
        node: name,
        reason: 'replace disk',
        timeoutMs: 120_000,
        expectedUid: world.kube.store.getNode(name)?.metadata.uid ?? '',
      },
    );

    expect(deployed.launched).toEqual([]);
  });
});

describe('which terminate hook is ours', () => {
  it('should complete only a configured hook when the group has several', async () => {
    world.aws.state.autoScaling.putHook(ASG, {
      name: 'log-shipper-flush',
      transition: 'autoscaling:EC2_INSTANCE_TERMINATING',
      heartbeatTimeoutMs: 3_600_000,
      defaultResult: 'CONTINUE',
    });
    world.seedInstance(1, { autoScaling: { group: ASG, lifecycleState: 'Terminating:Wait', hook: TERMINATE_HOOK } });
    world.seedNode(1);
    const drains = new RecordingDrainLauncher();

    await world.sweep({ drains, wrap: (deps) => ({ ...deps, ownHooks: [TERMINATE_HOOK] }) });

    expect(drains.launched.map((l) => l.lifecycle?.hook)).toEqual([TERMINATE_HOOK]);
  });

  it('should drain for and complete, from an event, only a configured hook’s action, as the sweep does (issue #27)', async () => {
    world.aws.state.autoScaling.putHook(ASG, {
      name: 'Terminate-LC-Hook',
      transition: 'autoscaling:EC2_INSTANCE_TERMINATING',
      heartbeatTimeoutMs: 3_600_000,
      defaultResult: 'CONTINUE',
    });
    world.seedInstance(1, { autoScaling: { group: ASG, hook: TERMINATE_HOOK } });
    world.seedNode(1);
    world.seedInstance(2, { autoScaling: { group: ASG } });
    world.seedNode(2);
    const drains = new RecordingDrainLauncher();
    const configured = { drains, wrap: (deps: ReconcilerDeps) => ({ ...deps, ownHooks: [TERMINATE_HOOK] }) };
    const eks = await fixtureEvent(world, 'asg-terminate-lifecycle-action', {
      instanceId: instanceId(2),
      detail: { AutoScalingGroupName: ASG, LifecycleHookName: 'Terminate-LC-Hook', EC2InstanceId: instanceId(2) },
    });

    const ours = await world.event(await lifecycleEvent(1), configured);
    const theirs = await world.event(eks, configured);

    expect(drains.launched.map((l) => [l.instanceId, l.lifecycle?.hook])).toEqual([[instanceId(1), TERMINATE_HOOK]]);
    expect(ours?.actions.filter((a) => a.kind !== 'report')).toHaveLength(2);
    expect(theirs?.actions.filter((a) => a.kind !== 'report')).toEqual([]);
    expect(theirs?.skipped).toContainEqual(
      expect.objectContaining({
        reason: expect.stringMatching(
          /hook Terminate-LC-Hook is not the reconciler's \(.*\); left to its owner/,
        ) as unknown,
      }),
    );
  });

  it('should never take EKS’s Terminate-LC-Hook for ours, not even as the group’s only hook or a configured one', async () => {
    world.seedInstance(1, {
      autoScaling: { group: ASG, lifecycleState: 'Terminating:Wait', hook: 'Terminate-LC-Hook' },
    });
    world.seedNode(1);
    const drains = new RecordingDrainLauncher();
    const eks = await fixtureEvent(world, 'asg-terminate-lifecycle-action', {
      instanceId: instanceId(1),
      detail: { AutoScalingGroupName: ASG, LifecycleHookName: 'Terminate-LC-Hook', EC2InstanceId: instanceId(1) },
    });

    const event = await world.event(eks, { drains });
    const misconfigured = await world.event(eks, {
      drains,
      wrap: (deps) => ({ ...deps, ownHooks: ['Terminate-LC-Hook'] }),
    });
    const sweep = await world.sweep({ drains });

    for (const report of [event, misconfigured, sweep])
      expect(report?.actions.filter((a) => a.kind === 'complete-lifecycle')).toEqual([]);
    // The sweep drains a machine Auto Scaling is terminating, but hands its drain no action to complete.
    expect(drains.launched.map((l) => l.lifecycle)).toEqual([undefined]);
  });

  it('should neither drain for nor complete an action whose group’s hooks could not be read, and try the event again', async () => {
    world.seedInstance(1, { autoScaling: { group: ASG, hook: TERMINATE_HOOK } });
    world.seedNode(1);
    world.aws.faults.fail({
      service: 'autoscaling',
      operation: 'DescribeLifecycleHooks',
      code: 'AccessDenied',
      message: 'not authorized to perform: autoscaling:DescribeLifecycleHooks',
      status: 403,
    });
    const drains = new RecordingDrainLauncher();

    const report = await world.event(await lifecycleEvent(1), { drains });

    expect(drains.launched).toEqual([]);
    expect(report?.actions.filter((a) => a.kind !== 'report')).toEqual([]);
    expect(report?.incomplete).toEqual([
      expect.stringMatching(new RegExp(`^describing lifecycle hooks of ${ASG}: AccessDenied`)),
    ]);
  });

  it('should complete neither when the group has several and none is configured, and say why', async () => {
    world.aws.state.autoScaling.putHook(ASG, {
      name: 'log-shipper-flush',
      transition: 'autoscaling:EC2_INSTANCE_TERMINATING',
      heartbeatTimeoutMs: 3_600_000,
      defaultResult: 'CONTINUE',
    });
    world.seedInstance(1, { autoScaling: { group: ASG, lifecycleState: 'Terminating:Wait', hook: TERMINATE_HOOK } });
    world.seedNode(1);
    const drains = new RecordingDrainLauncher();

    const report = await world.sweep({ drains });

    expect(drains.launched.map((l) => l.lifecycle)).toEqual([undefined]);
    expect(report.errors).toContainEqual(
      expect.stringMatching(/several terminate hooks \(.*\): set lifecycleHookNames/),
    );
  });
});
