import * as z from 'zod';
import type { Signal, SignalKind } from '@ec2-node-reconciler/model/signal.js';
import { SIGNAL_REJECTION_NAME } from '@ec2-node-reconciler/model/contract/function-logs.js';

/** The envelope fields worth logging with every outcome, rejections included. */
export interface EventHeader {
  readonly id: string;
  readonly source: string;
  readonly detailType: string;
  readonly time: string;
  readonly account: string;
  readonly region: string;
}

/**
 * What one event kind made of a valid event: signals (with the parts it skipped and why), or
 * nothing, with the reason. A conversion never drops anything without saying so.
 */
export type Conversion =
  | { readonly outcome: 'signals'; readonly signals: readonly Signal[]; readonly skipped: readonly string[] }
  | { readonly outcome: 'ignored'; readonly reason: string };

/** The envelope every module's schema guarantees, so the registry can build the header from parsed data. */
export interface Envelope {
  readonly id: string;
  readonly source: string;
  readonly 'detail-type': string;
  readonly time: string;
  readonly account: string;
  readonly region: string;
}

/**
 * Which Auto Scaling groups and lifecycle hooks are the cluster's: a deploy-time choice that
 * narrows the rules of the kinds Auto Scaling sends.
 */
export interface RuleScope {
  /** Only these Auto Scaling groups' events; every group when absent. */
  readonly autoScalingGroupNames?: readonly string[];
  /** Only these lifecycle hooks' actions; every terminate hook when absent. */
  readonly lifecycleHookNames?: readonly string[];
}

/** The scope's groups as a `detail` filter of the Auto Scaling kinds; empty (every group) when unscoped. */
export function autoScalingGroupFilter(scope: RuleScope): ContentFilter {
  return scope.autoScalingGroupNames ? { AutoScalingGroupName: [...scope.autoScalingGroupNames] } : {};
}

/** One value test of an EventBridge pattern: a literal, or an operator such as `{ exists: true }`. */
export type Matcher = string | number | boolean | null | { readonly [operator: string]: unknown };

/**
 * An EventBridge content filter as the rule stores it (field → matchers, or a nested filter).
 * Plain JSON, so that lib/ does not load aws-cdk-lib to say what its rules match.
 */
export interface ContentFilter {
  readonly [field: string]: readonly Matcher[] | ContentFilter;
}

/** What the EventBridge rule of a kind adds to its (source, detail-type). */
export interface SignalRule {
  /** What the signal means for a node; the rule's description. */
  readonly description: string;
  /**
   * The rule's `detail` filter, for events the module would only ignore (they then cost no
   * invocation); undefined lets every event of the kind through.
   */
  detail(scope: RuleScope): ContentFilter | undefined;
}

/**
 * One EventBridge event kind (STYLE: one module per kind, a registry routes by the key), built by
 * defineSignal so that its (source, detail-type) is written once: the schema, the routing and the
 * EventBridge rule all read it from here.
 * `toSignals` is declared as a method so that a module typed by its own schema still fits the
 * registry's `SignalModule`; the registry only ever feeds it the output of the same module's schema.
 */
export interface SignalModule<K extends SignalKind = SignalKind, S extends z.ZodType<Envelope> = z.ZodType<Envelope>> {
  readonly kind: K;
  readonly source: string;
  readonly detailType: string;
  readonly schema: S;
  readonly rule: SignalRule;
  toSignals(event: z.output<S>): Conversion;
}

/**
 * A poison message: the event cannot be trusted or understood. The message starts with the
 * offending field path (`detail.instance-id: must be an EC2 instance id …`) so that the log
 * line alone tells an operator what to look at.
 */
export class SignalRejection extends Error {
  override readonly name = SIGNAL_REJECTION_NAME;

  constructor(
    /** Path of the offending field, `detail.affectedEntities[1].entityValue`, or `(event)` for the whole event. */
    readonly field: string,
    readonly problem: string,
    /** The envelope fields that could be read, for correlating the rejection with the event. */
    readonly header: Partial<EventHeader> = {},
    /** Further offending fields beyond the first. */
    readonly others: readonly { readonly field: string; readonly problem: string }[] = [],
  ) {
    const more = others.length > 0 ? ` (also: ${others.map((o) => o.field).join(', ')})` : '';
    super(`${field}: ${problem}${more}`);
  }
}

/** Signals out; an empty list becomes an explicit `ignored` carrying the skip reasons. */
export function emit(signals: readonly Signal[], skipped: readonly string[] = []): Conversion {
  if (signals.length === 0) {
    return { outcome: 'ignored', reason: skipped.length > 0 ? skipped.join('; ') : 'the event names no instance' };
  }
  return { outcome: 'signals', signals, skipped };
}

export function ignore(reason: string): Conversion {
  return { outcome: 'ignored', reason };
}

/**
 * EventBridge ids are UUIDs. The id becomes a correlation id in logs and part of a workflow
 * execution name, so anything outside a plain token is refused rather than passed along.
 */
const EventIdSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/, {
  message: 'must be an event id (letters, digits, - _ . :, at most 128)',
});

/**
 * The EventBridge envelope, field for field Powertools' `EventBridgeSchema`
 * (@aws-lambda-powertools/parser/schemas), spelled here because that module imports zod as
 * `{ z }`, which keeps every zod locale (a third of a bundle) in the functions.
 */
const EventBridgeSchema = z.object({
  version: z.string(),
  id: z.string(),
  source: z.string(),
  account: z.string(),
  time: z.iso.datetime(),
  region: z.string(),
  resources: z.array(z.string()),
  'detail-type': z.string(),
  detail: z.unknown(),
  'replay-name': z.string().optional(),
});

/** The envelope's `resources` unless a kind narrows it. */
const ResourcesSchema = EventBridgeSchema.shape.resources;
type AnyResources = typeof ResourcesSchema;

/** The EventBridge envelope, pinned to one (source, detail-type), with a typed `detail` (and `resources`). */
function eventSchema<
  const Source extends string,
  const DetailType extends string,
  Detail extends z.ZodType,
  Resources extends z.ZodType,
>(source: Source, detailType: DetailType, detail: Detail, resources: Resources) {
  return EventBridgeSchema.extend({
    id: EventIdSchema,
    source: z.literal(source),
    'detail-type': z.literal(detailType),
    detail,
    resources,
  });
}

type EventSchema<
  Source extends string,
  DetailType extends string,
  Detail extends z.ZodType,
  Resources extends z.ZodType,
> = ReturnType<typeof eventSchema<Source, DetailType, Detail, Resources>>;

/** Everything a kind says about itself; each key of it is written here and nowhere else. */
export interface SignalSpec<
  K extends SignalKind,
  Source extends string,
  DetailType extends string,
  Detail extends z.ZodType,
  Resources extends z.ZodType,
> {
  readonly kind: K;
  /** The event's `source` and `detail-type`: the routing key and the rule's own pattern. */
  readonly source: Source;
  readonly detailType: DetailType;
  /** The schema of `detail`. */
  readonly detail: Detail;
  /** The schema of `resources`, when the kind reads it; any list of strings otherwise. */
  readonly resources?: Resources;
  readonly rule: { readonly description: string; readonly detail?: (scope: RuleScope) => ContentFilter | undefined };
  toSignals(event: z.output<EventSchema<Source, DetailType, Detail, Resources>>): Conversion;
}

/**
 * A signal module from its spec: the schema is the EventBridge envelope pinned to the spec's
 * (source, detail-type), and the rule's pattern starts from the same pair.
 */
export function defineSignal<
  const K extends SignalKind,
  const Source extends string,
  const DetailType extends string,
  Detail extends z.ZodType,
>(
  spec: SignalSpec<K, Source, DetailType, Detail, AnyResources> & { readonly resources?: undefined },
): SignalModule<K, EventSchema<Source, DetailType, Detail, AnyResources>>;
export function defineSignal<
  const K extends SignalKind,
  const Source extends string,
  const DetailType extends string,
  Detail extends z.ZodType,
  Resources extends z.ZodType,
>(
  spec: SignalSpec<K, Source, DetailType, Detail, Resources> & { readonly resources: Resources },
): SignalModule<K, EventSchema<Source, DetailType, Detail, Resources>>;
export function defineSignal(
  spec: SignalSpec<SignalKind, string, string, z.ZodType, z.ZodType>,
): SignalModule<SignalKind, EventSchema<string, string, z.ZodType, z.ZodType>> {
  const { kind, source, detailType, rule } = spec;
  return {
    kind,
    source,
    detailType,
    schema: eventSchema(source, detailType, spec.detail, spec.resources ?? ResourcesSchema),
    rule: { description: rule.description, detail: (scope) => rule.detail?.(scope) },
    toSignals: (event) => spec.toSignals(event),
  };
}

/** The fields every signal takes from its envelope (an archive replay's name among them: docs/design.md §1c). */
export function fromEnvelope(event: { readonly id: string; readonly time: string; readonly 'replay-name'?: string }): {
  readonly eventId: string;
  readonly observedAt: number;
  readonly replayName?: string;
} {
  const replayName = event['replay-name'];
  return { eventId: event.id, observedAt: Date.parse(event.time), ...(replayName !== undefined ? { replayName } : {}) };
}

export function isoTime(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

/** A timestamp field in ISO 8601 (`yyyy-mm-ddThh:mm:ssZ`), to epoch ms; z.iso.datetime() also refuses impossible dates. */
export const IsoTimeSchema = z.iso
  .datetime({ message: 'must be an ISO 8601 UTC time such as 2026-01-01T00:00:00Z' })
  .transform((s) => Date.parse(s));

/** `detail.affectedEntities[1].entityValue` from zod's `['detail', 'affectedEntities', 1, 'entityValue']`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(event)' : out;
}

const withArticle = (noun: string): string => `${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun}`;

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  return withArticle(Array.isArray(value) ? 'array' : typeof value);
}

/** A bounded, escaped echo of an offending value: enough to recognise it, never a log injection. */
export function preview(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  const cut = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  return JSON.stringify(cut);
}

/**
 * Wording for zod's generic issues, so a rejection reads as a field and a fix
 * (`detail.state: must be one of "pending", …`). Messages a schema sets itself win over these.
 */
const describeIssue: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `must be ${withArticle(issue.expected)}, not ${kindOf(issue.input)}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_union':
      if (issue.discriminator !== undefined && Array.isArray(issue.options)) {
        return `must be one of ${issue.options.map((v: unknown) => JSON.stringify(v)).join(', ')}`;
      }
      return undefined;
    case 'too_big':
      if (issue.origin === 'string') return `must be at most ${issue.maximum} characters long`;
      return issue.origin === 'array' ? `must hold at most ${issue.maximum} item(s)` : undefined;
    case 'too_small':
      if (issue.origin === 'string') {
        return issue.exact
          ? `must be exactly ${issue.minimum} characters long`
          : `must be at least ${issue.minimum} characters long`;
      }
      return issue.origin === 'array' ? `must hold at least ${issue.minimum} item(s)` : undefined;
    // Their schemas set their own wording (instance ids, times, ARNs), or zod's default reads well enough.
    case 'invalid_format':
    case 'custom':
    case 'invalid_element':
    case 'invalid_key':
    case 'not_multiple_of':
    case 'unrecognized_keys':
      return undefined;
  }
};

/** Parse options every schema in lib/signals is run with (nested parses too, so wording stays the same). */
export const PARSE_PARAMS = { error: describeIssue, reportInput: true } as const;

/** A zod failure as a SignalRejection naming the first offending field (and listing the others). */
export function rejectionFrom(error: z.ZodError, header: Partial<EventHeader>): SignalRejection {
  const described = error.issues.map((issue) => {
    const echo = issue.code === 'invalid_format' || issue.code === 'custom' || issue.code === 'too_big';
    const got = echo && issue.input !== undefined ? `, got ${preview(issue.input)}` : '';
    return { field: formatPath(issue.path), problem: `${issue.message}${got}` };
  });
  const [first, ...others] = described;
  if (first === undefined) return new SignalRejection('(event)', 'failed validation', header);
  return new SignalRejection(first.field, first.problem, header, others);
}
