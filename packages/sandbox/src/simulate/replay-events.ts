// The history `simulate --replay` feeds: EventBridge events, one JSON value a line, in the shapes
// the places that keep them give out:
//
// - the event itself (an archive replayed to a target that writes it out, `jq -c` of any of these);
// - a CloudWatch Logs log event (an EventBridge rule targeting a log group writes the event as the
//   message): `aws logs filter-log-events` / `get-log-events` print `{"events": [{"timestamp", "message",
//   "logStreamName", "ingestionTime", "eventId"}…]}` (the whole output as one document, or one line of
//   it), `jq -c '.events[]'` one `{"message": …}` a line, and a subscription filter's payload
//   `{"messageType": "DATA_MESSAGE", "logEvents": [{"id", "timestamp", "message"}…]}`;
// - a CloudWatch Logs export to S3: `<ISO 8601 timestamp> <message>` a line, files gzipped.
//
// Anything else is refused naming the file and line: a history half read would replay a different month.
// An event carrying `replay-name` (written by an archive replay) is fed as the original event, without
// it: the product refuses to act on replays (they report a change that happened before) and the
// sandbox applies no world change for them, so a history of replays would change nothing.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

/** An event of the history, where it was read, and whether `replay-name` was taken off it. */
export interface HistoryEvent {
  readonly event: Record<string, unknown>;
  /** `file:line` */
  readonly from: string;
  /** Epoch ms of its `time`. */
  readonly at: number;
}

export interface History {
  /** In time order (stable: lines of the same time keep their order). */
  readonly events: readonly HistoryEvent[];
  readonly files: readonly string[];
  /** Events that carried `replay-name` (an archive replay), fed as their originals. */
  readonly replayNamesStripped: number;
}

/** A history that cannot be replayed: exit 2, naming where. */
export class HistoryError extends Error {
  override readonly name = 'HistoryError';
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** What an EventBridge event has whatever its kind: enough to route and to time it. */
const looksLikeEvent = (value: Record<string, unknown>): boolean =>
  typeof value['detail-type'] === 'string' && typeof value['source'] === 'string' && typeof value['time'] === 'string';

/** `2026-11-29T12:00:00.000Z {…}`: a line of a CloudWatch Logs export to S3. */
const EXPORT_LINE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z) (\{.*\})\s*$/s;

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

/** A log event's message: the event a rule wrote to the log group. */
function fromMessage(message: unknown, where: string): Record<string, unknown> {
  const parsed = typeof message === 'string' ? parseJson(message) : undefined;
  if (isRecord(parsed) && looksLikeEvent(parsed)) return parsed;
  throw new HistoryError(`${where}: a log event whose message is not an EventBridge event`);
}

/** The events one JSON value holds, or an error naming what it is not. */
function eventsOf(value: unknown, where: string): Record<string, unknown>[] {
  if (!isRecord(value))
    throw new HistoryError(`${where}: not a JSON object (an EventBridge event, or a CloudWatch Logs log event)`);
  if (looksLikeEvent(value)) return [value];
  // A log event: filter-log-events / get-log-events element, or a subscription filter's logEvents element.
  if (
    typeof value['message'] === 'string' &&
    (typeof value['timestamp'] === 'number' || 'eventId' in value || 'id' in value)
  )
    return [fromMessage(value['message'], where)];
  // filter-log-events / get-log-events output, or a subscription filter's payload.
  const list = Array.isArray(value['events'])
    ? value['events']
    : Array.isArray(value['logEvents'])
      ? value['logEvents']
      : undefined;
  if (list !== undefined)
    return list.map((item, i) => {
      if (!isRecord(item) || typeof item['message'] !== 'string')
        throw new HistoryError(`${where}: events[${i}] is not a CloudWatch Logs log event (no message)`);
      return fromMessage(item['message'], `${where} events[${i}]`);
    });
  throw new HistoryError(
    `${where}: not an EventBridge event (it has no source, detail-type and time) nor a CloudWatch Logs log event (message)`,
  );
}

/** The events of one line. */
function eventsOfLine(line: string, where: string): Record<string, unknown>[] {
  const exported = EXPORT_LINE.exec(line);
  if (exported?.[2] !== undefined) {
    const parsed = parseJson(exported[2]);
    if (isRecord(parsed) && looksLikeEvent(parsed)) return [parsed];
    throw new HistoryError(`${where}: an exported log line whose message is not an EventBridge event`);
  }
  const parsed = parseJson(line);
  if (parsed === undefined)
    throw new HistoryError(`${where}: not JSON (${line.slice(0, 60)}${line.length > 60 ? '…' : ''})`);
  return eventsOf(parsed, where);
}

async function textOf(path: string): Promise<string> {
  const bytes = await readFile(path);
  return (path.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
}

/** The events of one file: a whole-file JSON document (filter-log-events output), or JSON lines. */
function eventsOfFile(text: string, file: string): { event: Record<string, unknown>; from: string }[] {
  const trimmed = text.trim();
  // `aws logs filter-log-events` prints its output indented over many lines: one document.
  if (trimmed.startsWith('{') && trimmed.includes('\n')) {
    const whole = parseJson(trimmed);
    if (isRecord(whole) && (Array.isArray(whole['events']) || Array.isArray(whole['logEvents'])))
      return eventsOf(whole, file).map((event, i) => ({ event, from: `${file} events[${i}]` }));
  }
  const out: { event: Record<string, unknown>; from: string }[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '') return;
    const where = `${file}:${index + 1}`;
    for (const event of eventsOfLine(line, where)) out.push({ event, from: where });
  });
  return out;
}

/** The files of a history: the file, or a directory's regular files in name order (no recursion into dot files). */
async function filesOf(path: string): Promise<string[]> {
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new HistoryError(`${path}: no such file or directory`);
  if (!info.isDirectory()) return [path];
  const names = (await readdir(path, { withFileTypes: true }))
    .filter((entry) => entry.isFile() && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort();
  if (names.length === 0) throw new HistoryError(`${path}: an empty directory`);
  return names.map((name) => join(path, name));
}

/** Reads a history (a file or a directory of them), in time order. */
export async function readHistory(path: string): Promise<History> {
  const files = await filesOf(path);
  const events: HistoryEvent[] = [];
  let replayNamesStripped = 0;
  for (const file of files)
    for (const { event, from } of eventsOfFile(await textOf(file), file)) {
      const at = Date.parse(String(event['time']));
      if (!Number.isFinite(at)) throw new HistoryError(`${from}: time ${JSON.stringify(event['time'])} is not a date`);
      let original = event;
      if ('replay-name' in event) {
        const { ['replay-name']: _replayName, ...rest } = event;
        original = rest;
        replayNamesStripped++;
      }
      events.push({ event: original, from, at });
    }
  if (events.length === 0) throw new HistoryError(`${path}: no events`);
  // Array.prototype.sort is stable: events of one time keep the order they were written in.
  events.sort((a, b) => a.at - b.at);
  return { events, files, replayNamesStripped };
}
