// KubeClient: the Kubernetes REST transport of the Lambdas and the CLI. Against the emulator over
// TLS (the EKS way: the cluster CA is the only trusted root), and against a stub server for what
// an API server (or a proxy in front of it) can answer.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  KubeApiError,
  KubeClient,
  kubePath,
  KubeTransportError,
  MAX_RETRY_WAIT_MS,
  retryDelayMs,
  type KubeClientOptions,
  type KubeConnection,
} from '../../lib/kube/client.js';
import { bearerConnection } from '../../lib/kube/connection.js';
import { connectionFromKubeConfig } from '../../cli/kube/kubeconfig.js';
import { listOf, NodeSchema } from '../../lib/kube/schemas.js';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { startKubeEmulator, type KubeEmulator } from '@ec2-node-reconciler/sandbox/kube/index.js';
import { selfSignedCertificate } from '@ec2-node-reconciler/sandbox/kube/tls.js';
import { instanceId, NOW } from '../support/world.js';

const TOKEN = 'reconciler-token';
const NodeListSchema = listOf(NodeSchema);
const listNodes = (client: KubeClient) => client.call({ method: 'GET', path: '/api/v1/nodes' }, NodeListSchema);
const base64 = (pem: string) => Buffer.from(pem).toString('base64');

describe('over TLS, against the emulator', () => {
  let kube: KubeEmulator;

  beforeAll(async () => {
    kube = await startKubeEmulator({
      clock: new VirtualClock(NOW),
      tls: true,
      auth: { tokens: { [TOKEN]: { user: 'reconciler' } } },
    });
    kube.store.seedNode({ name: 'ip-10-0-0-1.ec2.internal', instanceId: instanceId(1), createdAt: NOW - 60_000 });
  });
  afterAll(() => kube.close());

  it('should trust the cluster CA it is given (EKS certificateAuthority.data) and send the bearer token', async () => {
    const client = new KubeClient(
      bearerConnection({ server: kube.url, caData: base64(kube.caCert ?? ''), token: TOKEN }),
    );

    const nodes = await listNodes(client);

    expect(nodes.items.map((n) => n.metadata.name)).toEqual(['ip-10-0-0-1.ec2.internal']);
    expect(kube.requestLog.entries.at(-1)).toMatchObject({ user: 'reconciler', status: 200 });
  });

  it('should refuse a server whose certificate another CA signed, before sending the token', async () => {
    const before = kube.requestLog.entries.length;
    const client = new KubeClient(
      bearerConnection({ server: kube.url, caData: base64(selfSignedCertificate('someone else').cert), token: TOKEN }),
    );

    const failure = listNodes(client);

    await expect(failure).rejects.toBeInstanceOf(KubeTransportError);
    await expect(failure).rejects.toThrow(/GET \/api\/v1\/nodes: .*(certificate|signature)/i);
    expect(kube.requestLog.entries).toHaveLength(before);
  });

  it('should reach the cluster of a kubeconfig (the CLI way): CA, token and server from the current context', async () => {
    const kc = new KubeConfig();
    kc.loadFromString(kube.kubeconfig({ token: TOKEN }));

    const nodes = await listNodes(new KubeClient(connectionFromKubeConfig(kc)));

    expect(nodes.items).toHaveLength(1);
    expect(kube.requestLog.entries.at(-1)).toMatchObject({ user: 'reconciler', status: 200 });
  });

  it('should get its token from the kubeconfig’s exec plugin, as EKS kubeconfigs do (`aws eks get-token`)', async () => {
    const credential = JSON.stringify({
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      kind: 'ExecCredential',
      status: { token: TOKEN },
    });
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'eks', server: kube.url, caData: base64(kube.caCert ?? '') }],
      users: [
        {
          name: 'eks',
          exec: {
            apiVersion: 'client.authentication.k8s.io/v1beta1',
            command: process.execPath,
            args: ['-e', `process.stdout.write(${JSON.stringify(credential)})`],
          },
        },
      ],
      contexts: [{ name: 'eks', cluster: 'eks', user: 'eks' }],
      currentContext: 'eks',
    });

    const nodes = await listNodes(new KubeClient(connectionFromKubeConfig(kc)));

    expect(nodes.items).toHaveLength(1);
    expect(kube.requestLog.entries.at(-1)).toMatchObject({ user: 'reconciler', status: 200 });
  });
});

describe('what the server answers', () => {
  type Answer = {
    status: number;
    body: string;
    contentType?: string;
    delayMs?: number;
    headers?: Record<string, string>;
    trickle?: boolean;
  };
  let answer: Answer = { status: 200, body: '{}' };
  /** Answers given before `answer`, one per request. */
  const answers: Answer[] = [];
  const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
  let server: Server;
  let url: string;
  /** Requests the server holds right now, and the most it held at once. */
  let active = 0;
  let peakConcurrency = 0;

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      peakConcurrency = Math.max(peakConcurrency, ++active);
      res.once('close', () => active--);
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        const current = answers.shift() ?? answer;
        const reply = () => {
          res.writeHead(current.status, {
            'content-type': current.contentType ?? 'application/json',
            ...current.headers,
          });
          if (!current.trickle) {
            res.end(current.body);
            return;
          }
          // One byte every 20 ms: never idle, never done in time.
          let at = 0;
          const timer = setInterval(() => {
            if (res.destroyed || at >= current.body.length) {
              clearInterval(timer);
              res.end();
              return;
            }
            res.write(current.body.charAt(at++));
          }, 20);
        };
        if (current.delayMs) setTimeout(reply, current.delayMs);
        else reply();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => {
    seen.length = 0;
    waits.length = 0;
    answers.length = 0;
    peakConcurrency = 0;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const waits: number[] = [];
  // No retries unless a test asks; waits are recorded, not slept.
  const client = (options: { prefix?: string; connection?: Partial<KubeConnection> } & KubeClientOptions = {}) => {
    const { prefix, connection, ...clientOptions } = options;
    return new KubeClient(
      { ...bearerConnection({ server: `${url}${prefix ?? ''}`, token: 'secret-token' }), ...connection },
      {
        retries: 0,
        sleep: (ms) => {
          waits.push(ms);
          return Promise.resolve();
        },
        ...clientOptions,
      },
    );
  };

  it('should send JSON with the content type asked for, the query encoded, and say who it is', async () => {
    answer = { status: 200, body: JSON.stringify({ metadata: { name: 'n', uid: 'u' } }) };
    const calls: string[] = [];

    await client({ onRequest: (m, p) => calls.push(`${m} ${p}`) }).call(
      {
        method: 'PATCH',
        path: kubePath('api/v1/nodes', 'n'),
        query: { fieldManager: 'x y', dryRun: undefined },
        contentType: 'application/merge-patch+json',
        body: { spec: { unschedulable: true } },
      },
      NodeSchema,
    );

    expect(seen[0]).toMatchObject({
      method: 'PATCH',
      url: '/api/v1/nodes/n?fieldManager=x+y',
      body: '{"spec":{"unschedulable":true}}',
    });
    expect(seen[0]?.headers).toMatchObject({
      'content-type': 'application/merge-patch+json',
      accept: 'application/json',
      authorization: 'Bearer secret-token',
      'user-agent': 'ec2-node-reconciler',
    });
    expect(calls).toEqual(['PATCH /api/v1/nodes/n']);
  });

  it('should keep the server URL’s path prefix (an API server behind a proxy) and encode path segments', async () => {
    answer = { status: 200, body: '{}' };
    await client({ prefix: '/k8s/clusters/c-1/' }).call(
      { method: 'GET', path: kubePath('api/v1/namespaces', 'default', 'pods', 'a b') },
      z.unknown(),
    );
    expect(seen[0]?.url).toBe('/k8s/clusters/c-1/api/v1/namespaces/default/pods/a%20b');
  });

  it('should turn an error answer into a KubeApiError carrying the status and the Status body', async () => {
    const status = {
      kind: 'Status',
      status: 'Failure',
      code: 409,
      reason: 'Conflict',
      message: 'Precondition failed: UID in precondition: u1',
      details: { causes: [{ message: 'why' }] },
    };
    answer = { status: 409, body: JSON.stringify(status) };

    const error: unknown = await client()
      .call({ method: 'DELETE', path: '/api/v1/nodes/n' }, z.unknown())
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(KubeApiError);
    expect(error).toMatchObject({
      status: 409,
      details: { reason: 'Conflict', message: status.message, details: { causes: [{ message: 'why' }] } },
    });
    expect(String(error)).toBe(
      'KubeApiError: DELETE /api/v1/nodes/n: HTTP 409 Conflict: Precondition failed: UID in precondition: u1',
    );
  });

  it('should keep the text of an error answer that is not a Status (a load balancer’s page)', async () => {
    answer = { status: 502, body: '<html>Bad Gateway</html>', contentType: 'text/html' };
    await expect(client().call({ method: 'GET', path: '/api/v1/nodes' }, z.unknown())).rejects.toMatchObject({
      status: 502,
      details: { message: '<html>Bad Gateway</html>' },
    });
  });

  it('should tell the connection about a 401, so the next request brings a fresh credential', async () => {
    answer = {
      status: 401,
      body: JSON.stringify({ kind: 'Status', code: 401, reason: 'Unauthorized', message: 'Unauthorized' }),
    };
    let told = 0;
    await expect(
      client({ connection: { unauthorized: () => told++ } }).call(
        { method: 'GET', path: '/api/v1/nodes' },
        z.unknown(),
      ),
    ).rejects.toMatchObject({ status: 401 });
    expect(told).toBe(1);
  });

  it('should name the field when an answer is not the object expected, and never accept it', async () => {
    answer = { status: 200, body: JSON.stringify({ items: [{ metadata: { name: 'n' } }, { metadata: { name: 7 } }] }) };
    await expect(listNodes(client())).rejects.toThrow(
      'GET /api/v1/nodes: unexpected answer: items.1.metadata.name: Invalid input: expected string, received number',
    );
  });

  it('should fail on an answer that is not JSON', async () => {
    answer = { status: 200, body: 'ok' };
    await expect(listNodes(client())).rejects.toThrow(/answer is not JSON: ok/);
  });

  it('should give up on a server that does not answer in time', async () => {
    answer = { status: 200, body: '{}', delayMs: 500 };
    await expect(client({ timeoutMs: 50 }).call({ method: 'GET', path: '/version' }, z.unknown())).rejects.toThrow(
      'GET /version: no answer within 50 ms',
    );
  });

  it('should give up on an answer that trickles in past the deadline, though never idle', async () => {
    answer = { status: 200, body: JSON.stringify({ items: [], padding: 'x'.repeat(40) }), trickle: true };
    await expect(
      client({ timeoutMs: 150 }).call({ method: 'GET', path: '/api/v1/nodes' }, z.unknown()),
    ).rejects.toThrow('no answer within 150 ms');
  });

  it('should never outlive the invocation: the attempt gets only the time left, and no retry starts that cannot finish', async () => {
    answer = { status: 200, body: '{}', delayMs: 500 };
    await expect(
      client({ remainingMs: () => 80 }).call({ method: 'GET', path: '/version' }, z.unknown()),
    ).rejects.toThrow('no answer within 80 ms');

    answer = { status: 429, body: JSON.stringify({ kind: 'Status', code: 429 }), headers: { 'Retry-After': '5' } };
    seen.length = 0;
    await expect(
      client({ retries: 3, remainingMs: () => 3_000 }).call({ method: 'GET', path: '/api/v1/nodes' }, z.unknown()),
    ).rejects.toMatchObject({ status: 429 });
    expect(seen).toHaveLength(1);
    expect(waits).toEqual([]);

    seen.length = 0;
    await expect(
      client({ remainingMs: () => 0 }).call({ method: 'GET', path: '/version' }, z.unknown()),
    ).rejects.toThrow('GET /version: no time left in this invocation');
    expect(seen).toHaveLength(0);
  });

  it('should read a success without a body as null (a DELETE answered 200 by a proxy)', async () => {
    answer = { status: 200, body: '' };
    await expect(client().call({ method: 'DELETE', path: '/api/v1/nodes/n' }, z.unknown())).resolves.toBeNull();
  });

  it('should retry a throttled or failed GET, waiting what the server asks, then give the answer', async () => {
    const tooMany = {
      status: 429,
      body: JSON.stringify({ kind: 'Status', code: 429, reason: 'TooManyRequests' }),
      headers: { 'Retry-After': '2' },
    };
    answers.push(tooMany, { status: 503, body: 'upstream connect error' });
    answer = { status: 200, body: JSON.stringify({ items: [] }) };

    const nodes = await listNodes(client({ retries: 3 }));

    expect(nodes.items).toEqual([]);
    expect(seen).toHaveLength(3);
    expect(waits).toEqual([2_000, 2_000]);
  });

  it('should stop retrying after the last attempt and report the last answer', async () => {
    answer = {
      status: 503,
      body: JSON.stringify({ kind: 'Status', code: 503, reason: 'ServiceUnavailable', message: 'etcd leader changed' }),
    };
    await expect(listNodes(client({ retries: 2 }))).rejects.toMatchObject({
      status: 503,
      details: { message: 'etcd leader changed' },
    });
    expect(seen).toHaveLength(3);
  });

  it('should retry a write that API Priority and Fairness refused (429 with Retry-After), after that wait', async () => {
    answers.push({
      status: 429,
      body: JSON.stringify({ kind: 'Status', code: 429, reason: 'TooManyRequests' }),
      headers: { 'Retry-After': '1' },
    });
    answer = { status: 200, body: JSON.stringify({ metadata: { name: 'n', uid: 'u' } }) };
    const cordon = {
      method: 'PATCH',
      path: kubePath('api/v1/nodes', 'n'),
      contentType: 'application/merge-patch+json',
      body: { spec: { unschedulable: true } },
    } as const;

    const node = await client({ retries: 3 }).call(cordon, NodeSchema);

    expect(node.metadata.name).toBe('n');
    expect(seen.map((r) => r.method)).toEqual(['PATCH', 'PATCH']);
    expect(waits).toEqual([1_000]);
  });

  it('should never retry any other refused write: a 429 without Retry-After, a 5xx, a conflict', async () => {
    const patch = { method: 'PATCH', path: kubePath('api/v1/nodes', 'n'), body: {} } as const;
    for (const refusal of [
      { status: 429, body: JSON.stringify({ kind: 'Status', code: 429 }) },
      { status: 503, body: JSON.stringify({ kind: 'Status', code: 503 }), headers: { 'Retry-After': '1' } },
      { status: 409, body: JSON.stringify({ kind: 'Status', code: 409 }), headers: { 'Retry-After': '1' } },
    ]) {
      answer = refusal;
      seen.length = 0;
      await expect(client({ retries: 3 }).call(patch, z.unknown())).rejects.toMatchObject({ status: refusal.status });
      expect(seen).toHaveLength(1);
    }
    expect(waits).toEqual([]);
  });

  it('should never retry an eviction’s 429, Retry-After or not: a PodDisruptionBudget’s, for the drain to handle', async () => {
    answer = {
      status: 429,
      body: JSON.stringify({ kind: 'Status', code: 429, message: 'Cannot evict pod' }),
      headers: { 'Retry-After': '10' },
    };
    const eviction = {
      method: 'POST',
      path: '/api/v1/namespaces/default/pods/web-1/eviction',
      body: {},
      throttleIsRefusal: true,
    } as const;
    await expect(client({ retries: 3 }).call(eviction, z.unknown())).rejects.toMatchObject({ status: 429 });
    expect(seen).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('should keep at most maxInFlight requests out at once, sending the others as answers come back', async () => {
    answer = { status: 200, body: '{}', delayMs: 30 };
    let out = 0;
    let most = 0;
    const limited = client({ maxInFlight: 3 });
    const track = async (i: number) => {
      out++;
      most = Math.max(most, out);
      try {
        return await limited.call({ method: 'GET', path: `/api/v1/nodes/n${i}` }, z.unknown());
      } finally {
        out--;
      }
    };

    await Promise.all(Array.from({ length: 8 }, (_, i) => track(i)));

    expect(seen).toHaveLength(8);
    expect(most).toBe(8);
    expect(peakConcurrency).toBe(3);
  });

  it('should wait the Retry-After it is given, within a cap, else a second per attempt', () => {
    expect(retryDelayMs('3', 1)).toBe(3_000);
    expect(retryDelayMs('3600', 1)).toBe(MAX_RETRY_WAIT_MS);
    expect(retryDelayMs(undefined, 2)).toBe(2_000);
    expect(retryDelayMs('Wed, 21 Oct 2026 07:28:00 GMT', 1)).toBe(1_000);
  });

  it('should name the request when the server cannot be reached (after retrying), and never the token', async () => {
    const slept: number[] = [];
    const sleep = (ms: number) => {
      slept.push(ms);
      return Promise.resolve();
    };
    const closed = new KubeClient(bearerConnection({ server: 'http://127.0.0.1:1', token: 'secret-token' }), {
      retries: 2,
      sleep,
    });
    const error: unknown = await closed
      .call({ method: 'GET', path: '/api/v1/nodes' }, z.unknown())
      .catch((e: unknown) => e);
    expect(slept).toEqual([1_000, 2_000]);
    expect(error).toBeInstanceOf(KubeTransportError);
    expect(String(error)).toMatch(/GET \/api\/v1\/nodes: connect ECONNREFUSED/);
    expect(String(error)).not.toContain('secret-token');
  });
});
