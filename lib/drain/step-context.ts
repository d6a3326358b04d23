// What every phase of one drain step works with, passed as one object: the Kubernetes calls, the clock
// and the settings, the request, the working state the step carries forward, and what the step learned
// on the way that the state does not keep.
import type { Clock } from '@ec2-node-reconciler/model/clock.js';
import type { DrainApi } from './api.js';
import type { DaemonSetLookup } from './filters.js';
import type { DrainSettings } from './settings.js';
import type { DrainRequest, DrainStepResult } from './step-result.js';
import type { WorkingState } from './state.js';

/** What this step learned that the state does not keep: DaemonSet lookups, and the server's words for refused removals. */
export interface StepMemory {
  readonly daemonSets: Map<string, DaemonSetLookup>;
  readonly messages: Map<string, string>;
}

export interface StepContext {
  readonly api: DrainApi;
  readonly clock: Clock;
  readonly settings: DrainSettings;
  readonly request: DrainRequest;
  /** The step's working copy of the drain's state: the phases move its records along. */
  readonly state: WorkingState;
  readonly memory: StepMemory;
}

/** One pass's result: the step's, but for the state, which the step packs once the pass is over. */
export type PassResult = Omit<DrainStepResult, 'state'>;

/** When a phase of a pass runs: the time it looks at, and the deadline it works to. */
export interface PassTime {
  readonly now: number;
  readonly deadline: number;
}

/** The deadline worked to: the request's, or an earlier one announced on the Node. */
export const deadlineOf = ({ request, state }: Pick<StepContext, 'request' | 'state'>): number =>
  Math.min(request.deadline, state.deadline ?? Infinity);
