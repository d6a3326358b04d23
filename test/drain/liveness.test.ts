// Whether a drain record's drain is alive (docs/design.md §5): renewed about every minute while it runs; not
// renewed for two minutes, dead, and the next removal takes over.
import { describe, expect, it } from 'vitest';
import { executionToAsk, RECORD_TTL_MS, recordLiveness } from '../../lib/plan/drain-liveness.js';
import type { DrainExecutionState } from '@ec2-node-reconciler/model/observation.js';
import type { DrainClaim } from '../../lib/plan/own-cordon.js';

const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);
const LOCAL = 'local-manual-ip-10-0-0-1.ec2.internal-20261129115000';
const REMOTE = 'demo-i-0a1b2c3d4e5f60001-evt-1';

const record = (overrides: Partial<DrainClaim> = {}): DrainClaim => ({
  execution: LOCAL,
  chain: 0,
  at: NOW - 10 * 60_000,
  deadline: NOW + 5 * 60_000,
  ...overrides,
});

const RUNNING: DrainExecutionState = { status: 'running' };
const ENDED: DrainExecutionState = { status: 'ended' };
const ABSENT: DrainExecutionState = { status: 'absent' };

describe('recordLiveness of a CLI drain', () => {
  it('should be running while renewed within the TTL and before its deadline', () => {
    expect(recordLiveness(record({ renewedAt: NOW - RECORD_TTL_MS + 1 }), undefined, NOW)).toEqual(RUNNING);
  });

  it('should be dead (absent, so the next removal replaces it) once not renewed for the TTL, whatever its deadline', () => {
    expect(recordLiveness(record({ renewedAt: NOW - RECORD_TTL_MS }), undefined, NOW)).toEqual(ABSENT);
    expect(recordLiveness(record({ renewedAt: NOW - RECORD_TTL_MS, deadline: NOW - 1 }), undefined, NOW)).toEqual(
      ABSENT,
    );
  });

  it('should fall back to when the record was made when it was never renewed (an older version wrote it)', () => {
    expect(recordLiveness(record({ at: NOW - 30_000 }), undefined, NOW)).toEqual(RUNNING);
    expect(recordLiveness(record({ at: NOW - 10 * 60_000 }), undefined, NOW)).toEqual(ABSENT);
  });

  it('should have ended past its deadline, or once it wrote how it ended', () => {
    expect(recordLiveness(record({ renewedAt: NOW - 1_000, deadline: NOW }), undefined, NOW)).toEqual(ENDED);
    expect(recordLiveness(record({ renewedAt: NOW - 1_000, outcome: 'done' }), undefined, NOW)).toEqual(ENDED);
    expect(recordLiveness(record({ outcome: 'incomplete' }), undefined, NOW)).toEqual(ENDED);
  });

  it('should not be asked about: no service knows it', () => {
    expect(executionToAsk(record())).toBeUndefined();
  });
});

describe('recordLiveness of a workflow drain', () => {
  const remote = (overrides: Partial<DrainClaim> = {}) => record({ execution: REMOTE, ...overrides });

  it('should ask about the chained execution that runs it now', () => {
    expect(executionToAsk(remote())).toBe(REMOTE);
    expect(executionToAsk(remote({ chain: 2 }))).toBe(`${REMOTE}-c2`);
  });

  it('should be running when its execution runs, however long ago it was renewed', () => {
    expect(recordLiveness(remote({ renewedAt: NOW - 60 * 60_000 }), RUNNING, NOW)).toEqual(RUNNING);
  });

  it('should be running when renewed lately while the workflow knows no running execution (a hop between chained executions, a start under way)', () => {
    expect(recordLiveness(remote({ renewedAt: NOW - 30_000 }), ENDED, NOW)).toEqual(RUNNING);
    expect(recordLiveness(remote({ renewedAt: NOW - 30_000 }), ABSENT, NOW)).toEqual(RUNNING);
    expect(recordLiveness(remote({ renewedAt: NOW - 30_000 }), { status: 'unknown', error: 'x' }, NOW)).toEqual(
      RUNNING,
    );
  });

  it('should be what the workflow says once not renewed for the TTL', () => {
    const stale = remote({ renewedAt: NOW - RECORD_TTL_MS });
    expect(recordLiveness(stale, ENDED, NOW)).toEqual(ENDED);
    expect(recordLiveness(stale, ABSENT, NOW)).toEqual(ABSENT);
    expect(recordLiveness(stale, undefined, NOW)).toEqual({ status: 'unknown', error: 'not looked up in this run' });
  });

  it('should have ended once it wrote how it ended, whatever the workflow says', () => {
    expect(recordLiveness(remote({ renewedAt: NOW, outcome: 'done' }), RUNNING, NOW)).toEqual(ENDED);
  });
});
