import type { Instance, InstanceStatusEvent } from '@aws-sdk/client-ec2';
import { isInstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import { INSTANCE_STATES, type InstanceState } from '@ec2-node-reconciler/model/instance-states.js';
import type { InstanceView, ScheduledEvent, ScheduledEventCode } from '@ec2-node-reconciler/model/observation.js';

export const SCHEDULED_EVENT_CODES: readonly ScheduledEventCode[] = [
  'instance-reboot',
  'system-reboot',
  'system-maintenance',
  'instance-retirement',
  'instance-stop',
];

function isState(value: string | undefined): value is InstanceState {
  return (INSTANCE_STATES as readonly (string | undefined)[]).includes(value);
}

/** EC2's Instance to the reconciler's projection; undefined for anything it cannot trust. */
export function toInstanceView(instance: Instance): InstanceView | undefined {
  const id = instance.InstanceId;
  const state = instance.State?.Name;
  if (!isInstanceId(id) || !isState(state)) return undefined;
  const tags: Record<string, string> = {};
  for (const tag of instance.Tags ?? []) if (tag.Key !== undefined) tags[tag.Key] = tag.Value ?? '';
  return {
    id,
    state,
    zone: instance.Placement?.AvailabilityZone ?? '',
    ...(instance.PrivateDnsName ? { privateDnsName: instance.PrivateDnsName } : {}),
    launchedAt: instance.LaunchTime?.getTime() ?? 0,
    tags,
    spot: instance.InstanceLifecycle === 'spot',
    scheduledEvents: [],
  };
}

/** DescribeInstanceStatus events; completed or canceled ones ("[Completed]", "[Canceled]") are history, not plans. */
export function toScheduledEvents(events: readonly InstanceStatusEvent[] | undefined): ScheduledEvent[] {
  const out: ScheduledEvent[] = [];
  for (const event of events ?? []) {
    const code = SCHEDULED_EVENT_CODES.find((c) => c === event.Code);
    if (code === undefined || event.NotBefore === undefined) continue;
    if (/^\[(Completed|Canceled)\]/.test(event.Description ?? '')) continue;
    out.push({
      code,
      notBefore: event.NotBefore.getTime(),
      ...(event.NotAfter ? { notAfter: event.NotAfter.getTime() } : {}),
      ...(event.Description ? { description: event.Description } : {}),
    });
  }
  return out;
}
