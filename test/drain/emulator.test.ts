import { afterEach, describe, expect, it } from 'vitest';
import { cordon, DRAIN_TAINT_KEY, uncordon } from '../../lib/kube/node-writes.js';
import { runDrain } from '../../cli/drain/driver.js';
import { drainSettings } from '../../lib/drain/settings.js';
import { drainStep, type DrainDeps } from '../../lib/drain/step.js';
import type { DrainRequest } from '../../lib/drain/step-result.js';
import { sleepOn, VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import {
  CORDON_REASON_ANNOTATION,
  CORDONED_BY_ANNOTATION,
  EXCLUDE_FROM_LB_LABEL,
} from '@ec2-node-reconciler/model/contract/labels.js';
import { dyingAfter } from './support/dying.js';
import { emulated, N1, podState, seedMixedPods, seedNodes, type Emulated } from './support/emulated.js';

const START = Date.UTC(2026, 0, 1, 12);
let open: Emulated[] = [];
afterEach(async () => {
  await Promise.all(open.map((e) => e.kube.close()));
  open = [];
});

async function setup(): Promise<{ env: Emulated; clock: VirtualClock; deps: DrainDeps; request: DrainRequest }> {
  const clock = new VirtualClock(START);
  const env = await emulated(clock);
  open.push(env);
  seedNodes(env.kube.store, START);
  return {
    env,
    clock,
    deps: { api: env.api, clock, settings: drainSettings(), sleep: sleepOn(clock) },
    request: { node: N1, deadline: START + 600_000, cordon: { reason: 'spot interruption' } },
  };
}

describe('drain against the Kubernetes emulator', () => {
  it('should drain a mixed node through client-node and leave only DaemonSet and mirror pods', async () => {
    const { env, deps, request } = await setup();
    seedMixedPods(env.kube.store, { graceSeconds: 30, blockingPdb: false });

    const result = await runDrain(deps, request);

    expect(result.status).toBe('drained');
    expect(podState(env.kube.store).filter((p) => p.endsWith(`@${N1}`))).toEqual([
      `kube-system/fluent-bit-x1@${N1}`,
      `kube-system/kube-proxy-${N1}@${N1}`,
    ]);
    expect(Object.fromEntries(result.pods.map((r) => [r.pod.name, r.status]))).toMatchObject({
      'web-6d4f-aaaaa': 'evicted',
      'db-0': 'evicted',
      'retired-agent-x1': 'evicted',
      'old-5b8c-aaaaa': 'gone',
      'fluent-bit-x1': 'skipped-daemonset',
      [`kube-proxy-${N1}`]: 'skipped-mirror',
    });
    expect(env.kube.store.getNode(N1)?.spec?.unschedulable).toBe(true);
  });

  it('should report the PDB that blocks a pod and leave it at the deadline', async () => {
    const { env, clock, deps, request } = await setup();
    seedMixedPods(env.kube.store, { graceSeconds: 30, blockingPdb: true });

    const result = await runDrain(deps, { ...request, deadline: START + 60_000 });

    expect(clock.now()).toBe(START + 60_000);
    expect(result.status).toBe('incomplete');
    expect(result.blocked).toEqual([
      {
        pod: expect.objectContaining({ namespace: 'default', name: 'db-0' }) as unknown,
        pdb: 'default/db',
        // Codes, not the server's message, outlive the step that heard it.
        reason: 'blocked by PodDisruptionBudget default/db (12 attempts)',
      },
    ]);
    expect(result.remaining.map((r) => [r.pod.name, r.status, r.left])).toEqual([
      ['db-0', 'blocked-by-pdb', 'incomplete'],
    ]);
  });

  it('should report a pod under two PDBs and drain every other pod', async () => {
    const { env, deps, request } = await setup();
    seedMixedPods(env.kube.store, { graceSeconds: 30, blockingPdb: false });
    env.kube.store.seedPdb({ name: 'db-a', selector: { app: 'db' }, maxUnavailable: 1 });
    env.kube.store.seedPdb({ name: 'db-b', selector: { app: 'db' }, maxUnavailable: 1 });

    const result = await runDrain(deps, { ...request, deadline: START + 120_000 });

    expect(result.status).toBe('incomplete');
    expect(result.remaining.map((r) => [r.pod.name, r.status])).toEqual([['db-0', 'multiple-pdbs']]);
    expect(result.counts).toMatchObject({ left: 1, blocked: 1 });
    expect(podState(env.kube.store).filter((p) => p.endsWith(`@${N1}`))).toHaveLength(3);
  });

  it('should drain 110 pods in about one termination grace period of emulator time', async () => {
    const { env, clock, deps, request } = await setup();
    for (let i = 0; i < 110; i++) {
      env.kube.store.seedPod({
        name: `app-${String(i).padStart(3, '0')}`,
        node: N1,
        owner: `ReplicaSet/app-${i % 11}`,
        terminationGracePeriodSeconds: 30,
      });
    }
    env.kube.requestLog.clear();

    const result = await runDrain(deps, request);

    expect(result.counts).toMatchObject({ evicted: 110, left: 0 });
    const elapsed = clock.now() - START;
    expect(elapsed).toBeGreaterThanOrEqual(30_000);
    expect(elapsed).toBeLessThanOrEqual(30_000 + deps.settings.pollIntervalMs);
    expect(env.kube.requestLog.count({ verb: 'create', subresource: 'eviction' })).toBe(110);
    // One LIST per poll, not one GET per pod per poll.
    expect(env.kube.requestLog.count({ verb: 'get', resource: 'pods' })).toBe(0);
  });
});

describe('resuming a drain against the Kubernetes emulator', () => {
  it('should end as an uninterrupted drain, with one eviction per pod, when a step dies after some evictions', async () => {
    const reference = await setup();
    seedMixedPods(reference.env.kube.store, { graceSeconds: 30, blockingPdb: false, extraPods: 20 });
    await runDrain(reference.deps, reference.request);

    const { env, deps, request } = await setup();
    seedMixedPods(env.kube.store, { graceSeconds: 30, blockingPdb: false, extraPods: 20 });
    await expect(drainStep({ ...deps, api: dyingAfter(env.api, 7) }, request, undefined, 60_000)).rejects.toThrow(
      'reading node',
    );
    const beforeRestart = env.kube.requestLog.count({ verb: 'create', subresource: 'eviction', status: 201 });
    const result = await runDrain(deps, request);

    expect(beforeRestart).toBeGreaterThanOrEqual(7);
    expect(result.status).toBe('drained');
    expect(podState(env.kube.store)).toEqual(podState(reference.env.kube.store));
    const evictions = env.kube.requestLog.filter({ verb: 'create', subresource: 'eviction' });
    const perPod = new Map<string, number>();
    for (const e of evictions) perPod.set(e.name, (perPod.get(e.name) ?? 0) + 1);
    expect([...perPod.values()].every((n) => n === 1)).toBe(true);
    expect(evictions.length).toBe(reference.env.kube.requestLog.count({ verb: 'create', subresource: 'eviction' }));
  });
});

describe('cordon against the Kubernetes emulator', () => {
  it('should cordon with annotations, taint and load-balancer label, then undo exactly that', async () => {
    const { env, clock } = await setup();
    const taint = { key: DRAIN_TAINT_KEY, value: 'spot-interruption', effect: 'NoSchedule' as const };

    const cordoned = await cordon(
      env.api,
      N1,
      { reason: 'spot interruption', taint, excludeFromLoadBalancers: true },
      clock,
    );
    const node = env.kube.store.getNode(N1);
    const uncordoned = await uncordon(env.api, N1);
    const after = env.kube.store.getNode(N1);

    expect(cordoned).toMatchObject({ kind: 'cordoned', changed: true, ours: true });
    expect(node?.spec?.unschedulable).toBe(true);
    expect(node?.spec?.taints).toContainEqual(taint);
    expect(node?.metadata.labels?.[EXCLUDE_FROM_LB_LABEL]).toBe('true');
    expect(node?.metadata.annotations).toMatchObject({
      [CORDONED_BY_ANNOTATION]: 'ec2-node-reconciler',
      [CORDON_REASON_ANNOTATION]: 'spot interruption',
    });
    expect(uncordoned).toMatchObject({ kind: 'uncordoned', changed: true });
    expect(after?.spec?.unschedulable ?? false).toBe(false);
    expect(after?.spec?.taints ?? []).not.toContainEqual(taint);
    expect(after?.metadata.labels?.[EXCLUDE_FROM_LB_LABEL]).toBeUndefined();
    expect(after?.metadata.annotations?.[CORDONED_BY_ANNOTATION]).toBeUndefined();
    const patches = env.kube.requestLog.filter({ verb: 'patch', resource: 'nodes' });
    expect(patches.map((p) => p.status)).toEqual([200, 200]);
  });

  it('should never uncordon a node an operator cordoned', async () => {
    const { env, clock } = await setup();
    await env.api.patchNode(N1, { unschedulable: true });
    expect(await cordon(env.api, N1, { reason: 'x' }, clock)).toMatchObject({
      kind: 'cordoned',
      changed: false,
      ours: false,
    });
    expect(await uncordon(env.api, N1)).toEqual({ kind: 'not-ours' });
    expect(env.kube.store.getNode(N1)?.spec?.unschedulable).toBe(true);
  });
});
