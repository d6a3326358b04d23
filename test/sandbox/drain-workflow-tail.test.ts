// The local stand-in for the drain workflow's end (lib/sandbox/simulate/local-drains.ts): which
// output event each outcome publishes, when the lifecycle action is completed or left open, the
// payload safety net, and the DRAINS rows of a simulation.
import { describe, expect, it } from 'vitest';
import { formatSimulation } from '../../lib/cli/format-simulation.js';
import { sleepOn } from '../../lib/drain/driver.js';
import { drainSettings, type DrainSettings } from '../../lib/drain/settings.js';
import { VirtualClock } from '../../lib/model/clock.js';
import { toInstanceId } from '../../lib/model/instance-id.js';
import { DRAIN_ANNOTATION, LIFECYCLE_ANNOTATION } from '../../lib/model/labels.js';
import type { LifecycleRef } from '../../lib/model/signal.js';
import { parseScenario } from '../../lib/sandbox/scenario/load.js';
import { LocalDrains, type DrainRun } from '../../lib/sandbox/simulate/local-drains.js';
import { simulate } from '../../lib/sandbox/simulate/run.js';
import { executionOf, type DrainWorkflowInput } from '../../lib/workflow/contract.js';
import { FakeCluster, pod } from '../drain/support/fake-api.js';

const START = Date.UTC(2026, 0, 1, 12);
const INSTANCE = toInstanceId('i-0a1b2c3d4e5f60001');
const LIFECYCLE = { group: 'ng-a', hook: 'drain-hook' };

interface Tail {
  readonly clock: VirtualClock;
  readonly cluster: FakeCluster;
  readonly drains: LocalDrains;
  readonly completed: { instanceId: string; lifecycle: LifecycleRef; result: string }[];
  readonly events: { detailType: string; detail: Record<string, unknown> }[];
  readonly finished: DrainRun[];
  input(overrides?: Partial<DrainWorkflowInput>): DrainWorkflowInput;
}

function tail(settings: Partial<DrainSettings> = {}): Tail {
  const clock = new VirtualClock(START);
  const cluster = new FakeCluster(clock);
  cluster.addNode('node-a');
  const completed: Tail['completed'] = [];
  const events: Tail['events'] = [];
  const finished: DrainRun[] = [];
  const drains = new LocalDrains({
    clock,
    drainDeps: () => Promise.resolve({ api: cluster, clock, settings: drainSettings(undefined, settings), sleep: sleepOn(clock) }),
    autoScaling: {
      completeLifecycleAction: (instanceId, lifecycle, result) => {
        completed.push({ instanceId, lifecycle, result });
        return Promise.resolve();
      },
    },
    output: {
      publish: (outputs) => {
        events.push(...outputs.map((o) => ({ detailType: o.detailType, detail: o.detail })));
        return Promise.resolve({ sent: outputs.length, failed: [] });
      },
    },
    onFinish: (run) => finished.push(run),
  });
  return {
    clock,
    cluster,
    drains,
    completed,
    events,
    finished,
    input: (overrides = {}) => ({
      cluster: 'demo',
      node: 'node-a',
      nodeUid: 'node-uid-node-a',
      instanceId: INSTANCE,
      deadline: new Date(START + 600_000).toISOString(),
      reason: 'scale-in',
      cause: 'evt-1',
      lifecycle: LIFECYCLE,
      ...overrides,
    }),
  };
}

describe('the local drain workflow tail', () => {
  it('should publish Node Drained and complete the lifecycle action when the node drained', async () => {
    const t = tail();
    t.cluster.addPod(pod('web-1', { owner: ['ReplicaSet', 'web'], grace: 1 }));

    await t.drains.launch(t.input());
    await t.drains.settle();

    expect(t.completed).toEqual([{ instanceId: INSTANCE, lifecycle: LIFECYCLE, result: 'CONTINUE' }]);
    expect(t.events).toEqual([{ detailType: 'Node Drained', detail: expect.objectContaining({ outcome: 'done', lifecycle: { ...LIFECYCLE, completed: true } }) as unknown }]);
  });

  it('should publish Drain Failed with counts by reason, and still complete the lifecycle action, when refused pods are left', async () => {
    const t = tail({ evictUnreplicated: false });
    t.cluster.addPod(pod('bare'));
    t.cluster.addPod(pod('web-1', { owner: ['ReplicaSet', 'web'], grace: 1 }));

    await t.drains.launch(t.input());
    await t.drains.settle();

    expect(t.completed.map((c) => c.result)).toEqual(['CONTINUE']);
    expect(t.events).toEqual([
      {
        detailType: 'Drain Failed',
        detail: expect.objectContaining({
          outcome: 'incomplete',
          summary: expect.objectContaining({ evicted: 1, left: 1, leftByReason: { unreplicated: 1 }, examples: [{ pod: 'default/bare', reason: 'unreplicated' }] }) as unknown,
        }) as unknown,
      },
    ]);
  });

  it('should publish Drain Failed, never Node Drained, for a node replaced under its name or gone, completing the lifecycle action', async () => {
    const t = tail();
    t.cluster.addPod(pod('web-1', { owner: ['ReplicaSet', 'web'] }));

    await t.drains.launch(t.input({ nodeUid: 'uid-of-the-node-the-drain-was-planned-for' }));
    await t.drains.launch(t.input({ node: 'node-b', cause: 'evt-2' }));
    await t.drains.settle();

    expect(t.events.map((e) => [e.detailType, e.detail['outcome']])).toEqual([
      ['Drain Failed', 'node-replaced'],
      ['Drain Failed', 'node-gone'],
    ]);
    expect(t.completed).toHaveLength(2);
    expect(t.cluster.evictions()).toEqual([]);
  });

  it('should leave the lifecycle action open after an operator’s uncordon, and say how to complete it', async () => {
    const t = tail();
    t.cluster.addPod(pod('db-0', { owner: ['StatefulSet', 'db'] }));
    t.cluster.pdbs.push({ namespace: 'default', name: 'db', covers: (p) => p.name === 'db-0', allowed: 0 });

    await t.drains.launch(t.input());
    await t.drains.runUntil(START + 20_000);
    await t.cluster.patchNode('node-a', { unschedulable: false });
    await t.drains.settle();

    expect(t.completed).toEqual([]);
    const command = `aws autoscaling complete-lifecycle-action --auto-scaling-group-name ng-a --lifecycle-hook-name drain-hook --instance-id ${INSTANCE} --lifecycle-action-result CONTINUE`;
    expect(t.events).toEqual([
      { detailType: 'Drain Failed', detail: expect.objectContaining({ outcome: 'cancelled-by-uncordon', lifecycle: { ...LIFECYCLE, completed: false, completeWith: command } }) as unknown },
    ]);
    expect(t.finished[0]?.lifecycle).toEqual({ ...LIFECYCLE, completed: false, completeWith: command });
    expect(t.cluster.nodes.get('node-a')?.unschedulable).toBe(false);
  });

  it('should complete a lifecycle action handed over to the drain on the Node, and no other', async () => {
    const t = tail();
    const handedOver = { group: 'ng-b', hook: 'other-hook', token: 'tok-1' };
    const input = t.input({ lifecycle: undefined });
    t.cluster.addNode('node-a', { annotations: { [DRAIN_ANNOTATION]: executionOf(input), [LIFECYCLE_ANNOTATION]: JSON.stringify(handedOver) } });
    t.cluster.addPod(pod('web-1', { owner: ['ReplicaSet', 'web'], grace: 1 }));

    await t.drains.launch(input);
    await t.drains.settle();

    expect(t.completed).toEqual([{ instanceId: INSTANCE, lifecycle: handedOver, result: 'CONTINUE' }]);
    // The token authorises the action: it stays out of the event.
    expect(JSON.stringify(t.events)).not.toContain('tok-1');
  });

  it('should end Drain Failed and complete the lifecycle action when a step output exceeds the 256 KiB payload limit', async () => {
    const t = tail();
    // Names of 250 characters on 1,100 pods: more state than any payload may hold.
    for (let i = 0; i < 1_100; i++) t.cluster.addPod(pod(`${'x'.repeat(240)}-${String(i).padStart(4, '0')}`, { owner: ['ReplicaSet', 'web'] }));
    t.cluster.pdbs.push({ namespace: 'default', name: 'web', covers: () => true, allowed: 0 });

    await t.drains.launch(t.input());
    await t.drains.settle();

    expect(t.finished[0]).toMatchObject({ status: 'failed', error: expect.stringContaining('States.DataLimitExceeded') as unknown });
    expect(t.completed.map((c) => c.result)).toEqual(['CONTINUE']);
    expect(t.events.map((e) => [e.detailType, e.detail['outcome']])).toEqual([['Drain Failed', 'error']]);
  });
});

describe('the DRAINS rows of a simulation', () => {
  it('should count pods evicted and still terminating as evicted, not left, and name every shortened grace period', async () => {
    const scenario = (gracePeriod: string) =>
      parseScenario(
        `
name: grace-${gracePeriod}
start: 2026-11-29T12:00:00Z
cluster: { name: demo, region: eu-west-1, accountId: "111122223333" }
settings: { gracePeriod: ${gracePeriod}, drainTimeout: 2m }
instances:
  - { id: i-0ee0000000000e101, state: running, zone: eu-west-1a, launchedAgo: 9d, tags: { eks:cluster-name: demo, ec2-node-reconciler/decommission: "true" } }
nodes:
  - { name: ip-10-70-1-1.eu-west-1.compute.internal, providerID: "aws:///eu-west-1a/i-0ee0000000000e101", createdAgo: 9d }
pods:
  - { name: api-1, node: ip-10-70-1-1.eu-west-1.compute.internal, owner: ReplicaSet/api-7d9, terminationGracePeriodSeconds: 300 }
  - { name: api-2, node: ip-10-70-1-1.eu-west-1.compute.internal, owner: ReplicaSet/api-7d9, terminationGracePeriodSeconds: 300 }
steps:
  - sweep: {}
  - settle: {}
expect:
  deletions: 0
`,
        'grace.yaml',
      );

    const own = (await simulate({ scenario: scenario('pod'), baseDir: '.', file: 'grace-pod.yaml' })).simulation;
    const fitted = (await simulate({ scenario: scenario('fit-deadline'), baseDir: '.', file: 'grace-fit.yaml' })).simulation;

    expect(own.drains).toEqual([expect.objectContaining({ status: 'deadline', evicted: 2, terminating: 2, left: 0, graceShortened: [] })]);
    expect(formatSimulation(own)).toMatch(/deadline .* 2 evicted \(2 terminating\), 0 left/);
    expect(fitted.drains).toEqual([
      expect.objectContaining({ status: 'drained', evicted: 2, left: 0, graceShortened: ['default/api-1 300s→115s', 'default/api-2 300s→115s'] }),
    ]);
    expect(formatSimulation(fitted)).toMatch(/grace shortened: default\/api-1 300s→115s, default\/api-2 300s→115s/);
  });
});
