import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INSTANCE_ID_PATTERN, isInstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import { parseEvent, SIGNAL_MODULES, SignalRejection, type ParseOutcome } from '../../lib/signals/index.js';
import { FIXTURE_NAMES, fixture, pathsOf, withField, without, type Path } from './events.js';

/** parseEvent's contract: an outcome whose signals all name valid instances, or a SignalRejection. */
function holdsContract(event: unknown): boolean {
  let outcome: ParseOutcome;
  try {
    outcome = parseEvent(event);
  } catch (error) {
    if (error instanceof SignalRejection) return error.message.startsWith(`${error.field}: `);
    throw error;
  }
  if (outcome.outcome === 'ignored') return outcome.reason.length > 0;
  return (
    outcome.signals.length > 0 &&
    outcome.signals.every((s) => isInstanceId(s.instanceId) && Number.isFinite(s.observedAt))
  );
}

const ROUTES = Object.values(SIGNAL_MODULES).map((m) => ({ source: m.source, 'detail-type': m.detailType }));

/** A fixture with one field anywhere in it replaced by arbitrary JSON, or removed. */
const mutatedFixture = fc
  .constantFrom(...FIXTURE_NAMES)
  .chain((name) =>
    fc.tuple(
      fc.constant(name),
      fc.constantFrom<Path>(...pathsOf(fixture(name))),
      fc.option(fc.jsonValue(), { nil: undefined }),
    ),
  )
  .map(([name, path, value]) => (value === undefined ? without(name, path) : withField(name, path, value)));

describe('parseEvent properties', () => {
  it('should only ever return an outcome or throw a SignalRejection, for any JSON', () => {
    fc.assert(fc.property(fc.jsonValue(), holdsContract), { numRuns: 500 });
  });

  it('should hold its contract for routed events with arbitrary bodies', () => {
    // Arbitrary JSON rarely hits a known (source, detail-type); pin one so the kind modules are reached.
    const routed = fc
      .tuple(fc.constantFrom(...ROUTES), fc.dictionary(fc.string(), fc.jsonValue()), fc.jsonValue())
      .map(([route, body, detail]) => ({ ...body, ...route, detail }));
    fc.assert(fc.property(routed, holdsContract), { numRuns: 500 });
  });

  it('should hold its contract for fixtures with one field changed anywhere', () => {
    fc.assert(fc.property(mutatedFixture, holdsContract), { numRuns: 2_000 });
  });

  it('should produce a signal exactly when the instance id matches the pattern', () => {
    const ids = fc.oneof(
      fc.string(),
      fc.stringMatching(INSTANCE_ID_PATTERN),
      fc.stringMatching(/^i-[0-9a-fA-F/.]{0,20}$/),
    );
    fc.assert(
      fc.property(
        ids,
        fc.constantFrom('spot-interruption', 'state-change-terminated', 'capacity-reservation-interruption'),
        (id, name) => {
          // prepare
          const event = withField(name, ['detail', 'instance-id'], id);

          // act
          const outcome = (() => {
            try {
              return parseEvent(event);
            } catch (error) {
              if (error instanceof SignalRejection) return error;
              throw error;
            }
          })();

          // assess
          if (INSTANCE_ID_PATTERN.test(id)) {
            expect(outcome).toMatchObject({ outcome: 'signals', signals: [{ instanceId: id }] });
          } else {
            expect(outcome).toBeInstanceOf(SignalRejection);
            expect(outcome).toMatchObject({ field: 'detail.instance-id' });
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
