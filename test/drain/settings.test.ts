import { describe, expect, it } from 'vitest';
import { progressLine } from '../../lib/drain/pod-report.js';
import { DEFAULT_DRAIN_SETTINGS, drainSettings } from '../../lib/drain/settings.js';
import { DEFAULT_SETTINGS } from '@ec2-node-reconciler/model/contract/settings.js';

describe('drainSettings', () => {
  it('should take the two drain switches from the reconciler settings and keep drain defaults', () => {
    const settings = drainSettings({ ...DEFAULT_SETTINGS, deleteEmptyDirData: false }, { pollIntervalMs: 500 });
    expect(settings).toEqual({ ...DEFAULT_DRAIN_SETTINGS, deleteEmptyDirData: false, pollIntervalMs: 500 });
    expect(DEFAULT_DRAIN_SETTINGS).toMatchObject({
      evictionConcurrency: 10,
      evictionRetryDelayMs: 5_000,
      deleteEmptyDirData: true,
      evictUnreplicated: true,
    });
  });

  it('should name the setting that is out of range', () => {
    expect(() => drainSettings(undefined, { evictionConcurrency: 0 })).toThrow(/evictionConcurrency/);
    expect(() => drainSettings(undefined, { pollIntervalMs: 0 })).toThrow(/pollIntervalMs/);
    expect(() => drainSettings(undefined, { skipWaitForDeleteTimeoutMs: -1 })).toThrow(/skipWaitForDeleteTimeoutMs/);
  });
});

describe('progressLine', () => {
  it('should say what was evicted, what is left and which PDB blocks what', () => {
    const counts = { evicted: 5, gone: 0, terminating: 2, left: 3, blocked: 1, skipped: 2 };
    const blocked = [{ pod: { namespace: 'default', name: 'db-0', uid: 'u' }, reason: 'x', pdb: 'default/db' }];
    expect(progressLine(counts, blocked)).toBe(
      'evicted 5, terminating 2, left 3; blocked: default/db-0 by PDB default/db',
    );
    expect(progressLine(counts, [])).toBe('evicted 5, terminating 2, left 3');
  });
});
