// A history renamed with an anonymized snapshot's names (cli/snapshot/history.ts): the events must say
// to the reconciler what they said, about the renamed machines, and name nothing of the original.
import { describe, expect, it } from 'vitest';
import { DECOMMISSION_TAG } from '@ec2-node-reconciler/model/contract/labels.js';
import { parseEvent, signalKindOf, type ParseOutcome } from '../../lib/signals/index.js';
import { anonymizeEvent } from '../../cli/snapshot/history.js';
import { anonymizer } from '../../cli/snapshot/names.js';
import { replayHistory, replayWorld, REPLAY_CLUSTER } from '../../scripts/make-replay-history.js';

const NODES = 60;
const history = replayHistory({ nodes: NODES, days: 5, everyEpisode: true });
const world = replayWorld({ nodes: NODES }) as {
  instances: { id: string; autoScaling: { group: string; hook: string } }[];
};

/** What the reconciler reads in an event: its outcome, and each signal's kind and machine. */
function meaning(outcome: ParseOutcome, rename: (id: string) => string = (id) => id) {
  if (outcome.outcome === 'ignored') return { ignored: outcome.reason.replace(/i-[0-9a-f]{17}/g, rename) };
  return {
    signals: outcome.signals.map((s) => ({ kind: s.kind, instanceId: rename(s.instanceId) })),
    skipped: outcome.skipped.length,
  };
}

describe('anonymizeEvent', () => {
  const names = anonymizer(Buffer.alloc(32, 7));
  const renamed = history.map((event) => anonymizeEvent(event, names, REPLAY_CLUSTER));

  it('should leave every event meaning what it meant to the reconciler, about the renamed machine', () => {
    let read = 0;
    history.forEach((event, i) => {
      const kind = signalKindOf(String(event['source']), String(event['detail-type']));
      if (kind === undefined) return;
      read++;
      const after = renamed[i] ?? {};
      expect(meaning(parseEvent(after)), JSON.stringify(event)).toEqual(
        meaning(parseEvent(event), (id) => names.instanceId(id)),
      );
      for (const key of ['id', 'source', 'detail-type', 'time', 'region'])
        expect(after[key], `${key} of ${String(event['id'])}`).toBe(event[key]);
    });
    expect(read).toBeGreaterThan(20);
    // The decommission still sets the reconciler's tag, on the renamed cluster's machine.
    const decommission = renamed.find((e) =>
      (e['detail'] as { 'changed-tag-keys'?: string[] })['changed-tag-keys']?.includes(DECOMMISSION_TAG),
    );
    expect((decommission?.['detail'] as { tags: Record<string, string> }).tags).toEqual({
      [DECOMMISSION_TAG]: expect.stringMatching(/^v-/) as unknown,
      'eks:cluster-name': names.cluster(REPLAY_CLUSTER),
    });
  });

  it('should rename the account, keeping another account’s events another account’s', () => {
    const ours = names.accountId('111122223333');
    expect(ours).not.toBe('111122223333');
    history.forEach((event, i) => {
      const account = String(event['account']);
      expect(renamed[i]?.['account']).toBe(account === '111122223333' ? ours : names.accountId(account));
      expect(renamed[i]?.['account']).not.toBe(account);
    });
    expect(new Set(renamed.map((e) => e['account'])).size).toBe(new Set(history.map((e) => e['account'])).size);
  });

  it('should name nothing of the original: machines, groups, hooks, cluster, account, free text', () => {
    const text = JSON.stringify(renamed);
    const originals = [
      ...world.instances.map((i) => i.id),
      ...new Set(world.instances.flatMap((i) => [i.autoScaling.group, i.autoScaling.hook])),
      REPLAY_CLUSTER,
      '111122223333',
      '444455556666',
      'scheduled maintenance',
      'decommissioned by ops',
      'Terminating EC2 instance',
    ];
    for (const name of originals) expect(text, name).not.toContain(name);
    // Every lifecycle action's group and hook are the snapshot's names for them.
    const action = renamed.find((e) => e['detail-type'] === 'EC2 Instance-terminate Lifecycle Action');
    const detail = action?.['detail'] as Record<string, string>;
    expect(detail['LifecycleHookName']).toBe(names.hook('ec2-node-reconciler-drain'));
    expect((action?.['resources'] as string[])[0]).toBe(
      `arn:aws:autoscaling:us-east-1:${names.accountId('111122223333')}:autoScalingGroup:00000000-0000-4000-8000-000000000000:autoScalingGroupName/${detail['AutoScalingGroupName']}`,
    );
  });
});
