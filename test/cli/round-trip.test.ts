// The what-if round trip (test/support/round-trip.ts) at a small size: 60 nodes over 2 days, every
// kind of episode in the history; with an anonymized snapshot and the history renamed alike. The bench (`npm run bench roundtrip`) runs the same at a month of
// 1,000 nodes.
import { describe, expect, it } from 'vitest';
import { DECOMMISSION_TAG } from '@ec2-node-reconciler/model/contract/labels.js';
import { replayWorld } from '../../scripts/make-replay-history.js';
import { actionKinds, actionShapes, roundTrip } from '../support/round-trip.js';

const NODES = 60;

describe('the what-if round trip, through the real binary', () => {
  it('should take the same actions per node and kind replaying a history on a snapshot of the served world as on the world itself', async () => {
    const trip = await roundTrip({ nodes: NODES, days: 2, seed: 29, everyEpisode: true, anonymize: true });

    // The history holds what the reconciler acts on, about the cluster's own machines.
    const ours = new Set((replayWorld({ nodes: NODES })['instances'] as { id: string }[]).map((i) => i.id));
    const about = (event: Record<string, unknown>): boolean =>
      event['account'] === '111122223333' &&
      event['region'] === 'us-east-1' &&
      JSON.stringify([event['resources'], event['detail']])
        .match(/i-[0-9a-f]{17}/g)
        ?.some((id) => ours.has(id)) === true;
    const kinds = trip.history.filter(about).map((event) => {
      const detail = event['detail'] as Record<string, unknown>;
      const changed = Array.isArray(detail['changed-tag-keys']) ? detail['changed-tag-keys'] : [];
      return `${String(event['detail-type'])}${changed.includes(DECOMMISSION_TAG) ? ' (decommission)' : ''}${typeof detail['state'] === 'string' ? ` ${detail['state']}` : ''}`;
    });
    expect(kinds).toEqual(
      expect.arrayContaining([
        'EC2 Spot Instance Interruption Warning',
        'EC2 Instance-terminate Lifecycle Action',
        'Tag Change on Resource (decommission)',
        'EC2 Instance State-change Notification stopped',
        'EC2 Instance State-change Notification running',
      ]),
    );

    expect(trip.snapshotLine).toMatch(new RegExp(`: ${NODES} instances, ${NODES} nodes, ${NODES} pods, 0 PDBs as of `));
    expect(trip.fromSnapshot.fed).toBe(trip.history.length);
    expect({ routed: trip.fromSnapshot.routed, sweeps: trip.fromSnapshot.sweeps }).toEqual({
      routed: trip.original.routed,
      sweeps: trip.original.sweeps,
    });
    // Not vacuous: the episodes made the reconciler act, in every way they call for.
    expect(actionKinds(trip.original)).toMatch(/complete-lifecycle CONTINUE \d+, cordon \d+, delete \d+, drain \d+/);
    expect(actionKinds(trip.fromSnapshot)).toBe(actionKinds(trip.original));
    expect(trip.diff).toEqual([]);

    // The anonymized snapshot, with the history renamed alike: the same actions, node by node, under other names.
    const anonymized = trip.fromAnonymized;
    expect(anonymized?.routed).toBe(trip.original.routed);
    expect(anonymized && actionKinds(anonymized)).toBe(actionKinds(trip.original));
    expect(anonymized && actionShapes(anonymized)).toEqual(actionShapes(trip.original));
    const names = [...(anonymized?.actions.keys() ?? [])];
    expect(names.filter((node) => trip.original.actions.has(node))).toEqual([]);
  }, 600_000);
});
