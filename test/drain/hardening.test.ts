// Issue #13: the drain against the Kubernetes emulator where it used to go wrong — payload size,
// Node identity, pod identity, honest outcomes, the operator's uncordon, deadlines shorter than
// grace periods, and a Node deleted mid-drain.
import { afterEach, describe, expect, it } from 'vitest';
import { podKey } from '../../lib/drain/api.js';
import { runDrain } from '../../cli/drain/driver.js';
import type { PodReport } from '../../lib/drain/pod-report.js';
import { drainSettings, type DrainSettings } from '../../lib/drain/settings.js';
import { checkOffsetMs } from '../../lib/drain/next-check.js';
import { drainStep, type DrainDeps } from '../../lib/drain/step.js';
import type { DrainRequest, DrainStepResult } from '../../lib/drain/step-result.js';
import { runDrainStepTask } from '../../lib/lambda/drain-step-task.js';
import { sleepOn, VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { toInstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import {
  DRAIN_ANNOTATION,
  DRAIN_DEADLINE_ANNOTATION,
  LIFECYCLE_ANNOTATION,
} from '@ec2-node-reconciler/model/contract/labels.js';
import type { DrainWorkflowInput } from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import { emulated, N1, seedNodes, type Emulated } from './support/emulated.js';

const START = Date.UTC(2026, 0, 1, 12);
let open: Emulated[] = [];
afterEach(async () => {
  await Promise.all(open.map((e) => e.kube.close()));
  open = [];
});

interface Setup {
  readonly env: Emulated;
  readonly clock: VirtualClock;
  readonly deps: DrainDeps;
  readonly request: DrainRequest;
  /** Runs between two passes (after each sleep), like the rest of a cluster would. */
  between: () => void;
}

async function setup(options: { settings?: Partial<DrainSettings>; deadlineMs?: number } = {}): Promise<Setup> {
  const clock = new VirtualClock(START);
  const env = await emulated(clock);
  open.push(env);
  seedNodes(env.kube.store, START);
  const sleep = sleepOn(clock);
  const setup: Setup = {
    env,
    clock,
    deps: {
      api: env.api,
      clock,
      settings: drainSettings(undefined, options.settings),
      sleep: async (ms) => {
        await sleep(ms);
        setup.between();
      },
    },
    // The drain the Node's record names: only that record hands it a deadline or a lifecycle action.
    request: {
      node: N1,
      deadline: START + (options.deadlineMs ?? 600_000),
      cordon: { reason: 'spot interruption' },
      execution: EXECUTION,
    },
    between: () => undefined,
  };
  return setup;
}

const nodeUid = (env: Emulated): string => env.kube.store.getNode(N1)?.metadata.uid ?? '';

const EXECUTION = 'demo-i-0a1b2c3d4e5f60001-evt-1';

function workflowInput(env: Emulated, overrides: Partial<DrainWorkflowInput> = {}): DrainWorkflowInput {
  return {
    cluster: 'demo',
    node: N1,
    nodeUid: nodeUid(env),
    instanceId: toInstanceId('i-0a1b2c3d4e5f60001'),
    deadline: new Date(START + 600_000).toISOString(),
    reason: 'spot interruption',
    cause: 'evt-1',
    // The record's name, as the plan names it on the Node.
    execution: EXECUTION,
    ...overrides,
  };
}

const statusOf = (result: DrainStepResult): Record<string, string> =>
  Object.fromEntries(result.pods.map((r: PodReport) => [podKey(r.pod), r.status]));
const evictionsOf = (env: Emulated, name: string): number =>
  env.kube.requestLog.count({ verb: 'create', subresource: 'eviction', name });
const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

describe('case 1: the workflow state stays bounded', () => {
  it('should keep the step output of a node with 737 PDB-blocked pods under 64 KiB, holding codes and PDB names, not messages', async () => {
    const { env, clock, deps } = await setup();
    for (let i = 0; i < 737; i++)
      env.kube.store.seedPod({
        name: `app-${String(i).padStart(3, '0')}`,
        node: N1,
        owner: 'ReplicaSet/app-7d9f',
        labels: { app: 'app' },
      });
    env.kube.store.seedPdb({ name: 'app', selector: { app: 'app' }, minAvailable: '100%' });

    // Two passes in the first step (the retry after the 5 s back-off), and a second step resuming from the state.
    const first = await runDrainStepTask({ input: workflowInput(env) }, deps, 10_000 + 6_000);
    await deps.sleep(first.waitSeconds * 1000);
    const second = await runDrainStepTask(
      { input: workflowInput(env), state: JSON.parse(JSON.stringify(first.state)) as unknown },
      deps,
      10_000 + 6_000,
    );

    for (const output of [first, second]) {
      expect(output.outcome).toBe('continue');
      expect(bytes(output)).toBeLessThan(64 * 1024);
      expect(JSON.stringify(output)).not.toMatch(/disruption budget|Cannot evict/i);
    }
    expect(second.summary).toMatchObject({
      evicted: 0,
      left: 737,
      leftByReason: { 'blocked-by-pdb': 737 },
      blockingPdbs: [{ pdb: 'default/app', pods: 737 }],
    });
    expect(second.summary.examples.length).toBeLessThanOrEqual(10);
    expect(clock.now()).toBeGreaterThan(START + 5_000);
  });
});

describe('case 2: one Node identity per drain', () => {
  it('should end as node-replaced, and evict nothing more, when the Node is re-registered mid-drain', async () => {
    const { env, clock, deps, request } = await setup();
    env.kube.store.seedPod({ name: 'db-0', node: N1, owner: 'StatefulSet/db', labels: { app: 'db' } });
    env.kube.store.seedPod({ name: 'web-1', node: N1, owner: 'ReplicaSet/web', terminationGracePeriodSeconds: 300 });
    env.kube.store.seedPdb({ name: 'db', selector: { app: 'db' }, minAvailable: 1 });
    const bound = { ...request, cordon: { ...request.cordon, expectedUid: nodeUid(env) } };

    const first = await drainStep(deps, bound, undefined, 0);
    env.kube.store.delete(env.kube.store.resource('nodes'), undefined, N1);
    clock.advance(15_000); // the kubelet registers its Node again (new uid), uncordoned, pods still bound to the name
    const replacedAt = clock.now();
    const second = await drainStep(deps, bound, first.state, 60_000);

    expect(first.status).toBe('in-progress');
    expect(nodeUid(env)).not.toBe(bound.cordon.expectedUid);
    expect(second.status).toBe('node-replaced');
    expect(
      env.kube.requestLog.filter({ verb: 'create', subresource: 'eviction' }).filter((e) => e.at >= replacedAt),
    ).toEqual([]);
    expect(env.kube.requestLog.filter({ verb: 'patch', resource: 'nodes' }).filter((e) => e.at >= replacedAt)).toEqual(
      [],
    );
    expect(env.kube.store.getNode(N1)?.spec?.unschedulable ?? false).toBe(false);
  });
});

describe('case 3: a replaced or vanished Node is never done', () => {
  it('should answer node-replaced or node-gone, not done, when the Node is not the one the drain was started for', async () => {
    const { env, deps } = await setup();
    env.kube.store.seedPod({ name: 'web-1', node: N1, owner: 'ReplicaSet/web' });

    const replaced = await runDrainStepTask(
      { input: workflowInput(env, { nodeUid: 'uid-of-the-previous-node' }) },
      deps,
      20_000,
    );
    const gone = await runDrainStepTask(
      { input: workflowInput(env, { node: 'ip-10-0-9-9.ec2.internal' }) },
      deps,
      20_000,
    );

    expect(replaced.outcome).toBe('node-replaced');
    expect(gone.outcome).toBe('node-gone');
    // The pod of the new Node is not ours to evict.
    expect(env.kube.requestLog.count({ verb: 'create', subresource: 'eviction' })).toBe(0);
    expect(env.kube.store.getNode(N1)?.spec?.unschedulable ?? false).toBe(false);
  });
});

describe('case 4: pods by UID', () => {
  it('should evict a pod once and count its successor under the same name as finished, as kubectl waitForDelete does', async () => {
    const s = await setup({ deadlineMs: 300_000 });
    const { env, deps, request } = s;
    const seedPinned = () =>
      env.kube.store.seedPod({
        name: 'pinned-0',
        node: N1,
        owner: 'StatefulSet/pinned',
        terminationGracePeriodSeconds: 1,
      });
    const original = seedPinned();
    // A controller that puts the pod back on this node as soon as it is gone (nodeName set, or it tolerates the cordon).
    s.between = () => {
      if (!env.kube.store.getPod('default', 'pinned-0')) seedPinned();
    };

    const result = await runDrain(deps, request);

    expect(evictionsOf(env, 'pinned-0')).toBe(1);
    expect(result.status).toBe('drained');
    const reports = result.pods.filter((r) => r.pod.name === 'pinned-0');
    expect(reports.map((r) => [r.pod.uid === original.metadata.uid, r.status])).toEqual([
      [true, 'evicted'],
      [false, 'recreated'],
    ]);
  });

  it('should evict once a pod that appears on the cordoned node after the drain started, and not its successor', async () => {
    const s = await setup({ deadlineMs: 300_000 });
    const { env, deps, request } = s;
    env.kube.store.seedPod({ name: 'web-1', node: N1, owner: 'ReplicaSet/web', terminationGracePeriodSeconds: 20 });
    let passes = 0;
    s.between = () => {
      passes++;
      if (passes === 1 || (passes > 1 && !env.kube.store.getPod('default', 'late-1'))) {
        env.kube.store.seedPod({
          name: 'late-1',
          node: N1,
          owner: 'ReplicaSet/late',
          terminationGracePeriodSeconds: 1,
        });
      }
    };

    const result = await runDrain(deps, request);

    expect(evictionsOf(env, 'web-1')).toBe(1);
    expect(evictionsOf(env, 'late-1')).toBe(1);
    expect(result.status).toBe('drained');
    expect(statusOf(result)['default/web-1']).toBe('evicted');
  });
});

describe('case 5: honest outcomes', () => {
  it('should end incomplete, with counts by reason, when refused pods are left', async () => {
    const { env, deps } = await setup({ settings: { deleteEmptyDirData: false, evictUnreplicated: false } });
    env.kube.store.seedPod({ name: 'bare', node: N1 });
    env.kube.store.seedPod({ name: 'cache-1', node: N1, owner: 'ReplicaSet/cache', emptyDir: true });
    env.kube.store.seedPod({ name: 'web-1', node: N1, owner: 'ReplicaSet/web', terminationGracePeriodSeconds: 1 });

    let output = await runDrainStepTask({ input: workflowInput(env) }, deps, 70_000);
    while (output.outcome === 'continue')
      output = await runDrainStepTask({ input: workflowInput(env), state: output.state }, deps, 70_000);

    expect(output.outcome).toBe('incomplete');
    expect(output.summary).toMatchObject({
      evicted: 1,
      left: 2,
      leftByReason: { unreplicated: 1, 'local-storage': 1 },
    });
    expect(output.summary.examples.map((e) => [e.pod, e.reason])).toEqual([
      ['default/bare', 'unreplicated'],
      ['default/cache-1', 'local-storage'],
    ]);
  });

  it('should still say drained when nothing was refused or blocked', async () => {
    const { env, deps, request } = await setup();
    env.kube.store.seedPod({ name: 'web-1', node: N1, owner: 'ReplicaSet/web', terminationGracePeriodSeconds: 1 });
    env.kube.store.seedPod({ name: 'agent-1', node: N1, owner: 'DaemonSet/agent' });

    const result = await runDrain(deps, request);

    expect(result.status).toBe('drained');
    expect(result.counts).toMatchObject({ evicted: 1, left: 0, skipped: 1 });
  });
});

describe('case 6: the operator wins', () => {
  it('should stop as cancelled-by-uncordon when someone else uncordons the node mid-drain, and never cordon it again', async () => {
    const { env, clock, deps, request } = await setup();
    env.kube.store.seedPod({ name: 'db-0', node: N1, owner: 'StatefulSet/db', labels: { app: 'db' } });
    env.kube.store.seedPod({ name: 'web-1', node: N1, owner: 'ReplicaSet/web', terminationGracePeriodSeconds: 1 });
    env.kube.store.seedPdb({ name: 'db', selector: { app: 'db' }, minAvailable: 1 });

    const first = await drainStep(deps, request, undefined, 10_000);
    await env.api.patchNode(N1, { unschedulable: null }); // kubectl uncordon
    const writesBefore = env.kube.requestLog.entries.filter((e) => e.method !== 'GET').length;
    clock.advance(30_000); // and the scheduler puts a pod on it again
    env.kube.store.seedPod({ name: 'web-2', node: N1, owner: 'ReplicaSet/web' });
    const result = await runDrain(deps, request, { state: first.state });

    expect(first.status).toBe('in-progress');
    expect(result.status).toBe('cancelled-by-uncordon');
    expect(result.pods.find((r) => r.pod.name === 'db-0')).toMatchObject({
      status: 'blocked-by-pdb',
      left: 'cancelled-by-uncordon',
    });
    expect(env.kube.store.getNode(N1)?.spec?.unschedulable ?? false).toBe(false);
    // No eviction, no cordon: nothing but reads since the uncordon.
    expect(env.kube.requestLog.entries.filter((e) => e.method !== 'GET').length).toBe(writesBefore);
    expect(env.kube.store.getPod('default', 'web-2')?.metadata.deletionTimestamp).toBeUndefined();
  });
});

describe('case 7: deadline-aware grace periods', () => {
  it('should evict pods whose grace would outlast a spot deadline with the time left less a margin, and finish in time', async () => {
    const { env, clock, deps, request } = await setup({ deadlineMs: 120_000 });
    env.kube.store.seedPod({ name: 'api-1', node: N1, owner: 'ReplicaSet/api', terminationGracePeriodSeconds: 300 });
    env.kube.store.seedPod({ name: 'api-2', node: N1, owner: 'ReplicaSet/api', terminationGracePeriodSeconds: 300 });
    env.kube.store.seedPod({ name: 'quick', node: N1, owner: 'ReplicaSet/quick', terminationGracePeriodSeconds: 10 });

    const result = await runDrain(deps, request);

    expect(result.status).toBe('drained');
    expect(clock.now()).toBeLessThan(request.deadline);
    const sent = env.kube.requestLog.filter({ verb: 'create', subresource: 'eviction' });
    const grace = Object.fromEntries(
      sent.map((e) => [
        e.name,
        (e.body as { deleteOptions?: { gracePeriodSeconds?: number } }).deleteOptions?.gracePeriodSeconds,
      ]),
    );
    expect(grace).toEqual({ 'api-1': 115, 'api-2': 115, quick: undefined });
    // The report names every pod whose grace period was shortened.
    expect(result.pods.filter((r) => r.grace !== undefined).map((r) => [r.pod.name, r.grace])).toEqual([
      ['api-1', { pod: 300, given: 115 }],
      ['api-2', { pod: 300, given: 115 }],
    ]);
  });

  it('should keep the pods’ own grace with gracePeriod: pod, and count the terminating pods as evicted, not left, at the deadline', async () => {
    const { env, deps, request } = await setup({ deadlineMs: 120_000, settings: { gracePeriod: 'pod' } });
    env.kube.store.seedPod({ name: 'api-1', node: N1, owner: 'ReplicaSet/api', terminationGracePeriodSeconds: 300 });
    env.kube.store.seedPod({ name: 'api-2', node: N1, owner: 'ReplicaSet/api', terminationGracePeriodSeconds: 300 });

    const result = await runDrain(deps, request);

    expect(result.status).toBe('deadline');
    expect(result.counts).toMatchObject({ evicted: 2, terminating: 2, left: 0 });
    const sent = env.kube.requestLog.filter({ verb: 'create', subresource: 'eviction' });
    expect(
      sent.map(
        (e) => (e.body as { deleteOptions?: { gracePeriodSeconds?: number } }).deleteOptions?.gracePeriodSeconds,
      ),
    ).toEqual([undefined, undefined]);
  });

  it('should take an earlier deadline from the node’s drain-deadline annotation, and hand over the lifecycle action it names', async () => {
    const { env, deps } = await setup();
    env.kube.store.seedPod({ name: 'api-1', node: N1, owner: 'ReplicaSet/api', terminationGracePeriodSeconds: 300 });
    const lifecycle = { group: 'ng-a', hook: 'drain-hook', token: 'tok-1' };
    await env.api.patchNode(N1, {
      annotations: {
        [DRAIN_ANNOTATION]: EXECUTION,
        [DRAIN_DEADLINE_ANNOTATION]: new Date(START + 60_000).toISOString(),
        [LIFECYCLE_ANNOTATION]: JSON.stringify(lifecycle),
      },
    });

    const output = await runDrainStepTask({ input: workflowInput(env) }, deps, 20_000);

    expect(output.deadline).toBe(new Date(START + 60_000).toISOString());
    expect(output.lifecycle).toEqual(lifecycle);
    const [eviction] = env.kube.requestLog.filter({ verb: 'create', subresource: 'eviction' });
    // 60 s less the 5 s margin, less the second the first step waits for its Node's offset (a storm's
    // drains start apart: checkOffsetMs) before it evicts.
    expect(checkOffsetMs(N1)).toBeGreaterThan(0);
    expect(
      (eviction?.body as { deleteOptions?: { gracePeriodSeconds?: number } }).deleteOptions?.gracePeriodSeconds,
    ).toBe(54);
  });
});

describe('case 7, continued: a deadline that comes closer mid-drain', () => {
  const graceOf = (entry: { body?: unknown }): number | undefined =>
    (entry.body as { deleteOptions?: { gracePeriodSeconds?: number } }).deleteOptions?.gracePeriodSeconds;

  it('should shorten the grace period of a pod it evicted when the Node announces an earlier deadline', async () => {
    const { env, clock, deps, request } = await setup({ deadlineMs: 3_600_000 });
    env.kube.store.seedPod({ name: 'api-1', node: N1, owner: 'ReplicaSet/api', terminationGracePeriodSeconds: 300 });

    const first = await drainStep(deps, request, undefined, 0);
    clock.advance(10_000);
    // A spot warning for the same machine: two minutes from now.
    await env.api.patchNode(N1, {
      annotations: {
        [DRAIN_ANNOTATION]: EXECUTION,
        [DRAIN_DEADLINE_ANNOTATION]: new Date(clock.now() + 120_000).toISOString(),
      },
    });
    const result = await runDrain(deps, request, { state: first.state });

    expect(env.kube.requestLog.filter({ verb: 'create', subresource: 'eviction' }).map(graceOf)).toEqual([
      undefined,
      115,
    ]);
    expect(result.status).toBe('drained');
    expect(result.deadline).toBe(START + 130_000);
    expect(clock.now()).toBeLessThan(START + 130_000);
    expect(result.pods.map((r) => [r.pod.name, r.status, r.grace])).toEqual([
      ['api-1', 'evicted', { pod: 300, given: 115 }],
    ]);
  });

  it('should never take a later deadline, nor a lifecycle action that does not parse, from the Node', async () => {
    const { env, deps } = await setup({ deadlineMs: 120_000 });
    env.kube.store.seedPod({ name: 'api-1', node: N1, owner: 'ReplicaSet/api', terminationGracePeriodSeconds: 300 });
    await env.api.patchNode(N1, {
      annotations: {
        [DRAIN_ANNOTATION]: EXECUTION,
        [DRAIN_DEADLINE_ANNOTATION]: new Date(START + 3_600_000).toISOString(),
        [LIFECYCLE_ANNOTATION]: '{"group":"ng-a"}',
      },
    });
    const input = workflowInput(env, {
      deadline: new Date(START + 120_000).toISOString(),
      lifecycle: { group: 'ng-input', hook: 'h' },
    });

    const output = await runDrainStepTask({ input }, deps, 20_000);

    expect(output.deadline).toBe(input.deadline);
    expect(output.lifecycle).toEqual({ group: 'ng-input', hook: 'h' });
    // The input's 120 s, less the margin and the first step's wait for its Node's offset (see above).
    expect(env.kube.requestLog.filter({ verb: 'create', subresource: 'eviction' }).map(graceOf)).toEqual([114]);
  });
});

describe('the Node’s drain record', () => {
  it('should take nothing from another drain’s record (an earlier drain’s, left on the Node)', async () => {
    const { env, deps } = await setup({ deadlineMs: 600_000 });
    env.kube.store.seedPod({ name: 'api-1', node: N1, owner: 'ReplicaSet/api', terminationGracePeriodSeconds: 30 });
    await env.api.patchNode(N1, {
      annotations: {
        [DRAIN_ANNOTATION]: 'demo-i-0a1b2c3d4e5f60001-evt-0',
        [DRAIN_DEADLINE_ANNOTATION]: new Date(START - 60_000).toISOString(),
        [LIFECYCLE_ANNOTATION]: '{"group":"ng-a","hook":"h"}',
      },
    });

    const output = await runDrainStepTask({ input: workflowInput(env) }, deps, 20_000);

    expect(output.deadline).toBe(new Date(START + 600_000).toISOString());
    expect(output.lifecycle).toBeUndefined();
  });

  it('should write how it ended on its own record', async () => {
    const { env, deps, request } = await setup();
    env.kube.store.seedPod({ name: 'api-1', node: N1, owner: 'ReplicaSet/api', terminationGracePeriodSeconds: 0 });
    await env.api.patchNode(N1, { annotations: { [DRAIN_ANNOTATION]: EXECUTION } });

    const result = await runDrain(deps, request);

    expect(result.status).toBe('drained');
    expect(env.kube.store.getNode(N1)?.metadata.annotations?.['ec2-node-reconciler/drain-outcome']).toBe('done');
  });
});

describe('case 8: a Node deleted mid-drain', () => {
  it('should end as node-gone and keep every pod it knew in the report, with what became of it', async () => {
    const { env, clock, deps, request } = await setup();
    env.kube.store.seedPod({ name: 'db-0', node: N1, owner: 'StatefulSet/db', labels: { app: 'db' } });
    env.kube.store.seedPod({ name: 'slow-1', node: N1, owner: 'ReplicaSet/slow', terminationGracePeriodSeconds: 300 });
    env.kube.store.seedPdb({ name: 'db', selector: { app: 'db' }, minAvailable: 1 });

    const first = await drainStep(deps, request, undefined, 0);
    // The machine goes: its kubelet stops, the Node object is deleted, the pod GC force-deletes its pods 40 s later.
    env.kube.store.kubelets.setHeartbeating(N1, false);
    env.kube.store.delete(env.kube.store.resource('nodes'), undefined, N1);
    clock.advance(45_000);
    expect(env.kube.store.listPods({ node: N1 })).toEqual([]);
    const result = await drainStep(deps, request, first.state, 60_000);

    expect(first.status).toBe('in-progress');
    expect(result.status).toBe('node-gone');
    expect(result.pods.map((r) => [r.pod.name, r.status, r.left])).toEqual([
      ['db-0', 'blocked-by-pdb', 'node-gone'],
      ['slow-1', 'terminating', 'node-gone'],
    ]);
    expect(result.counts).toMatchObject({ evicted: 1, left: 1 });
  });
});
