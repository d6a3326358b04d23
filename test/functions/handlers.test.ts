// The three Lambda handlers, invoked in-process with real-shaped payloads against the sandbox's
// emulators; AWS endpoint and credentials come from the environment, as in Lambda.
import { readFileSync } from 'node:fs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { startSandbox, type Sandbox } from '@ec2-node-reconciler/sandbox/simulate/sandbox.js';
import type { RunReport } from '../../lib/report/report.js';
import {
  drainExecutionName,
  DrainStepOutputSchema,
  LIFECYCLE_COMPLETED_NOTICE,
  type DrainStepOutput,
} from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import { lambdaContext, setFunctionEnvironment, sqsRecord } from '../support/lambda-env.js';

const SPOT = 'i-0aaaaaaaaaaaaaaa1';
const STALE = 'i-0aaaaaaaaaaaaaaa2';
const DRAIN = 'i-0aaaaaaaaaaaaaaa3';
const node = (id: string) => `node-${id.slice(-1)}.ec2.internal`;
/** Lifecycle action tokens are UUIDs (Auto Scaling refuses anything else). */
const TOKEN = '6d2c7f1e-0a4b-4c8d-9e3f-1a2b3c4d5e6f';

const SCENARIO = `
name: handlers
cluster: { name: demo, region: us-east-1, accountId: "111122223333" }
instances:
  - { id: ${SPOT}, state: running, zone: us-east-1a, tags: { eks:cluster-name: demo } }
  - { id: ${STALE}, state: terminated, zone: us-east-1a, tags: { eks:cluster-name: demo } }
  - { id: ${DRAIN}, state: running, zone: us-east-1a, tags: { eks:cluster-name: demo } }
nodes:
  - { name: ${node(SPOT)}, providerID: "aws:///us-east-1a/${SPOT}", createdAgo: 2h }
  - { name: ${node(STALE)}, providerID: "aws:///us-east-1a/${STALE}", createdAgo: 2h, heartbeatAgo: 1h, ready: Unknown }
  - { name: ${node(DRAIN)}, providerID: "aws:///us-east-1a/${DRAIN}", createdAgo: 2h }
pods:
  - { name: web-1, node: ${node(DRAIN)}, owner: ReplicaSet/web-1a2b, terminationGracePeriodSeconds: 0 }
  - { name: agent-1, node: ${node(DRAIN)}, owner: DaemonSet/agent }
`;

let sandbox: Sandbox;
let handlers: {
  events: (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;
  sweep: (event: unknown, context: Context) => Promise<RunReport>;
  drainStep: (event: unknown, context: Context) => Promise<DrainStepOutput>;
  /** The same function, given the workflow's notice. */
  drainNotice: (event: unknown, context: Context) => Promise<unknown>;
};

function fixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`../fixtures/events/${name}.json`, import.meta.url), 'utf8')) as Record<
    string,
    unknown
  >;
}

beforeAll(async () => {
  sandbox = await startSandbox(parseScenario(SCENARIO, 'handlers.yaml'));
  setFunctionEnvironment(sandbox);
  const [events, sweep, drainStep] = await Promise.all([
    import('../../functions/events.js'),
    import('../../functions/sweep.js'),
    import('../../functions/drain-step.js'),
  ]);
  handlers = {
    events: events.handler,
    sweep: sweep.handler,
    // The step's answer is the contract's (DrainStepOutputSchema), read as the workflow reads it.
    drainStep: async (event, context) => DrainStepOutputSchema.parse(await drainStep.handler(event, context)),
    drainNotice: (event, context) => drainStep.handler(event, context),
  };
});

afterAll(async () => {
  await sandbox.close();
});

describe('events handler (SQS batch of EventBridge events)', () => {
  it('should cordon and start a drain for a spot warning, ignore a running state change, and fail only the poison record', async () => {
    const spot: Record<string, unknown> = {
      ...fixture('spot-interruption'),
      time: new Date(sandbox.clock.now()).toISOString(),
      detail: { 'instance-id': SPOT, 'instance-action': 'terminate' },
    };
    const running = { ...fixture('state-change-running'), detail: { 'instance-id': DRAIN, state: 'running' } };
    const poison = { ...fixture('spot-interruption'), detail: { 'instance-id': 'i-123/../../nodes' } };
    const event: SQSEvent = {
      Records: [
        sqsRecord('m-spot', spot),
        sqsRecord('m-running', running),
        sqsRecord('m-poison', poison),
        sqsRecord('m-garbage', 'not json'),
      ],
    };

    const response = await handlers.events(event, lambdaContext(sandbox, 'events'));

    expect(response.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(['m-garbage', 'm-poison']);
    expect(sandbox.kube.store.getNode(node(SPOT))?.spec?.unschedulable).toBe(true);
    expect(sandbox.kube.store.getNode(node(DRAIN))?.spec?.unschedulable).toBeFalsy();
    const executions = sandbox.aws.state.stepFunctions.executions();
    // Named after the Node's uid too (drainExecutionName), so a re-registered Node is a new drain.
    const uid = sandbox.kube.store.getNode(node(SPOT))?.metadata?.uid;
    expect(executions.map((e) => e.name)).toEqual([drainExecutionName('demo', SPOT, String(spot['id']), uid)]);
  });

  it('should start nothing new for a duplicate delivery of the same event', async () => {
    const spot = {
      ...fixture('spot-interruption'),
      time: new Date(sandbox.clock.now()).toISOString(),
      detail: { 'instance-id': SPOT, 'instance-action': 'terminate' },
    };
    const response = await handlers.events({ Records: [sqsRecord('m-again', spot)] }, lambdaContext(sandbox, 'events'));
    expect(response.batchItemFailures).toEqual([]);
    expect(sandbox.aws.state.stepFunctions.executions()).toHaveLength(1);
  });
});

describe('sweep handler (Scheduler or manual invocation)', () => {
  it('should plan without acting on a dry run', async () => {
    const report = await handlers.sweep({ dryRun: true }, lambdaContext(sandbox, 'sweep'));
    expect(report.dryRun).toBe(true);
    expect(report.actions.find((a) => a.kind === 'delete')).toEqual(
      expect.objectContaining({ node: node(STALE), outcome: 'dry-run' }),
    );
    expect(sandbox.kube.store.getNode(node(STALE))).toBeDefined();
  });

  it('should delete the stale object on the scheduled sweep', async () => {
    const report = await handlers.sweep({}, lambdaContext(sandbox, 'sweep'));
    expect(report.conditions['stale-object']).toBe(1);
    expect(sandbox.kube.store.getNode(node(STALE))).toBeUndefined();
    // The account comes from the invoked function's ARN.
    const deleted = sandbox.aws.state.eventBus.events.filter((e) => e.detailType === 'Node Deleted');
    expect(deleted.map((e) => e.resources)).toEqual([[`arn:aws:ec2:us-east-1:111122223333:instance/${STALE}`]]);
  });

  it('should give up on a hung API server before the invocation times out, saying why', async () => {
    sandbox.kube.faults.latencyMs = 2_000;
    try {
      // 2.3 s left, 2 s of it kept to report: Kubernetes calls get 300 ms.
      await expect(handlers.sweep({ dryRun: true }, lambdaContext(sandbox, 'sweep', 2_300))).rejects.toThrow(
        /GET \/api\/v1\/nodes: no answer within 3\d\d ms/,
      );
    } finally {
      sandbox.kube.faults.latencyMs = 0;
    }
  });

  it('should refuse a payload with an unknown key, naming it', async () => {
    await expect(handlers.sweep({ dryRun: true, bogus: 1 }, lambdaContext(sandbox, 'sweep'))).rejects.toThrow(
      /invalid sweep payload: .*bogus/,
    );
  });
});

describe('drain-step handler (the Step Functions task)', () => {
  it('should drain the node in one step and say done', async () => {
    const uid = sandbox.kube.store.getNode(node(DRAIN))?.metadata.uid ?? '';
    const payload = {
      input: {
        cluster: 'demo',
        node: node(DRAIN),
        nodeUid: uid,
        instanceId: DRAIN,
        deadline: new Date(sandbox.clock.now() + 600_000).toISOString(),
        reason: 'test',
        cause: 'evt-1',
      },
    };
    const output = await handlers.drainStep(payload, lambdaContext(sandbox, 'drain-step'));
    expect(output.outcome).toBe('done');
    expect(output.summary).toEqual(expect.objectContaining({ evicted: 1, left: 0, leftByReason: {}, examples: [] }));
    expect(output.deadline).toBe(payload.input.deadline);
    expect(sandbox.kube.store.listPods({ node: node(DRAIN) }).map((p) => p.metadata.name)).toEqual(['agent-1']);
  });

  it('should refuse a payload without the workflow input, naming the field', async () => {
    await expect(handlers.drainStep({ state: {} }, lambdaContext(sandbox, 'drain-step'))).rejects.toThrow(
      /invalid drain step input: input/,
    );
  });

  it('should record a heartbeat for the lifecycle action it is handed at its start, before draining, and say when', async () => {
    const asg = sandbox.aws.state.autoScaling;
    asg.putHook('eks-ng-1', {
      name: 'drain',
      transition: 'autoscaling:EC2_INSTANCE_TERMINATING',
      heartbeatTimeoutMs: 300_000,
      defaultResult: 'CONTINUE',
    });
    asg.addMember(
      {
        instanceId: DRAIN,
        group: 'eks-ng-1',
        lifecycleState: 'Terminating:Wait',
        healthStatus: 'HEALTHY',
        protectedFromScaleIn: false,
      },
      { hook: 'drain', token: TOKEN, at: sandbox.clock.now() },
    );
    const uid = sandbox.kube.store.getNode(node(DRAIN))?.metadata.uid ?? '';
    const input = {
      cluster: 'demo',
      node: node(DRAIN),
      nodeUid: uid,
      instanceId: DRAIN,
      deadline: new Date(sandbox.clock.now() + 600_000).toISOString(),
      reason: 'test',
      cause: 'evt-2',
    };
    sandbox.clock.advance(120_000);
    const before = sandbox.aws.requestLog.entries.length;
    const calledAt = Date.now();

    // The lifecycle the workflow hands over (one the Node named) wins over the input's.
    const output = await handlers.drainStep(
      {
        input: { ...input, lifecycle: { group: 'eks-ng-1', hook: 'other-hook' } },
        lifecycle: { group: 'eks-ng-1', hook: 'drain', token: TOKEN },
      },
      lambdaContext(sandbox, 'drain-step'),
    );

    expect(asg.heartbeats).toEqual([{ at: sandbox.clock.now(), instanceId: DRAIN, group: 'eks-ng-1', hook: 'drain' }]);
    // When, on the function's clock (the wall clock, as in Lambda): at the start of the step.
    expect(Date.parse(output.heartbeatAt ?? '')).toBeGreaterThanOrEqual(Math.floor(calledAt / 1000) * 1000);
    expect(Date.parse(output.heartbeatAt ?? '')).toBeLessThanOrEqual(Date.now());
    const calls = sandbox.aws.requestLog.entries.slice(before).map((e) => e.operation);
    expect(calls[0]).toBe('RecordLifecycleActionHeartbeat');
    expect(output.outcome).toBe('done');
  });

  it('should drain on when the heartbeat is refused (the action is gone), and say it recorded none', async () => {
    const uid = sandbox.kube.store.getNode(node(DRAIN))?.metadata.uid ?? '';
    const input = {
      cluster: 'demo',
      node: node(DRAIN),
      nodeUid: uid,
      instanceId: DRAIN,
      deadline: new Date(sandbox.clock.now() + 600_000).toISOString(),
      reason: 'test',
      cause: 'evt-3',
    };
    const heartbeats = sandbox.aws.state.autoScaling.heartbeats.length;
    const output = await handlers.drainStep(
      { input, lifecycle: { group: 'eks-ng-1', hook: 'no-such-hook' } },
      lambdaContext(sandbox, 'drain-step'),
    );
    expect(output.outcome).toBe('done');
    expect(output.heartbeatAt).toBeUndefined();
    expect(sandbox.aws.state.autoScaling.heartbeats).toHaveLength(heartbeats);
    expect(
      sandbox.aws.requestLog.entries.filter((e) => e.operation === 'RecordLifecycleActionHeartbeat').at(-1)?.errorCode,
    ).toBe('ValidationError');
  });

  it('should record no heartbeat when the drain has no lifecycle action', async () => {
    const uid = sandbox.kube.store.getNode(node(DRAIN))?.metadata.uid ?? '';
    const before = sandbox.aws.requestLog.entries.length;
    const input = {
      cluster: 'demo',
      node: node(DRAIN),
      nodeUid: uid,
      instanceId: DRAIN,
      deadline: new Date(sandbox.clock.now() + 600_000).toISOString(),
      reason: 'test',
      cause: 'evt-4',
    };
    const output = await handlers.drainStep({ input }, lambdaContext(sandbox, 'drain-step'));
    expect(output.heartbeatAt).toBeUndefined();
    expect(sandbox.aws.requestLog.entries.slice(before).map((e) => e.operation)).not.toContain(
      'RecordLifecycleActionHeartbeat',
    );
  });
});

describe('drain-step handler, given the workflow’s notice that it completed the lifecycle action', () => {
  const nodeEvents = (reason: string) =>
    sandbox.kube.store
      .list(sandbox.kube.store.resource('events', ''), { namespace: 'default' })
      .items.filter((e) => e['reason'] === reason);

  it('should record LifecycleActionCompleted on the Node the drain started on, once per repeat', async () => {
    const uid = sandbox.kube.store.getNode(node(DRAIN))?.metadata.uid ?? '';
    const notice = {
      notice: LIFECYCLE_COMPLETED_NOTICE,
      input: {
        cluster: 'demo',
        node: node(DRAIN),
        nodeUid: uid,
        instanceId: DRAIN,
        deadline: new Date(sandbox.clock.now() + 600_000).toISOString(),
        reason: 'ASG scale-in',
        cause: 'evt-5',
        lifecycle: { group: 'eks-ng-1', hook: 'drain', token: TOKEN },
      },
      lifecycle: { group: 'eks-ng-1', hook: 'drain' },
      outcome: 'done',
    };

    const answer = await handlers.drainNotice(notice, lambdaContext(sandbox, 'drain-step'));

    expect(answer).toEqual({ recorded: 'LifecycleActionCompleted' });
    const [event, ...others] = nodeEvents('LifecycleActionCompleted');
    expect(others).toEqual([]);
    expect(event).toMatchObject({
      type: 'Normal',
      count: 1,
      involvedObject: { kind: 'Node', name: node(DRAIN), uid },
      message: `completed lifecycle action eks-ng-1/drain of ${DRAIN} with CONTINUE: its drain ended done`,
    });
    // The token completes the action: it is no part of what the Node is told.
    expect(JSON.stringify(event)).not.toContain(TOKEN);

    await handlers.drainNotice(notice, lambdaContext(sandbox, 'drain-step'));
    expect(nodeEvents('LifecycleActionCompleted').map((e) => e['count'])).toEqual([2]);
  });

  it('should refuse a notice without the lifecycle action, naming the field, and record nothing', async () => {
    const before = nodeEvents('LifecycleActionCompleted').length;
    await expect(
      handlers.drainNotice(
        { notice: LIFECYCLE_COMPLETED_NOTICE, input: { cluster: 'demo' }, outcome: 'done' },
        lambdaContext(sandbox, 'drain-step'),
      ),
    ).rejects.toThrow(/invalid drain notice: .*lifecycle/);
    expect(nodeEvents('LifecycleActionCompleted')).toHaveLength(before);
  });
});
