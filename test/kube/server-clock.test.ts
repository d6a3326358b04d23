// The API server's clock, read from its Date header: what the CLI works on when the cluster's
// time is not the machine's (a skewed clock, a served sandbox running on from its scenario's end).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { KubeConnection } from '../../lib/kube/client.js';
import { CLOCK_SKEW_TOLERANCE_MS, OffsetClock, serverClockOffset } from '../../cli/kube/server-clock.js';
import { VirtualClock, type Clock } from '@ec2-node-reconciler/model/clock.js';
import { startKubeEmulator, type KubeEmulator } from '@ec2-node-reconciler/sandbox/kube/index.js';

const plain = (server: string): KubeConnection => ({ server, requestOptions: () => Promise.resolve({}) });
const withToken = (server: string, token: string): KubeConnection => ({
  server,
  requestOptions: () => Promise.resolve({ headers: { Authorization: `Bearer ${token}` } }),
});

let kube: KubeEmulator | undefined;
let stub: Server | undefined;
afterEach(async () => {
  await kube?.close();
  kube = undefined;
  await new Promise<void>((resolve) => (stub ? stub.close(() => resolve()) : resolve()));
  stub = undefined;
});

describe('serverClockOffset', () => {
  it("should measure how far the API server's clock is from the local one", async () => {
    const serverTime = Date.UTC(2026, 10, 29, 10, 6, 31);
    kube = await startKubeEmulator({ clock: new VirtualClock(serverTime) });
    // A fixed local clock: the offset is exact to the header's second.
    const local: Clock = { now: () => serverTime + 40 * 3_600_000 };
    const offset = await serverClockOffset(plain(kube.url), local);
    expect(offset).toBe(-40 * 3_600_000 + 500);
  });

  it('should read the time from a refusal too (the Date of a 401)', async () => {
    const serverTime = Date.UTC(2026, 10, 29, 10);
    kube = await startKubeEmulator({
      clock: new VirtualClock(serverTime),
      auth: { tokens: { good: { user: 'u' } }, anonymous: false },
    });
    const offset = await serverClockOffset(withToken(kube.url, 'bad'), { now: () => serverTime - 3_600_000 });
    expect(offset).toBe(3_600_000 + 500);
  });

  it('should find a server on the local clock within the tolerance', async () => {
    kube = await startKubeEmulator();
    const offset = await serverClockOffset(plain(kube.url));
    expect(offset).toBeDefined();
    expect(Math.abs(offset ?? Number.POSITIVE_INFINITY)).toBeLessThan(CLOCK_SKEW_TOLERANCE_MS);
  });

  it('should give undefined when the server sends no Date', async () => {
    stub = createServer((_req, res) => {
      res.sendDate = false;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"major":"1","minor":"31"}');
    });
    await new Promise<void>((resolve) => stub?.listen(0, '127.0.0.1', resolve));
    const { port } = stub.address() as AddressInfo;
    expect(await serverClockOffset(plain(`http://127.0.0.1:${port}`))).toBeUndefined();
  });
});

describe('OffsetClock', () => {
  it("should read its base clock's time plus the offset set", () => {
    const base = new VirtualClock(1_000_000);
    const clock = new OffsetClock(base);
    expect(clock.now()).toBe(1_000_000);
    clock.offsetMs = -250_000;
    base.advance(10_000);
    expect(clock.now()).toBe(760_000);
  });
});
