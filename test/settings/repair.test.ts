// The opt-in repair settings (docs/design.md §1b): off by default, EKS's waits, bounded, refused naming the
// field wherever settings enter (deployed configuration, sweep payload, command line).
import { describe, expect, it } from 'vitest';
import { settingOptions, settingsFromFlags } from '../../cli/settings-flags.js';
import { readFunctionConfig } from '../../lib/lambda/config.js';
import { sweepSettings } from '../../lib/lambda/sweep-payload.js';
import { DEFAULT_SETTINGS, parseSettings } from '@ec2-node-reconciler/model/contract/settings.js';

const MINUTE = 60_000;
const ENV = { CLUSTER_NAME: 'demo', AWS_REGION: 'us-east-1' };

describe('repair settings', () => {
  it('should be off by default, with EKS node auto repair waits and stand-down', () => {
    expect(DEFAULT_SETTINGS.repair).toEqual({
      enabled: false,
      after: {
        Ready: 30 * MINUTE,
        KernelReady: 30 * MINUTE,
        NetworkingReady: 30 * MINUTE,
        StorageReady: 30 * MINUTE,
        ContainerRuntimeReady: 30 * MINUTE,
        AcceleratedHardwareReady: 10 * MINUTE,
      },
      maxUnhealthyPercent: 20,
      maxParallel: 1,
      drainTimeout: 15 * MINUTE,
      maxFailedReplacements: 3,
      failureWindow: 6 * 60 * MINUTE,
    });
  });

  it('should fill in what a partial repair object leaves out', () => {
    const settings = parseSettings({ repair: { enabled: true, after: { KernelReady: '35m' } } });
    expect(settings.repair.enabled).toBe(true);
    expect(settings.repair.after.KernelReady).toBe(35 * MINUTE);
    expect(settings.repair.after.Ready).toBe(30 * MINUTE);
    expect(settings.repair.maxParallel).toBe(1);
  });

  it.each([
    [{ after: { Ready: '4m' } }, /repair\.after\.Ready: must be at least 5m/],
    [{ after: { AcceleratedHardwareReady: '31d' } }, /repair\.after\.AcceleratedHardwareReady: must be at most 30d/],
    [{ after: { DiskPressure: '30m' } }, /repair\.after: .*DiskPressure/],
    [{ maxUnhealthyPercent: 101 }, /repair\.maxUnhealthyPercent: /],
    [
      { maxUnhealthyPercent: 100 },
      /repair\.maxUnhealthyPercent: must be at most 50: a group with more of its machines unhealthy has an outage/,
    ],
    [{ maxUnhealthyPercent: 51 }, /repair\.maxUnhealthyPercent: must be at most 50/],
    [
      { maxParallel: 11 },
      /repair\.maxParallel: must be at most 10: replacing more machines of a group at once is a rollout/,
    ],
    [{ maxParallel: 1e9 }, /repair\.maxParallel: must be at most 10/],
    [{ maxUnhealthyPercent: -1 }, /repair\.maxUnhealthyPercent: /],
    [{ maxParallel: 0 }, /repair\.maxParallel: /],
    [{ maxParallel: 1.5 }, /repair\.maxParallel: /],
    [{ drainTimeout: '30s' }, /repair\.drainTimeout: must be at least 1m/],
    [{ drainTimeout: '99999d' }, /repair\.drainTimeout: must be at most 30d/],
    [{ enable: true }, /repair: .*enable/],
    [{ maxFailedReplacements: 0 }, /repair\.maxFailedReplacements: /],
    [{ maxFailedReplacements: 11 }, /repair\.maxFailedReplacements: must be at most 10/],
    [{ failureWindow: '30m' }, /repair\.failureWindow: must be at least 1h/],
    [{ failureWindow: '31d' }, /repair\.failureWindow: must be at most 30d/],
  ])('should refuse repair %j, naming the field', (repair, message) => {
    expect(() => parseSettings({ repair })).toThrow(message);
  });

  it('should accept the bounds themselves', () => {
    const settings = parseSettings({ repair: { after: { Ready: '5m' }, maxUnhealthyPercent: 0, drainTimeout: '1m' } });
    expect(settings.repair).toEqual(expect.objectContaining({ maxUnhealthyPercent: 0, drainTimeout: MINUTE }));
    expect(parseSettings({ repair: { maxUnhealthyPercent: 50, maxParallel: 10, drainTimeout: '30d' } }).repair).toEqual(
      expect.objectContaining({ maxUnhealthyPercent: 50, maxParallel: 10 }),
    );
  });

  it('should be refused at cold start naming the variable and the field', () => {
    expect(() =>
      readFunctionConfig({ ...ENV, RECONCILER_SETTINGS: JSON.stringify({ repair: { maxParallel: 0 } }) }),
    ).toThrow(/invalid function configuration: RECONCILER_SETTINGS\.repair\.maxParallel: /);
  });

  it('should override only what a sweep payload names, keeping the deployed repair settings', () => {
    const deployed = parseSettings({ repair: { enabled: true, maxParallel: 3, after: { Ready: '1h' } } });
    const run = sweepSettings(deployed, { settings: { repair: { maxParallel: 2, after: { KernelReady: '40m' } } } });
    expect(run.repair).toEqual({
      ...deployed.repair,
      maxParallel: 2,
      after: { ...deployed.repair.after, KernelReady: 40 * MINUTE },
    });
    expect(() => sweepSettings(deployed, { settings: { repair: { after: { Ready: '1m' } } } })).toThrow(
      /invalid sweep payload: settings\.repair\.after\.Ready: must be at least 5m/,
    );
  });

  it('should be flags on the command line, named after each nested setting', () => {
    expect(Object.keys(settingOptions())).toEqual(
      expect.arrayContaining([
        'repair-enabled',
        'repair-after-kernel-ready',
        'repair-max-unhealthy-percent',
        'repair-max-parallel',
        'repair-drain-timeout',
      ]),
    );
    const settings = settingsFromFlags(
      { 'repair-enabled': 'true', 'repair-after-kernel-ready': '35m', 'repair-max-parallel': '2' },
      false,
    );
    expect(settings.repair).toEqual(expect.objectContaining({ enabled: true, maxParallel: 2 }));
    expect(settings.repair.after.KernelReady).toBe(35 * MINUTE);
    expect(settings.repair.after.Ready).toBe(30 * MINUTE);
    expect(() => settingsFromFlags({ 'repair-after-ready': '1m' }, false)).toThrow(
      /--repair-after-ready: must be at least 5m/,
    );
    expect(settingsFromFlags({}, false).repair).toEqual(DEFAULT_SETTINGS.repair);
  });
});
