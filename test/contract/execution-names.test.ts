// Drain execution names (issue #26 item 5): a collision is a drain that never starts (Step Functions
// names are unique for 90 days), and 32-bit hashes collided 4 times in 200,000 random drains.
import { describe, expect, it } from 'vitest';
import { chainExecutionName, drainExecutionName } from '@ec2-node-reconciler/model/contract/drain-workflow.js';

const NAME = /^[A-Za-z0-9_-]{1,80}$/;

describe('drainExecutionName', () => {
  it('should give 200,000 random drains of one long-named cluster 200,000 names, each a valid execution name', () => {
    // Long cluster and node names leave the readable prefix the same for every drain: only the hash tells them apart.
    const cluster = 'production-eu-west-1-platform-team-shared-services-cluster-0001';
    const names = new Set<string>();
    let seed = 0x2f6b1c3d;
    const random = (): number => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      return seed;
    };
    for (let n = 0; n < 200_000; n++) {
      const instance = `i-${random().toString(16).padStart(8, '0')}${random().toString(16).padStart(9, '0')}`;
      const name = drainExecutionName(cluster, instance, `sweep-${random() % 100_000}`, `uid-${random()}`);
      expect(name).toMatch(NAME);
      names.add(name);
    }
    expect(names.size).toBe(200_000);
  });

  it('should name the same removal the same way (a duplicate event starts nothing) and a re-registered Node apart', () => {
    const one = drainExecutionName('demo', 'i-0123456789abcdef0', 'evt-1', 'uid-1');
    expect(drainExecutionName('demo', 'i-0123456789abcdef0', 'evt-1', 'uid-1')).toBe(one);
    expect(drainExecutionName('demo', 'i-0123456789abcdef0', 'evt-1', 'uid-2')).not.toBe(one);
    expect(one).toMatch(/^demo-i-0123456789abcdef0-evt-1-[0-9a-f]{16}$/);
  });

  it('should leave room for the local prefix and a chained execution’s suffix within 80 characters', () => {
    const long = drainExecutionName('c'.repeat(100), 'i-0123456789abcdef0', 'e'.repeat(100), 'uid');
    expect(`local-${long}`).toMatch(NAME);
    expect(chainExecutionName(long, 9_999)).toMatch(NAME);
    expect(chainExecutionName(long, 0)).toBe(long);
  });
});
