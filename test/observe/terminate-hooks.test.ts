// The event path's side of docs/design.md §1c: whose lifecycle action it is, read once per group (issue #27).
import type { TerminateHook } from '@ec2-node-reconciler/model/terminate-hook.js';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { TERMINATE_HOOKS_TTL_MS, TerminateHookCache } from '../../lib/observe/terminate-hook-cache.js';
import { lookUpTerminateHooks } from '../../lib/observe/terminate-hooks.js';

function fakeGroups(hooks: Record<string, string[] | Error>) {
  const asked: string[] = [];
  return {
    asked,
    autoScaling: {
      describeGroups: () => Promise.reject(new Error('not called by the event path')),
      warmPoolMembers: () => Promise.reject(new Error('not called by the event path')),
      terminateHooks: (group: string): Promise<TerminateHook[]> => {
        asked.push(group);
        const found = hooks[group];
        return found instanceof Error
          ? Promise.reject(found)
          : Promise.resolve((found ?? []).map((name) => ({ name })));
      },
    },
  };
}

describe('lookUpTerminateHooks', () => {
  it('should ask each group once however many lifecycle signals name it, and judge by the sweep’s rule', async () => {
    const { asked, autoScaling } = fakeGroups({
      'ng-a': ['drain-hook'],
      'eks-ng': ['Terminate-LC-Hook', 'drain-hook'],
    });

    const looks = lookUpTerminateHooks({ autoScaling, clock: new VirtualClock() }, ['ng-a', 'eks-ng', 'ng-a']);

    expect(asked).toEqual(['ng-a', 'eks-ng']);
    expect(await looks.get('ng-a')).toEqual({ choice: { kind: 'ours', hook: 'drain-hook' } });
    expect(await looks.get('eks-ng')).toEqual({ choice: expect.objectContaining({ kind: 'ambiguous' }) as unknown });
  });

  it('should say why when a group could not be read, never rejecting', async () => {
    const { autoScaling } = fakeGroups({ 'ng-a': new Error('Throttling: Rate exceeded') });

    const look = await lookUpTerminateHooks({ autoScaling, clock: new VirtualClock() }, ['ng-a']).get('ng-a');

    expect(look).toEqual({ failed: 'describing lifecycle hooks of ng-a: Throttling: Rate exceeded' });
  });

  it('should keep a group’s hooks in a warm container for a minute, and not keep a failed read', async () => {
    const clock = new VirtualClock();
    const cache = new TerminateHookCache();
    const failing = fakeGroups({ 'ng-a': new Error('Throttling') });
    const working = fakeGroups({ 'ng-a': ['drain-hook'] });

    await lookUpTerminateHooks({ ...failing, clock, terminateHookCache: cache }, ['ng-a']).get('ng-a');
    await lookUpTerminateHooks({ ...working, clock, terminateHookCache: cache }, ['ng-a']).get('ng-a');
    clock.advance(TERMINATE_HOOKS_TTL_MS - 1);
    await lookUpTerminateHooks({ ...working, clock, terminateHookCache: cache }, ['ng-a']).get('ng-a');
    clock.advance(1);
    await lookUpTerminateHooks({ ...working, clock, terminateHookCache: cache }, ['ng-a']).get('ng-a');

    expect(failing.asked).toEqual(['ng-a']);
    expect(working.asked).toEqual(['ng-a', 'ng-a']);
  });
});
