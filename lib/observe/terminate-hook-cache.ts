import type { Clock } from '@ec2-node-reconciler/model/clock.js';
import type { TerminateHook } from '@ec2-node-reconciler/model/terminate-hook.js';

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
