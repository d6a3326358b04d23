// fast-check generators of SQS record bodies for the events function: real-shaped EventBridge events
// of every kind (test/fixtures/events, the envelope set to the world's account, region and clock),
// the same events mutated (wrong types, missing keys, huge and unicode strings, extra keys, other
// kinds' source and detail-type, bad instance ids, bad times, nested and non-JSON bodies), and
// arbitrary JSON. Each body says what was done to it and which strings only it carries (markers: its
// instance id, a bad value it was given), so a test can look for them in the calls the function made.
import fc from 'fast-check';
import { FIXTURE_NAMES, fixture, pathsOf, type Path } from '../signals/events.js';

export type Mutation =
  | { readonly kind: 'wrong-type' | 'delete' | 'huge-string' | 'unicode-string' | 'bad-time'; readonly path: Path }
  | { readonly kind: 'extra-key'; readonly path: Path }
  | { readonly kind: 'bad-instance-id'; readonly paths: readonly Path[] }
  | { readonly kind: 'source-detail-type' };

export type BodyShape = 'event' | 'double-encoded' | 'wrapped' | 'array' | 'truncated' | 'not-json';

export interface FuzzBody {
  /** The SQS record's body. */
  readonly body: string;
  /** `real` is a fixture as AWS sends it; `mutated` one changed; `arbitrary` any JSON or text. */
  readonly origin: 'real' | 'mutated' | 'arbitrary';
  readonly fixture?: string;
  readonly mutations: readonly Mutation[];
  readonly shape: BodyShape;
  /** Strings only this body carries: if a call of the function holds one, the call was made for this record. */
  readonly markers: readonly string[];
}

export interface WorldEnvelope {
  readonly account: string;
  readonly region: string;
  /** ISO time of the world's clock. */
  readonly time: string;
}

/** Fixtures that are EventBridge events (the raw Auto Scaling notification is not one: it is arbitrary input here). */
const EVENT_FIXTURES = FIXTURE_NAMES.filter((name) => 'detail-type' in fixture(name));
const ROUTES = [
  ...new Set(EVENT_FIXTURES.map((name) => JSON.stringify([fixture(name).source, fixture(name)['detail-type']]))),
].map((route) => JSON.parse(route) as [string, string]);

const INSTANCE_ID = /i-[0-9a-f]{8}(?:[0-9a-f]{9})?\b/g;
let serial = 0;
/** An instance id no other body of the run carries. */
export function freshInstanceId(): string {
  serial += 1;
  return `i-0f${serial.toString(16).padStart(15, '0')}`;
}

/** A fixture for the world: its account, region and time, the event id `id`, and `instanceId` wherever it names an instance. */
export function realEvent(name: string, world: WorldEnvelope, instanceId: string, id: string): Record<string, unknown> {
  const base = fixture(name);
  const text = JSON.stringify(base)
    .replace(INSTANCE_ID, instanceId)
    .replaceAll('123456789012', world.account)
    .replaceAll(String(base.region), world.region);
  return { ...(JSON.parse(text) as Record<string, unknown>), id, time: world.time };
}

function isContainer(value: unknown): value is Record<string | number, unknown> {
  return typeof value === 'object' && value !== null;
}

function at(root: unknown, path: Path): unknown {
  return path.reduce<unknown>((node, key) => (isContainer(node) ? node[key] : undefined), root);
}

/** A copy of `root` with the value at `path` replaced (`undefined`: removed). */
function withValue(root: unknown, path: Path, value: unknown): unknown {
  const copy = structuredClone(root);
  const parent = at(copy, path.slice(0, -1));
  const key = path.at(-1);
  if (!isContainer(parent) || key === undefined) return copy;
  if (value === undefined) {
    if (Array.isArray(parent) && typeof key === 'number') parent.splice(key, 1);
    else delete parent[key];
  } else parent[key] = value;
  return copy;
}

const wrongType = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: false }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
  fc.string({ maxLength: 12 }),
);
const hugeString = fc
  .tuple(fc.string({ minLength: 1, maxLength: 8 }), fc.integer({ min: 4_000, max: 120_000 }))
  .map(([unit, length]) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length));
const unicodeString = fc.oneof(
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
  fc.constantFrom(
    'i-０１２３４５６７',
    'Ｉ-0123456789abcdef0',
    '\u202Ei-0123456789abcdef0',
    'i-0123\u0000abcd',
    '💥'.repeat(20),
  ),
);
/** Strings that look like an instance id and are not one (EC2: `i-` and 8 or 17 lowercase hex digits). */
const badInstanceId = fc.oneof(
  fc.stringMatching(/^i-[0-9a-f]{1,7}$/),
  fc.stringMatching(/^i-[0-9a-f]{9,16}$/),
  fc.stringMatching(/^i-[0-9a-f]{18,30}$/),
  fc.stringMatching(/^I-[0-9A-F]{17}$/),
  fc.stringMatching(/^i-[g-z]{17}$/),
  fc.constantFrom('i-../../etc/passwd', 'i-0123456789abcdef0/x', ' i-0123456789abcdef0', 'i-*', '', 'i-'),
  unicodeString,
);
const badTime = fc.oneof(
  fc.constantFrom('yesterday', '2026-13-45T25:61:00Z', '2026-02-30T00:00:00Z', '', '0', 'NaN', '2026-11-29 10:00:00'),
  fc.integer().map(String),
  fc.date({ noInvalidDate: true }).map((d) => d.toString()),
);

/** One mutation of `event` (its paths, its strings), as a change and its description. */
function mutation(event: Record<string, unknown>, instanceId: string): fc.Arbitrary<[unknown, Mutation, string[]]> {
  const paths = pathsOf(event);
  const keyed = paths.filter((p) => typeof p.at(-1) === 'string');
  const strings = paths.filter((p) => typeof at(event, p) === 'string');
  const containers = [[], ...paths.filter((p) => isContainer(at(event, p)) && !Array.isArray(at(event, p)))];
  const idPaths = paths.filter((p) => at(event, p) === instanceId);
  const timePaths = strings.filter((p) => /time/i.test(String(p.at(-1))));
  const options: fc.Arbitrary<[unknown, Mutation, string[]]>[] = [
    fc
      .tuple(fc.constantFrom(...paths), wrongType)
      .map(([path, value]) => [withValue(event, path, value), { kind: 'wrong-type', path }, []]),
    fc.constantFrom(...keyed).map((path) => [withValue(event, path, undefined), { kind: 'delete', path }, []]),
    fc
      .tuple(fc.constantFrom(...strings), hugeString)
      .map(([path, value]) => [withValue(event, path, value), { kind: 'huge-string', path }, []]),
    fc
      .tuple(fc.constantFrom(...strings), unicodeString)
      .map(([path, value]) => [withValue(event, path, value), { kind: 'unicode-string', path }, []]),
    fc
      .tuple(fc.constantFrom(...containers), fc.string({ minLength: 1, maxLength: 16 }), fc.jsonValue({ maxDepth: 2 }))
      .map(([path, key, value]) => [
        withValue(event, [...path, key], value),
        { kind: 'extra-key', path: [...path, key] },
        [],
      ]),
    fc
      .tuple(fc.constantFrom(...ROUTES, ['aws.s3', 'Object Created'] as [string, string]), fc.boolean())
      .map(([[source, detailType], both]) => [
        { ...event, source, ...(both ? { 'detail-type': detailType } : {}) },
        { kind: 'source-detail-type' },
        [],
      ]),
  ];
  if (idPaths.length > 0)
    options.push(
      badInstanceId.map((bad) => [
        idPaths.reduce<unknown>((changed, path) => withValue(changed, path, bad), event),
        { kind: 'bad-instance-id', paths: idPaths },
        bad.length >= 10 ? [bad] : [],
      ]),
    );
  if (timePaths.length > 0)
    options.push(
      fc
        .tuple(fc.constantFrom(...timePaths), badTime)
        .map(([path, value]) => [withValue(event, path, value), { kind: 'bad-time', path }, []]),
    );
  return fc.oneof(...options);
}

/** How the event is put in the body: as itself, mostly; sometimes nested in another layer, cut short or replaced by text. */
const shape = fc.oneof(
  { weight: 12, arbitrary: fc.constant<BodyShape>('event') },
  { weight: 1, arbitrary: fc.constantFrom<BodyShape>('double-encoded', 'wrapped', 'array', 'truncated', 'not-json') },
);

function encode(event: unknown, bodyShape: BodyShape, cut: number): string {
  const json = JSON.stringify(event);
  switch (bodyShape) {
    case 'event':
      return json;
    case 'double-encoded':
      return JSON.stringify(json);
    case 'wrapped':
      return JSON.stringify({ Type: 'Notification', Message: json });
    case 'array':
      return JSON.stringify([event]);
    case 'truncated':
      return json.slice(0, Math.max(1, Math.floor(json.length * cut)));
    case 'not-json':
      return `event: ${json}`;
  }
}

/** A real-shaped event of any kind, as AWS sends it, for a fresh instance (or one of `known`). */
export function realBody(world: WorldEnvelope, known: readonly string[] = []): fc.Arbitrary<FuzzBody> {
  return fc
    .tuple(
      fc.constantFrom(...EVENT_FIXTURES),
      fc.uuid(),
      fc.option(fc.constantFrom(...(known.length ? known : ['-'])), { freq: 3 }),
    )
    .map(([name, id, knownId]) => {
      const instanceId = knownId !== null && knownId !== '-' ? knownId : freshInstanceId();
      return {
        body: JSON.stringify(realEvent(name, world, instanceId, id)),
        origin: 'real',
        fixture: name,
        mutations: [],
        shape: 'event',
        // A known instance is named by other bodies too: it marks nothing.
        markers: knownId !== null && knownId !== '-' ? [] : [instanceId],
      };
    });
}

/** A real-shaped event for a fresh instance, with one to three mutations and maybe another body shape. */
export function mutatedBody(world: WorldEnvelope): fc.Arbitrary<FuzzBody> {
  return fc
    .tuple(
      fc.constantFrom(...EVENT_FIXTURES),
      fc.uuid(),
      fc.integer({ min: 1, max: 3 }),
      shape,
      fc.double({ min: 0, max: 1, noNaN: true }),
    )
    .chain(([name, id, count, bodyShape, cut]) => {
      const instanceId = freshInstanceId();
      const start = realEvent(name, world, instanceId, id);
      const step = (
        acc: fc.Arbitrary<[unknown, Mutation[], string[]]>,
        left: number,
      ): fc.Arbitrary<[unknown, Mutation[], string[]]> =>
        left === 0
          ? acc
          : step(
              acc.chain(([event, done, markers]) =>
                isContainer(event) && !Array.isArray(event) && pathsOf(event).length > 0
                  ? mutation(event as Record<string, unknown>, instanceId).map(
                      ([next, m, more]): [unknown, Mutation[], string[]] => [next, [...done, m], [...markers, ...more]],
                    )
                  : fc.constant<[unknown, Mutation[], string[]]>([event, done, markers]),
              ),
              left - 1,
            );
      return step(fc.constant<[unknown, Mutation[], string[]]>([start, [], [instanceId]]), count).map(
        ([event, mutations, markers]): FuzzBody => ({
          body: encode(event, bodyShape, cut),
          origin: 'mutated',
          fixture: name,
          mutations,
          shape: bodyShape,
          markers,
        }),
      );
    });
}

/** Anything: any JSON value, or any text. */
export const arbitraryBody: fc.Arbitrary<FuzzBody> = fc
  .oneof(
    fc.jsonValue().map((value) => JSON.stringify(value)),
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.constantFrom('', '{', 'null', '[]', '{}', JSON.stringify(fixture('asg-test-notification-raw'))),
  )
  .map((body): FuzzBody => {
    const json = (() => {
      try {
        JSON.parse(body);
        return true;
      } catch {
        return false;
      }
    })();
    return { body, origin: 'arbitrary', mutations: [], shape: json ? 'event' : 'not-json', markers: [] };
  });
