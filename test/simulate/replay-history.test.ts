// The generated month (scripts/make-replay-history.ts) the replay benchmark and the tests feed, and the
// replay's clock (replay.ts): a world moved before the first event, sweeps at the schedule's rate.
import { describe, expect, it } from 'vitest';
import { replayHistory, replayWorld, REPLAY_CLUSTER } from '../../scripts/make-replay-history.js';
import { rateMs, REPLAY_LEAD_MS, replayScenario } from '@ec2-node-reconciler/sandbox/simulate/replay.js';
import type { Scenario } from '@ec2-node-reconciler/sandbox/scenario/schema.js';

const month = replayHistory({ nodes: 1000, days: 30 });
const instanceOf = (event: Record<string, unknown>): string | undefined => {
  const detail = event['detail'] as Record<string, unknown>;
  const id = detail['instance-id'] ?? detail['EC2InstanceId'];
  if (typeof id === 'string') return id;
  const resource = (event['resources'] as string[])[0] ?? '';
  return /instance\/(i-[0-9a-f]+)$/.exec(resource)?.[1];
};

describe('the generated history', () => {
  it('should give a month of 1,000 nodes at least 10,000 events, in time order, the same each time', () => {
    expect(month.length).toBeGreaterThanOrEqual(10_000);
    const times = month.map((e) => Date.parse(String(e['time'])));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times[0]).toBeGreaterThanOrEqual(Date.parse('2026-11-01T00:00:00Z'));
    expect(times.at(-1)).toBeLessThan(Date.parse('2026-12-01T00:00:00Z'));
    expect(replayHistory({ nodes: 1000, days: 30 })).toEqual(month);
    expect(new Set(month.map((e) => e['id'])).size).toBe(month.length);
  });

  it('should hold every kind of event the reconciler listens to, and the noise around them', () => {
    const kinds = new Set(month.map((e) => `${String(e['source'])} ${String(e['detail-type'])}`));
    expect([...kinds].sort()).toEqual(
      [
        'aws.autoscaling EC2 Instance Terminate Successful',
        'aws.autoscaling EC2 Instance-terminate Lifecycle Action',
        'aws.ec2 EC2 Instance Rebalance Recommendation',
        'aws.ec2 EC2 Instance State-change Notification',
        'aws.ec2 EC2 Spot Instance Interruption Warning',
        'aws.health AWS Health Event',
        'aws.tag Tag Change on Resource',
      ].sort(),
    );
    expect(month.filter((e) => e['account'] !== '111122223333').length).toBeGreaterThan(2000);
    expect(month.filter((e) => e['region'] !== 'us-east-1').length).toBeGreaterThan(1000);
  });

  it('should never name one of the cluster’s machines once it is terminated (but for Auto Scaling’s report of it)', () => {
    const cluster = new Set((replayWorld({ nodes: 1000 })['instances'] as { id: string }[]).map((i) => i.id));
    const terminated = new Set<string>();
    for (const event of month) {
      const id = instanceOf(event);
      if (id === undefined || !cluster.has(id) || event['account'] !== '111122223333') continue;
      if (event['detail-type'] === 'EC2 Instance Terminate Successful') continue;
      expect(terminated.has(id), `${id} named at ${String(event['time'])}, once terminated`).toBe(false);
      if ((event['detail'] as Record<string, unknown>)['state'] === 'terminated') terminated.add(id);
    }
    expect(terminated.size).toBeGreaterThan(40);
  });

  it('should tag its world as the cluster’s, every machine in a group with the terminate hook', () => {
    const world = replayWorld({ nodes: 3 });
    expect(world['cluster']).toEqual({ name: REPLAY_CLUSTER, region: 'us-east-1', accountId: '111122223333' });
    expect((world['instances'] as { autoScaling: { hook: string } }[]).map((i) => i.autoScaling.hook)).toEqual(
      Array(3).fill('ec2-node-reconciler-drain'),
    );
  });
});

describe('the replay’s clock', () => {
  const scenario = (start?: string) =>
    ({
      name: 's',
      cluster: { name: 'c', region: 'r', accountId: '111122223333' },
      ...(start ? { start } : {}),
    }) as Scenario;
  const events = [{ event: {}, from: 'f:1', at: Date.parse('2026-11-29T12:00:05.500Z') }];

  it('should start a world that starts after the first event (or has no start) a minute before it, to the second', () => {
    expect(replayScenario(scenario(), events).start).toBe('2026-11-29T11:59:05.000Z');
    expect(replayScenario(scenario('2026-12-01T00:00:00Z'), events).start).toBe('2026-11-29T11:59:05.000Z');
    expect(Date.parse('2026-11-29T12:00:05Z') - Date.parse('2026-11-29T11:59:05Z')).toBe(REPLAY_LEAD_MS);
  });

  it('should keep the start of a world that starts before it', () => {
    expect(replayScenario(scenario('2026-11-29T11:00:00Z'), events).start).toBe('2026-11-29T11:00:00Z');
  });

  it('should read the schedule’s rate, and nothing else', () => {
    expect(rateMs('rate(10 minutes)')).toBe(600_000);
    expect(rateMs('rate(1 minute)')).toBe(60_000);
    expect(rateMs('rate(2 hours)')).toBe(7_200_000);
    expect(rateMs('rate(1 day)')).toBe(86_400_000);
    expect(rateMs('cron(0/10 * * * ? *)')).toBeUndefined();
  });
});
