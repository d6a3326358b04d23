import { DRAIN_ANNOTATION, DRAIN_DEADLINE_ANNOTATION, LOCAL_DRAIN_PREFIX } from '../contract/labels.js';
import { isBeyondHorizon } from '../plan/own-cordon.js';
import type { DrainExecutionState, NodeView } from '../model/observation.js';
import { errorText } from '../support/errors.js';
import type { ObserveDeps } from './deps.js';

/**
 * What the workflow says of the drains the Nodes name (one removal, one drain): few Nodes carry one
 * at a time (those draining now, or drained and waiting for their machine to go). A drain the CLI
 * ran in its own process is no execution anyone can ask about: it ran until its deadline at most.
 */
export async function drainStates(
  deps: Pick<ObserveDeps, 'drains' | 'clock'>,
  nodes: readonly NodeView[],
): Promise<{ states: ReadonlyMap<string, DrainExecutionState>; errors: string[] }> {
  const states = new Map<string, DrainExecutionState>();
  const remote = new Set<string>();
  for (const node of nodes) {
    const name = node.annotations[DRAIN_ANNOTATION];
    if (!name) continue;
    if (!name.startsWith(LOCAL_DRAIN_PREFIX)) {
      remote.add(name);
      continue;
    }
    // A local drain runs until its deadline, which is bounded: one further ahead is invalid, not a drain that never ends.
    const deadline = Date.parse(node.annotations[DRAIN_DEADLINE_ANNOTATION] ?? '');
    const now = deps.clock.now();
    const running = Number.isFinite(deadline) && now < deadline && !isBeyondHorizon(deadline, now);
    states.set(name, { status: running ? 'running' : 'ended' });
  }
  if (remote.size > 0) {
    try {
      for (const [name, state] of await deps.drains.status([...remote])) states.set(name, state);
    } catch (error) {
      for (const name of remote) states.set(name, { status: 'unknown', error: errorText(error) });
    }
  }
  const errors = [...states].flatMap(([name, state]) =>
    state.status === 'unknown' ? [`asking about drain ${name} failed: ${state.error}`] : [],
  );
  return { states, errors };
}
