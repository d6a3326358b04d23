import type { DrainExecutionState, NodeView } from '@ec2-node-reconciler/model/observation.js';
import { executionToAsk } from '../plan/drain-liveness.js';
import { drainClaimOf } from '../plan/own-cordon.js';
import { errorText } from '@ec2-node-reconciler/model/error-text.js';
import type { ObserveDeps } from './deps.js';

/**
 * What the workflow says of the drains the Nodes record (one removal, one drain), by record name:
 * few Nodes carry one at a time (those draining now, or drained and waiting for their machine to go).
 * It is asked about the execution that runs the record's drain now (a long drain continues in chained
 * executions). A drain the CLI ran in its own process is no execution anyone can ask about: its record
 * alone tells whether it lives (lib/plan/drain-liveness.ts, which the plan applies to both).
 */
export async function drainStates(
  deps: Pick<ObserveDeps, 'drains'>,
  nodes: readonly NodeView[],
): Promise<{ states: ReadonlyMap<string, DrainExecutionState>; errors: string[] }> {
  const states = new Map<string, DrainExecutionState>();
  /** The execution to ask about → the records it runs. */
  const asked = new Map<string, string[]>();
  for (const node of nodes) {
    const claim = drainClaimOf(node);
    const execution = claim ? executionToAsk(claim) : undefined;
    if (claim === undefined || execution === undefined) continue;
    asked.set(execution, [...(asked.get(execution) ?? []), claim.execution]);
  }
  if (asked.size > 0) {
    let answers: ReadonlyMap<string, DrainExecutionState>;
    try {
      answers = await deps.drains.status([...asked.keys()]);
    } catch (error) {
      const failed: DrainExecutionState = { status: 'unknown', error: errorText(error) };
      answers = new Map([...asked.keys()].map((execution) => [execution, failed]));
    }
    for (const [execution, records] of asked) {
      const answer = answers.get(execution) ?? { status: 'unknown', error: 'no answer' };
      for (const record of records) states.set(record, answer);
    }
  }
  const errors = [...states].flatMap(([name, state]) =>
    state.status === 'unknown' ? [`asking about drain ${name} failed: ${state.error}`] : [],
  );
  return { states, errors };
}
