// The drain workflow run in-process (the CLI's drains): the same ends as the state machine — the
// lifecycle action completed or left open, and the outcome event with the workflow's detail.
import { describe, expect, it } from 'vitest';
import { OUTPUT_DETAIL } from '../../infra/drain-workflow.js';
import type { DrainWorkflowInput, LifecycleRef } from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import type { DrainApi } from '../../lib/drain/api.js';
import type { OutputDetailType } from '@ec2-node-reconciler/model/contract/output-events.js';
import { DRAIN_ANNOTATION, LIFECYCLE_ANNOTATION } from '@ec2-node-reconciler/model/contract/labels.js';
import { LIFECYCLE_HEARTBEAT_INTERVAL_MS } from '../../cli/drain/held-lifecycle.js';
import { runLocalWorkflow, type LocalWorkflowDeps } from '../../cli/drain/local-workflow.js';
import { toInstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import { pod, refusal } from './support/fake-api.js';
import { harness, START } from './support/scenario.js';

const INSTANCE = toInstanceId('i-0a1b2c3d4e5f60001');

function setup(options: {
  settings?: Parameters<typeof harness>[0];
  completeFails?: boolean;
  publishFails?: boolean;
  /** The first so many heartbeats fail. */
  heartbeatFailures?: number;
}) {
  const h = harness(options.settings);
  h.cluster.addNode('node-a');
  const completed: LifecycleRef[] = [];
  const heartbeats: { at: number; lifecycle: LifecycleRef }[] = [];
  let heartbeatFailures = options.heartbeatFailures ?? 0;
  const published: { detailType: OutputDetailType; detail: Record<string, unknown>; resources: readonly string[] }[] =
    [];
  const deps: LocalWorkflowDeps = {
    drain: h.deps,
    completeLifecycleAction: (_instance, lifecycle) => {
      if (options.completeFails) return Promise.reject(new Error('ValidationError: No active Lifecycle Action'));
      completed.push(lifecycle);
      return Promise.resolve();
    },
    recordHeartbeat: (_instance, lifecycle) => {
      if (heartbeatFailures-- > 0) return Promise.reject(new Error('Throttling: Rate exceeded'));
      heartbeats.push({ at: h.clock.now(), lifecycle });
      return Promise.resolve();
    },
    publish: (detailType, detail, resources) => {
      if (options.publishFails) return Promise.reject(new Error('AccessDeniedException'));
      published.push({ detailType, detail, resources });
      return Promise.resolve();
    },
  };
  const input: DrainWorkflowInput = {
    cluster: 'demo',
    node: 'node-a',
    nodeUid: 'node-uid-node-a',
    instanceId: INSTANCE,
    deadline: new Date(START + 600_000).toISOString(),
    reason: 'scale-in',
    cause: 'evt-1',
    lifecycle: { group: 'ng-a', hook: 'drain-hook', token: 'secret-token' },
  };
  return { ...h, deps, input, completed, published, heartbeats };
}

/** The keys of the state machine's output event detail (infra/drain-workflow.ts). */
const WORKFLOW_DETAIL_KEYS = [...OUTPUT_DETAIL.matchAll(/'([a-zA-Z]+)':/g)].map((m) => m[1]);

describe('runLocalWorkflow', () => {
  it('should complete the lifecycle action and publish Node Drained with the workflow detail, token left out', async () => {
    const s = setup({});
    s.cluster.addPod(pod('web-1', { owner: ['ReplicaSet', 'web'], grace: 1 }));

    const end = await runLocalWorkflow(s.deps, s.input);

    expect(end.outcome).toBe('done');
    expect(s.completed).toEqual([s.input.lifecycle]);
    expect(s.published.map((p) => p.detailType)).toEqual(['Node Drained']);
    const [event] = s.published;
    // As the workflow's PutEvents entry: no resources, the detail names the instance.
    expect(event?.resources).toEqual([]);
    const lifecycleKeys = ['group', 'hook', 'completed', 'error', 'completeWith'];
    const topKeys = WORKFLOW_DETAIL_KEYS.filter((k) => k !== undefined && !lifecycleKeys.includes(k));
    // Every key the local detail has is one the workflow sends, and the always-present ones are there.
    expect(Object.keys(event?.detail ?? {}).every((k) => WORKFLOW_DETAIL_KEYS.includes(k))).toBe(true);
    for (const key of ['cluster', 'node', 'nodeUid', 'instanceId', 'reason', 'cause', 'deadline', 'outcome'])
      expect(topKeys).toContain(key);
    expect(event?.detail).toMatchObject({
      cluster: 'demo',
      node: 'node-a',
      outcome: 'done',
      lifecycle: { group: 'ng-a', hook: 'drain-hook', completed: true },
    });
    expect(JSON.stringify(event?.detail)).not.toContain('secret-token');
  });

  it('should publish Drain Failed, with the lifecycle action completed, when refused pods are left', async () => {
    const s = setup({ settings: { settings: { evictUnreplicated: false } } });
    s.cluster.addPod(pod('bare'));

    const end = await runLocalWorkflow(s.deps, s.input);

    expect(end.outcome).toBe('incomplete');
    expect(s.completed).toHaveLength(1);
    expect(s.published.map((p) => [p.detailType, p.detail['outcome']])).toEqual([['Drain Failed', 'incomplete']]);
  });

  it('should say why completing failed and how to complete it, and still report the drain', async () => {
    const s = setup({ completeFails: true });

    const end = await runLocalWorkflow(s.deps, s.input);

    expect(end.lifecycle?.completed).toBe(false);
    expect(end.lifecycle?.error?.Cause).toContain('No active Lifecycle Action');
    expect(end.lifecycle?.completeWith).toContain('--lifecycle-hook-name drain-hook');
    const published = s.published[0]?.detail['lifecycle'] as { completed?: boolean; completeWith?: string } | undefined;
    expect(published?.completed).toBe(false);
    expect(published?.completeWith).toContain('complete-lifecycle-action');
  });

  it('should keep the drain end when publishing fails, naming why', async () => {
    const s = setup({ publishFails: true });

    const end = await runLocalWorkflow(s.deps, s.input);

    expect(end.outcome).toBe('done');
    expect(end.published).toBeUndefined();
    expect(end.publishError).toContain('AccessDeniedException');
  });

  it('should retry a step failing for a transient reason until the deadline, then end at the deadline, completing the action and reporting the error', async () => {
    const s = setup({});
    let calls = 0;
    const deps: LocalWorkflowDeps = {
      ...s.deps,
      drain: {
        ...s.deps.drain,
        // The fake's methods live on its prototype: keep them, replace one.
        api: Object.assign(Object.create(s.deps.drain.api) as DrainApi, {
          listPodsOnNode: () => {
            calls++;
            return Promise.reject(new Error('boom'));
          },
        }),
      },
    };

    const end = await runLocalWorkflow(deps, s.input);

    expect(end.outcome).toBe('deadline');
    expect(calls).toBeGreaterThan(3);
    expect(s.clock.now()).toBeGreaterThanOrEqual(Date.parse(s.input.deadline));
    expect(s.completed).toHaveLength(1);
    expect(s.published[0]).toMatchObject({ detailType: 'Drain Failed', detail: { outcome: 'deadline' } });
    // As `$states.errorOutput`: the error's name and its cause.
    expect(s.published[0]?.detail['error']).toMatchObject({ Error: 'Error' });
    expect(JSON.stringify(s.published[0]?.detail['error'])).toContain('boom');
  });

  it('should end with outcome error at once when the step fails permanently (a refused request), completing the action', async () => {
    const s = setup({});
    let calls = 0;
    const deps: LocalWorkflowDeps = {
      ...s.deps,
      drain: {
        ...s.deps.drain,
        api: Object.assign(Object.create(s.deps.drain.api) as DrainApi, {
          listPodsOnNode: () => {
            calls++;
            return Promise.reject(refusal(403, 'pods is forbidden', { method: 'GET', path: '/api/v1/pods' }));
          },
        }),
      },
    };

    const end = await runLocalWorkflow(deps, s.input);

    expect(end.outcome).toBe('error');
    expect(calls).toBe(1);
    expect(s.completed).toHaveLength(1);
    expect(s.published[0]).toMatchObject({ detailType: 'Drain Failed', detail: { outcome: 'error' } });
  });

  it('should retry a failing step as the workflow does (5 s, then 10 s, …), and drain when it recovers', async () => {
    const s = setup({});
    s.cluster.addPod(pod('web-1', { owner: ['ReplicaSet', 'web'], grace: 1 }));
    let calls = 0;
    const api = s.deps.drain.api;
    const flaky = Object.assign(Object.create(api) as DrainApi, {
      listPodsOnNode: (node: string) =>
        ++calls <= 2 ? Promise.reject(new Error('connection reset')) : api.listPodsOnNode(node),
    });

    const end = await runLocalWorkflow({ ...s.deps, drain: { ...s.deps.drain, api: flaky } }, s.input);

    expect(end.outcome).toBe('done');
    expect(s.published.map((p) => p.detailType)).toEqual(['Node Drained']);
  });

  describe('a lifecycle action handed over on the Node while it drains (a scale-in joining the drain)', () => {
    const EXECUTION = 'local-demo-i-0a1b2c3d4e5f60001-sweep-202601011200';
    const HANDED = { group: 'ng-b', hook: 'hook-b' };

    /** The drain's record on node-a, with the lifecycle action the event path handed it; no action in the input. */
    function handedOver(options: Parameters<typeof setup>[0] = {}) {
      const s = setup(options);
      s.cluster.addNode('node-a', {
        annotations: { [DRAIN_ANNOTATION]: EXECUTION, [LIFECYCLE_ANNOTATION]: JSON.stringify(HANDED) },
      });
      // Five minutes to terminate: the drain holds the action for that long.
      s.cluster.addPod(pod('slow', { owner: ['ReplicaSet', 'slow'], grace: 300 }));
      const { lifecycle: _none, ...input } = s.input;
      return { ...s, input: { ...input, execution: EXECUTION } };
    }

    it('should heartbeat it at least every heartbeat interval while it drains, then complete it', async () => {
      const s = handedOver();

      const end = await runLocalWorkflow(s.deps, s.input);

      expect(end.outcome).toBe('done');
      expect(s.heartbeats.map((h) => h.lifecycle)).toEqual(s.heartbeats.map(() => HANDED));
      const times = [START, ...s.heartbeats.map((h) => h.at), s.clock.now()];
      const gaps = times.slice(1).map((t, i) => t - (times[i] ?? t));
      // Each pass checks (one every poll interval at most while a pod terminates).
      expect(Math.max(...gaps)).toBeLessThanOrEqual(
        LIFECYCLE_HEARTBEAT_INTERVAL_MS + s.deps.drain.settings.pollIntervalMs,
      );
      expect(s.heartbeats.length).toBeGreaterThanOrEqual(5);
      expect(s.completed).toEqual([HANDED]);
      expect(end.lifecycle).toMatchObject({ ref: HANDED, completed: true });
    });

    it('should drain on when a heartbeat fails, trying again at the next pass', async () => {
      const s = handedOver({ heartbeatFailures: 1 });

      const end = await runLocalWorkflow(s.deps, s.input);

      expect(end.outcome).toBe('done');
      expect(end.heartbeatErrors).toEqual([expect.stringContaining('Rate exceeded')]);
      // The failed one at the first pass, retried at the next (a poll later), not a minute later.
      expect((s.heartbeats[0]?.at ?? Infinity) - START).toBeLessThanOrEqual(s.deps.drain.settings.pollIntervalMs);
      expect(s.completed).toEqual([HANDED]);
    });

    it('should neither heartbeat nor complete an action recorded for another drain', async () => {
      const s = handedOver();
      const { execution: _own, ...input } = s.input;

      const end = await runLocalWorkflow(s.deps, { ...input, execution: 'local-another-drain' });

      expect(end.outcome).toBe('done');
      expect(s.heartbeats).toEqual([]);
      expect(s.completed).toEqual([]);
    });
  });
});
