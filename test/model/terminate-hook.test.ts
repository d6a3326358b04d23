// Which terminate hook of a group is ours (docs/design.md §1c): one rule for the sweep and the event path (issue #27).
import { describe, expect, it } from 'vitest';
import {
  foreignHookReason,
  lifecycleGlobalTimeoutMs,
  ourTerminateHook,
  type TerminateHook,
} from '@ec2-node-reconciler/model/terminate-hook.js';

/** Hooks by name, as DescribeLifecycleHooks lists a group's terminate hooks. */
const hooks = (...names: string[]): TerminateHook[] => names.map((name) => ({ name }));

describe('ourTerminateHook', () => {
  it('should take the group’s only terminate hook when none is configured', () => {
    expect(ourTerminateHook('ng-a', hooks('drain-hook'), undefined)).toEqual({ kind: 'ours', hook: 'drain-hook' });
  });

  it('should call several hooks without configured names ambiguous, naming them and the fix', () => {
    expect(ourTerminateHook('ng-a', hooks('Terminate-LC-Hook', 'drain-hook'), undefined)).toEqual({
      kind: 'ambiguous',
      reason:
        "Auto Scaling group ng-a has several terminate hooks (Terminate-LC-Hook, drain-hook): set lifecycleHookNames to say which is the reconciler's",
    });
  });

  it('should take a configured hook the group has, and none when it has none of them', () => {
    expect(ourTerminateHook('ng-a', hooks('log-shipper-hook', 'drain-hook'), ['drain-hook'])).toEqual({
      kind: 'ours',
      hook: 'drain-hook',
    });
    expect(ourTerminateHook('ng-a', hooks('log-shipper-hook'), ['drain-hook'])).toMatchObject({ kind: 'none' });
  });

  it('should never take EKS’s Terminate-LC-Hook: not as the only hook, not when configured', () => {
    expect(ourTerminateHook('eks-ng', hooks('Terminate-LC-Hook'), undefined)).toMatchObject({ kind: 'none' });
    expect(ourTerminateHook('eks-ng', hooks('Terminate-LC-Hook', 'drain-hook'), ['Terminate-LC-Hook'])).toMatchObject({
      kind: 'none',
    });
  });
});

describe('foreignHookReason', () => {
  it('should find nothing against our own hook, and say why of any other', () => {
    const ours = ourTerminateHook('ng-a', hooks('drain-hook'), undefined);
    expect(foreignHookReason('drain-hook', ours)).toBeUndefined();
    expect(foreignHookReason('log-shipper-hook', ours)).toBe(
      "hook log-shipper-hook is not the reconciler's (drain-hook is)",
    );
    expect(foreignHookReason('drain-hook', ourTerminateHook('ng-a', hooks('a', 'drain-hook'), undefined))).toMatch(
      /^hook drain-hook is not known to be the reconciler's: .*several terminate hooks/,
    );
  });

  it('should carry our hook’s heartbeat timeout, for the action’s global timeout', () => {
    expect(
      ourTerminateHook(
        'ng-a',
        [
          { name: 'Terminate-LC-Hook', heartbeatTimeoutSeconds: 1800 },
          { name: 'drain-hook', heartbeatTimeoutSeconds: 300 },
        ],
        ['drain-hook'],
      ),
    ).toEqual({ kind: 'ours', hook: 'drain-hook', heartbeatTimeoutSeconds: 300 });
  });
});

describe('lifecycleGlobalTimeoutMs', () => {
  it('should be 100 × the heartbeat timeout, at most 48 hours', () => {
    expect(lifecycleGlobalTimeoutMs(300)).toBe(30_000_000); // 8 h 20 min
    expect(lifecycleGlobalTimeoutMs(3600)).toBe(48 * 3_600_000);
    expect(lifecycleGlobalTimeoutMs(7200)).toBe(48 * 3_600_000);
  });
});
