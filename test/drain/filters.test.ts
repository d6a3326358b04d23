import { describe, expect, it } from 'vitest';
import {
  alreadyTerminatingFilter,
  completedFilter,
  daemonSetFilter,
  localStorageFilter,
  mirrorPodFilter,
  terminatingTooLongFilter,
  unreplicatedFilter,
  type DaemonSetLookup,
  type DrainContext,
} from '../../lib/drain/filters.js';
import { DEFAULT_DRAIN_SETTINGS, type DrainSettings } from '../../lib/drain/settings.js';
import { pod } from './support/fake-api.js';

const NOW = Date.UTC(2026, 0, 1);

function context(
  settings: Partial<DrainSettings> = {},
  daemonSets: Record<string, DaemonSetLookup> = {},
): DrainContext {
  return {
    settings: { ...DEFAULT_DRAIN_SETTINGS, ...settings },
    now: NOW,
    daemonSets: new Map(Object.entries(daemonSets)),
  };
}

describe('daemonSetFilter', () => {
  it('should skip a pod whose DaemonSet exists', () => {
    const verdict = daemonSetFilter(
      pod('ds-1', { owner: ['DaemonSet', 'ds'] }),
      context({}, { 'default/ds': { state: 'present' } }),
    );
    expect(verdict).toMatchObject({ action: 'skip', code: 'daemonset' });
  });

  it('should delete a pod whose DaemonSet is gone when unreplicated pods may be removed', () => {
    const verdict = daemonSetFilter(
      pod('ds-1', { owner: ['DaemonSet', 'ds'] }),
      context({}, { 'default/ds': { state: 'missing' } }),
    );
    expect(verdict).toMatchObject({ action: 'evict', code: 'daemonset-missing' });
  });

  it('should refuse an orphaned DaemonSet pod when unreplicated pods must stay, saying how to change that', () => {
    const verdict = daemonSetFilter(
      pod('ds-1', { owner: ['DaemonSet', 'ds'] }),
      context({ evictUnreplicated: false }, { 'default/ds': { state: 'missing' } }),
    );
    expect(verdict).toMatchObject({ action: 'refuse', hint: expect.stringContaining('evictUnreplicated') as unknown });
  });

  it('should wait when the DaemonSet lookup failed', () => {
    const verdict = daemonSetFilter(
      pod('ds-1', { owner: ['DaemonSet', 'ds'] }),
      context({}, { 'default/ds': { state: 'unknown', error: 'timeout' } }),
    );
    expect(verdict).toMatchObject({
      action: 'wait',
      code: 'daemonset-unknown',
      reason: expect.stringContaining('timeout') as unknown,
    });
  });

  it('should let a finished DaemonSet pod and a pod of another controller through', () => {
    expect(daemonSetFilter(pod('ds-1', { owner: ['DaemonSet', 'ds'], phase: 'Succeeded' }), context()).action).toBe(
      'evict',
    );
    expect(daemonSetFilter(pod('rs-1', { owner: ['ReplicaSet', 'rs'] }), context()).action).toBe('evict');
  });
});

describe('mirrorPodFilter', () => {
  it('should skip a mirror pod and pass any other', () => {
    expect(mirrorPodFilter(pod('kube-proxy', { mirror: true }), context())).toMatchObject({
      action: 'skip',
      code: 'mirror',
    });
    expect(mirrorPodFilter(pod('web'), context()).action).toBe('evict');
  });
});

describe('localStorageFilter', () => {
  it('should evict an emptyDir pod with a note by default', () => {
    expect(localStorageFilter(pod('cache', { emptyDir: true, owner: ['ReplicaSet', 'c'] }), context())).toMatchObject({
      action: 'evict',
      code: 'local-storage',
    });
  });

  it('should refuse an emptyDir pod when deleteEmptyDirData is off, unless it has finished', () => {
    const settings = { deleteEmptyDirData: false };
    expect(localStorageFilter(pod('cache', { emptyDir: true }), context(settings))).toMatchObject({
      action: 'refuse',
      hint: 'set deleteEmptyDirData to evict it',
    });
    expect(localStorageFilter(pod('cache', { emptyDir: true, phase: 'Failed' }), context(settings))).toMatchObject({
      code: 'ok',
    });
  });
});

describe('unreplicatedFilter', () => {
  it('should evict a bare pod with a note by default and refuse it when evictUnreplicated is off', () => {
    expect(unreplicatedFilter(pod('bare'), context())).toMatchObject({ action: 'evict', code: 'unreplicated' });
    expect(unreplicatedFilter(pod('bare'), context({ evictUnreplicated: false }))).toMatchObject({ action: 'refuse' });
  });

  it('should pass a controlled pod and a finished bare pod', () => {
    expect(
      unreplicatedFilter(pod('web', { owner: ['StatefulSet', 'web'] }), context({ evictUnreplicated: false })).code,
    ).toBe('ok');
    expect(unreplicatedFilter(pod('job', { phase: 'Succeeded' }), context({ evictUnreplicated: false })).code).toBe(
      'ok',
    );
  });
});

describe('completedFilter', () => {
  it('should note a completed pod and pass a running one', () => {
    expect(completedFilter(pod('job', { phase: 'Succeeded' }), context())).toMatchObject({
      action: 'evict',
      code: 'completed',
    });
    expect(completedFilter(pod('web'), context()).code).toBe('ok');
  });
});

describe('terminating pods', () => {
  it('should wait on a terminating pod', () => {
    const verdict = alreadyTerminatingFilter(pod('web', { deletionTimestamp: NOW + 10_000 }), context());
    expect(verdict).toMatchObject({
      action: 'wait',
      code: 'terminating',
      reason: expect.stringContaining('10s') as unknown,
    });
  });

  it('should skip a pod terminating for longer than skipWaitForDeleteTimeout, and only when that is set', () => {
    const stuck = pod('web', { deletionTimestamp: NOW - 120_000 });
    expect(terminatingTooLongFilter(stuck, context({ skipWaitForDeleteTimeoutMs: 60_000 }))).toMatchObject({
      action: 'skip',
    });
    expect(terminatingTooLongFilter(stuck, context()).action).toBe('evict');
    expect(
      terminatingTooLongFilter(
        pod('web', { deletionTimestamp: NOW - 30_000 }),
        context({ skipWaitForDeleteTimeoutMs: 60_000 }),
      ).action,
    ).toBe('evict');
  });
});
