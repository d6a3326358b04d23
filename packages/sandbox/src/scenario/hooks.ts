// A group's lifecycle hook is one, whichever instances name it: its timeout, default result and
// transition are those written on any of them (a Pending state says launching, a Terminating one
// terminating). Seeding gives every member the hook so defined; the loader refuses instances that
// write it otherwise (one of them would be ignored).
import { formatDuration } from '@ec2-node-reconciler/model/duration.js';
import { transitionOf, type HookTransition } from '../aws/state/membership.js';
import type { Scenario } from './schema.js';

type Instance = Scenario['instances'][number];

/** One part of a hook as written, with the index of the first instance that wrote it. */
interface Written<T> {
  readonly value: T;
  readonly by: number;
}

/** One hook as its instances write it. */
export interface HookDefinition {
  readonly heartbeatTimeout?: Written<number>;
  readonly defaultResult?: Written<'CONTINUE' | 'ABANDON'>;
  readonly transition?: Written<HookTransition>;
}

/** A hook's key: its group and name. */
export const hookKey = (group: string, hook: string): string => `${group}\u0000${hook}`;

/** The hooks the instances define, and a problem (with its path) for each part written otherwise than before. */
export function hookDefinitions(instances: readonly Instance[]): {
  readonly hooks: ReadonlyMap<string, HookDefinition>;
  readonly problems: readonly string[];
} {
  const hooks = new Map<string, HookDefinition>();
  const problems: string[] = [];
  instances.forEach((instance, index) => {
    const membership = instance.autoScaling;
    if (membership?.hook === undefined || instance.state === 'absent') return;
    const key = hookKey(membership.group, membership.hook);
    const defined = hooks.get(key) ?? {};
    const disagree = <T>(earlier: Written<T> | undefined, value: T | undefined): earlier is Written<T> =>
      earlier !== undefined && value !== undefined && earlier.value !== value;
    const by = (earlier: Written<unknown>) =>
      `hook ${membership.hook} of group ${membership.group} is defined by instances[${earlier.by}]`;
    const transition = transitionOf(membership.lifecycleState);
    if (disagree(defined.heartbeatTimeout, membership.heartbeatTimeout))
      problems.push(
        `instances[${index}].autoScaling.heartbeatTimeout: ${by(defined.heartbeatTimeout)} with ${formatDuration(defined.heartbeatTimeout.value)} (a hook has one timeout)`,
      );
    if (disagree(defined.defaultResult, membership.defaultResult))
      problems.push(
        `instances[${index}].autoScaling.defaultResult: ${by(defined.defaultResult)} with ${defined.defaultResult.value} (a hook has one default result)`,
      );
    if (disagree(defined.transition, transition))
      problems.push(
        `instances[${index}].autoScaling.lifecycleState: ${by(defined.transition)} as a ${defined.transition.value} hook (a hook has one transition)`,
      );
    hooks.set(key, {
      ...defined,
      ...(defined.heartbeatTimeout === undefined && membership.heartbeatTimeout !== undefined
        ? { heartbeatTimeout: { value: membership.heartbeatTimeout, by: index } }
        : {}),
      ...(defined.defaultResult === undefined && membership.defaultResult !== undefined
        ? { defaultResult: { value: membership.defaultResult, by: index } }
        : {}),
      ...(defined.transition === undefined && transition !== undefined
        ? { transition: { value: transition, by: index } }
        : {}),
    });
  });
  return { hooks, problems };
}
