// The events function as deployed (the bundle `cdk synth` builds, in a warm Lambda-like execution
// environment of the sandbox, under its role) fed 10,000 SQS records in batches of 10 by fast-check:
// real-shaped events of every kind, the same events mutated, and arbitrary JSON and text. For every
// batch it returns a batch response; every record is handled (ignored, reconciled, or failed to be
// tried again) or rejected naming the field; no call of the function carries a rejected record's
// marks; and a batch with nothing to reconcile makes no AWS or Kubernetes call at all.
import fc from 'fast-check';
import type { SQSBatchResponse } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roleKey } from '@ec2-node-reconciler/sandbox/aws/iam/index.js';
import { parseScenario } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { functionLogLines, type LogLine } from '@ec2-node-reconciler/sandbox/simulate/function-logs.js';
import { startSandbox, type Sandbox } from '@ec2-node-reconciler/sandbox/simulate/sandbox.js';
import { EVENT_RECORD_LOG, SIGNAL_REJECTION_NAME } from '@ec2-node-reconciler/model/contract/function-logs.js';
import type { Path } from '../signals/events.js';
import {
  arbitraryBody,
  mutatedBody,
  realBody,
  type FuzzBody,
  type WorldEnvelope,
} from '../support/event-arbitraries.js';
import { sqsRecord } from '../support/lambda-env.js';

const BATCHES = 1_000;
const BATCH_SIZE = 10;
const KNOWN = ['i-0aaaaaaaaaaaa0001', 'i-0aaaaaaaaaaaa0002', 'i-0aaaaaaaaaaaa0003'];
const SCENARIO = `
name: events-fuzz
start: 2026-11-29T10:00:00Z
cluster: { name: demo, region: us-east-1, accountId: "111122223333" }
instances:
${KNOWN.map((id) => `  - { id: ${id}, state: running, zone: us-east-1a, launchedAgo: 2d, tags: { eks:cluster-name: demo } }`).join('\n')}
nodes:
${KNOWN.map((id) => `  - { name: node-${id.slice(-1)}.ec2.internal, providerID: "aws:///us-east-1a/${id}", createdAgo: 2d }`).join('\n')}
`;

let sandbox: Sandbox;
let world: WorldEnvelope;
/** Whether a call was the events function's: its role's sessions at AWS, its access entry's user at the API server. */
let byEventsAtAws: (principal: string | undefined) => boolean;
let byEventsAtKube: (user: string) => boolean;

beforeAll(async () => {
  sandbox = await startSandbox(parseScenario(SCENARIO, 'events-fuzz.yaml'));
  const { deployment } = sandbox.stack;
  const role = deployment.functions.find((fn) => fn.name === sandbox.functions.events)?.roleArn ?? '';
  const entry = deployment.accessEntries.find((e) => roleKey(e.principalArn) === roleKey(role));
  byEventsAtAws = (principal) => principal !== undefined && roleKey(principal) === roleKey(role);
  byEventsAtKube = (user) => user === entry?.username || roleKey(user) === roleKey(role);
  const { accountId: account, region } = sandbox.scenario.cluster;
  world = { account, region, time: new Date(sandbox.clock.now()).toISOString() };
});

afterAll(async () => {
  await sandbox.close();
});

interface Invocation {
  readonly ok: boolean;
  readonly payload: unknown;
  readonly lines: readonly LogLine[];
  /** The events function's own calls during the invocation, as text (AWS: action and input; Kubernetes: verb, path, body). */
  readonly calls: readonly string[];
  readonly kubeCalls: number;
}

/** One invocation of the deployed events function, the world's clock moving only if the function waits for it. */
async function invoke(records: readonly ReturnType<typeof sqsRecord>[]): Promise<Invocation> {
  const awsFrom = sandbox.aws.requestLog.entries.at(-1)?.seq ?? 0;
  const kubeFrom = sandbox.kube.requestLog.entries.length;
  let done = false;
  const running = sandbox.lambda.invoke(sandbox.functions.events, { Records: records }).finally(() => (done = true));
  await sandbox.driver.runUntil(() => done, 'the events function');
  const result = await running;
  const aws = sandbox.aws.requestLog.entries
    .filter((e) => e.seq > awsFrom && byEventsAtAws(e.principal))
    .map((e) => `${e.service}:${e.operation} ${JSON.stringify(e.params)}`);
  const kube = sandbox.kube.requestLog.entries
    .slice(kubeFrom)
    .filter((e) => byEventsAtKube(e.user))
    .map((e) => `${e.method} ${e.path}?${e.query} ${JSON.stringify(e.body ?? null)}`);
  return {
    ok: result.ok,
    payload: result.ok ? result.payload : result.error,
    lines: functionLogLines(result.logs),
    calls: [...aws, ...kube],
    kubeCalls: kube.length,
  };
}

/** `detail.affectedEntities[1].entityValue`, as rejections name fields. */
const fieldOf = (path: Path): string =>
  path.reduce<string>((text, key) => (typeof key === 'number' ? `${text}[${key}]` : text ? `${text}.${key}` : key), '');

/** Whether a rejection naming `field` is about `mutated`: the same field, or one inside the other. */
function about(field: string, mutated: string): boolean {
  const within = (inner: string, outer: string) =>
    inner === outer || inner.startsWith(`${outer}.`) || inner.startsWith(`${outer}[`);
  if (field === 'source/detail-type') return mutated === 'source' || mutated === 'detail-type';
  return within(field, mutated) || within(mutated, field);
}

/** The fields a body's only change was made at, when it had exactly one change at known places. */
function mutatedFields(body: FuzzBody): string[] | undefined {
  const [only, ...more] = body.mutations;
  if (!only || more.length > 0 || body.shape !== 'event') return undefined;
  switch (only.kind) {
    case 'wrong-type':
    case 'delete':
    case 'huge-string':
    case 'unicode-string':
    case 'bad-time':
      return [fieldOf(only.path)];
    case 'bad-instance-id':
      return only.paths.map(fieldOf);
    case 'extra-key':
    case 'source-detail-type':
      return undefined;
  }
}

type Verdict = 'ignored' | 'reconciled' | 'retried' | 'rejected';
const stats = {
  records: 0,
  verdicts: { ignored: 0, reconciled: 0, retried: 0, rejected: 0 },
  /** Records handled whose own marks showed in the function's calls. */
  marked: 0,
  callsSeen: 0,
  kubeCalls: 0,
  /** Batches with nothing to reconcile, held to no call at all. */
  quietBatches: 0,
};

/** What the function did with one record, from its log lines; fails the property for anything else. */
function verdictOf(body: FuzzBody, lines: readonly LogLine[], failed: boolean): Verdict {
  const saying = (message: string) => lines.filter((l) => l.message === message);
  const [failure, ...moreFailures] = saying(EVENT_RECORD_LOG.failed);
  const settled = [...saying(EVENT_RECORD_LOG.ignored), ...saying(EVENT_RECORD_LOG.reconciled)];
  const context = `record ${JSON.stringify(body.body.slice(0, 300))} (${body.origin}, ${JSON.stringify(body.mutations)})`;
  expect(moreFailures, context).toEqual([]);
  if (!failure) {
    expect(failed, `${context}: succeeded but in batchItemFailures`).toBe(false);
    expect(settled.length, `${context}: said neither ignored nor reconciled`).toBe(1);
    return settled[0]?.message === EVENT_RECORD_LOG.ignored ? 'ignored' : 'reconciled';
  }
  expect(failed, `${context}: failed but not in batchItemFailures`).toBe(true);
  const error = (failure.error ?? {}) as { name?: unknown; message?: unknown };
  const message = String(error.message);
  if (error.name === 'EventRecordFailure') {
    expect(saying(EVENT_RECORD_LOG.reconciled), `${context}: retried without a report`).toHaveLength(1);
    return 'retried';
  }
  if (error.name === SIGNAL_REJECTION_NAME) {
    const field = /^(.+?): \S/.exec(message)?.[1];
    expect(field, `${context}: rejected without naming a field: ${message}`).toBeDefined();
    const mutated = mutatedFields(body);
    if (field !== undefined && mutated !== undefined)
      expect(
        mutated.some((m) => about(field, m)),
        `${context}: rejected for ${field}, but ${mutated.join(', ')} changed`,
      ).toBe(true);
    return 'rejected';
  }
  // The one rejection that is not a SignalRejection: a body that is no JSON at all.
  expect({ name: error.name, message }, `${context}: failed with an unexpected error`).toMatchObject({
    name: 'Error',
    message: expect.stringMatching(/^record body: not JSON/) as unknown,
  });
  return 'rejected';
}

const recordBody = (): fc.Arbitrary<FuzzBody> =>
  fc.oneof(
    { weight: 2, arbitrary: realBody(world, KNOWN) },
    { weight: 6, arbitrary: mutatedBody(world) },
    { weight: 2, arbitrary: arbitraryBody },
  );
const hostileBody = (): fc.Arbitrary<FuzzBody> => fc.oneof(mutatedBody(world), arbitraryBody);

describe('the bundled events function, fuzzed', () => {
  it(`should answer ${BATCHES} batches of ${BATCH_SIZE} with a batch response, handle or reject each record naming the field, and call nothing for a rejected one`, async () => {
    let batch = 0;
    const batches = fc.oneof(
      { weight: 4, arbitrary: fc.array(recordBody(), { minLength: BATCH_SIZE, maxLength: BATCH_SIZE }) },
      { weight: 1, arbitrary: fc.array(hostileBody(), { minLength: BATCH_SIZE, maxLength: BATCH_SIZE }) },
    );
    await fc.assert(
      fc.asyncProperty(batches, async (bodies) => {
        batch += 1;
        const records = bodies.map((b, i) => sqsRecord(`fuzz-${batch}-${i}`, b.body));

        const invocation = await invoke(records);

        // A batch response, always: never a function error, whatever the records hold.
        expect(invocation.ok, JSON.stringify(invocation.payload).slice(0, 500)).toBe(true);
        const response = invocation.payload as SQSBatchResponse;
        expect(Array.isArray(response.batchItemFailures)).toBe(true);
        const failedIds = new Set(response.batchItemFailures.map((f) => f.itemIdentifier));
        expect([...failedIds].every((id) => records.some((r) => r.messageId === id))).toBe(true);

        const verdicts = bodies.map((body, i) => {
          const messageId = records[i]?.messageId ?? '';
          const lines = invocation.lines.filter((l) => l.messageId === messageId);
          const verdict = verdictOf(body, lines, failedIds.has(messageId));
          // A real event as AWS sends it is never refused.
          if (body.origin === 'real') expect(verdict, body.body.slice(0, 300)).not.toBe('rejected');
          const marked = body.markers.some((m) => invocation.calls.some((call) => call.includes(m)));
          if (verdict === 'rejected') expect(marked, `a call carries rejected ${body.body.slice(0, 200)}`).toBe(false);
          else if (marked) stats.marked += 1;
          stats.verdicts[verdict] += 1;
          return verdict;
        });
        stats.records += bodies.length;
        stats.callsSeen += invocation.calls.length;
        stats.kubeCalls += invocation.kubeCalls;
        // Only a record with signals to reconcile reaches AWS or the API server.
        if (!verdicts.some((v) => v === 'reconciled' || v === 'retried')) {
          expect(invocation.calls).toEqual([]);
          stats.quietBatches += 1;
        }
      }),
      // FUZZ_SEED replays the run fast-check reported as failing.
      {
        numRuns: BATCHES,
        endOnFailure: true,
        ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}),
      },
    );

    expect(stats.records).toBeGreaterThanOrEqual(10_000);
    // The checks above saw calls at all: records were reconciled, and their own marks showed in what was called.
    expect(stats.verdicts.rejected).toBeGreaterThan(stats.records / 4);
    expect(stats.verdicts.reconciled + stats.verdicts.retried).toBeGreaterThan(stats.records / 20);
    expect(stats.marked).toBeGreaterThan(100);
    expect(stats.callsSeen).toBeGreaterThan(1_000);
    expect(stats.kubeCalls).toBeGreaterThan(100);
    expect(stats.quietBatches).toBeGreaterThan(BATCHES / 20);
    console.info(`events fuzz: ${JSON.stringify(stats)}`);
  }, 120_000);
});
