// A running drain renews its record on the Node (docs/design.md §5), so that it is not taken for a dead one.
import { describe, expect, it } from 'vitest';
import {
  DRAIN_ANNOTATION,
  DRAIN_CHAIN_ANNOTATION,
  DRAIN_RENEWED_ANNOTATION,
} from '@ec2-node-reconciler/model/contract/labels.js';
import { drainStep } from '../../lib/drain/step.js';
import { RENEW_INTERVAL_MS } from '../../lib/plan/drain-liveness.js';
import { pod, refusal } from './support/fake-api.js';
import { harness, START } from './support/scenario.js';

const EXECUTION = 'demo-i-0a1b2c3d4e5f60001-evt-1';
const iso = (ms: number) => new Date(ms).toISOString();

function recorded(renewedAgoMs: number, annotations: Record<string, string> = {}) {
  const h = harness();
  h.cluster.addNode('node-a', {
    unschedulable: true,
    annotations: {
      [DRAIN_ANNOTATION]: EXECUTION,
      [DRAIN_RENEWED_ANNOTATION]: iso(START - renewedAgoMs),
      ...annotations,
    },
  });
  // Terminating for a while: the drain goes on past its first step.
  h.cluster.addPod(pod('slow', { owner: ['ReplicaSet', 'slow'], grace: 600 }));
  return { ...h, request: { ...h.request, execution: EXECUTION } };
}

const annotations = (h: ReturnType<typeof recorded>) => h.cluster.nodes.get('node-a')?.annotations ?? {};

describe('renewing the drain record', () => {
  it('should renew its own record at the first pass once the renewal is an interval old, then every interval', async () => {
    const h = recorded(RENEW_INTERVAL_MS);

    await drainStep(h.deps, h.request, undefined, 1_000);
    expect(annotations(h)[DRAIN_RENEWED_ANNOTATION]).toBe(iso(START));

    await drainStep(h.deps, h.request, undefined, 2 * RENEW_INTERVAL_MS + 1_000);
    const renewed = Date.parse(annotations(h)[DRAIN_RENEWED_ANNOTATION] ?? '');
    expect(renewed).toBeGreaterThanOrEqual(START + RENEW_INTERVAL_MS);
    expect(h.clock.now() - renewed).toBeLessThan(RENEW_INTERVAL_MS);
  });

  it('should write nothing while the renewal is younger than the interval', async () => {
    const h = recorded(RENEW_INTERVAL_MS - 5_000);

    await drainStep(h.deps, h.request, undefined, 1_000);

    expect(annotations(h)[DRAIN_RENEWED_ANNOTATION]).toBe(iso(START - RENEW_INTERVAL_MS + 5_000));
    expect(h.cluster.calls.filter((c) => c.op === 'patchNode')).toEqual([]);
  });

  it('should record the chained execution that runs it, at once', async () => {
    const h = recorded(1_000);

    await drainStep(h.deps, { ...h.request, chain: 3 }, undefined, 1_000);

    expect(annotations(h)[DRAIN_CHAIN_ANNOTATION]).toBe('3');
    expect(annotations(h)[DRAIN_RENEWED_ANNOTATION]).toBe(iso(START));
  });

  it("should leave another drain's record alone", async () => {
    const h = recorded(10 * RENEW_INTERVAL_MS);

    await drainStep(h.deps, { ...h.request, execution: 'local-another' }, undefined, 1_000);

    expect(annotations(h)[DRAIN_RENEWED_ANNOTATION]).toBe(iso(START - 10 * RENEW_INTERVAL_MS));
  });

  it('should go on draining when the renewal fails, and renew at a later pass', async () => {
    const h = recorded(10 * RENEW_INTERVAL_MS);
    let failures = 1;
    h.cluster.failOn = (call) =>
      call.op === 'patchNode' && failures-- > 0 ? refusal(403, 'nodes is forbidden') : undefined;

    const result = await drainStep(h.deps, h.request, undefined, 10_000);

    expect(result.status).toBe('in-progress');
    expect(result.counts).toMatchObject({ evicted: 1 });
    expect(Date.parse(annotations(h)[DRAIN_RENEWED_ANNOTATION] ?? '')).toBeGreaterThan(START);
  });
});
