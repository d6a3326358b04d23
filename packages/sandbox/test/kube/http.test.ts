// The HTTP surface: discovery, Status errors, tables, authentication, RBAC, faults, request log.
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { startKubeEmulator, type KubeEmulator } from '../../src/kube/index.js';

const N1 = 'ip-10-0-1-1.ec2.internal';

let kube: KubeEmulator | undefined;
afterEach(async () => {
  await kube?.close();
  kube = undefined;
});

async function start(options: Parameters<typeof startKubeEmulator>[0] = {}): Promise<KubeEmulator> {
  kube = await startKubeEmulator({ clock: new VirtualClock(Date.UTC(2026, 10, 29, 10)), ...options });
  kube.store.seedNode({ name: N1, instanceId: 'i-0a1b2c3d4e5f60001' });
  return kube;
}

async function call(
  k: KubeEmulator,
  path: string,
  init: RequestInit & { token?: string } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers = new Headers(init.headers);
  if (init.token !== undefined) headers.set('Authorization', `Bearer ${init.token}`);
  const response = await fetch(`${k.url}${path}`, { ...init, headers });
  const text = await response.text();
  return {
    status: response.status,
    body: (text.startsWith('{') ? JSON.parse(text) : { text }) as Record<string, unknown>,
  };
}

describe('discovery', () => {
  it('should serve version, API groups and resource lists with the eviction subresource', async () => {
    const k = await start();
    expect((await call(k, '/version')).body).toMatchObject({ major: '1', minor: '31' });
    expect((await call(k, '/api')).body).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
    const groups = (await call(k, '/apis')).body['groups'] as { name: string }[];
    expect(groups.map((g) => g.name)).toEqual([
      'policy',
      'apps',
      'coordination.k8s.io',
      'events.k8s.io',
      'rbac.authorization.k8s.io',
      'authorization.k8s.io',
      'authentication.k8s.io',
    ]);
    const core = (await call(k, '/api/v1')).body['resources'] as Record<string, unknown>[];
    expect(core).toContainEqual({
      name: 'pods/eviction',
      singularName: '',
      namespaced: true,
      group: 'policy',
      version: 'v1',
      kind: 'Eviction',
      verbs: ['create'],
    });
    expect((await call(k, '/apis/nothing.example.com/v1')).status).toBe(404);
  });
});

describe('errors', () => {
  it('should answer Status objects with reason and code', async () => {
    const k = await start();
    expect(await call(k, '/api/v1/nodes/ghost')).toEqual({
      status: 404,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'nodes "ghost" not found',
        reason: 'NotFound',
        details: { name: 'ghost', kind: 'nodes' },
        code: 404,
      },
    });
    const pdb = await call(k, '/apis/policy/v1/namespaces/default/poddisruptionbudgets/x');
    expect(pdb.body).toMatchObject({
      message: 'poddisruptionbudgets.policy "x" not found',
      details: { group: 'policy' },
    });
    const bad = await call(k, '/api/v1/nodes?labelSelector=a%20b%20c');
    expect(bad.body).toMatchObject({ reason: 'BadRequest', code: 400 });
    expect((await call(k, '/api/v1/nodes?watch=true')).body).toMatchObject({ reason: 'MethodNotAllowed', code: 405 });
    const apply = await call(k, `/api/v1/nodes/${N1}`, {
      method: 'PATCH',
      body: '{}',
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
    });
    expect(apply.body).toMatchObject({ reason: 'UnsupportedMediaType', code: 415 });
  });

  it('should validate bodies at the edge and name the field', async () => {
    const k = await start();
    const response = await call(k, `/api/v1/nodes/${N1}`, {
      method: 'PUT',
      body: '{"metadata": {"labels": {"a": 1}}}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(response.body).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: expect.stringContaining('metadata.labels.a') as unknown,
    });
  });
});

describe('tables', () => {
  it('should answer kubectl-style Table requests with node columns', async () => {
    const k = await start();
    const accept =
      'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
    const { body } = await call(k, '/api/v1/nodes?limit=500', { headers: { Accept: accept } });
    expect(body).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
    const rows = body['rows'] as { cells: unknown[]; object: { kind: string } }[];
    expect(rows[0]?.cells.slice(0, 5)).toEqual([N1, 'Ready', '<none>', '0s', 'v1.31.4-eks-aeac579']);
    expect(rows[0]?.object.kind).toBe('PartialObjectMetadata');
  });

  it('should refuse a media type it cannot produce', async () => {
    const k = await start();
    expect(
      (
        await call(k, '/api/v1/nodes', {
          headers: { Accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' },
        })
      ).status,
    ).toBe(406);
  });
});

describe('authentication and RBAC', () => {
  const rbac = [
    `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: nodes }
rules:
  - { apiGroups: [""], resources: [nodes], verbs: [get, list, patch, delete] }
  - { apiGroups: [""], resources: [pods/eviction], verbs: [create] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: nodes }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: nodes }
subjects: [{ kind: Group, name: ec2-node-reconciler }]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: { name: leases, namespace: kube-node-lease }
rules: [{ apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get, list] }]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: leases, namespace: kube-node-lease }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: leases }
subjects: [{ kind: Group, name: ec2-node-reconciler }]`,
  ];
  const auth = {
    tokens: {
      reconciler: { user: 'ec2-node-reconciler', groups: ['ec2-node-reconciler'] },
      admin: { user: 'admin', groups: ['system:masters'] },
    },
    authenticate: (token: string) =>
      token.startsWith('k8s-aws-v1.')
        ? { name: 'arn:aws:iam::111122223333:role/x', groups: ['ec2-node-reconciler'] }
        : null,
  };

  it('should refuse unknown tokens with 401', async () => {
    const k = await start({ auth, rbac });
    expect(await call(k, '/api/v1/nodes', { token: 'wrong' })).toMatchObject({
      status: 401,
      body: { reason: 'Unauthorized', message: 'Unauthorized' },
    });
  });

  it('should authenticate before injected faults, as the filter chain does (401 before any throttling)', async () => {
    const k = await start({ auth, rbac });
    k.faults.failNext(1, { verb: 'list', resource: 'nodes' }, 429);
    expect((await call(k, '/api/v1/nodes', { token: 'wrong' })).status).toBe(401);
    expect((await call(k, '/api/v1/nodes', { token: 'reconciler' })).status).toBe(429);
    expect(k.requestLog.entries.map((e) => `${e.status} ${e.user ?? ''}`)).toEqual(['401 ', '429 ec2-node-reconciler']);
  });

  it('should allow exactly what the bound rules allow and answer 403 otherwise', async () => {
    const k = await start({ auth, rbac });
    expect((await call(k, '/api/v1/nodes', { token: 'reconciler' })).status).toBe(200);
    expect(
      (await call(k, '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', { token: 'reconciler' })).status,
    ).toBe(200);
    expect((await call(k, '/api', { token: 'reconciler' })).status).toBe(200);
    const denied = await call(k, '/apis/coordination.k8s.io/v1/namespaces/default/leases', { token: 'reconciler' });
    expect(denied).toEqual({
      status: 403,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message:
          'leases.coordination.k8s.io is forbidden: User "ec2-node-reconciler" cannot list resource "leases" in API group "coordination.k8s.io" in the namespace "default"',
        reason: 'Forbidden',
        details: { group: 'coordination.k8s.io', kind: 'leases' },
        code: 403,
      },
    });
    expect((await call(k, '/api/v1/pods', { token: 'reconciler' })).status).toBe(403);
    expect((await call(k, '/api/v1/pods', { token: 'admin' })).status).toBe(200);
    expect((await call(k, '/api/v1/nodes', {})).status).toBe(403);
  });

  it('should accept tokens the pluggable authenticator resolves', async () => {
    const k = await start({ auth, rbac });
    expect((await call(k, '/api/v1/nodes', { token: 'k8s-aws-v1.aHR0cHM6Ly9zdHM' })).status).toBe(200);
    expect(k.requestLog.entries.at(-1)?.user).toBe('arn:aws:iam::111122223333:role/x');
  });
});

describe('faults and the request log', () => {
  it('should fail the next N matching PATCHes, then serve normally', async () => {
    const k = await start();
    k.faults.failNext(3, { verb: 'patch', resource: 'nodes', name: N1 });
    const patch = () =>
      call(k, `/api/v1/nodes/${N1}`, {
        method: 'PATCH',
        body: '{"spec":{"unschedulable":true}}',
        headers: { 'Content-Type': 'application/strategic-merge-patch+json' },
      });
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await patch()).status);
    expect(codes).toEqual([500, 500, 500, 200]);
    expect((await call(k, `/api/v1/nodes/${N1}`)).status).toBe(200);
    expect(k.requestLog.filter({ verb: 'patch' }).map((e) => e.status)).toEqual([500, 500, 500, 200]);
    expect(k.requestLog.filter({ verb: 'patch' })[0]?.body).toEqual({ spec: { unschedulable: true } });
  });

  it('should inject latency, error rates and connection resets', async () => {
    const k = await start({ faults: { random: () => 0 } });
    k.faults.latencyMs = 30;
    const started = performance.now();
    await call(k, '/api/v1/nodes');
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
    k.faults.latencyMs = 0;

    const stop = k.faults.errorRate(0.5, { verb: 'list', resource: 'nodes' }, 503);
    expect((await call(k, '/api/v1/nodes')).body).toMatchObject({ code: 503, reason: 'ServiceUnavailable' });
    stop();
    expect((await call(k, '/api/v1/nodes')).status).toBe(200);

    k.faults.resetNext(1, { resource: 'nodes' });
    await expect(fetch(`${k.url}/api/v1/nodes`)).rejects.toThrow();
    expect((await call(k, '/api/v1/nodes')).status).toBe(200);
  });

  it('should log method, path, verb, status and latency', async () => {
    const k = await start();
    await call(k, `/api/v1/nodes?limit=1`);
    expect(k.requestLog.entries.at(-1)).toMatchObject({
      method: 'GET',
      path: '/api/v1/nodes',
      query: '?limit=1',
      verb: 'list',
      resource: 'nodes',
      status: 200,
    });
    expect(k.requestLog.entries.at(-1)?.latencyMs).toBeGreaterThanOrEqual(0);
  });
});

describe('events', () => {
  it('should store one Event visible through both APIs', async () => {
    const k = await start();
    const created = await call(k, '/apis/events.k8s.io/v1/namespaces/default/events', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { generateName: 'node-deleted-' },
        eventTime: '2026-11-29T10:00:00.000000Z',
        reportingController: 'ec2-node-reconciler',
        reportingInstance: 'sweep',
        action: 'Delete',
        reason: 'StaleObject',
        type: 'Normal',
        note: 'deleted stale node',
        regarding: { kind: 'Node', name: N1, apiVersion: 'v1' },
      }),
    });
    expect(created.status).toBe(201);
    const core = await call(
      k,
      '/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dip-10-0-1-1.ec2.internal',
    );
    expect(core.body['items']).toMatchObject([
      {
        reason: 'StaleObject',
        message: 'deleted stale node',
        involvedObject: { kind: 'Node' },
        reportingComponent: 'ec2-node-reconciler',
      },
    ]);
    const invalid = await call(k, '/apis/events.k8s.io/v1/namespaces/default/events', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ metadata: { name: 'x' }, reason: 'R' }),
    });
    expect(invalid.body).toMatchObject({ code: 422, reason: 'Invalid' });
  });
});
