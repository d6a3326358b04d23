// The histories `simulate --replay` reads (replay-events.ts): the event a line, CloudWatch Logs log
// events and `aws logs filter-log-events` output, export-to-S3 lines, gzip, directories; anything
// else refused naming the line; replay-name taken off.
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { HistoryError, readHistory } from '@ec2-node-reconciler/sandbox/simulate/replay-events.js';

const FIXTURES = new URL('../fixtures/replay/', import.meta.url).pathname;
const plain = readFileSync(join(FIXTURES, 'history.jsonl'), 'utf8');
const events = plain
  .split('\n')
  .filter((l) => l !== '')
  .map((l) => JSON.parse(l) as Record<string, unknown>);

const dir = () => mkdtempSync(join(tmpdir(), 'history-'));
const write = (name: string, text: string | Buffer): string => {
  const path = join(dir(), name);
  writeFileSync(path, text);
  return path;
};
const ids = async (path: string) => (await readHistory(path)).events.map((e) => e.event['id']);

describe('readHistory', () => {
  it('should read the same events from each shape a history comes in', async () => {
    const expected = events.map((e) => e['id']);
    expect(await ids(join(FIXTURES, 'history.jsonl'))).toEqual(expected);
    expect(await ids(join(FIXTURES, 'history-filter-log-events.json'))).toEqual(expected);
    expect(await ids(join(FIXTURES, 'history-export.txt'))).toEqual(expected);
    // jq -c '.events[]' of filter-log-events, and one document a line
    const logEvents = events.map((e, i) =>
      JSON.stringify({ timestamp: i, message: JSON.stringify(e), eventId: String(i) }),
    );
    expect(await ids(write('log-events.jsonl', `${logEvents.join('\n')}\n`))).toEqual(expected);
    const oneLine = JSON.stringify({ events: events.map((e) => ({ timestamp: 1, message: JSON.stringify(e) })) });
    expect(await ids(write('page.jsonl', `${oneLine}\n`))).toEqual(expected);
    // a subscription filter's payload
    const subscription = JSON.stringify({
      messageType: 'DATA_MESSAGE',
      logGroup: '/aws/events/history',
      logEvents: events.map((e, i) => ({ id: String(i), timestamp: 1, message: JSON.stringify(e) })),
    });
    expect(await ids(write('subscription.json', subscription))).toEqual(expected);
    expect(await ids(write('history.jsonl.gz', gzipSync(plain)))).toEqual(expected);
  });

  it('should read a directory’s files and put their events in time order', async () => {
    const folder = dir();
    mkdirSync(join(folder, 'part'), { recursive: true });
    const [first, ...rest] = plain.split('\n').filter((l) => l !== '');
    writeFileSync(join(folder, 'b.jsonl'), `${first ?? ''}\n`);
    writeFileSync(join(folder, 'a.jsonl'), `${rest.join('\n')}\n`);
    const history = await readHistory(folder);
    expect(history.files.map((f) => f.slice(folder.length + 1))).toEqual(['a.jsonl', 'b.jsonl']);
    expect(history.events.map((e) => e.event['id'])).toEqual(events.map((e) => e['id']));
    expect(history.events.map((e) => e.at)).toEqual([...history.events.map((e) => e.at)].sort((a, b) => a - b));
  });

  it('should feed an archive replay’s event as the original, without replay-name, and count it', async () => {
    const history = await readHistory(join(FIXTURES, 'history-filter-log-events.json'));
    expect(history.replayNamesStripped).toBe(1);
    expect(history.events.every((e) => !('replay-name' in e.event))).toBe(true);
    expect(history.events[0]?.event).toEqual(events[0]);
  });

  it('should refuse anything else, naming the file and line', async () => {
    const lines = plain.split('\n').filter((l) => l !== '');
    const cases: [string, RegExp][] = [
      ['not json at all', /:3: not JSON/],
      ['{"hello": "world"}', /:3: not an EventBridge event .* nor a CloudWatch Logs log event/],
      ['[1, 2]', /:3: not a JSON object/],
      [
        '{"timestamp": 1, "message": "START RequestId: 1"}',
        /:3: a log event whose message is not an EventBridge event/,
      ],
      ['2026-11-29T12:00:00.000Z {"a": 1}', /:3: an exported log line whose message is not an EventBridge event/],
      [JSON.stringify({ ...events[0], time: 'yesterday' }), /:3: time "yesterday" is not a date/],
    ];
    for (const [bad, message] of cases) {
      const path = write('bad.jsonl', [lines[0], lines[1], bad, lines[2]].join('\n'));
      const error = await readHistory(path).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HistoryError);
      expect(String(error)).toMatch(message);
      expect(String(error)).toContain(path);
    }
    await expect(readHistory(write('empty.jsonl', '\n'))).rejects.toThrow(/no events/);
    await expect(readHistory(join(dir(), 'missing'))).rejects.toThrow(/no such file or directory/);
  });
});
