// Lists: gzip answers are read like plain ones, and the next page is asked for as soon as this
// page's head (its continue token) has arrived, while the rest of the page is still coming.
import { createServer, get, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { KubeApiError, KubeClient } from '../../lib/kube/client.js';
import { bearerConnection } from '../../lib/kube/connection.js';
import { NodeClient } from '../../lib/kube/nodes.js';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { startKubeEmulator, type KubeEmulator } from '@ec2-node-reconciler/sandbox/kube/index.js';
import { instanceId, NOW } from '../support/world.js';

let server: Server | undefined;
let kube: KubeEmulator | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  await kube?.close();
  server = undefined;
  kube = undefined;
});

const node = (name: string) => ({ metadata: { name, uid: `uid-${name}`, resourceVersion: '1' }, spec: {}, status: {} });

describe('listing Nodes', () => {
  it('should ask for the next page while the current one is still arriving, and read every page once, in order', async () => {
    const requested: string[] = [];
    let releaseFirst: (() => void) | undefined;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    server = createServer((req, res: ServerResponse) => {
      const token = new URL(req.url ?? '', 'http://x').searchParams.get('continue') ?? '';
      requested.push(token || 'first');
      res.writeHead(200, { 'Content-Type': 'application/json' });
      if (token === '') {
        // The head now; the items only once the second page has been asked for (or after 2 s).
        res.write(
          '{"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"9","continue":"page-2"},"items":[',
        );
        const timer = setTimeout(() => releaseFirst?.(), 2_000);
        void firstHeld.then(() => {
          clearTimeout(timer);
          res.end(`${JSON.stringify(node('a'))}]}`);
        });
        return;
      }
      releaseFirst?.();
      res.end(
        JSON.stringify({ kind: 'NodeList', apiVersion: 'v1', metadata: { resourceVersion: '9' }, items: [node('b')] }),
      );
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const started = performance.now();

    const nodes = await new NodeClient(
      new KubeClient(bearerConnection({ server: `http://127.0.0.1:${port}`, token: 't' })),
    ).listNodes();

    expect(nodes.map((n) => n.name)).toEqual(['a', 'b']);
    expect(requested).toEqual(['first', 'page-2']);
    // The second request released the first page: no 2 s wait.
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it('should read gzip answers (the API server compresses those over 128 KB) like plain ones', async () => {
    kube = await startKubeEmulator({ clock: new VirtualClock(NOW) });
    for (let i = 1; i <= 1_200; i++)
      kube.store.seedNode({
        name: `ip-10-0-${i >> 8}-${i & 255}.ec2.internal`,
        instanceId: instanceId(i),
        createdAt: NOW - 60_000,
      });

    const nodes = await new NodeClient(new KubeClient(bearerConnection({ server: kube.url, token: 't' }))).listNodes();

    expect(nodes).toHaveLength(1_200);
    expect(new Set(nodes.map((n) => n.name)).size).toBe(1_200);
    expect(kube.requestLog.filter({ resource: 'nodes' })).toHaveLength(3);
    // The pages were compressed: the emulator gzips a full page for a client that accepts gzip.
    const encoding = await new Promise<string | undefined>((resolve, reject) => {
      const url = `${kube?.url ?? ''}/api/v1/nodes?limit=500`;
      get(url, { headers: { 'Accept-Encoding': 'gzip', Authorization: 'Bearer t' } }, (res) => {
        res.resume();
        resolve(res.headers['content-encoding']);
      }).on('error', reject);
    });
    expect(encoding).toBe('gzip');
  });

  it('should fail the list on a 410 Expired continue token: no restart, no inconsistent remainder, no partial list', async () => {
    // A continue token names a revision etcd keeps about five minutes (the API server compacts every
    // 5 min): a list that outlives it gets 410 Expired, with a token for an inconsistent remainder.
    // A list is one snapshot or nothing (the sweep does not take part of the Nodes for all of them),
    // and a restart would take as long again: the list fails, and the next sweep lists afresh.
    kube = await startKubeEmulator({ clock: new VirtualClock(NOW) });
    for (let i = 1; i <= 1_200; i++)
      kube.store.seedNode({ name: `node-${i}`, instanceId: instanceId(i), createdAt: NOW - 60_000 });
    let lists = 0;
    kube.faults.addDecider((target) =>
      target.verb === 'list' && target.resource === 'nodes' && ++lists === 2
        ? {
            status: 410,
            message:
              'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results.',
          }
        : undefined,
    );

    const listed = new NodeClient(new KubeClient(bearerConnection({ server: kube.url, token: 't' }))).listNodes();

    await expect(listed).rejects.toBeInstanceOf(KubeApiError);
    await expect(listed).rejects.toMatchObject({ status: 410 });
    expect(kube.requestLog.filter({ resource: 'nodes' })).toHaveLength(2);
  });

  it('should read a gzip answer from a server that sends one without being asked for a page', async () => {
    server = createServer((_req, res) => {
      const body = gzipSync(JSON.stringify({ kind: 'NodeList', apiVersion: 'v1', metadata: {}, items: [node('z')] }));
      res.writeHead(200, {
        'Content-Type': 'application/json',
        'Content-Encoding': 'gzip',
        'Content-Length': body.length,
      });
      res.end(body);
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;

    const nodes = await new NodeClient(
      new KubeClient(bearerConnection({ server: `http://127.0.0.1:${port}`, token: 't' })),
    ).listNodes();

    expect(nodes.map((n) => n.name)).toEqual(['z']);
  });
});
