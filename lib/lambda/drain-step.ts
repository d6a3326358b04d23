import { drainRequestOf, stepOutput } from '../drain/step-output.js';
import { drainStep, type DrainDeps } from '../drain/step.js';
import { describeIssues } from '../model/zod-issues.js';
import { DrainStepInputSchema, type DrainStepOutput } from '../workflow/contract.js';

/** Time kept back from the invocation for returning the state. */
export const STEP_MARGIN_MS = 10_000;

/** One bounded drain step for the workflow: validates the payload, steps, maps to the contract. */
export async function runDrainStep(payload: unknown, deps: DrainDeps, remainingMs: number): Promise<DrainStepOutput> {
  const parsed = DrainStepInputSchema.safeParse(payload);
  if (!parsed.success) {
    throw new Error(`invalid drain step input: ${describeIssues(parsed.error)}`);
  }
  const { input, state } = parsed.data;
  const result = await drainStep(deps, drainRequestOf(input), state, Math.max(1_000, remainingMs - STEP_MARGIN_MS));
  return stepOutput(result, input);
}
