// What each drain did, read the way an operator would: the workflow execution's history (its
// drain-step results) and the outcome event it published.
import { DrainStepOutputSchema, type DrainStepOutput } from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import type { Sandbox } from './sandbox.js';

/** What became of the drain's lifecycle action; `completeWith` when it was left open or completing it failed. */
export interface LifecycleOutcome {
  readonly group: string;
  readonly hook: string;
  readonly completed: boolean;
  readonly completeWith?: string;
}

export interface DrainRecord {
  readonly node: string;
  readonly instanceId?: string;
  /** `drained`, the workflow's other outcomes (`deadline`, `incomplete`, `node-gone`, …, `error`), `running`, or `failed` (the execution failed without an outcome). */
  readonly status: string;
  readonly startedAt: number;
  readonly finishedAt?: number;
  /** Drain-step invocations. */
  readonly steps: number;
  /** Pods this drain evicted (or deleted), terminating ones included. */
  readonly evicted: number;
  /** Of those, still terminating when the drain ended. */
  readonly terminating: number;
  /** Pods left on the node that the drain had to remove: refused, blocked, not yet evicted. */
  readonly left: number;
  /** The pods left, by reason code. */
  readonly leftByReason: Readonly<Record<string, number>>;
  /** Pods left that waiting could not help, with why (the summary's examples). */
  readonly blocked: readonly string[];
  /** Pods evicted with a grace period shortened to fit the deadline: `namespace/name 300s→115s`. */
  readonly graceShortened: readonly string[];
  readonly lifecycle?: LifecycleOutcome;
  readonly error?: string;
  /** The execution's name. */
  readonly execution: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const WAITING = new Set(['pending', 'waiting']);

function lastStepOutput(history: readonly { readonly type: string; readonly output?: unknown }[]): {
  steps: number;
  last?: DrainStepOutput;
} {
  let steps = 0;
  let last: DrainStepOutput | undefined;
  for (const event of history) {
    if (event.type !== 'TaskSucceeded' || !isRecord(event.output)) continue;
    const parsed = DrainStepOutputSchema.safeParse(event.output.Payload);
    if (!parsed.success) continue;
    steps += 1;
    last = parsed.data;
  }
  return last ? { steps, last } : { steps };
}

function lifecycleOf(value: unknown): LifecycleOutcome | undefined {
  if (!isRecord(value) || typeof value.group !== 'string' || typeof value.hook !== 'string') return undefined;
  return {
    group: value.group,
    hook: value.hook,
    completed: value.completed === true,
    ...(typeof value.completeWith === 'string' ? { completeWith: value.completeWith } : {}),
  };
}

function errorOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (isRecord(value))
    return [value.Error, value.Cause].filter((part) => typeof part === 'string').join(': ') || JSON.stringify(value);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function drainRecords(sandbox: Sandbox): DrainRecord[] {
  const published = sandbox.aws.state.eventBus.events;
  return [...sandbox.stepFunctions.executions.values()].map(({ record, execution, result }) => {
    const input = isRecord(JSON.parse(record.input)) ? (JSON.parse(record.input) as Record<string, unknown>) : {};
    const { steps, last } = lastStepOutput(execution.history);
    const outcomeEvent = published.find((e) => e.detail.execution === record.arn);
    const outcome = typeof outcomeEvent?.detail.outcome === 'string' ? outcomeEvent.detail.outcome : undefined;
    const status =
      outcome === 'done' ? 'drained' : (outcome ?? (execution.status === 'RUNNING' ? 'running' : 'failed'));
    const summary = last?.summary;
    const lifecycle = lifecycleOf(outcomeEvent?.detail.lifecycle);
    const error =
      errorOf(outcomeEvent?.detail.error) ??
      (result && result.status !== 'SUCCEEDED' && !outcomeEvent
        ? [result.error, result.cause].filter(Boolean).join(': ')
        : undefined);
    return {
      node: typeof input.node === 'string' ? input.node : '',
      ...(typeof input.instanceId === 'string' ? { instanceId: input.instanceId } : {}),
      status,
      startedAt: record.startDate,
      ...(record.stopDate !== undefined ? { finishedAt: record.stopDate } : {}),
      steps,
      evicted: summary?.evicted ?? 0,
      terminating: summary?.terminating ?? 0,
      left: summary?.left ?? 0,
      leftByReason: summary?.leftByReason ?? {},
      blocked: (summary?.examples ?? [])
        .filter((e) => !WAITING.has(e.reason))
        .map((e) => `${e.pod}: ${e.reason}${e.pdb ? ` (${e.pdb})` : ''}`),
      graceShortened: (summary?.graceShortened.examples ?? []).map(
        (e) => `${e.pod} ${e.podSeconds !== undefined ? `${e.podSeconds}s` : ''}→${e.seconds}s`,
      ),
      ...(lifecycle ? { lifecycle } : {}),
      ...(error ? { error } : {}),
      execution: record.name,
    };
  });
}
