// A drain step in the workflow's terms (packages/model/src/contract/drain-workflow.ts): the request a workflow input
// describes, and the step output the state machine branches on. One mapping for the Step Functions
// task and for the local stand-ins of the workflow (sandbox, CLI).
import { summarize } from './pod-report.js';
import { outcomeOf, type DrainRequest, type DrainStepResult } from './step-result.js';
import {
  executionOf,
  type DrainStepOutput,
  type DrainWorkflowInput,
} from '@ec2-node-reconciler/model/contract/drain-workflow.js';

/**
 * The contract's view of a step: the outcome the state machine branches on, the state for the next
 * step, the deadline worked to, the lifecycle action to heartbeat and complete (one handed over on
 * the Node, else the input's), and a bounded summary.
 */
export function stepOutput(result: DrainStepResult, input: DrainWorkflowInput): DrainStepOutput {
  const lifecycle = result.lifecycle ?? input.lifecycle;
  return {
    outcome: outcomeOf(result.status),
    waitSeconds: Math.max(1, Math.ceil(result.nextCheckAfterMs / 1000)),
    state: result.state,
    deadline: new Date(result.deadline).toISOString(),
    ...(lifecycle ? { lifecycle } : {}),
    summary: summarize(result.pods),
  };
}

/** The drain request a workflow input describes: bound to the Node uid the drain was planned for. */
export const drainRequestOf = (input: DrainWorkflowInput): DrainRequest => ({
  node: input.node,
  deadline: Date.parse(input.deadline),
  cordon: { reason: input.reason, expectedUid: input.nodeUid },
  execution: executionOf(input),
  ...(input.chain !== undefined ? { chain: input.chain } : {}),
});
