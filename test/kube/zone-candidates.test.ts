// Which Nodes an event about an unmarked machine reads (lib/kube/zone-candidates.ts).
import { describe, expect, it } from 'vitest';
import { zoneCandidateSelectors } from '../../lib/kube/zone-candidates.js';

describe('zoneCandidateSelectors', () => {
  it.each(['us-east-1a', 'us-east-1-bos-1a', 'us-east-1-wl1-bos-wlz-1', 'us-gov-west-1a', 'cn-north-1a'])(
    'should select the Nodes labelled with %s and those with no zone label',
    (zone) => {
      expect(zoneCandidateSelectors(zone)).toEqual([
        `topology.kubernetes.io/zone=${zone}`,
        '!topology.kubernetes.io/zone',
      ]);
    },
  );

  it.each(['', 'us-east-1a,topology.kubernetes.io/zone', 'a b', '-us-east-1a', 'x'.repeat(64)])(
    'should select nothing on %j (no label value): every Node will do',
    (zone) => {
      expect(zoneCandidateSelectors(zone)).toBeUndefined();
    },
  );
});
