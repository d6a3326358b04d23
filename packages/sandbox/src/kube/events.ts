// core/v1 and events.k8s.io/v1 Events are two views of one stored object on a real server: the
// emulator stores the core shape and converts at the edge (pkg/apis/events/v1 conversion).
import { invalid } from './errors.js';
import { isRecord, type KubeObject } from './types.js';

const pick = (from: Record<string, unknown>, pairs: [string, string][]): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const [src, dst] of pairs) if (from[src] !== undefined && from[src] !== null) out[dst] = from[src];
  return out;
};

const SHARED: [string, string][] = [
  ['eventTime', 'eventTime'],
  ['series', 'series'],
  ['action', 'action'],
  ['reason', 'reason'],
  ['type', 'type'],
  ['related', 'related'],
];

/** events.k8s.io/v1 → stored core shape. */
export function fromEventsV1(event: KubeObject): KubeObject {
  const e = event as Record<string, unknown>;
  const source = isRecord(e['deprecatedSource'])
    ? e['deprecatedSource']
    : {
        ...(typeof e['reportingController'] === 'string' ? { component: e['reportingController'] } : {}),
        ...(typeof e['reportingInstance'] === 'string' ? { host: e['reportingInstance'] } : {}),
      };
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: event.metadata,
    involvedObject: e['regarding'] ?? {},
    ...pick(e, [
      ...SHARED,
      ['note', 'message'],
      ['deprecatedFirstTimestamp', 'firstTimestamp'],
      ['deprecatedLastTimestamp', 'lastTimestamp'],
      ['deprecatedCount', 'count'],
      ['reportingController', 'reportingComponent'],
      ['reportingInstance', 'reportingInstance'],
    ]),
    source,
  };
}

/** Stored core shape → events.k8s.io/v1. */
export function toEventsV1(event: KubeObject): KubeObject {
  const e = event as Record<string, unknown>;
  const source = isRecord(e['source']) ? e['source'] : {};
  return {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: event.metadata,
    ...pick(e, [
      ...SHARED,
      ['involvedObject', 'regarding'],
      ['message', 'note'],
      ['firstTimestamp', 'deprecatedFirstTimestamp'],
      ['lastTimestamp', 'deprecatedLastTimestamp'],
      ['count', 'deprecatedCount'],
      ['source', 'deprecatedSource'],
    ]),
    ...(typeof e['reportingComponent'] === 'string' && e['reportingComponent'] !== ''
      ? { reportingController: e['reportingComponent'] }
      : typeof source['component'] === 'string'
        ? { reportingController: source['component'] }
        : {}),
    ...(typeof e['reportingInstance'] === 'string' && e['reportingInstance'] !== ''
      ? { reportingInstance: e['reportingInstance'] }
      : typeof source['host'] === 'string'
        ? { reportingInstance: source['host'] }
        : {}),
  };
}

/** The fields events.k8s.io/v1 requires on create (pkg/apis/core/validation ValidateEventCreate). */
export function validateEventsV1(event: KubeObject): void {
  const e = event as Record<string, unknown>;
  const errors: { field: string; type: string; detail: string }[] = [];
  if (typeof e['eventTime'] !== 'string' || e['eventTime'] === '')
    errors.push({ field: 'eventTime', type: 'Required value', detail: '' });
  for (const field of ['reportingController', 'reportingInstance', 'action', 'reason'] as const) {
    if (typeof e[field] !== 'string' || e[field] === '') errors.push({ field, type: 'Required value', detail: '' });
  }
  if (e['type'] !== undefined && e['type'] !== 'Normal' && e['type'] !== 'Warning') {
    errors.push({
      field: 'type',
      type: 'Unsupported value',
      detail: `${JSON.stringify(e['type'])}: supported values: "Normal", "Warning"`,
    });
  }
  if (errors.length > 0) throw invalid('Event', 'events.k8s.io', event.metadata.name ?? '', errors);
}
