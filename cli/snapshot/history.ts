// A history of EventBridge events (what `simulate --replay` feeds) renamed with an anonymized
// snapshot's names (`snapshot --anonymize --history IN --history-out OUT`): the events then name the
// snapshot's account, machines, groups, hooks and cluster, and the two replay together as the
// original pair does. Without it, every event of the real account is another account's to the
// anonymized world, and the replay ignores them all.
//
// Renamed: the event's account, the account and the ids in every ARN (instances, Auto Scaling groups),
// instance ids wherever they appear, the group and hook of a lifecycle action, the tags of a tag change
// (as the snapshot renames an instance's: what the reconciler does not read is dropped, and so are the
// changed keys that name them). Kept: the kind of event, its id, times, states, regions and zones.
// Free text (a Health event's description, Auto Scaling's cause and status) is emptied, as the
// snapshot drops descriptions.
import type { SnapshotNames } from './names.js';

/** `arn:partition:service:region:account:resource`; the account is empty in some (Health's events). */
const ARN = /^arn:([^:]+):([^:]*):([^:]*):(\d{12})?:(.*)$/s;
const GROUP_IN_ARN = /(autoScalingGroupName\/)(.+)$/s;
const INSTANCE_IDS = /\bi-[0-9a-f]{17}\b|\bi-[0-9a-f]{8}\b/g;

/** Texts AWS or an operator wrote, which may hold any name. */
const FREE_TEXT = new Set(['latestDescription', 'Cause', 'Description', 'StatusMessage', 'NotificationMetadata']);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** One event, renamed (a new object; the event is left as it was). */
export function anonymizeEvent(
  event: Readonly<Record<string, unknown>>,
  names: SnapshotNames,
  cluster: string,
): Record<string, unknown> {
  const text = (value: string): string => {
    const arn = ARN.exec(value);
    if (!arn) return value.replace(INSTANCE_IDS, (id) => names.instanceId(id));
    const [, partition = '', service = '', region = '', account, resource = ''] = arn;
    const renamed = resource
      .replace(GROUP_IN_ARN, (_, prefix: string, group: string) => `${prefix}${names.group(group)}`)
      .replace(INSTANCE_IDS, (id) => names.instanceId(id));
    return `arn:${partition}:${service}:${region}:${account === undefined ? '' : names.accountId(account)}:${renamed}`;
  };
  const keptTagKeys = (keys: readonly unknown[]): string[] =>
    keys.flatMap((key) => (typeof key === 'string' ? Object.keys(names.tags({ [key]: '' }, cluster)) : []));
  const walk = (value: unknown, key: string | undefined): unknown => {
    if (typeof value === 'string') {
      if (key === 'AutoScalingGroupName') return names.group(value);
      if (key === 'LifecycleHookName') return names.hook(value);
      if (key !== undefined && FREE_TEXT.has(key)) return names.description(value) ?? '';
      return text(value);
    }
    if (Array.isArray(value)) return key === 'changed-tag-keys' ? keptTagKeys(value) : value.map((v) => walk(v, key));
    if (!isRecord(value)) return value;
    if (key === 'tags' && Object.values(value).every((v) => typeof v === 'string'))
      return names.tags(value as Record<string, string>, cluster);
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k)]));
  };
  const renamed = walk(event, undefined) as Record<string, unknown>;
  if (typeof event['account'] === 'string') renamed['account'] = names.accountId(event['account']);
  return renamed;
}
