// The CLI's in-process drain (event, sweep): what it does with the lifecycle action at each end,
// and what it tells the command about the exit code.
import { describe, expect, it } from 'vitest';
import { LocalDrainLauncher } from '../../cli/live.js';
import type { DrainApi } from '../../lib/drain/api.js';
import { toInstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import { DRAIN_ANNOTATION, LIFECYCLE_ANNOTATION } from '@ec2-node-reconciler/model/contract/labels.js';
import type { LifecycleRef } from '@ec2-node-reconciler/model/signal.js';
import type { NodeEvent } from '../../lib/kube/events.js';
import { executionOf, type DrainWorkflowInput } from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import type { ReportAction } from '../../lib/report/report.js';
import { pod, refusal } from '../drain/support/fake-api.js';
import { harness, START } from '../drain/support/scenario.js';

const INSTANCE = toInstanceId('i-0a1b2c3d4e5f60001');
const LIFECYCLE = { group: 'ng-a', hook: 'drain-hook' };

function launcher(
  options: {
    settings?: Parameters<typeof harness>[0];
    api?: (base: DrainApi) => DrainApi;
    /** Recording Events fails (RBAC, the API server). */
    eventsFail?: boolean;
  } = {},
) {
  const h = harness(options.settings);
  const completed: { lifecycle: LifecycleRef; result: string }[] = [];
  const lines: string[] = [];
  const events: NodeEvent[] = [];
  const drains = new LocalDrainLauncher(
    { ...h.deps, api: options.api ? options.api(h.cluster) : h.cluster },
    {
      completeLifecycleAction: (_instance, lifecycle) => {
        completed.push({ lifecycle, result: 'CONTINUE' });
        return Promise.resolve();
      },
      recordHeartbeat: () => Promise.resolve(),
      events: {
        record: (event) => {
          if (options.eventsFail) return Promise.reject(new Error('events is forbidden'));
          events.push(event);
          return Promise.resolve();
        },
      },
    },
    (line) => lines.push(line),
  );
  const input: DrainWorkflowInput = {
    cluster: 'demo',
    node: 'node-a',
    nodeUid: 'node-uid-node-a',
    instanceId: INSTANCE,
    deadline: new Date(START + 600_000).toISOString(),
    reason: 'scale-in',
    cause: 'evt-1',
    lifecycle: LIFECYCLE,
  };
  return { ...h, drains, completed, lines, events, input };
}

describe('LocalDrainLauncher', () => {
  it('should complete the lifecycle action handed over on the Node once the node drained', async () => {
    const l = launcher();
    const handedOver = { group: 'ng-b', hook: 'other-hook' };
    l.cluster.addNode('node-a', {
      annotations: { [DRAIN_ANNOTATION]: executionOf(l.input), [LIFECYCLE_ANNOTATION]: JSON.stringify(handedOver) },
    });
    l.cluster.addPod(pod('web-1', { owner: ['ReplicaSet', 'web'], grace: 1 }));

    await l.drains.launch(l.input);

    expect(l.completed).toEqual([{ lifecycle: handedOver, result: 'CONTINUE' }]);
    expect(l.drains.allDrained()).toBe(true);
    // The Node is told, as the workflow's notice tells it.
    expect(l.events).toEqual([
      {
        node: 'node-a',
        uid: 'node-uid-node-a',
        reason: 'LifecycleActionCompleted',
        type: 'Normal',
        message: `completed lifecycle action ng-b/other-hook of ${INSTANCE} with CONTINUE: its drain ended done`,
      },
    ]);
  });

  it('should say so, and still count the drain, when the LifecycleActionCompleted Event cannot be recorded', async () => {
    const l = launcher({ eventsFail: true });
    l.cluster.addNode('node-a');

    await l.drains.launch(l.input);

    expect(l.completed.map((c) => c.result)).toEqual(['CONTINUE']);
    expect(l.drains.allDrained()).toBe(true);
    expect(l.lines).toContain('  could not record LifecycleActionCompleted on node-a: events is forbidden');
  });

  it('should complete the lifecycle action but report not drained when refused pods are left', async () => {
    const l = launcher({ settings: { settings: { evictUnreplicated: false } } });
    l.cluster.addPod(pod('bare'));

    await l.drains.launch(l.input);

    expect(l.completed.map((c) => c.result)).toEqual(['CONTINUE']);
    expect(l.drains.allDrained()).toBe(false);
    expect(l.lines).toContain(
      '    left default/bare: refused — declares no controller (nothing would recreate it); set evictUnreplicated to evict it [left: incomplete]',
    );
  });

  it('should leave the lifecycle action open after an uncordon, printing the command that completes it', async () => {
    let passes = 0;
    const uncordonAfterTwoPasses = (base: DrainApi): DrainApi => ({
      ...bound(base),
      listPodsOnNode: async (node) => {
        if (++passes === 2) await base.patchNode('node-a', { unschedulable: false });
        return base.listPodsOnNode(node);
      },
    });
    const u = launcher({ api: uncordonAfterTwoPasses });
    u.cluster.addPod(pod('db-0', { owner: ['StatefulSet', 'db'] }));
    u.cluster.pdbs.push({ namespace: 'default', name: 'db', covers: () => true, allowed: 0 });

    await u.drains.launch(u.input);

    expect(u.completed).toEqual([]);
    expect(u.events).toEqual([]);
    expect(u.drains.outcomes).toEqual([
      {
        node: 'node-a',
        outcome: 'cancelled-by-uncordon',
        detail: 'cancelled-by-uncordon — 1 pod left: default/db-0 (blocked-by-pdb)',
      },
    ]);
    expect(
      u.lines.some((line) =>
        line.includes(
          `complete-lifecycle-action --auto-scaling-group-name ng-a --lifecycle-hook-name drain-hook --instance-id ${INSTANCE}`,
        ),
      ),
    ).toBe(true);
  });

  it('should still complete the lifecycle action when the drain fails permanently, and say it failed', async () => {
    // A refused request ends a drain at once (a transient failure is tried again until the deadline).
    const l = launcher({
      api: (base) => ({
        ...bound(base),
        listPodsOnNode: () =>
          Promise.reject(refusal(403, 'pods is forbidden', { method: 'GET', path: '/api/v1/pods' })),
      }),
    });

    await expect(l.drains.launch(l.input)).rejects.toThrow('listing pods on node node-a');

    expect(l.completed.map((c) => c.result)).toEqual(['CONTINUE']);
    expect(l.drains.allDrained()).toBe(false);
    expect(l.events.map((e) => e.message)).toEqual([
      `completed lifecycle action ng-a/drain-hook of ${INSTANCE} with CONTINUE: its drain ended error`,
    ]);
  });
});

/** The fake's methods bound, so that a test can replace one of them. */
function bound(api: DrainApi): DrainApi {
  return {
    getNode: (name) => api.getNode(name),
    patchNode: (name, patch) => api.patchNode(name, patch),
    listPodsOnNode: (node) => api.listPodsOnNode(node),
    daemonSetExists: (namespace, name) => api.daemonSetExists(namespace, name),
    evictPod: (ref, options) => api.evictPod(ref, options),
  };
}

describe('LocalDrainLauncher, as the CLI shows it', () => {
  it('should show progress through the progress line, once per change, and report the drain as it ended', async () => {
    const l = launcher({ settings: { settings: { evictUnreplicated: false } } });
    l.cluster.addPod(pod('web-1', { owner: ['ReplicaSet', 'web'], grace: 10 }));
    l.cluster.addPod(pod('bare'));
    const updates: string[] = [];
    const drains = new LocalDrainLauncher(
      l.deps,
      { completeLifecycleAction: () => Promise.resolve(), recordHeartbeat: () => Promise.resolve() },
      (line) => l.lines.push(line),
      undefined,
      { update: (_key, line) => updates.push(line), end: () => undefined, clear: () => undefined },
    );

    await drains.launch(l.input);

    // One update a pass: the caller's Progress keeps only the changes.
    expect(new Set(updates)).toEqual(
      new Set([
        '  node-a: evicted 1, terminating 1, left 1; blocked: default/bare (declares no controller (nothing would recreate it); set evictUnreplicated to evict it)',
        '  node-a: evicted 1, terminating 0, left 1; blocked: default/bare (declares no controller (nothing would recreate it); set evictUnreplicated to evict it)',
      ]),
    );
    expect(l.lines.some((line) => line.includes('evicted 1'))).toBe(false);
    const actions: ReportAction[] = [
      { kind: 'cordon', node: 'node-a', reason: 'spot', outcome: 'done' },
      { kind: 'drain', node: 'node-a', reason: 'spot', outcome: 'started' },
      { kind: 'drain', node: 'node-b', reason: 'spot', outcome: 'started' },
    ];
    const report = drains.withDrainEnds({ actions });
    expect(report.actions.map((a) => [a.kind, a.node, a.outcome, a.detail])).toEqual([
      ['cordon', 'node-a', 'done', undefined],
      ['drain', 'node-a', 'failed', 'incomplete — 1 pod left: default/bare (unreplicated)'],
      // Not a drain this launcher ran: as it was.
      ['drain', 'node-b', 'started', undefined],
    ]);
  });
});
