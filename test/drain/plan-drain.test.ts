import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { podKey, type DrainPod } from '../../lib/drain/api.js';
import type { DaemonSetLookup, DrainContext } from '../../lib/drain/filters.js';
import { judgePod, planDrain } from '../../lib/drain/plan-drain.js';
import { DEFAULT_DRAIN_SETTINGS } from '../../lib/drain/settings.js';
import { pod } from './support/fake-api.js';

const NOW = Date.UTC(2026, 0, 1);
const ctx = (daemonSets: Record<string, DaemonSetLookup> = {}, settings = DEFAULT_DRAIN_SETTINGS): DrainContext => ({
  settings,
  now: NOW,
  daemonSets: new Map(Object.entries(daemonSets)),
});

const names = (pods: readonly { pod: DrainPod }[]): string[] => pods.map((p) => p.pod.name);

describe('planDrain', () => {
  it('should sort a typical node into evict, delete, skip and wait', () => {
    const pods = [
      pod('web-1', { owner: ['ReplicaSet', 'web'] }),
      pod('db-0', { owner: ['StatefulSet', 'db'] }),
      pod('agent', { owner: ['DaemonSet', 'agent'] }),
      pod('orphan', { owner: ['DaemonSet', 'gone'] }),
      pod('etcd', { mirror: true }),
      pod('cache', { owner: ['ReplicaSet', 'cache'], emptyDir: true }),
      pod('bare'),
      pod('job', { phase: 'Succeeded', owner: ['Job', 'job'] }),
      pod('leaving', { owner: ['ReplicaSet', 'web'], deletionTimestamp: NOW + 5_000 }),
    ];
    const plan = planDrain(pods, ctx({ 'default/agent': { state: 'present' }, 'default/gone': { state: 'missing' } }));
    expect(names(plan.toEvict)).toEqual(['bare', 'cache', 'db-0', 'job', 'orphan', 'web-1']);
    expect(names(plan.skipped)).toEqual(['agent', 'etcd']);
    expect(names(plan.waiting)).toEqual(['leaving']);
    expect(plan.refused).toEqual([]);
  });

  it('should refuse emptyDir and bare pods when the settings say so, keeping each reason', () => {
    const settings = { ...DEFAULT_DRAIN_SETTINGS, deleteEmptyDirData: false, evictUnreplicated: false };
    const plan = planDrain(
      [
        pod('cache', { emptyDir: true, owner: ['ReplicaSet', 'c'] }),
        pod('bare'),
        pod('web', { owner: ['ReplicaSet', 'w'] }),
      ],
      ctx({}, settings),
    );
    expect(names(plan.refused)).toEqual(['bare', 'cache']);
    expect(names(plan.toEvict)).toEqual(['web']);
    expect(plan.refused.map((p) => [p.verdict.reason, p.verdict.hint])).toEqual([
      ['declares no controller (nothing would recreate it)', 'set evictUnreplicated to evict it'],
      ['uses emptyDir (local data would be lost)', 'set deleteEmptyDirData to evict it'],
    ]);
  });

  it('should keep every note on an evicted pod, where kubectl keeps only the last', () => {
    const planned = judgePod(pod('scratch', { emptyDir: true }), ctx());
    expect(planned.verdict.action).toBe('evict');
    expect(planned.notes.map((n) => n.code)).toEqual(['local-storage', 'unreplicated']);
  });

  it('should skip a terminating DaemonSet pod as kubectl does, rather than wait on it', () => {
    const planned = judgePod(
      pod('agent', { owner: ['DaemonSet', 'agent'], deletionTimestamp: NOW }),
      ctx({ 'default/agent': { state: 'present' } }),
    );
    expect(planned.verdict.action).toBe('skip');
  });

  const arbitraryPod = fc
    .record({
      name: fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/),
      owner: fc.option(
        fc.tuple(fc.constantFrom('ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job'), fc.constantFrom('a', 'b')),
      ),
      phase: fc.constantFrom('Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'),
      emptyDir: fc.boolean(),
      mirror: fc.boolean(),
      terminating: fc.boolean(),
    })
    .map((p) =>
      pod(p.name, {
        phase: p.phase,
        emptyDir: p.emptyDir,
        mirror: p.mirror,
        // The kubelet makes a mirror pod's controller its Node, never a workload.
        ...(p.mirror ? { owner: ['Node', 'node-a'] as const } : p.owner ? { owner: p.owner } : {}),
        ...(p.terminating ? { deletionTimestamp: NOW } : {}),
      }),
    );

  it('should put every pod in exactly one bucket whatever the pods and settings', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(arbitraryPod, { selector: (p) => p.name, maxLength: 30 }),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom<DaemonSetLookup>({ state: 'present' }, { state: 'missing' }, { state: 'unknown', error: 'x' }),
        (pods, deleteEmptyDirData, evictUnreplicated, lookup) => {
          const settings = { ...DEFAULT_DRAIN_SETTINGS, deleteEmptyDirData, evictUnreplicated };
          const plan = planDrain(pods, ctx({ 'default/a': lookup, 'default/b': lookup }, settings));
          const all = [...plan.toEvict, ...plan.skipped, ...plan.waiting, ...plan.refused].map((p) => podKey(p.pod));
          expect(all.sort()).toEqual(pods.map(podKey).sort());
          // Nothing terminating is evicted again, and no mirror pod is ever touched.
          expect(plan.toEvict.some((p) => p.pod.deletionTimestamp !== undefined || p.pod.mirror)).toBe(false);
        },
      ),
    );
  });

  it('should not depend on the order pods are listed in', () => {
    fc.assert(
      fc.property(fc.uniqueArray(arbitraryPod, { selector: (p) => p.name, maxLength: 20 }), (pods) => {
        const context = ctx({ 'default/a': { state: 'present' }, 'default/b': { state: 'missing' } });
        expect(planDrain([...pods].reverse(), context)).toEqual(planDrain(pods, context));
      }),
    );
  });
});
