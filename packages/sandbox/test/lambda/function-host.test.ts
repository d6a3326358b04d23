// The execution environments the deployed world runs bundled functions in: time is the world's
// clock (Date, timers, timer promises, deadline signals), an environment is reused warm, the
// function's timeout and reserved concurrency hold as Lambda holds them.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { WorldDriver } from '../../src/deployed/driver.js';
import { Activity } from '../../src/lambda/activity.js';
import { FunctionHost, FunctionThrottled, type InvocationResult } from '../../src/lambda/function-host.js';

const START = Date.parse('2026-11-29T12:00:00Z');
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A one-file bundle exporting `handler`. */
function bundle(source: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'host-test-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'index.mjs'), source);
  return dir;
}

let clock: VirtualClock;
let activity: Activity;
let driver: WorldDriver;
let clockBuffer: SharedArrayBuffer;
const hosts: FunctionHost[] = [];

beforeEach(() => {
  clock = new VirtualClock(START);
  activity = new Activity();
  clockBuffer = new SharedArrayBuffer(8);
  const view = new Float64Array(clockBuffer);
  view[0] = START;
  clock.observe((now) => (view[0] = now));
  driver = new WorldDriver(clock, activity, []);
});
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

function host(
  source: string,
  options: { timeoutSeconds?: number; reservedConcurrency?: number; environment?: Record<string, string> } = {},
): FunctionHost {
  const h = new FunctionHost(
    {
      name: 'fn',
      arn: 'arn:aws:lambda:us-east-1:111122223333:function:fn',
      timeoutSeconds: options.timeoutSeconds ?? 900,
      memoryMb: 128,
      ...(options.reservedConcurrency !== undefined ? { reservedConcurrency: options.reservedConcurrency } : {}),
      handler: 'index.handler',
      assetPath: bundle(source),
      environment: options.environment ?? {},
    },
    { clock, clockBuffer, activity },
  );
  hosts.push(h);
  return h;
}

/** Invokes and moves the clock until the invocation ends. */
async function run(h: FunctionHost, event: unknown = {}): Promise<InvocationResult> {
  let result: InvocationResult | undefined;
  const invocation = h.invoke(event).then((r) => (result = r));
  await driver.runUntil(() => result !== undefined, 'the invocation');
  await invocation;
  if (!result) throw new Error('no result');
  return result;
}

describe('an execution environment on the world’s clock', () => {
  it('should sleep on the clock with setTimeout, timers/promises and AbortSignal.timeout, in no real time', async () => {
    const h = host(`
      import { setTimeout as sleep } from 'node:timers/promises';
      export const handler = async () => {
        const at = [Date.now()];
        await new Promise((resolve) => setTimeout(resolve, 600_000));
        at.push(new Date().getTime());
        await sleep(60_000);
        at.push(Date.now());
        await new Promise((resolve) => AbortSignal.timeout(30_000).addEventListener('abort', resolve));
        at.push(Date.now());
        return at;
      };`);
    const began = performance.now();

    const result = await run(h);

    expect(result).toMatchObject({ ok: true, payload: [START, START + 600_000, START + 660_000, START + 690_000] });
    expect(clock.now()).toBe(START + 690_000);
    expect(performance.now() - began).toBeLessThan(30_000);
  });

  it('should keep a warm environment between invocations: module state survives', async () => {
    const h = host(`let calls = 0; export const handler = async () => ++calls;`);

    const results = [await run(h), await run(h), await run(h)];

    expect(results.map((r) => (r.ok ? r.payload : r.error.errorType))).toEqual([1, 2, 3]);
  });

  it('should end an invocation at the function’s timeout, on the clock, and discard its environment', async () => {
    const h = host(
      `let calls = 0; export const handler = async () => { calls++; await new Promise((r) => setTimeout(r, 3_600_000)); return calls; };`,
      { timeoutSeconds: 60 },
    );

    const first = await run(h);

    expect(first).toMatchObject({
      ok: false,
      error: {
        errorType: 'Sandbox.Timedout',
        errorMessage: expect.stringMatching(/Task timed out after 60(\.00)? seconds/) as unknown,
      },
    });
    expect(clock.now()).toBe(START + 60_000);
  });

  it('should throttle an invocation beyond the reserved concurrency, even while the first environment starts', async () => {
    const h = host(
      `export const handler = async () => { await new Promise((r) => setTimeout(r, 1_000)); return 'done'; };`,
      { reservedConcurrency: 1 },
    );

    const first = h.invoke({});
    const second = h.invoke({});

    await expect(second).rejects.toBeInstanceOf(FunctionThrottled);
    let done: InvocationResult | undefined;
    void first.then((r) => (done = r));
    await driver.runUntil(() => done !== undefined, 'the first');
    expect(done).toMatchObject({ ok: true, payload: 'done' });
  });
});

describe('a runtime killed mid-invocation (chaos)', () => {
  let server: Server;
  let paths: string[];
  let url: string;
  beforeEach(async () => {
    paths = [];
    server = createServer((req, res) => {
      paths.push(req.url ?? '');
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** Three calls, one after the other; then a fourth and fifth at once. */
  const caller = () =>
    host(
      `
      import http from 'node:http';
      const get = (path) => new Promise((resolve) => {
        const req = http.request(process.env.TARGET + path, (res) => { res.resume(); res.on('end', () => resolve('ok')); });
        req.on('error', (e) => resolve(e.code));
        req.end();
      });
      let calls = 0;
      export const handler = async () => {
        calls++;
        const answers = [await get('/1'), await get('/2'), await get('/3')];
        answers.push(...(await Promise.all([get('/4'), get('/5')])));
        return { calls, answers };
      };
    `,
      { environment: { TARGET: url } },
    );

  it('should let the planned requests reach the server, stop the next ones, and report the runtime dead', async () => {
    const h = caller();
    h.crashes = () => 2;

    const result = await run(h);

    expect(paths).toEqual(['/1', '/2']);
    expect(result).toMatchObject({
      ok: false,
      kind: 'crash',
      error: { errorType: 'Runtime.ExitError', errorMessage: expect.stringContaining('signal: killed') as unknown },
    });
  });

  it('should let requests already in flight finish before the runtime dies, so what reached the APIs repeats', async () => {
    const h = caller();
    h.crashes = () => 4;

    const result = await run(h);

    // /4 had left when /5 was stopped: it reaches the server all the same.
    expect(paths).toEqual(['/1', '/2', '/3', '/4']);
    expect(result).toMatchObject({ ok: false, kind: 'crash' });
  });

  it('should kill a runtime that finished before its planned crash before it could answer, and start the next invocation cold', async () => {
    const h = caller();
    h.crashes = ({ requestId }) => (requestId.endsWith('1') ? 100 : undefined);

    const first = await run(h);
    const second = await run(h);

    expect(paths).toHaveLength(10);
    expect(first).toMatchObject({ ok: false, kind: 'crash' });
    // A fresh environment: module state did not survive the crash.
    expect(second).toMatchObject({ ok: true, payload: { calls: 1, answers: ['ok', 'ok', 'ok', 'ok', 'ok'] } });
  });
});
