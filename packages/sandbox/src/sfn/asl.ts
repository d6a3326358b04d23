// The Amazon States Language subset the interpreter runs: JSONata query mode, states Task, Pass,
// Choice, Wait, Succeed and Fail, with Arguments/Output/Assign, Retry and Catch. Read with zod so
// an unsupported feature (JSONPath fields, Parallel, Map, callbacks) is refused when the definition
// is loaded, naming the state, rather than mis-run.
import * as z from 'zod';

/** A JSONata template: any JSON value; strings `{% … %}` are expressions. */
const Template = z.unknown();

const ErrorEquals = z.array(z.string()).min(1);

const RetrierSchema = z
  .object({
    ErrorEquals,
    IntervalSeconds: z.number().int().min(1).default(1),
    MaxAttempts: z.number().int().min(0).default(3),
    BackoffRate: z.number().min(1).default(2),
    MaxDelaySeconds: z.number().int().min(1).optional(),
    JitterStrategy: z.enum(['FULL', 'NONE']).default('NONE'),
    Comment: z.string().optional(),
  })
  .strict();

const CatcherSchema = z
  .object({
    ErrorEquals,
    Next: z.string(),
    Assign: z.record(z.string(), Template).optional(),
    Output: Template.optional(),
    Comment: z.string().optional(),
  })
  .strict();

const common = {
  Comment: z.string().optional(),
  QueryLanguage: z.literal('JSONata').optional(),
  Assign: z.record(z.string(), Template).optional(),
  Output: Template.optional(),
};
const transition = { Next: z.string().optional(), End: z.literal(true).optional() };

const TaskSchema = z
  .object({
    Type: z.literal('Task'),
    Resource: z.string(),
    Arguments: Template.optional(),
    Retry: z.array(RetrierSchema).optional(),
    Catch: z.array(CatcherSchema).optional(),
    TimeoutSeconds: z.union([z.number().int().min(1), z.string()]).optional(),
    ...common,
    ...transition,
  })
  .strict();

const PassSchema = z.object({ Type: z.literal('Pass'), ...common, ...transition }).strict();

const ChoiceRuleSchema = z
  .object({
    Condition: z.union([z.string(), z.boolean()]),
    Next: z.string(),
    Assign: z.record(z.string(), Template).optional(),
    Output: Template.optional(),
    Comment: z.string().optional(),
  })
  .strict();

const ChoiceSchema = z
  .object({
    Type: z.literal('Choice'),
    Choices: z.array(ChoiceRuleSchema).min(1),
    Default: z.string().optional(),
    ...common,
  })
  .strict();

const WaitSchema = z
  .object({
    Type: z.literal('Wait'),
    Seconds: z.union([z.number().int().min(0), z.string()]).optional(),
    Timestamp: z.string().optional(),
    ...common,
    ...transition,
  })
  .strict()
  .refine(
    (s) => (s.Seconds === undefined) !== (s.Timestamp === undefined),
    'a JSONata Wait needs exactly one of Seconds and Timestamp',
  );

const SucceedSchema = z
  .object({
    Type: z.literal('Succeed'),
    Comment: z.string().optional(),
    QueryLanguage: z.literal('JSONata').optional(),
    Output: Template.optional(),
  })
  .strict();

const FailSchema = z
  .object({
    Type: z.literal('Fail'),
    Comment: z.string().optional(),
    QueryLanguage: z.literal('JSONata').optional(),
    Error: z.string().optional(),
    Cause: z.string().optional(),
  })
  .strict();

export const StateSchema = z.union([TaskSchema, PassSchema, ChoiceSchema, WaitSchema, SucceedSchema, FailSchema]);

export const DefinitionSchema = z
  .object({
    Comment: z.string().optional(),
    StartAt: z.string(),
    States: z.record(z.string(), z.unknown()),
    QueryLanguage: z.literal('JSONata', { message: 'only JSONata definitions are emulated (QueryLanguage: JSONata)' }),
    TimeoutSeconds: z.number().int().min(1).optional(),
    Version: z.string().optional(),
  })
  .strict();

export type Retrier = z.output<typeof RetrierSchema>;
export type Catcher = z.output<typeof CatcherSchema>;
export type TaskState = z.output<typeof TaskSchema>;
export type PassState = z.output<typeof PassSchema>;
export type ChoiceState = z.output<typeof ChoiceSchema>;
export type WaitState = z.output<typeof WaitSchema>;
export type SucceedState = z.output<typeof SucceedSchema>;
export type FailState = z.output<typeof FailSchema>;
export type State = z.output<typeof StateSchema>;

export interface Definition {
  readonly startAt: string;
  readonly states: ReadonlyMap<string, State>;
  readonly timeoutSeconds?: number;
}

const issuesOf = (error: z.ZodError): string =>
  error.issues.map((i) => `${i.path.join('.') || '(state)'}: ${i.message}`).join('; ');

/** Reads a definition, refusing what the interpreter does not run and transitions to unknown states. */
export function parseDefinition(definition: unknown): Definition {
  const parsed = DefinitionSchema.safeParse(definition);
  if (!parsed.success) throw new Error(`reading the state machine definition: ${issuesOf(parsed.error)}`);
  const states = new Map<string, State>();
  for (const [name, raw] of Object.entries(parsed.data.States)) {
    const type = typeof raw === 'object' && raw !== null && 'Type' in raw ? String(raw.Type) : '(none)';
    if (!['Task', 'Pass', 'Choice', 'Wait', 'Succeed', 'Fail'].includes(type)) {
      throw new Error(
        `reading state ${JSON.stringify(name)}: ${type} states are not emulated (Task, Pass, Choice, Wait, Succeed, Fail are)`,
      );
    }
    const state = StateSchema.safeParse(raw);
    if (!state.success) throw new Error(`reading state ${JSON.stringify(name)}: ${issuesOf(state.error)}`);
    states.set(name, state.data);
  }
  const known = (target: string | undefined, from: string) => {
    if (target !== undefined && !states.has(target))
      throw new Error(
        `reading state ${JSON.stringify(from)}: it goes to ${JSON.stringify(target)}, which does not exist`,
      );
  };
  known(parsed.data.StartAt, '(StartAt)');
  for (const [name, state] of states) {
    if (state.Type === 'Choice') {
      state.Choices.forEach((c) => known(c.Next, name));
      known(state.Default, name);
      continue;
    }
    if (state.Type === 'Succeed' || state.Type === 'Fail') continue;
    if ((state.Next === undefined) === (state.End === undefined))
      throw new Error(`reading state ${JSON.stringify(name)}: it needs exactly one of Next and End`);
    known(state.Next, name);
    if (state.Type === 'Task') state.Catch?.forEach((c) => known(c.Next, name));
  }
  return { startAt: parsed.data.StartAt, states, timeoutSeconds: parsed.data.TimeoutSeconds };
}
