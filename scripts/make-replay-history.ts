/**
 * Writes a world and a month (or any number of days) of the EventBridge events an account around an
 * N-node cluster sees, for `simulate --replay` (the replay benchmark, the tests, docs/what-if.md):
 *
 * - world.json: N machines in Auto Scaling groups of 500 with the reconciler's terminate hook, one
 *   in three a spot instance, each Node running a ReplicaSet pod (no start: the replay starts the
 *   world a minute before the first event);
 * - history.jsonl: one event a line, in time order. Per node and month, about: 3.5 state changes of
 *   the account's other machines (mostly pending and running, which no rule matches), 2.5 events of
 *   another account and 1.5 of another region (the same kinds, about machines of their own), 2 tag
 *   changes of other keys on the cluster's machines, 0.3 rebalance recommendations (spot machines),
 *   0.1 Health events of other services; and, each with the events that follow it as AWS sends
 *   them, 0.04 spot interruptions (shutting-down at +2 min, terminated at +3 min), 0.04 scale-ins
 *   through the terminate hook (the lifecycle action; shutting-down, terminated and Terminate
 *   Successful some 10 minutes later), 0.01 EC2 scheduled maintenance notices, 0.005 operator
 *   decommissions and 0.005 stops and starts of a machine. About 10.3 events per node and month:
 *   10,000 and more for 1,000 nodes over 30 days. A machine gone is never named again.
 *
 * Deterministic: the same text for the same options.
 *
 *   npx tsx scripts/make-replay-history.ts --nodes 1000 --days 30 --out DIR
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { DECOMMISSION_TAG } from '@ec2-node-reconciler/model/contract/labels.js';
import { scaleGroupName, scaleInstanceId, scaleNodeName } from './make-scale-scenario.js';

export const REPLAY_CLUSTER = 'replay';
const REGION = 'us-east-1';
const ACCOUNT = '111122223333';
const OTHER_ACCOUNT = '444455556666';
const OTHER_REGION = 'us-west-2';
const HOOK = 'ec2-node-reconciler-drain';
const GROUP_SIZE = 500;
const ZONES = ['a', 'b', 'c'];
const MINUTE = 60_000;
const DAY = 86_400_000;

export interface ReplayHistoryOptions {
  readonly nodes: number;
  /** @default 30 */
  readonly days?: number;
  /** @default '2026-11-01T00:00:00Z' */
  readonly from?: string;
  /** @default 29 */
  readonly seed?: number;
  /**
   * Each kind of episode at least once, however few node-days the options give (a test's small world
   * over a few days would otherwise round the rare kinds, a spot interruption or a decommission, to
   * none). @default false
   */
  readonly everyEpisode?: boolean;
  /** Events per node and month of some kinds instead of RATES' (a short history that holds every kind of episode). */
  readonly rates?: Partial<Readonly<Record<Kind, number>>>;
}

/** Events per node and month of each kind (see the header). */
const RATES = {
  foreignState: 3.5,
  otherAccount: 2.5,
  otherRegion: 1.5,
  tagNoise: 2,
  rebalance: 0.3,
  healthOther: 0.1,
  spot: 0.04,
  scaleIn: 0.04,
  maintenance: 0.01,
  decommission: 0.005,
  stopStart: 0.005,
} as const;
export type ReplayEpisodeKind = keyof typeof RATES;
type Kind = ReplayEpisodeKind;

/** Deterministic pseudo-random numbers in [0, 1) (a 32-bit LCG's high bits). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return (state >>> 8) / 0x1000000;
  };
}

const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const httpDate = (ms: number): string => new Date(ms).toUTCString();
const zoneOf = (i: number, region = REGION): string => `${region}${ZONES[i % 3] ?? 'a'}`;
const isSpot = (i: number): boolean => i % 3 === 0;
/** Machines the cluster does not have (other workloads of the account, other accounts' and regions'). */
const foreignInstanceId = (n: number): string => `i-0f0${n.toString(16).padStart(14, '0')}`;

/** The world: N machines in groups with the terminate hook, a Node and a pod each. */
export function replayWorld(options: Pick<ReplayHistoryOptions, 'nodes'>): Record<string, unknown> {
  const instances = [];
  const nodes = [];
  const pods = [];
  for (let i = 0; i < options.nodes; i++) {
    const zone = zoneOf(i);
    const nodegroup = `ng-${Math.floor(i / GROUP_SIZE)}`;
    instances.push({
      id: scaleInstanceId(i),
      state: 'running',
      zone,
      privateDnsName: scaleNodeName(i),
      launchedAgo: '3d',
      spot: isSpot(i),
      tags: {
        'eks:cluster-name': REPLAY_CLUSTER,
        [`kubernetes.io/cluster/${REPLAY_CLUSTER}`]: 'owned',
        'eks:nodegroup-name': nodegroup,
      },
      autoScaling: { group: scaleGroupName(Math.floor(i / GROUP_SIZE)), hook: HOOK, heartbeatTimeout: '1h' },
    });
    nodes.push({
      name: scaleNodeName(i),
      providerID: `aws:///${zone}/${scaleInstanceId(i)}`,
      createdAgo: '3d',
      labels: { 'eks.amazonaws.com/nodegroup': nodegroup, 'topology.kubernetes.io/zone': zone },
    });
    pods.push({
      name: `web-${i}`,
      node: scaleNodeName(i),
      labels: { app: `web-${i % 20}` },
      owner: `ReplicaSet/web-${i % 20}-5ca1e`,
      terminationGracePeriodSeconds: 10,
    });
  }
  return {
    name: `replay-${options.nodes}`,
    cluster: { name: REPLAY_CLUSTER, region: REGION, accountId: ACCOUNT },
    instances,
    nodes,
    pods,
  };
}

/** The world as JSON text, one machine, Node or pod a line. */
export function replayWorldText(options: Pick<ReplayHistoryOptions, 'nodes'>): string {
  const world = replayWorld(options);
  const lists = ['instances', 'nodes', 'pods'].map((key) => {
    const items = world[key] as unknown[];
    return `${JSON.stringify(key)}: [\n${items.map((item) => JSON.stringify(item)).join(',\n')}\n]`;
  });
  const head = { name: world['name'], cluster: world['cluster'] };
  return `{${JSON.stringify(head).slice(1, -1)},\n${lists.join(',\n')}}\n`;
}

/** The history's events, in time order. */
export function replayHistory(options: ReplayHistoryOptions): Record<string, unknown>[] {
  const days = options.days ?? 30;
  const from = Date.parse(options.from ?? '2026-11-01T00:00:00Z');
  const span = days * DAY;
  const rand = random(options.seed ?? 29);
  let counter = 0;
  const uuid = (): string => {
    counter++;
    return `${(counter >>> 16).toString(16).padStart(8, '0')}-7e91-4a00-8000-${counter.toString(16).padStart(12, '0')}`;
  };
  const events: { at: number; order: number; event: Record<string, unknown> }[] = [];
  const push = (at: number, event: Record<string, unknown>) => events.push({ at, order: events.length, event });
  const envelope = (
    at: number,
    source: string,
    detailType: string,
    resources: string[],
    detail: Record<string, unknown>,
    where: { account?: string; region?: string } = {},
  ) => ({
    version: '0',
    id: uuid(),
    'detail-type': detailType,
    source,
    account: where.account ?? ACCOUNT,
    time: iso(at),
    region: where.region ?? REGION,
    resources,
    detail,
  });
  const instanceArn = (id: string, where: { account?: string; region?: string } = {}) =>
    `arn:aws:ec2:${where.region ?? REGION}:${where.account ?? ACCOUNT}:instance/${id}`;
  const stateChange = (at: number, id: string, state: string, where: { account?: string; region?: string } = {}) =>
    push(
      at,
      envelope(
        at,
        'aws.ec2',
        'EC2 Instance State-change Notification',
        [instanceArn(id, where)],
        { 'instance-id': id, state },
        where,
      ),
    );
  const spotWarning = (at: number, id: string, where: { account?: string; region?: string } = {}) =>
    push(
      at,
      envelope(
        at,
        'aws.ec2',
        'EC2 Spot Instance Interruption Warning',
        [instanceArn(id, where)],
        { 'instance-id': id, 'instance-action': 'terminate' },
        where,
      ),
    );
  const groupArn = (group: string) =>
    `arn:aws:autoscaling:${REGION}:${ACCOUNT}:autoScalingGroup:00000000-0000-4000-8000-000000000000:autoScalingGroupName/${group}`;

  // Every episode at its time, then machines handed out in time order: a machine gone is never named again.
  const count = (kind: Kind) =>
    Math.max(
      options.everyEpisode === true ? 1 : 0,
      Math.round(((options.rates?.[kind] ?? RATES[kind]) * options.nodes * days) / 30),
    );
  const episodes: { at: number; kind: Kind }[] = [];
  for (const kind of Object.keys(RATES) as Kind[])
    for (let n = 0; n < count(kind); n++) episodes.push({ at: from + Math.floor(rand() * span), kind });
  episodes.sort((a, b) => a.at - b.at);
  const alive = Array.from({ length: options.nodes }, (_, i) => i);
  const pick = (pool: readonly number[]): number | undefined => pool[Math.floor(rand() * pool.length)];
  const retire = (i: number) => alive.splice(alive.indexOf(i), 1);
  const STATES = [
    'pending',
    'running',
    'pending',
    'running',
    'pending',
    'running',
    'pending',
    'running',
    'stopping',
    'terminated',
  ];
  let foreign = 0;

  // A machine stopped and started again is out of the pool until it runs again: nothing ends it meanwhile.
  const resting: { until: number; index: number }[] = [];
  for (const { at, kind } of episodes) {
    for (const back of resting.filter((r) => r.until <= at)) alive.push(back.index);
    resting.splice(0, resting.length, ...resting.filter((r) => r.until > at));
    const i = pick(alive) ?? 0;
    const id = scaleInstanceId(i);
    const group = scaleGroupName(Math.floor(i / GROUP_SIZE));
    switch (kind) {
      case 'foreignState':
        stateChange(at, foreignInstanceId(foreign++), STATES[Math.floor(rand() * STATES.length)] ?? 'running');
        break;
      case 'otherAccount':
      case 'otherRegion': {
        const where = kind === 'otherAccount' ? { account: OTHER_ACCOUNT } : { region: OTHER_REGION };
        if (rand() < 0.3) spotWarning(at, foreignInstanceId(foreign++), where);
        else stateChange(at, foreignInstanceId(foreign++), rand() < 0.5 ? 'shutting-down' : 'running', where);
        break;
      }
      case 'tagNoise': {
        const key = rand() < 0.5 ? 'team' : 'cost-center';
        push(
          at,
          envelope(at, 'aws.tag', 'Tag Change on Resource', [instanceArn(id)], {
            'changed-tag-keys': [key],
            service: 'ec2',
            'resource-type': 'instance',
            version: 3,
            tags: { [key]: `value-${Math.floor(rand() * 100)}`, 'eks:cluster-name': REPLAY_CLUSTER },
          }),
        );
        break;
      }
      case 'rebalance': {
        const spot = pick(alive.filter(isSpot));
        if (spot === undefined) break;
        const spotId = scaleInstanceId(spot);
        push(
          at,
          envelope(at, 'aws.ec2', 'EC2 Instance Rebalance Recommendation', [instanceArn(spotId)], {
            'instance-id': spotId,
          }),
        );
        break;
      }
      case 'healthOther':
        push(
          at,
          envelope(at, 'aws.health', 'AWS Health Event', [], {
            eventArn: `arn:aws:health:${REGION}::event/RDS/AWS_RDS_MAINTENANCE_SCHEDULED/${uuid()}`,
            service: 'RDS',
            eventTypeCode: 'AWS_RDS_MAINTENANCE_SCHEDULED',
            eventTypeCategory: 'scheduledChange',
            startTime: httpDate(at + 7 * DAY),
            eventDescription: [{ language: 'en_US', latestDescription: 'A database maintenance is scheduled.' }],
          }),
        );
        break;
      case 'spot': {
        const spot = pick(alive.filter(isSpot));
        if (spot === undefined) break;
        const spotId = scaleInstanceId(spot);
        retire(spot);
        spotWarning(at, spotId);
        stateChange(at + 2 * MINUTE, spotId, 'shutting-down');
        stateChange(at + 3 * MINUTE, spotId, 'terminated');
        break;
      }
      case 'scaleIn': {
        retire(i);
        push(
          at,
          envelope(at, 'aws.autoscaling', 'EC2 Instance-terminate Lifecycle Action', [groupArn(group)], {
            LifecycleActionToken: uuid(),
            AutoScalingGroupName: group,
            LifecycleHookName: HOOK,
            EC2InstanceId: id,
            LifecycleTransition: 'autoscaling:EC2_INSTANCE_TERMINATING',
            Origin: 'AutoScalingGroup',
            Destination: 'EC2',
          }),
        );
        stateChange(at + 10 * MINUTE, id, 'shutting-down');
        stateChange(at + 11 * MINUTE, id, 'terminated');
        push(
          at + 12 * MINUTE,
          envelope(
            at + 12 * MINUTE,
            'aws.autoscaling',
            'EC2 Instance Terminate Successful',
            [groupArn(group), instanceArn(id)],
            {
              StatusCode: 'InProgress',
              Description: `Terminating EC2 instance: ${id}`,
              AutoScalingGroupName: group,
              ActivityId: uuid(),
              Details: { 'Availability Zone': zoneOf(i) },
              RequestId: uuid(),
              StatusMessage: '',
              EndTime: iso(at + 12 * MINUTE),
              EC2InstanceId: id,
              StartTime: iso(at),
              Cause:
                'an instance was taken out of service in response to a difference between desired and actual capacity',
              Origin: 'AutoScalingGroup',
              Destination: 'EC2',
            },
          ),
        );
        break;
      }
      case 'maintenance': {
        const start = at + 2 * DAY;
        push(
          at,
          envelope(at, 'aws.health', 'AWS Health Event', [id], {
            eventArn: `arn:aws:health:${REGION}::event/EC2/AWS_EC2_SYSTEM_MAINTENANCE_EVENT/${uuid()}`,
            service: 'EC2',
            eventScopeCode: 'ACCOUNT_SPECIFIC',
            statusCode: 'upcoming',
            eventRegion: REGION,
            eventTypeCode: 'AWS_EC2_SYSTEM_MAINTENANCE_EVENT',
            eventTypeCategory: 'scheduledChange',
            startTime: httpDate(start),
            endTime: httpDate(start + 2 * 3_600_000),
            lastUpdatedTime: httpDate(at),
            eventDescription: [
              { language: 'en_US', latestDescription: 'EC2 has scheduled maintenance of the underlying host.' },
            ],
            affectedEntities: [{ entityValue: id }],
          }),
        );
        break;
      }
      case 'decommission':
        push(
          at,
          envelope(at, 'aws.tag', 'Tag Change on Resource', [instanceArn(id)], {
            'changed-tag-keys': [DECOMMISSION_TAG],
            service: 'ec2',
            'resource-type': 'instance',
            version: 3,
            tags: { [DECOMMISSION_TAG]: 'decommissioned by ops', 'eks:cluster-name': REPLAY_CLUSTER },
          }),
        );
        break;
      case 'stopStart':
        retire(i);
        resting.push({ until: at + 61 * MINUTE, index: i });
        stateChange(at, id, 'stopping');
        stateChange(at + MINUTE, id, 'stopped');
        stateChange(at + 60 * MINUTE, id, 'pending');
        stateChange(at + 61 * MINUTE, id, 'running');
        break;
      default: {
        const unhandled: never = kind;
        throw new Error(`no episode ${String(unhandled)}`);
      }
    }
  }
  // Events an episode puts after the span end it (the history was exported at its end).
  return events
    .filter((e) => e.at < from + span)
    .sort((a, b) => a.at - b.at || a.order - b.order)
    .map((e) => e.event);
}

/** The history as JSON lines. */
export const replayHistoryText = (options: ReplayHistoryOptions): string =>
  replayHistory(options)
    .map((event) => JSON.stringify(event))
    .join('\n')
    .concat('\n');

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: {
      nodes: { type: 'string', default: '1000' },
      days: { type: 'string', default: '30' },
      seed: { type: 'string' },
      out: { type: 'string' },
    },
  });
  const options: ReplayHistoryOptions = {
    nodes: Number(values.nodes),
    days: Number(values.days),
    ...(values.seed !== undefined ? { seed: Number(values.seed) } : {}),
  };
  if (values.out === undefined) {
    process.stdout.write(replayHistoryText(options));
  } else {
    mkdirSync(values.out, { recursive: true });
    writeFileSync(join(values.out, 'world.json'), replayWorldText(options));
    writeFileSync(join(values.out, 'history.jsonl'), replayHistoryText(options));
    process.stderr.write(`wrote ${join(values.out, 'world.json')} and ${join(values.out, 'history.jsonl')}\n`);
  }
}
