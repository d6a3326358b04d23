/**
 * Whose lifecycle action it is (docs/design.md §1c): an action is ours only when its hook is ours — one of
 * the configured lifecycleHookNames, else the group's only terminate hook. The sweep (which finds an
 * instance in Terminating:Wait and must name the hook to complete) and the event path (which is told
 * the hook by the event) both ask here, so that they complete exactly the same actions.
 */

/**
 * The terminate hook EKS puts on every managed node group: EKS drains for it and completes it
 * itself, so it is never ours, whatever is configured.
 */
export const EKS_TERMINATE_HOOK = 'Terminate-LC-Hook';

/** A group's terminate lifecycle hook, as DescribeLifecycleHooks gives it. */
export interface TerminateHook {
  readonly name: string;
  /** The hook's HeartbeatTimeout, seconds (Auto Scaling: 30–7,200). */
  readonly heartbeatTimeoutSeconds?: number;
  /** What the group does when the hook lapses (DescribeLifecycleHooks DefaultResult): a snapshot carries it to the sandbox. */
  readonly defaultResult?: 'CONTINUE' | 'ABANDON';
}

/** Auto Scaling's bound on any lifecycle action, whatever its heartbeats: 48 hours. */
export const LIFECYCLE_ACTION_MAX_MS = 48 * 3_600_000;

/**
 * How long Auto Scaling keeps a lifecycle action of a hook at most, heartbeats or not: the global
 * timeout, min(48 h, 100 × HeartbeatTimeout). Past it the group applies the hook's default result.
 */
export const lifecycleGlobalTimeoutMs = (heartbeatTimeoutSeconds: number): number =>
  Math.min(LIFECYCLE_ACTION_MAX_MS, 100 * heartbeatTimeoutSeconds * 1000);

/** Which of a group's terminate hooks is ours: one, none, or a guess (several, none configured) that is not made. */
export type TerminateHookChoice =
  | { readonly kind: 'ours'; readonly hook: string; readonly heartbeatTimeoutSeconds?: number }
  | { readonly kind: 'none'; readonly reason: string }
  | { readonly kind: 'ambiguous'; readonly reason: string };

const listed = (hooks: readonly string[]): string => (hooks.length === 0 ? 'none' : hooks.join(', '));

/**
 * The group's terminate hook that is ours, given its terminate hooks (DescribeLifecycleHooks) and the
 * deployment's lifecycleHookNames. With several hooks and none configured, choosing one would be a
 * guess that completes another system's hook (a log shipper's, EKS's): ambiguous, reported.
 */
export function ourTerminateHook(
  group: string,
  hooks: readonly TerminateHook[],
  ownHooks: readonly string[] | undefined,
): TerminateHookChoice {
  const choice = chooseByName(
    group,
    hooks.map((h) => h.name),
    ownHooks,
  );
  if (choice.kind !== 'ours') return choice;
  const timeout = hooks.find((h) => h.name === choice.hook)?.heartbeatTimeoutSeconds;
  return timeout !== undefined ? { ...choice, heartbeatTimeoutSeconds: timeout } : choice;
}

function chooseByName(
  group: string,
  terminateHooks: readonly string[],
  ownHooks: readonly string[] | undefined,
): TerminateHookChoice {
  if (ownHooks !== undefined) {
    const hook = terminateHooks.find((h) => ownHooks.includes(h) && h !== EKS_TERMINATE_HOOK);
    if (hook !== undefined) return { kind: 'ours', hook };
    return {
      kind: 'none',
      reason: `none of Auto Scaling group ${group}'s terminate hooks (${listed(terminateHooks)}) is one of lifecycleHookNames (${listed(ownHooks.filter((h) => h !== EKS_TERMINATE_HOOK))})`,
    };
  }
  if (terminateHooks.length > 1)
    return {
      kind: 'ambiguous',
      reason: `Auto Scaling group ${group} has several terminate hooks (${terminateHooks.join(', ')}): set lifecycleHookNames to say which is the reconciler's`,
    };
  const [only] = terminateHooks;
  if (only === undefined) return { kind: 'none', reason: `Auto Scaling group ${group} has no terminate hook` };
  if (only === EKS_TERMINATE_HOOK)
    return {
      kind: 'none',
      reason: `Auto Scaling group ${group}'s only terminate hook is EKS's own ${EKS_TERMINATE_HOOK}: EKS drains for it and completes it`,
    };
  return { kind: 'ours', hook: only };
}

/**
 * Whether the lifecycle action of `hook` in a group is ours to drain for and complete: undefined when
 * it is, else why not (for the report).
 */
export function foreignHookReason(hook: string, choice: TerminateHookChoice): string | undefined {
  if (choice.kind === 'ours')
    return choice.hook === hook ? undefined : `hook ${hook} is not the reconciler's (${choice.hook} is)`;
  return `hook ${hook} is not known to be the reconciler's: ${choice.reason}`;
}
