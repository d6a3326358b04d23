import { describe, expect, it } from 'vitest';
import { sleepOn, systemClock, VirtualClock } from '@ec2-node-reconciler/model/clock.js';

const START = Date.UTC(2026, 0, 1);

describe('VirtualClock', () => {
  it('should stand still until advanced', () => {
    const clock = new VirtualClock(1_000);
    expect(clock.now()).toBe(1_000);
    clock.advance(500);
    expect(clock.now()).toBe(1_500);
  });

  it('should fire timers in time order, each at its own time', () => {
    const clock = new VirtualClock(0);
    const fired: [string, number][] = [];
    clock.schedule(300, () => fired.push(['b', clock.now()]));
    clock.schedule(100, () => fired.push(['a', clock.now()]));
    clock.schedule(900, () => fired.push(['late', clock.now()]));
    clock.advance(500);
    expect(fired).toEqual([
      ['a', 100],
      ['b', 300],
    ]);
    expect(clock.now()).toBe(500);
  });

  it('should fire timers scheduled by timers within the same advance', () => {
    const clock = new VirtualClock(0);
    const fired: number[] = [];
    clock.schedule(10, () => clock.schedule(20, () => fired.push(clock.now())));
    clock.advance(100);
    expect(fired).toEqual([20]);
  });

  it('should refuse to go backwards', () => {
    expect(() => new VirtualClock(10).advance(-1)).toThrow(/backwards/);
  });
});

describe('sleepOn', () => {
  it('should advance a VirtualClock instead of waiting', async () => {
    const clock = new VirtualClock(START);
    const started = performance.now();
    await sleepOn(clock)(3_600_000);
    expect(clock.now()).toBe(START + 3_600_000);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('should wait in real time on any other clock', async () => {
    const started = performance.now();
    await sleepOn(systemClock)(30);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
  });
});
