/**
 * The signal registry (docs/design.md §2): routes an EventBridge event by (source, detail-type) to the
 * module of its kind, and is the list infra/signal-rules.ts makes one EventBridge rule per entry
 * of. Adding a kind is one module (defineSignal) and one line in SIGNAL_MODULES.
 */
import type { Signal, SignalKind } from '@ec2-node-reconciler/model/signal.js';
import { asgTerminateLifecycleAction } from './asg-terminate-lifecycle-action.js';
import { asgTerminateSuccessful } from './asg-terminate-successful.js';
import { capacityReservationInterruption } from './capacity-reservation-interruption.js';
import { decommissionTag } from './decommission-tag.js';
import { rebalanceRecommendation } from './rebalance-recommendation.js';
import { scheduledChange } from './scheduled-change.js';
import {
  PARSE_PARAMS,
  preview,
  rejectionFrom,
  SignalRejection,
  type EventHeader,
  type SignalModule,
} from './signal-module.js';
import { spotInterruption } from './spot-interruption.js';
import { stateChange } from './state-change.js';

export {
  SignalRejection,
  type ContentFilter,
  type Conversion,
  type EventHeader,
  type RuleScope,
  type SignalModule,
} from './signal-module.js';

/** Every kind has exactly one module, filed under its own kind: the table fails to compile when a SignalKind is left out or misfiled. */
export const SIGNAL_MODULES = {
  'spot-interruption': spotInterruption,
  'rebalance-recommendation': rebalanceRecommendation,
  'state-change': stateChange,
  'capacity-reservation-interruption': capacityReservationInterruption,
  'asg-terminate-lifecycle-action': asgTerminateLifecycleAction,
  'asg-terminate-successful': asgTerminateSuccessful,
  'scheduled-change': scheduledChange,
  'decommission-tag': decommissionTag,
} as const satisfies { readonly [K in SignalKind]: SignalModule<K> };

/**
 * - `signals`: act on these (`skipped` lists parts of the event left out, with why).
 * - `ignored`: a valid event that asks for nothing (e.g. state `running`), with why.
 * A poison message is neither: parseEvent throws a SignalRejection.
 */
export type ParseOutcome =
  | {
      readonly outcome: 'signals';
      readonly signals: readonly Signal[];
      readonly skipped: readonly string[];
      readonly header: EventHeader;
    }
  | { readonly outcome: 'ignored'; readonly reason: string; readonly header: EventHeader };

const routeKey = (source: string, detailType: string): string => JSON.stringify([source, detailType]);

const ROUTES: ReadonlyMap<string, SignalModule> = (() => {
  const routes = new Map<string, SignalModule>();
  for (const module of Object.values<SignalModule>(SIGNAL_MODULES)) {
    const key = routeKey(module.source, module.detailType);
    const taken = routes.get(key);
    if (taken) throw new Error(`signal kinds ${taken.kind} and ${module.kind} share ${key}`);
    routes.set(key, module);
  }
  return routes;
})();

/** The kind an event's (source, detail-type) routes to; undefined for a pair no kind owns (parseEvent rejects those). */
export function signalKindOf(source: string, detailType: string): SignalKind | undefined {
  return ROUTES.get(routeKey(source, detailType))?.kind;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The envelope fields that are readable strings, for a rejection to carry even when the rest is broken. */
function readableHeader(event: Record<string, unknown>): Partial<EventHeader> {
  const text = (key: string): string | undefined => {
    const value = event[key];
    return typeof value === 'string' ? value.slice(0, 256) : undefined;
  };
  const entries = {
    id: text('id'),
    source: text('source'),
    detailType: text('detail-type'),
    time: text('time'),
    account: text('account'),
    region: text('region'),
  };
  return Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined));
}

/**
 * Turns one EventBridge event into signals, or says why it asks for nothing. Throws
 * SignalRejection, and nothing else, for events that cannot be trusted: an unknown
 * (source, detail-type), a missing or malformed field, an instance id that is not one.
 */
export function parseEvent(event: unknown): ParseOutcome {
  if (!isRecord(event)) throw new SignalRejection('(event)', `must be a JSON object, not ${preview(event)}`);
  const partial = readableHeader(event);

  const { source, 'detail-type': detailType } = event;
  if (typeof source !== 'string' || typeof detailType !== 'string') {
    // Auto Scaling notification targets (SQS/SNS) send bare messages with `Event`; they must come through EventBridge.
    const hint =
      'Event' in event
        ? ' (an Auto Scaling notification sent straight to the queue? route it through EventBridge)'
        : '';
    const field = typeof source !== 'string' ? 'source' : 'detail-type';
    throw new SignalRejection(field, `must be a string${hint}`, partial);
  }
  const signalModule = ROUTES.get(routeKey(source, detailType));
  if (!signalModule) {
    throw new SignalRejection(
      'source/detail-type',
      `no signal kind for ${preview(source)} / ${preview(detailType)}`,
      partial,
    );
  }

  const parsed = signalModule.schema.safeParse(event, PARSE_PARAMS);
  if (!parsed.success) throw rejectionFrom(parsed.error, partial);

  const { id, time, account, region } = parsed.data;
  const header: EventHeader = { id, source, detailType, time, account, region };
  const conversion = signalModule.toSignals(parsed.data);
  return conversion.outcome === 'signals'
    ? { outcome: 'signals', signals: conversion.signals, skipped: conversion.skipped, header }
    : { outcome: 'ignored', reason: conversion.reason, header };
}
