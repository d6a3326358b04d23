import { describe, expect, it } from 'vitest';
import { readFunctionConfig } from '../../lib/lambda/config.js';
import { sweepSettings } from '../../lib/lambda/sweep-payload.js';
import { DEFAULT_SETTINGS } from '@ec2-node-reconciler/model/contract/settings.js';

const env = { CLUSTER_NAME: 'demo', AWS_REGION: 'eu-west-1' };

describe('function configuration at cold start', () => {
  it('should read the cluster, region and settings, with defaults', () => {
    const config = readFunctionConfig({ ...env, RECONCILER_SETTINGS: '{"maxDeletions":3,"heartbeatGrace":"5m"}' });
    expect(config).toEqual(expect.objectContaining({ clusterName: 'demo', region: 'eu-west-1' }));
    expect(config.settings).toEqual({ ...DEFAULT_SETTINGS, maxDeletions: 3, heartbeatGrace: 300_000 });
  });

  it.each([
    [{ AWS_REGION: 'eu-west-1' }, /CLUSTER_NAME/],
    [{ ...env, RECONCILER_SETTINGS: '{not json' }, /RECONCILER_SETTINGS is not JSON/],
    [
      { ...env, RECONCILER_SETTINGS: '{"heartbeatGrace":"2 minutes"}' },
      /RECONCILER_SETTINGS\.heartbeatGrace: must be a duration/,
    ],
    [{ ...env, RECONCILER_SETTINGS: '{"maxDeletion":3}' }, /RECONCILER_SETTINGS\.: Unrecognized key.*maxDeletion/],
  ])('should fail fast naming the variable and field for %j', (vars, message) => {
    expect(() => readFunctionConfig(vars)).toThrow(message);
  });
});

describe('sweep payload', () => {
  it('should apply only the overrides given', () => {
    expect(sweepSettings(DEFAULT_SETTINGS, { dryRun: true, settings: { maxDeletions: 1 } })).toEqual({
      ...DEFAULT_SETTINGS,
      dryRun: true,
      maxDeletions: 1,
    });
    expect(sweepSettings(DEFAULT_SETTINGS, {})).toEqual(DEFAULT_SETTINGS);
    expect(sweepSettings(DEFAULT_SETTINGS, undefined)).toEqual(DEFAULT_SETTINGS);
  });

  it('should keep every deployed setting the payload does not name (a dry-run stack stays dry with any override)', () => {
    const deployed = { ...DEFAULT_SETTINGS, dryRun: true, maxDeletions: 3, rebalance: 'drain' as const };
    expect(sweepSettings(deployed, { settings: { heartbeatGrace: '5m' } })).toEqual({
      ...deployed,
      heartbeatGrace: 300_000,
    });
    expect(sweepSettings(deployed, { settings: {} })).toEqual(deployed);
  });

  it('should reject a bad override, naming it', () => {
    expect(() => sweepSettings(DEFAULT_SETTINGS, { settings: { rebalance: 'sometimes' } })).toThrow(
      /settings\.rebalance/,
    );
  });
});
