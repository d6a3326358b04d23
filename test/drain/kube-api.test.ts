import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DrainApi } from '../../lib/drain/api.js';
import { kubeDrainApi, toDrainPod } from '../../lib/drain/kube-api.js';
import { stepFailureKind } from '../../lib/drain/step-failure.js';
import { nodePatchBody } from '../../lib/kube/nodes.js';
import { httpStatus, KubeApiError, KubeClient } from '../../lib/kube/client.js';
import { bearerConnection } from '../../lib/kube/connection.js';
import { PodSchema } from '../../lib/kube/schemas.js';

type Handler = (req: IncomingMessage, body: string) => { status: number; body: unknown };

/** A stub API server answering by method and path: just enough to check the adapter's mapping. */
let handler: Handler = () => ({ status: 404, body: {} });
const seen: { method: string; url: string; contentType: string | undefined; body: string }[] = [];
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString()));
  req.on('end', () => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', contentType: req.headers['content-type'], body });
    const answer = handler(req, body);
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer.body));
  });
});
let api: DrainApi;

const status = (code: number, message: string, causes?: { reason: string; message: string }[]) => ({
  status: code,
  body: {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code,
    message,
    ...(causes ? { details: { causes } } : {}),
  },
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  api = kubeDrainApi(new KubeClient(bearerConnection({ server: `http://127.0.0.1:${port}`, token: 't' })), {
    pageSize: 2,
  });
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const ref = { namespace: 'default', name: 'web-1', uid: 'u1' };

describe('kubeDrainApi', () => {
  it('should send a policy/v1 Eviction with a uid precondition', async () => {
    handler = () => ({ status: 201, body: { kind: 'Eviction', apiVersion: 'policy/v1', metadata: { name: 'web-1' } } });
    expect(await api.evictPod(ref)).toEqual({ kind: 'accepted' });
    const request = seen.at(-1);
    expect(request?.url).toBe('/api/v1/namespaces/default/pods/web-1/eviction');
    expect(JSON.parse(request?.body ?? '{}')).toEqual({
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name: 'web-1', namespace: 'default' },
      deleteOptions: { preconditions: { uid: 'u1' } },
    });
  });

  it.each([
    [status(404, 'pods "web-1" not found'), { kind: 'not-found' }],
    [status(409, 'Precondition failed: UID in precondition: u1, UID in object meta: u2'), { kind: 'replaced' }],
    [
      status(429, "Cannot evict pod as it would violate the pod's disruption budget.", [
        {
          reason: 'DisruptionBudget',
          message: 'The disruption budget web-pdb needs 2 healthy pods and has 2 currently',
        },
      ]),
      {
        kind: 'too-many-requests',
        pdb: 'default/web-pdb',
        message:
          "Cannot evict pod as it would violate the pod's disruption budget. (The disruption budget web-pdb needs 2 healthy pods and has 2 currently)",
      },
    ],
    [status(429, 'too many requests'), { kind: 'too-many-requests', message: 'too many requests' }],
    [
      status(500, 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.'),
      {
        kind: 'multiple-pdbs',
        message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
      },
    ],
    [status(403, 'namespace is terminating'), { kind: 'failed', status: 403, message: 'namespace is terminating' }],
  ])('should map an eviction answered %j', async (answer, outcome) => {
    handler = () => answer;
    expect(await api.evictPod(ref)).toEqual(outcome);
  });

  it('should follow continue tokens when listing a node’s pods', async () => {
    const pod = (name: string) => ({ metadata: { name, namespace: 'default', uid: name }, spec: { containers: [] } });
    handler = (req) =>
      req.url?.includes('continue=next')
        ? { status: 200, body: { items: [pod('c')], metadata: {} } }
        : { status: 200, body: { items: [pod('a'), pod('b')], metadata: { continue: 'next' } } };
    const pods = await api.listPodsOnNode('node-a');
    expect(pods.map((p) => p.name)).toEqual(['a', 'b', 'c']);
    expect(seen.at(-2)?.url).toBe('/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a&limit=2');
  });

  it('should patch a node with a strategic-merge patch and read a missing node as undefined', async () => {
    handler = (req) =>
      req.method === 'PATCH'
        ? { status: 200, body: { metadata: { name: 'n', uid: 'x' }, spec: { unschedulable: true } } }
        : status(404, 'nodes "n" not found');
    expect(await api.getNode('n')).toBeUndefined();
    const node = await api.patchNode('n', { unschedulable: true, annotations: { a: 'b' } });
    expect(node.unschedulable).toBe(true);
    expect(seen.at(-1)?.contentType).toBe('application/strategic-merge-patch+json');
  });

  it('should tell a missing DaemonSet from a failed lookup', async () => {
    handler = () => status(404, 'not found');
    expect(await api.daemonSetExists('kube-system', 'agent')).toBe(false);
    handler = () => status(503, 'etcd unavailable');
    await expect(api.daemonSetExists('kube-system', 'agent')).rejects.toMatchObject({ status: 503 });
  });

  it('should fail a refused pod list with the server’s status, which makes the step’s failure permanent', async () => {
    handler = () => status(403, 'pods is forbidden: User "drain" cannot list resource "pods"');

    const listed = api.listPodsOnNode('node-a');

    await expect(listed).rejects.toBeInstanceOf(KubeApiError);
    const error: unknown = await listed.catch((e: unknown) => e);
    expect(httpStatus(error)).toBe(403);
    expect(stepFailureKind(new Error('listing pods on node node-a', { cause: error }))).toBe('permanent');
  });
});

describe('projections', () => {
  it('should read what the filters need from a Pod as the API server sends it', () => {
    const pod = PodSchema.parse({
      metadata: {
        name: 'x',
        namespace: 'kube-system',
        uid: 'u',
        annotations: { 'kubernetes.io/config.mirror': 'abc' },
        ownerReferences: [
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'not-controller', uid: '1' },
          { apiVersion: 'v1', kind: 'Node', name: 'node-a', uid: '2', controller: true },
        ],
        deletionTimestamp: '2026-01-01T00:00:30Z',
      },
      spec: { containers: [], volumes: [{ name: 'tmp', emptyDir: {} }], terminationGracePeriodSeconds: 5 },
      status: { phase: 'Running' },
    });
    expect(toDrainPod(pod)).toEqual({
      namespace: 'kube-system',
      name: 'x',
      uid: 'u',
      mirror: true,
      emptyDir: true,
      phase: 'Running',
      deletionTimestamp: Date.parse('2026-01-01T00:00:30Z'),
      controller: { kind: 'Node', name: 'node-a' },
      terminationGracePeriodSeconds: 5,
    });
  });

  it('should turn null into a key deletion in the patch body', () => {
    expect(nodePatchBody({ unschedulable: null, annotations: { a: null }, taints: [], resourceVersion: '7' })).toEqual({
      metadata: { annotations: { a: null }, resourceVersion: '7' },
      spec: { unschedulable: null, taints: [] },
    });
  });
});
