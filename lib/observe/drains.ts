import { DRAIN_ANNOTATION } from '../model/labels.js';
import type { DrainExecutionState, NodeView } from '../model/observation.js';
import { errorText } from '../pipeline/errors.js';
import type { ObserveDeps } from './deps.js';

/**
 * What the workflow says of the drains the Nodes name (one removal, one drain): few Nodes carry one
 * at a time (those draining now, or drained and waiting for their machine to go).
 */
export async function drainStates(
  deps: Pick<ObserveDeps, 'drains'>,
  nodes: readonly NodeView[],
): Promise<{ states: ReadonlyMap<string, DrainExecutionState>; errors: string[] }> {
  const names = [...new Set(nodes.flatMap((n) => (n.annotations[DRAIN_ANNOTATION] ? [n.annotations[DRAIN_ANNOTATION]] : [])))];
  if (names.length === 0) return { states: new Map(), errors: [] };
  let states: Map<string, DrainExecutionState>;
  try {
    states = await deps.drains.status(names);
  } catch (error) {
    states = new Map(names.map((name) => [name, { status: 'unknown', error: errorText(error) }]));
  }
  const errors = [...states].flatMap(([name, state]) => (state.status === 'unknown' ? [`asking about drain ${name} failed: ${state.error}`] : []));
  return { states, errors };
}
