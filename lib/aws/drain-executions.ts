// The deployed drain workflow's executions as an operator reads them (`ec2-node-reconciler drains`):
// which ran lately (ListExecutions), what each was started with and how it ended (DescribeExecution),
// and what its last drain step said (GetExecutionHistory: the execution's output has no summary, and
// a running one has no output at all, but every drain step's result is in its history).
import type { HistoryEvent, SFNClient } from '@aws-sdk/client-sfn';
import {
  DrainStepOutputSchema,
  DrainWorkflowInputSchema,
  type DrainStepOutput,
  type DrainWorkflowInput,
} from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import { errorText } from '@ec2-node-reconciler/model/error-text.js';
import type { LazyClient } from './clients.js';

/** `arn:…:stateMachine:<machine>` → `arn:…:execution:<machine>:<name>`. */
export const drainExecutionArn = (stateMachineArn: string, name: string): string =>
  `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;

/** What the last drain step of an execution reported, and when. */
export type LastDrainStep = Pick<DrainStepOutput, 'outcome' | 'deadline' | 'summary'> & { readonly at: number };

export interface DrainExecution {
  readonly name: string;
  /** Step Functions' status: RUNNING, SUCCEEDED, FAILED, TIMED_OUT, ABORTED, PENDING_REDRIVE. */
  readonly status: string;
  readonly startedAt: number;
  readonly stoppedAt?: number;
  /** What the execution was started with; absent when it is not a drain workflow input. */
  readonly input?: DrainWorkflowInput;
  /** Why a failed, timed-out or aborted execution ended (`DrainIncomplete`, …). */
  readonly error?: string;
  readonly cause?: string;
  /** Absent when no drain step has succeeded yet. */
  readonly lastStep?: LastDrainStep;
}

/** What Step Functions answered about one execution: never a guess when asking failed. */
export type DrainExecutionAnswer =
  | { readonly kind: 'found'; readonly execution: DrainExecution }
  | { readonly kind: 'absent' }
  | { readonly kind: 'error'; readonly error: string };

/** Questions asked at once at most (DescribeExecution and GetExecutionHistory are throttled per account). */
const CONCURRENCY = 5;
/** History events read per page, newest first: a drain's last step is among its last few dozen events. */
const HISTORY_PAGE = 100;
/** Pages of history read at most before giving up on finding a step (a step failing for a long time). */
const HISTORY_PAGES = 5;

const epoch = (date: Date | undefined): number | undefined => date?.getTime();

function parsedJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The drain step's output in a `lambda:invoke` task result (`{ Payload: DrainStepOutput, … }`), if it is one. */
export function drainStepOf(event: HistoryEvent): LastDrainStep | undefined {
  const details = event.taskSucceededEventDetails;
  if (event.type !== 'TaskSucceeded' || details?.resourceType !== 'lambda' || details.resource !== 'invoke')
    return undefined;
  const result = parsedJson(details.output);
  const payload = typeof result === 'object' && result !== null && 'Payload' in result ? result.Payload : undefined;
  const step = DrainStepOutputSchema.safeParse(payload);
  if (!step.success) return undefined;
  const { outcome, deadline, summary } = step.data;
  return { outcome, deadline, summary, at: epoch(event.timestamp) ?? 0 };
}

/** Reads the drain workflow's executions (the stack output DrainStateMachineArn). */
export class DrainExecutions {
  constructor(
    private readonly sfn: LazyClient<SFNClient>,
    private readonly stateMachineArn: string,
  ) {}

  /**
   * The executions running now (however long ago they started) and those started since `since`,
   * by name, most recent first. ListExecutions lists the most recent first, so paging stops at the
   * first one started before `since`.
   */
  async recent(since: number): Promise<string[]> {
    const [sfn, { ListExecutionsCommand }] = await Promise.all([this.sfn(), import('@aws-sdk/client-sfn')]);
    const list = async (running: boolean): Promise<string[]> => {
      const names: string[] = [];
      let nextToken: string | undefined;
      do {
        const page = await sfn.send(
          new ListExecutionsCommand({
            stateMachineArn: this.stateMachineArn,
            ...(running ? { statusFilter: 'RUNNING' } : {}),
            ...(nextToken !== undefined ? { nextToken } : {}),
          }),
        );
        for (const execution of page.executions ?? []) {
          if (!running && (epoch(execution.startDate) ?? 0) < since) return names;
          names.push(execution.name ?? '');
        }
        nextToken = page.nextToken;
      } while (nextToken !== undefined);
      return names;
    };
    try {
      const [running, lately] = await Promise.all([list(true), list(false)]);
      return [...new Set([...running, ...lately])].filter((name) => name !== '');
    } catch (error) {
      throw new Error(`listing the executions of ${this.stateMachineArn}`, { cause: error });
    }
  }

  /** Each execution as DescribeExecution and its history tell it; a failed question is an `error` answer. */
  async read(names: readonly string[]): Promise<Map<string, DrainExecutionAnswer>> {
    const out = new Map<string, DrainExecutionAnswer>();
    const queue = [...new Set(names)];
    if (queue.length === 0) return out;
    const ask = async (): Promise<void> => {
      for (let name = queue.shift(); name !== undefined; name = queue.shift()) out.set(name, await this.readOne(name));
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, queue.length) }, ask));
    return out;
  }

  private async readOne(name: string): Promise<DrainExecutionAnswer> {
    const [sfn, { DescribeExecutionCommand, ExecutionDoesNotExist }] = await Promise.all([
      this.sfn(),
      import('@aws-sdk/client-sfn'),
    ]);
    const executionArn = drainExecutionArn(this.stateMachineArn, name);
    try {
      const [described, lastStep] = await Promise.all([
        sfn.send(new DescribeExecutionCommand({ executionArn })),
        this.lastStep(executionArn),
      ]);
      const input = DrainWorkflowInputSchema.safeParse(parsedJson(described.input));
      const stoppedAt = epoch(described.stopDate);
      return {
        kind: 'found',
        execution: {
          name,
          status: described.status ?? 'UNKNOWN',
          startedAt: epoch(described.startDate) ?? 0,
          ...(stoppedAt !== undefined ? { stoppedAt } : {}),
          ...(input.success ? { input: input.data } : {}),
          ...(described.error !== undefined ? { error: described.error } : {}),
          ...(described.cause !== undefined ? { cause: described.cause } : {}),
          ...(lastStep ? { lastStep } : {}),
        },
      };
    } catch (error) {
      if (error instanceof ExecutionDoesNotExist) return { kind: 'absent' };
      return { kind: 'error', error: errorText(error) };
    }
  }

  /** The last drain step's output, reading the history newest first. */
  private async lastStep(executionArn: string): Promise<LastDrainStep | undefined> {
    const [sfn, { GetExecutionHistoryCommand }] = await Promise.all([this.sfn(), import('@aws-sdk/client-sfn')]);
    let nextToken: string | undefined;
    for (let page = 0; page < HISTORY_PAGES; page++) {
      const answer = await sfn.send(
        new GetExecutionHistoryCommand({
          executionArn,
          reverseOrder: true,
          maxResults: HISTORY_PAGE,
          ...(nextToken !== undefined ? { nextToken } : {}),
        }),
      );
      for (const event of answer.events ?? []) {
        const step = drainStepOf(event);
        if (step) return step;
      }
      nextToken = answer.nextToken;
      if (nextToken === undefined) return undefined;
    }
    return undefined;
  }
}
