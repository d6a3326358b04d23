import {
  ourTerminateHook,
  type TerminateHook,
  type TerminateHookChoice,
} from '@ec2-node-reconciler/model/terminate-hook.js';
import { errorText } from '@ec2-node-reconciler/model/error-text.js';
import type { ObserveDeps } from './deps.js';

/** Which hook of a group is ours, or why that could not be read (the event is then tried again). */
export type HookLook = { readonly choice: TerminateHookChoice } | { readonly failed: string };

/**
 * The event path's side of docs/design.md §1c: for each group its lifecycle signals name, one
 * DescribeLifecycleHooks (or the warm container's recent answer), judged by the sweep's rule.
 */
export function lookUpTerminateHooks(
  deps: Pick<ObserveDeps, 'autoScaling' | 'ownHooks' | 'clock' | 'terminateHookCache'>,
  groups: Iterable<string>,
): ReadonlyMap<string, Promise<HookLook>> {
  const ask = (group: string): Promise<readonly TerminateHook[]> => deps.autoScaling.terminateHooks(group);
  return new Map(
    [...new Set(groups)].map((group) => {
      const hooks = deps.terminateHookCache ? deps.terminateHookCache.lookup(group, deps.clock, ask) : ask(group);
      const look = hooks.then(
        (found): HookLook => ({ choice: ourTerminateHook(group, found, deps.ownHooks) }),
        (error: unknown): HookLook => ({ failed: `describing lifecycle hooks of ${group}: ${errorText(error)}` }),
      );
      return [group, look] as const;
    }),
  );
}
