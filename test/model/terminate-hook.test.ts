// Which terminate hook of a group is ours (DESIGN §1c): one rule for the sweep and the event path (issue #27).
import { describe, expect, it } from 'vitest';
import { foreignHookReason, ourTerminateHook } from '../../lib/model/terminate-hook.js';

describe('ourTerminateHook', () => {
  it('should take the group’s only terminate hook when none is configured', () => {
    expect(ourTerminateHook('ng-a', ['drain-hook'], undefined)).toEqual({ kind: 'ours', hook: 'drain-hook' });
  });

  it('should call several hooks without configured names ambiguous, naming them and the fix', () => {
    expect(ourTerminateHook('ng-a', ['Terminate-LC-Hook', 'drain-hook'], undefined)).toEqual({
      kind: 'ambiguous',
      reason:
        "Auto Scaling group ng-a has several terminate hooks (Terminate-LC-Hook, drain-hook): set lifecycleHookNames to say which is the reconciler's",
    });
  });

  it('should take a configured hook the group has, and none when it has none of them', () => {
    expect(ourTerminateHook('ng-a', ['log-shipper-hook', 'drain-hook'], ['drain-hook'])).toEqual({
      kind: 'ours',
      hook: 'drain-hook',
    });
    expect(ourTerminateHook('ng-a', ['log-shipper-hook'], ['drain-hook'])).toMatchObject({ kind: 'none' });
  });

  it('should never take EKS’s Terminate-LC-Hook: not as the only hook, not when configured', () => {
    expect(ourTerminateHook('eks-ng', ['Terminate-LC-Hook'], undefined)).toMatchObject({ kind: 'none' });
    expect(ourTerminateHook('eks-ng', ['Terminate-LC-Hook', 'drain-hook'], ['Terminate-LC-Hook'])).toMatchObject({
      kind: 'none',
    });
  });
});

describe('foreignHookReason', () => {
  it('should find nothing against our own hook, and say why of any other', () => {
    const ours = ourTerminateHook('ng-a', ['drain-hook'], undefined);
    expect(foreignHookReason('drain-hook', ours)).toBeUndefined();
    expect(foreignHookReason('log-shipper-hook', ours)).toBe(
      "hook log-shipper-hook is not the reconciler's (drain-hook is)",
    );
    expect(foreignHookReason('drain-hook', ourTerminateHook('ng-a', ['a', 'drain-hook'], undefined))).toMatch(
      /^hook drain-hook is not known to be the reconciler's: .*several terminate hooks/,
    );
  });
});
