// Settings that would disarm a rail are refused wherever settings enter (docs/design.md §4): a heartbeat grace
// shorter than the kubelet's Lease duration, or any duration over 30 days. The refusal names the field.
import { describe, expect, it } from 'vitest';
import { settingsFromFlags } from '../../cli/settings-flags.js';
import { readFunctionConfig } from '../../lib/lambda/config.js';
import { sweepSettings } from '../../lib/lambda/sweep-payload.js';
import { DEFAULT_SETTINGS, parseSettings } from '@ec2-node-reconciler/model/contract/settings.js';

const ENV = { CLUSTER_NAME: 'demo', AWS_REGION: 'us-east-1' };

describe('setting bounds', () => {
  it.each([
    ['heartbeatGrace', '0s', /heartbeatGrace: must be at least 40s/],
    ['heartbeatGrace', '39s', /heartbeatGrace: must be at least 40s/],
    ['drainTimeout', '99999999999999999999d', /drainTimeout: must be at most 30d/],
    ['notFoundGrace', '721h', /notFoundGrace: must be at most 30d/],
    ['uncordonAfter', '2592001s', /uncordonAfter: must be at most 30d/],
  ])('should refuse %s %s, naming it', (key, value, message) => {
    expect(() => parseSettings({ [key]: value })).toThrow(message);
  });

  it('should accept the bounds themselves', () => {
    const settings = parseSettings({ heartbeatGrace: '40s', drainTimeout: '30d', registrationGrace: '720h' });
    expect(settings).toEqual(
      expect.objectContaining({
        heartbeatGrace: 40_000,
        drainTimeout: 30 * 86_400_000,
        registrationGrace: 30 * 86_400_000,
      }),
    );
  });

  it('should refuse them at cold start, naming the variable and the field', () => {
    expect(() => readFunctionConfig({ ...ENV, RECONCILER_SETTINGS: JSON.stringify({ heartbeatGrace: '0s' }) })).toThrow(
      /invalid function configuration: RECONCILER_SETTINGS\.heartbeatGrace: must be at least 40s/,
    );
  });

  it('should refuse them in a sweep payload, so a manual run cannot disarm the rail either', () => {
    expect(() => sweepSettings(DEFAULT_SETTINGS, { settings: { heartbeatGrace: '0s' } })).toThrow(
      /invalid sweep payload: settings\.heartbeatGrace: must be at least 40s/,
    );
    expect(() => sweepSettings(DEFAULT_SETTINGS, { settings: { minNodeAge: '100000d' } })).toThrow(
      /settings\.minNodeAge: must be at most 30d/,
    );
    expect(sweepSettings(DEFAULT_SETTINGS, { settings: { heartbeatGrace: '5m' } }).heartbeatGrace).toBe(300_000);
  });

  it('should refuse them on the command line, naming the flag', () => {
    expect(() => settingsFromFlags({ 'heartbeat-grace': '10s' }, false)).toThrow(
      /--heartbeat-grace: must be at least 40s/,
    );
    expect(() => settingsFromFlags({ 'drain-timeout': '99999999999999999999d' }, false)).toThrow(
      /--drain-timeout: must be at most 30d/,
    );
  });

  it('should take the maintenance policy, drain by default, and refuse anything else', () => {
    expect(DEFAULT_SETTINGS.maintenance).toBe('drain');
    expect(parseSettings({ maintenance: 'cordon' }).maintenance).toBe('cordon');
    expect(() => parseSettings({ maintenance: 'reboot' })).toThrow(/maintenance: /);
  });
});
