// The drain workflow, locally: the same drainStep the Step Functions task runs, looped on the
// sandbox's virtual clock, completing the ASG lifecycle action and publishing the output event at
// the end exactly as the state machine does.
import type { AutoScalingAdapter } from '../../aws/autoscaling.js';
import type { DrainLauncher, LaunchOutcome } from '../../aws/drain-launcher.js';
import type { OutputEventPublisher } from '../../aws/output-events.js';
import type { DrainDeps, DrainStepResult } from '../../drain/step.js';
import { drainStep } from '../../drain/step.js';
import type { VirtualClock } from '../../model/clock.js';
import type { DrainExecutionState } from '../../model/observation.js';
import { errorText } from '../../pipeline/errors.js';
import { drainExecutionName, type DrainWorkflowInput } from '../../workflow/contract.js';

/** A Lambda invocation's budget for one step. */
const STEP_BUDGET_MS = 60_000;

export interface DrainRun {
  readonly name: string;
  readonly input: DrainWorkflowInput;
  /** When the execution was started. */
  readonly launchedAt: number;
  status: 'running' | 'drained' | 'deadline' | 'node-gone' | 'failed';
  nextStepAt: number;
  state: unknown;
  steps: number;
  last?: DrainStepResult;
  error?: string;
  finishedAt?: number;
}

export interface LocalDrainDeps {
  readonly clock: VirtualClock;
  readonly drainDeps: () => Promise<DrainDeps>;
  readonly autoScaling: Pick<AutoScalingAdapter, 'completeLifecycleAction'>;
  readonly output?: Pick<OutputEventPublisher, 'publish'>;
  readonly onFinish?: (run: DrainRun) => void;
  /** What the rest of the cluster does between two steps (the workload controllers replacing evicted pods). */
  readonly beforeStep?: () => void;
}

export class LocalDrains implements DrainLauncher {
  readonly runs = new Map<string, DrainRun>();

  constructor(private readonly deps: LocalDrainDeps) {}

  launch(input: DrainWorkflowInput): Promise<LaunchOutcome> {
    const name = drainExecutionName(input.cluster, input.instanceId ?? input.node, input.cause);
    if (this.runs.has(name)) return Promise.resolve('already-running');
    const now = this.deps.clock.now();
    this.runs.set(name, { name, input, launchedAt: now, status: 'running', nextStepAt: now, state: undefined, steps: 0 });
    return Promise.resolve('started');
  }

  status(executions: readonly string[]): Promise<Map<string, DrainExecutionState>> {
    const out = new Map<string, DrainExecutionState>();
    for (const name of executions) {
      const run = this.runs.get(name);
      out.set(name, { status: run === undefined ? 'absent' : run.status === 'running' ? 'running' : 'ended' });
    }
    return Promise.resolve(out);
  }

  pending(): DrainRun[] {
    return [...this.runs.values()].filter((r) => r.status === 'running');
  }

  /** Steps every drain due before `until`, in time order, then leaves the clock at `until`. */
  async runUntil(until: number): Promise<void> {
    for (;;) {
      const next = this.pending().sort((a, b) => a.nextStepAt - b.nextStepAt)[0];
      if (!next || next.nextStepAt > until) break;
      if (next.nextStepAt > this.deps.clock.now()) this.deps.clock.set(next.nextStepAt);
      await this.step(next, Math.min(this.budgetFor(next), Math.max(0, until - this.deps.clock.now())));
    }
    if (until > this.deps.clock.now()) this.deps.clock.set(until);
  }

  /** Runs every pending drain to its end (done, node gone, or past its deadline). */
  async settle(): Promise<void> {
    for (let guard = 0; guard < 100_000; guard++) {
      const next = this.pending().sort((a, b) => a.nextStepAt - b.nextStepAt)[0];
      if (!next) return;
      if (next.nextStepAt > this.deps.clock.now()) this.deps.clock.set(next.nextStepAt);
      await this.step(next, this.budgetFor(next));
    }
    throw new Error('settling drains: no end after 100,000 steps');
  }

  /**
   * A step's budget on the shared virtual clock. Real drains run side by side; here they take turns,
   * and a step's waits move the one clock: a step must hand over when another drain is due, or that
   * drain would start late (a spot drain past its two-minute deadline, for one).
   */
  private budgetFor(run: DrainRun): number {
    const others = this.pending().filter((r) => r !== run);
    const nextOther = others.length > 0 ? Math.min(...others.map((r) => r.nextStepAt)) : Infinity;
    return Math.min(STEP_BUDGET_MS, Math.max(0, nextOther - this.deps.clock.now()));
  }

  private async step(run: DrainRun, budgetMs: number): Promise<void> {
    const { input } = run;
    run.steps += 1;
    this.deps.beforeStep?.();
    try {
      const result = await drainStep(
        await this.deps.drainDeps(),
        { node: input.node, deadline: Date.parse(input.deadline), cordon: { reason: input.reason, expectedUid: input.nodeUid } },
        run.state,
        budgetMs,
      );
      run.last = result;
      run.state = result.state;
      if (result.status === 'in-progress') {
        run.nextStepAt = this.deps.clock.now() + Math.max(1_000, result.nextCheckAfterMs);
        return;
      }
      run.status = result.status;
    } catch (error) {
      run.status = 'failed';
      run.error = errorText(error);
    }
    await this.finish(run);
  }

  /** What the state machine does after its loop: complete the lifecycle action, publish the outcome. */
  private async finish(run: DrainRun): Promise<void> {
    run.finishedAt = this.deps.clock.now();
    const { input } = run;
    if (input.lifecycle && input.instanceId && run.status !== 'failed') {
      try {
        await this.deps.autoScaling.completeLifecycleAction(input.instanceId, input.lifecycle, 'CONTINUE');
      } catch (error) {
        run.error = `completing the lifecycle action: ${errorText(error)}`;
      }
    }
    const drained = run.status === 'drained' || run.status === 'node-gone';
    await this.deps.output
      ?.publish([
        {
          detailType: drained ? 'Node Drained' : 'Drain Failed',
          detail: { cluster: input.cluster, node: input.node, instanceId: input.instanceId, status: run.status, counts: run.last?.counts, error: run.error },
        },
      ])
      .catch((error: unknown) => {
        run.error ??= `publishing the drain outcome: ${errorText(error)}`;
      });
    this.deps.onFinish?.(run);
  }
}
