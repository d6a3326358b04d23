// `simulate FILE --replay EVENTS`: a recorded history fed to the deployed stack in the scenario's
// world. Each event goes on the bus at its own `time` on the virtual clock, and the sweep schedule
// fires at the deployed rate (the synthesized schedule's `rate(…)`) all along. The events keep their
// times (their details hold more times: a capacity reservation's termination time, a Health window),
// so the world is moved instead: a scenario starting after the first event (a snapshot taken
// today of a cluster whose last month is replayed) starts one minute before it, the ages it gives
// (`createdAgo`, `launchedAgo`) counted from there.
//
// Events the stack's account and region never receive (AWS sends a service's events to the bus of
// the account and region they are about) are counted and not put on the bus; the rest go through
// the stack's rules as EventBridge holds them, and those no rule matches are dropped as it drops them.
// A routed event about a machine the world lacks adds it, untagged: it is one of the account's
// other machines, which a snapshot of the cluster does not hold (addAccountMachine).
import type { Scenario } from '../scenario/schema.js';
import type { ReplaySummary } from './records.js';
import type { HistoryEvent } from './replay-events.js';
import type { Sandbox } from './sandbox.js';
import { isInstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import { INSTANCE_STATES, type InstanceState } from '@ec2-node-reconciler/model/instance-states.js';
import { applyEventEffects } from './event-effects.js';
import type { SweepPlanner } from './operator.js';
import { SweepSkipper } from './sweep-skip.js';

/** How long the replay runs on after the last event: its drains, grace periods and the sweeps that follow them. */
export const REPLAY_TAIL_MS = 30 * 60_000;
/** How far before the first event a scenario that starts after it is moved. */
export const REPLAY_LEAD_MS = 60_000;

export const IGNORED_OTHER_ACCOUNT = "another account's: AWS sends it to that account's bus, never the stack's";
export const IGNORED_OTHER_REGION = "another region's: AWS sends it to that region's bus, never the stack's";
export const IGNORED_NO_RULE = 'no rule of the stack matches it: EventBridge drops it';

/** `rate(10 minutes)` → 600000; undefined for a cron or at expression. */
export function rateMs(expression: string): number | undefined {
  const match = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression.trim());
  if (!match?.[1] || !match[2]) return undefined;
  const unit = match[2].startsWith('minute') ? 60_000 : match[2].startsWith('hour') ? 3_600_000 : 86_400_000;
  return Number(match[1]) * unit;
}

/** The scenario as the replay runs it: starting no later than a minute before the first event. */
export function replayScenario(scenario: Scenario, events: readonly HistoryEvent[]): Scenario {
  const first = events[0]?.at;
  if (first === undefined) return scenario;
  const latest = Math.floor((first - REPLAY_LEAD_MS) / 1000) * 1000;
  const start = scenario.start !== undefined ? Date.parse(scenario.start) : Number.POSITIVE_INFINITY;
  return start <= latest ? scenario : { ...scenario, start: new Date(latest).toISOString() };
}

/** The sweep schedule's interval, from the synthesized stack (a replay needs a rate, not a cron). */
export function sweepIntervalMs(sandbox: Sandbox): number {
  const schedule = sandbox.stack.deployment.schedules.find((s) => sandbox.lambda.host(s.targetArn) !== undefined);
  const interval = schedule ? rateMs(schedule.expression) : undefined;
  if (interval === undefined)
    throw new Error(
      `the stack's sweep schedule is ${schedule ? JSON.stringify(schedule.expression) : 'missing'}: a replay runs sweeps at a rate(…)`,
    );
  return interval;
}

/** The machine an AWS event is about: EC2's `instance-id`, Auto Scaling's `EC2InstanceId`, a tag change's ARN. */
function machineOf(event: Record<string, unknown>): string | undefined {
  const detail = event['detail'];
  const fromDetail =
    typeof detail === 'object' && detail !== null
      ? (text((detail as Record<string, unknown>)['instance-id']) ??
        text((detail as Record<string, unknown>)['EC2InstanceId']))
      : undefined;
  const resources = Array.isArray(event['resources']) ? event['resources'] : [];
  const fromArn = resources
    .map((r) => (typeof r === 'string' ? /:instance\/(i-[0-9a-f]+)$/.exec(r)?.[1] : undefined))
    .find((id) => id !== undefined);
  const id = fromDetail ?? fromArn;
  return id !== undefined && isInstanceId(id) ? id : undefined;
}

/**
 * A machine of the stack's account and region that a routed event names and the world lacks: one of
 * the account's other machines (another cluster's, another workload's), which a snapshot of the
 * cluster does not hold. AWS sent an event about it, so EC2 has it: it is added untagged, in the
 * state a state change gives (running otherwise), and the events function finds it as in the account
 * — not a machine EC2 does not return, which it would retry for notFoundGrace and then report.
 */
function addAccountMachine(sandbox: Sandbox, event: Record<string, unknown>, id: string | undefined): void {
  if (id === undefined || sandbox.aws.state.instances.get(id) !== undefined) return;
  const detail = event['detail'];
  const stated =
    typeof detail === 'object' && detail !== null ? (detail as Record<string, unknown>)['state'] : undefined;
  const state = (INSTANCE_STATES as readonly unknown[]).includes(stated) ? (stated as InstanceState) : 'running';
  sandbox.aws.state.seedInstance({ id, state, zone: `${sandbox.scenario.cluster.region}a`, tags: {} });
}

/** A sweep the schedule fired during the replay, and when. */
export interface ReplaySweep {
  readonly at: number;
  readonly invocation: ReturnType<Sandbox['scheduledSweep']>;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * Feeds the history and fires the schedule until the tail after the last event has passed and
 * nothing is left running. Returns the sweeps (in time order) and the summary of what went on the bus;
 * what the events function did with each is in the poller's deliveries.
 */
export async function runReplay(
  sandbox: Sandbox,
  events: readonly HistoryEvent[],
  pending: (sandbox: Sandbox) => boolean,
  replayNamesStripped: number,
  /** Leaves out the sweeps that provably change nothing (sweep-skip.ts); without it every sweep runs. */
  planner?: SweepPlanner,
): Promise<{ sweeps: ReplaySweep[]; summary: ReplaySummary }> {
  const { clock, driver, scenario } = sandbox;
  const everyMs = sweepIntervalMs(sandbox);
  const ignored: Record<string, number> = {};
  const ignore = (reason: string) => {
    ignored[reason] = (ignored[reason] ?? 0) + 1;
  };
  let routed = 0;
  let copies = 0;
  const skipper = planner && new SweepSkipper(sandbox, planner);
  const put = (event: Record<string, unknown>): void => {
    if (text(event['account']) !== scenario.cluster.accountId) return ignore(IGNORED_OTHER_ACCOUNT);
    if (text(event['region']) !== scenario.cluster.region) return ignore(IGNORED_OTHER_REGION);
    // Routing reads only the event: the world changes in the same turn, before the queue delivers it.
    const before = sandbox.queue.size;
    const matched = sandbox.putEvent(event).length > 0;
    const machine = machineOf(event);
    if (matched) addAccountMachine(sandbox, event, machine);
    applyEventEffects(sandbox, event);
    // What the event did to its machine is read again before the next sweep is left out.
    if (machine !== undefined) skipper?.touch(machine);
    if (!matched) return ignore(IGNORED_NO_RULE);
    routed++;
    copies += sandbox.queue.size - before;
  };
  const now = clock.now();
  for (const { event, at } of events) {
    if (at > now) clock.schedule(at, () => put(event));
    else put(event);
  }
  const last = events.at(-1)?.at ?? now;
  const end = Math.max(now, last) + REPLAY_TAIL_MS;
  const sweeps: ReplaySweep[] = [];
  let fired = 0;
  // Each sweep fires once the world has settled at its time; a skipper decides first, the world
  // standing still while the product's planner looks (the same order with every sweep run).
  for (let at = now + everyMs; at <= end; at += everyMs) {
    await driver.advanceTo(at);
    fired++;
    if (!skipper || !(await skipper.skip(pending(sandbox)))) sweeps.push({ at, invocation: sandbox.scheduledSweep() });
  }
  await driver.advanceTo(end);
  await driver.runUntil(() => !pending(sandbox), 'the replay: its drains and queued events');
  return {
    sweeps,
    summary: {
      from: new Date(now).toISOString(),
      to: new Date(clock.now()).toISOString(),
      sweepEveryMs: everyMs,
      sweeps: fired,
      sweepsSkipped: skipper?.skipped ?? {},
      fed: events.length,
      routed,
      queued: copies,
      replayNamesStripped,
      ignored,
    },
  };
}
