// What AWS itself does around the events a scenario feeds in. An EventBridge event reports (or
// announces) a change to the machine: a scenario that replays it must find EC2 agreeing, or the
// reconciler would observe a world where the event never happened (a spot instance that is never
// reclaimed, a "terminated" machine EC2 still calls running).
//
// - State-change: the machine is in the announced state when the event is handled
//   (shutting-down goes on to terminated, stopping to stopped, as the emulator's timings say).
// - Spot interruption warning: EC2 terminates (or stops, for stop/hibernate) the machine at the
//   event's time + 2 min.
// - Capacity Reservation interruption warning: EC2 terminates the machine at its
//   instance-termination-time.
// - Auto Scaling terminate lifecycle action: Auto Scaling put the instance in Terminating:Wait under
//   the event's token before sending it. An instance seeded InService (in a group with that
//   terminating hook) is moved there now; one seeded Terminating:Wait already is. A warm pool's
//   member (Warmed:Stopped, Warmed:Running, Warmed:Hibernated) terminated out of the pool is moved to
//   Warmed:Terminating:Wait, by an event whose Origin says WarmPool (AWS sends no other for it). A member
//   scaled in into the pool (Destination WarmPool) waits in Terminating:Wait as any, then rests in the pool
//   (stopped, unless the pool keeps its members running) instead of being terminated.
// - Auto Scaling "Terminate Successful": the machine is terminated.
// - Auto Scaling "Launch Successful" from the warm pool (Origin WarmPool, Destination AutoScalingGroup): the
//   pool's member was started (a new LaunchTime, unless it was kept running) and is in service now.
// - Tag change: the instance carries the event's tags for the keys it says changed.
//
// Nothing else changes the world: a rebalance recommendation or a Health notice only warns. An
// event older than the instance's current launch (a late delivery about an earlier life of the
// machine, stopped and started since) changed nothing that is still true: it has no effect. Nor has
// an event delivered again: one with the id of an event already put (a redelivery), or one carrying
// `replay-name` (an EventBridge archive replay) reports a change that happened once, before.
//
// The emulator reads these events in AWS's own vocabulary (source and detail-type as AWS documents
// them), not through the reconciler's signal registry: what AWS does does not depend on the code
// under test. Only an event AWS could have sent changes the world: a whole envelope (version "0",
// an id, a 12-digit account, an RFC 3339 UTC time, a region, resources) with the detail fields it
// acts on well-formed (instance ids, states, a UUID lifecycle token). A scenario's malformed event
// (a poison-event test) is not from AWS: nothing happened to any machine, and it changes nothing.
import { isInstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import { INSTANCE_STATES, type InstanceState } from '@ec2-node-reconciler/model/instance-states.js';
import { SPOT_NOTICE_MS } from '@ec2-node-reconciler/model/spot-notice.js';
import type { Sandbox } from './sandbox.js';

/** Where a warm pool keeps its members between transitions: Auto Scaling may terminate them from there. */
const WARM_POOL_RESTING: ReadonlySet<string> = new Set(['Warmed:Stopped', 'Warmed:Running', 'Warmed:Hibernated']);

/** The AWS events that stand for a change of the machine, by `[source, detail-type]`. */
const AWS_EVENTS = {
  'aws.ec2\0EC2 Instance State-change Notification': 'state-change',
  'aws.ec2\0EC2 Spot Instance Interruption Warning': 'spot-interruption',
  'aws.ec2\0EC2 Capacity Reservation Instance Interruption Warning': 'capacity-reservation-interruption',
  'aws.ec2\0EC2 Instance Rebalance Recommendation': 'warning-only',
  'aws.autoscaling\0EC2 Instance-terminate Lifecycle Action': 'asg-terminate-lifecycle-action',
  'aws.autoscaling\0EC2 Instance Terminate Successful': 'asg-terminate-successful',
  'aws.autoscaling\0EC2 Instance Launch Successful': 'asg-launch-successful',
  'aws.tag\0Tag Change on Resource': 'tag-change',
  'aws.health\0AWS Health Event': 'warning-only',
} as const;
type AwsEventKind = (typeof AWS_EVENTS)[keyof typeof AWS_EVENTS];

function awsEventKind(source: string | undefined, detailType: string | undefined): AwsEventKind | undefined {
  const key = `${source ?? ''}\0${detailType ?? ''}`;
  return Object.hasOwn(AWS_EVENTS, key) ? AWS_EVENTS[key as keyof typeof AWS_EVENTS] : undefined;
}

const isInstanceState = (value: unknown): value is InstanceState =>
  typeof value === 'string' && (INSTANCE_STATES as readonly string[]).includes(value);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const instanceId = (value: unknown): string | undefined => (isInstanceId(value) ? value : undefined);

function instanceIdFromArn(arn: unknown): string | undefined {
  const match = typeof arn === 'string' ? /:instance\/(i-[0-9a-f]+)$/.exec(arn) : null;
  return instanceId(match?.[1]);
}

const ACCOUNT = /^\d{12}$/;
const EVENT_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;
/** EventBridge writes `time` as RFC 3339 in UTC, to the second. */
const EVENT_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The envelope every event AWS delivers has, whole. */
const isAwsEnvelope = (event: Record<string, unknown>): boolean =>
  event.version === '0' &&
  typeof event.id === 'string' &&
  EVENT_ID.test(event.id) &&
  typeof event.account === 'string' &&
  ACCOUNT.test(event.account) &&
  typeof event.time === 'string' &&
  EVENT_TIME.test(event.time) &&
  Number.isFinite(Date.parse(event.time)) &&
  typeof event.region === 'string' &&
  event.region.length > 0 &&
  Array.isArray(event.resources) &&
  event.resources.every((r) => typeof r === 'string');

/** The ids of the events each sandbox has applied: a second delivery of one changes nothing. */
const applied = new WeakMap<Sandbox, Set<string>>();

/** Whether this event already happened: an archive replay, or an id the sandbox has applied before. */
function isRedelivery(sandbox: Sandbox, event: Record<string, unknown>): boolean {
  if (event['replay-name'] !== undefined) return true;
  const ids = applied.get(sandbox) ?? new Set<string>();
  applied.set(sandbox, ids);
  const id = text(event.id) ?? '';
  if (ids.has(id)) return true;
  ids.add(id);
  return false;
}

/** Applies the world change an AWS event stands for. */
export function applyEventEffects(sandbox: Sandbox, event: unknown): void {
  if (!isRecord(event) || !isRecord(event.detail) || !isAwsEnvelope(event)) return;
  if (isRedelivery(sandbox, event)) return;
  const { detail } = event;
  const state = sandbox.aws.state;
  const now = sandbox.clock.now();
  const record = (id: string | undefined) => (id === undefined ? undefined : state.instances.get(id));
  const eventTime = Date.parse(text(event.time) ?? '');

  /** At `at` (now if past), unless the machine is already going or gone. */
  const later = (id: string, at: number, what: 'terminate' | 'stop') => {
    const apply = () => {
      const current = record(id)?.state;
      if (
        current === undefined ||
        current === 'shutting-down' ||
        current === 'terminated' ||
        current === 'stopping' ||
        current === 'stopped'
      )
        return;
      if (what === 'terminate') state.terminateInstance(id);
      else stopInstance(sandbox, id);
    };
    if (Number.isFinite(at) && at > now) sandbox.clock.schedule(at, apply);
    else apply();
  };

  const history = (id: string | undefined) => {
    const launchedAt = record(id)?.launchedAt;
    return launchedAt !== undefined && Number.isFinite(eventTime) && eventTime < launchedAt;
  };

  const kind = awsEventKind(text(event.source), text(event['detail-type']));
  if (kind === undefined) return;
  switch (kind) {
    case 'state-change': {
      const id = instanceId(detail['instance-id']);
      if (history(id)) return;
      const to = isInstanceState(detail.state) ? detail.state : undefined;
      const current = record(id)?.state;
      if (id === undefined || to === undefined || current === undefined || current === to) return;
      if (to === 'shutting-down') state.terminateInstance(id);
      else if (to === 'stopping') stopInstance(sandbox, id);
      else state.setInstanceState(id, to);
      return;
    }
    case 'spot-interruption': {
      const id = instanceId(detail['instance-id']);
      if (id === undefined || record(id) === undefined || history(id)) return;
      later(id, eventTime + SPOT_NOTICE_MS, detail['instance-action'] === 'terminate' ? 'terminate' : 'stop');
      return;
    }
    case 'capacity-reservation-interruption': {
      const id = instanceId(detail['instance-id']);
      const at = Date.parse(text(detail['instance-termination-time']) ?? '');
      if (id === undefined || record(id) === undefined || !Number.isFinite(at)) return;
      later(id, at, 'terminate');
      return;
    }
    case 'asg-terminate-lifecycle-action': {
      const id = instanceId(detail.EC2InstanceId);
      const token = text(detail.LifecycleActionToken);
      if (token !== undefined && !UUID.test(token)) return;
      const member = id === undefined ? undefined : state.autoScaling.member(id);
      if (id === undefined || member === undefined) return;
      const fromPool = WARM_POOL_RESTING.has(member.lifecycleState);
      if (fromPool ? detail.Origin !== 'WarmPool' : member.lifecycleState !== 'InService') return;
      const hook = state.autoScaling.hooksOf(member.group)?.find((h) => h.name === text(detail.LifecycleHookName));
      // Without that terminating hook Auto Scaling would not have waited (nor sent this event).
      if (hook?.transition !== 'autoscaling:EC2_INSTANCE_TERMINATING') return;
      // A scale-in into the warm pool (the pool reuses members on scale-in) puts the member back in the pool.
      state.startAsgTermination(id, !fromPool && detail.Destination === 'WarmPool' ? 'WarmPool' : undefined);
      if (member.action && token !== undefined) member.action = { ...member.action, token };
      return;
    }
    case 'asg-terminate-successful': {
      const id = instanceId(detail.EC2InstanceId);
      const current = record(id)?.state;
      if (id !== undefined && current !== undefined && current !== 'terminated')
        state.setInstanceState(id, 'terminated');
      return;
    }
    case 'asg-launch-successful': {
      const id = instanceId(detail.EC2InstanceId);
      const member = id === undefined ? undefined : state.autoScaling.member(id);
      if (id === undefined || member === undefined || history(id)) return;
      if (detail.Origin !== 'WarmPool' || detail.Destination !== 'AutoScalingGroup') return;
      if (!WARM_POOL_RESTING.has(member.lifecycleState)) return;
      if (record(id)?.state === 'stopped') state.setInstanceState(id, 'running');
      state.autoScaling.enterService(id);
      return;
    }
    case 'tag-change': {
      const id = Array.isArray(event.resources) ? instanceIdFromArn(event.resources[0]) : undefined;
      const changed = Array.isArray(detail['changed-tag-keys'])
        ? detail['changed-tag-keys'].filter((k): k is string => typeof k === 'string')
        : [];
      const tags = isRecord(detail.tags) ? detail.tags : {};
      if (id === undefined || record(id) === undefined) return;
      const set = new Map<string, string>();
      const removed: { key: string }[] = [];
      for (const key of changed) {
        const value = Object.hasOwn(tags, key) ? text(tags[key]) : undefined;
        if (value !== undefined) set.set(key, value);
        else removed.push({ key });
      }
      state.instances.setTags(id, set, now);
      state.instances.deleteTags(id, removed, now);
      return;
    }
    // Warnings only: nothing about the machine changes.
    case 'warning-only':
      return;
    default: {
      const unhandled: never = kind;
      throw new Error(`no event effects for AWS event kind ${String(unhandled)}`);
    }
  }
}

/** StopInstances: `stopping` now, `stopped` after the emulator's shutdown time. */
function stopInstance(sandbox: Sandbox, id: string): void {
  const state = sandbox.aws.state;
  state.setInstanceState(id, 'stopping');
  sandbox.clock.schedule(sandbox.clock.now() + state.timings.shutdownMs, () => {
    if (state.instances.get(id)?.state === 'stopping') state.setInstanceState(id, 'stopped');
  });
}
