// What an AWS account announces when an instance's tags change through the API (CreateTags,
// DeleteTags: an operator's `decommission`): a `Tag Change on Resource` event from `aws.tag` on the
// default bus, with the keys that changed and every tag the instance now carries, numbered per
// resource (Tagging AWS Resources User Guide, "Monitor tag changes with serverless workflows and
// Amazon EventBridge"). A scenario's own tag-change event is the world's input, not a call: it is
// not announced again.
import type { AwsEmulator } from '../aws/index.js';

/** Puts an event on the default bus, as the account's services do; what the stack's rules route of it. */
export type PutEvent = (event: unknown) => readonly string[];

/** EventBridge writes `time` to the second. */
const eventTime = (at: number): string => new Date(Math.floor(at / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** Announces every tag change made through the API from now on; returns how to stop. */
export function announceTagChanges(
  aws: AwsEmulator,
  account: { readonly accountId: string; readonly region: string; readonly partition?: string },
  putEvent: PutEvent,
): () => void {
  const versions = new Map<string, number>();
  return aws.state.onChange((change) => {
    if (change.kind !== 'instance-tags' || change.by !== 'api') return;
    const instance = aws.state.instances.get(change.instanceId);
    if (!instance) return;
    const version = (versions.get(change.instanceId) ?? 0) + 1;
    versions.set(change.instanceId, version);
    const { accountId, region } = account;
    putEvent({
      version: '0',
      id: aws.state.ids.uuid(),
      'detail-type': 'Tag Change on Resource',
      source: 'aws.tag',
      account: accountId,
      time: eventTime(change.at),
      region,
      resources: [`arn:${account.partition ?? 'aws'}:ec2:${region}:${accountId}:instance/${change.instanceId}`],
      detail: {
        'changed-tag-keys': [...Object.keys(change.set), ...change.removed],
        service: 'ec2',
        'resource-type': 'instance',
        version,
        tags: Object.fromEntries(instance.tags),
      },
    });
  });
}
