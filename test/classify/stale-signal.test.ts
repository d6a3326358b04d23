// Which signals are history, reported and never acted on (docs/design.md §1c, §2; issue #27, 3 and 5).
import { describe, expect, it } from 'vitest';
import { SIGNAL_MAX_AGE_MS, STATE_CHANGE_READ_LAG_MS, whyNotActedOn } from '../../lib/classify/stale-signal.js';
import { anInstance, aSignal, NOW } from '../support/world.js';

const ctx = { now: NOW };

describe('whyNotActedOn', () => {
  it('should never act on an event an EventBridge archive replayed, however fresh', () => {
    const replayed = aSignal('spot-interruption', 1, { replayName: 'after-outage' });

    expect(whyNotActedOn(replayed, anInstance(1), ctx)).toMatch(
      /replayed from an EventBridge archive \(replay "after-outage"\)/,
    );
    expect(whyNotActedOn(aSignal('spot-interruption', 1), anInstance(1), ctx)).toBeUndefined();
  });

  it.each([
    ['spot-interruption' as const],
    ['rebalance-recommendation' as const],
    ['asg-terminate-lifecycle-action' as const],
  ])('should hold a %s past its maximum age to be stale, and one at it not', (kind) => {
    const limit = SIGNAL_MAX_AGE_MS[kind];
    const lifecycle = { group: 'ng-a', hook: 'drain-hook' };
    const hooks = { terminateHooks: new Map([['ng-a', { kind: 'ours' as const, hook: 'drain-hook' }]]) };
    const at = (age: number) => aSignal(kind, 1, { observedAt: NOW - age, lifecycle });
    const machine = anInstance(1, { launchedAt: NOW - 30 * 86_400_000 });

    expect(whyNotActedOn(at(limit), machine, { ...ctx, ...hooks })).toBeUndefined();
    expect(whyNotActedOn(at(limit + 1_000), machine, { ...ctx, ...hooks })).toMatch(/old, past its/);
  });

  it('should take EC2’s present state over a state change it contradicts, once EC2’s reads have caught up', () => {
    const stopping = (age: number) => aSignal('state-change', 1, { state: 'stopping', observedAt: NOW - age });
    const running = anInstance(1, { state: 'running' });

    expect(whyNotActedOn(stopping(STATE_CHANGE_READ_LAG_MS), running, ctx)).toBeUndefined();
    expect(whyNotActedOn(stopping(STATE_CHANGE_READ_LAG_MS + 1), running, ctx)).toMatch(/EC2 says .* is running now/);
    expect(whyNotActedOn(stopping(3_600_000), anInstance(1, { state: 'stopping' }), ctx)).toBeUndefined();
  });

  it('should judge a decommission tag event by the tag EC2 has now, not by the event', () => {
    const tagged = anInstance(1, { tags: { 'ec2-node-reconciler/decommission': 'true' } });

    expect(whyNotActedOn(aSignal('decommission-tag', 1), tagged, ctx)).toBeUndefined();
    expect(whyNotActedOn(aSignal('decommission-tag', 1), anInstance(1), ctx)).toMatch(
      /no longer carries ec2-node-reconciler\/decommission/,
    );
  });

  it('should not act on a lifecycle action whose group’s hooks were not read', () => {
    const lifecycle = aSignal('asg-terminate-lifecycle-action', 1, {
      lifecycle: { group: 'ng-b', hook: 'drain-hook' },
    });

    expect(whyNotActedOn(lifecycle, anInstance(1), ctx)).toMatch(/could not be told/);
  });
});
