import type { Clock } from '../model/clock.js';
import { ourTerminateHook, type TerminateHook, type TerminateHookChoice } from '../model/terminate-hook.js';
import { errorText } from '../support/errors.js';
import type { AutoScalingAdapter } from '../aws/autoscaling.js';

/**
 * How long a warm container trusts what it read of a group's terminate hooks. Hooks change at deploy
 * time, not between two lifecycle actions; a scale-in of a hundred machines costs one
 * DescribeLifecycleHooks a minute instead of one per batch.
 */
export const TERMINATE_HOOKS_TTL_MS = 60_000;

/** The terminate hooks of each group a warm container read lately (pass the same cache to each invocation). */
export class TerminateHookCache {
  private readonly entries = new Map<
    string,
    { readonly at: number; readonly hooks: Promise<readonly TerminateHook[]> }
  >();

  constructor(private readonly ttlMs: number = TERMINATE_HOOKS_TTL_MS) {}

  /** The group's hooks as read within the TTL, else `ask` (a failed read is not kept). */
  lookup(
    group: string,
    clock: Clock,
    ask: (group: string) => Promise<readonly TerminateHook[]>,
  ): Promise<readonly TerminateHook[]> {
    const now = clock.now();
    const hit = this.entries.get(group);
    if (hit && now - hit.at < this.ttlMs && now >= hit.at) return hit.hooks;
    const hooks = ask(group);
    this.entries.set(group, { at: now, hooks });
    hooks.catch(() => {
      if (this.entries.get(group)?.hooks === hooks) this.entries.delete(group);
    });
    return hooks;
  }
}

/** Which hook of a group is ours, or why that could not be read (the event is then tried again). */
export type HookLook = { readonly choice: TerminateHookChoice } | { readonly failed: string };

/**
 * The event path's side of docs/design.md §1c: for each group its lifecycle signals name, one
 * DescribeLifecycleHooks (or the warm container's recent answer), judged by the sweep's rule.
 */
export function lookUpTerminateHooks(
  deps: TerminateHookDeps,
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

/**
 * The slice of ObserveDeps (deps.ts) a hook look-up reads, spelled here: deps.ts imports this file's
 * cache, and the two would otherwise import each other.
 */
export interface TerminateHookDeps {
  readonly autoScaling: Pick<AutoScalingAdapter, 'terminateHooks'>;
  readonly ownHooks?: readonly string[];
  readonly clock: Clock;
  readonly terminateHookCache?: TerminateHookCache;
}
