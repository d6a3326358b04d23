// The events function's batch path (lib/lambda/handle-event-batch.ts) against both emulators: a
// whole SQS batch looked up in one DescribeInstances and one Node lookup pass, every record still
// succeeding or failing on its own.
import { describe, expect, it } from 'vitest';
import { handleEventBatch, type EventRecord, type RecordOutcome } from '../../lib/lambda/handle-event-batch.js';
import { SIGNAL_REJECTION_NAME } from '@ec2-node-reconciler/model/contract/function-logs.js';
import {
  fixtureEvent,
  instanceId,
  nodeName,
  pairs,
  REGION,
  usePipelineWorld,
  type PipelineWorld,
} from '../support/pipeline-world.js';
import { recordSpans, roundTripsUntil } from '../support/round-trips.js';

let world: PipelineWorld;
usePipelineWorld((w) => (world = w));

/** A spot warning about instance n, with an event id of its own. */
async function spotWarning(n: number): Promise<Record<string, unknown>> {
  const event = await fixtureEvent(world, 'spot-interruption', { instanceId: instanceId(n) });
  return { ...event, id: `5b0d4a2e-1c9f-4e7a-9d1b-${String(n).padStart(12, '0')}` };
}

const record = (messageId: string, body: unknown, over: Partial<EventRecord> = {}): EventRecord => ({
  messageId,
  body: typeof body === 'string' ? body : JSON.stringify(body),
  receiveCount: 1,
  lastReceive: false,
  ...over,
});

async function handle(records: readonly EventRecord[]): Promise<ReadonlyMap<string, RecordOutcome>> {
  return handleEventBatch(records, () => world.deps(), { region: REGION, accountId: world.aws.accountId });
}

const describeCalls = () => world.aws.requestLog.filter({ service: 'ec2', operation: 'DescribeInstances' });

describe('events function: one SQS batch, one lookup pass', () => {
  it('should look a batch of 40 warnings about distinct machines up in one DescribeInstances and cordon each', async () => {
    const ns = Array.from({ length: 40 }, (_, i) => i + 1);
    for (const n of ns) pairs.inSync(world, n, { instance: { spot: true } });
    const records = await Promise.all(ns.map(async (n) => record(`m-${n}`, await spotWarning(n))));
    world.clearLogs();

    const outcomes = await handle(records);

    expect([...outcomes.values()].map((o) => o.kind)).toEqual(ns.map(() => 'reconciled'));
    expect(describeCalls()).toHaveLength(1);
    const filters = JSON.stringify(describeCalls()[0]?.params);
    for (const n of ns) expect(filters).toContain(instanceId(n));
    for (const n of ns) expect(world.kube.store.getNode(nodeName(n))?.spec?.unschedulable).toBe(true);
    // One GET per Node and one per Lease: no record looked for its Node twice, none listed them all.
    expect(world.kube.requestLog.count({ verb: 'get', resource: 'nodes' })).toBe(40);
    expect(world.kube.requestLog.count({ verb: 'list', resource: 'nodes' })).toBe(0);
    // Each record's report is its own: its instance, its cordon.
    const reported = outcomes.get('m-7');
    expect(reported?.kind === 'reconciled' && reported.report.rows.map((r) => r.instanceId)).toEqual([instanceId(7)]);
  });

  it('should reject a record with a bad body alone, naming the field, and spend no call on it', async () => {
    pairs.inSync(world, 1, { instance: { spot: true } });
    pairs.inSync(world, 2, { instance: { spot: true } });
    const good = [await spotWarning(1), await spotWarning(2)];
    const bad = {
      ...(await spotWarning(3)),
      detail: { 'instance-id': 'not-an-instance', 'instance-action': 'terminate' },
    };
    world.clearLogs();

    const outcomes = await handle([
      record('m-1', good[0]),
      record('m-bad', bad),
      record('m-json', '{"version": "0", '),
      record('m-2', good[1]),
    ]);

    expect(outcomes.get('m-1')?.kind).toBe('reconciled');
    expect(outcomes.get('m-2')?.kind).toBe('reconciled');
    const rejected = outcomes.get('m-bad');
    expect(rejected?.kind).toBe('failed');
    expect(rejected?.kind === 'failed' && rejected.error.name).toBe(SIGNAL_REJECTION_NAME);
    expect(rejected?.kind === 'failed' && rejected.error.message).toMatch(/detail\.instance-id/);
    const notJson = outcomes.get('m-json');
    expect(notJson?.kind === 'failed' && notJson.error.message).toMatch(/record body: not JSON/);
    // The one lookup asked only about the good records' machines.
    expect(describeCalls()).toHaveLength(1);
    expect(JSON.stringify(describeCalls()[0]?.params)).not.toContain('not-an-instance');
    expect(world.kube.requestLog.entries.some((e) => e.path.includes('not-an-instance'))).toBe(false);
  });

  it('should fail only the record whose Node could not be looked up, and change nothing on its machine', async () => {
    for (const n of [1, 2, 3]) pairs.inSync(world, n, { instance: { spot: true } });
    const records = await Promise.all([1, 2, 3].map(async (n) => record(`m-${n}`, await spotWarning(n))));
    world.kube.faults.add({ verb: 'get', resource: 'nodes', name: nodeName(2), effect: { status: 503 } });
    world.clearLogs();

    const outcomes = await handle(records);

    expect(outcomes.get('m-1')?.kind).toBe('reconciled');
    expect(outcomes.get('m-3')?.kind).toBe('reconciled');
    const failed = outcomes.get('m-2');
    expect(failed?.kind).toBe('failed');
    expect(failed?.kind === 'failed' && failed.error.message).toMatch(
      new RegExp(`not fully observed: looking up ${instanceId(2)} failed: looking for its Node: .*503`),
    );
    // Its pair is unknown this time: no cordon, no drain.
    expect(world.kube.store.getNode(nodeName(2))?.spec?.unschedulable).not.toBe(true);
    expect(world.kube.requestLog.count({ verb: 'patch', resource: 'nodes', name: nodeName(2) })).toBe(0);
    expect(world.kube.store.getNode(nodeName(1))?.spec?.unschedulable).toBe(true);
    expect(describeCalls()).toHaveLength(1);
  });

  it('should not hold a warning up behind another machine’s slow Node search: it is cordoned first', async () => {
    for (const n of [1, 2]) pairs.inSync(world, n, { instance: { spot: true } });
    const records = await Promise.all([1, 2].map(async (n) => record(`m-${n}`, await spotWarning(n))));
    // Machine 2's Node answers 1.5 s late (a struggling API server, a read being retried).
    world.kube.faults.add({ verb: 'get', resource: 'nodes', name: nodeName(2), effect: { delayMs: 1_500 } });
    world.clearLogs();

    const outcomes = await handle(records);

    expect([...outcomes.values()].map((o) => o.kind)).toEqual(['reconciled', 'reconciled']);
    // The log holds requests as they were answered: machine 1's cordon went before machine 2's Node came back.
    const entries = world.kube.requestLog.entries;
    const cordon1 = entries.findIndex((e) => e.verb === 'patch' && e.resource === 'nodes' && e.name === nodeName(1));
    const read2 = entries.findIndex((e) => e.verb === 'get' && e.resource === 'nodes' && e.name === nodeName(2));
    expect(cordon1).toBeGreaterThanOrEqual(0);
    expect(read2).toBeGreaterThan(cordon1);
    expect(world.kube.store.getNode(nodeName(2))?.spec?.unschedulable).toBe(true);
  });

  it('should decide two events about one machine in one plan: one cordon, both records done', async () => {
    pairs.inSync(world, 1, { instance: { spot: true } });
    const rebalance = {
      ...(await fixtureEvent(world, 'rebalance-recommendation', { instanceId: instanceId(1) })),
      id: 'c0ffee00-1c9f-4e7a-9d1b-000000000001',
    };
    world.clearLogs();

    const outcomes = await handle([record('m-rebalance', rebalance), record('m-spot', await spotWarning(1))]);

    expect(outcomes.get('m-rebalance')?.kind).toBe('reconciled');
    expect(outcomes.get('m-spot')?.kind).toBe('reconciled');
    const [a, b] = ['m-rebalance', 'm-spot'].map((id) => {
      const outcome = outcomes.get(id);
      return outcome?.kind === 'reconciled' ? outcome.report : undefined;
    });
    expect(a).toBe(b);
    expect(world.kube.requestLog.count({ verb: 'patch', resource: 'nodes', name: nodeName(1) })).toBe(1);
    expect(world.aws.requestLog.filter({ service: 'states', operation: 'StartExecution' })).toHaveLength(1);
  });

  it('should cost a batch of one what the event path costs: 3 round trips to the cordon from a cold container', async () => {
    pairs.inSync(world, 1, { instance: { spot: true } });
    const event = await spotWarning(1);
    const spans = recordSpans(world);

    const outcomes = await handle([record('m-1', event)]);

    expect(outcomes.get('m-1')?.kind).toBe('reconciled');
    expect(roundTripsUntil(spans, 'kube PATCH nodes')).toHaveLength(3);
  });
});
