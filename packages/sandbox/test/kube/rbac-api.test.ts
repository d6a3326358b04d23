// The RBAC API served (roles and bindings: create, get, list, patch, validation, defaulting,
// field validation, escalation), the served objects governing authorization, impersonation,
// SelfSubjectRulesReview and SelfSubjectReview, the events table, the Date header and the OpenAPI v3
// discovery kubectl reads before it writes.
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { startKubeEmulator, type KubeEmulator } from '../../src/kube/index.js';

const START = Date.UTC(2026, 10, 29, 10);
const RBAC = 'rbac.authorization.k8s.io';

let kube: KubeEmulator | undefined;
afterEach(async () => {
  await kube?.close();
  kube = undefined;
});

const READ_NODES = {
  apiVersion: `${RBAC}/v1`,
  kind: 'ClusterRole',
  metadata: { name: 'read-nodes' },
  rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list'] }],
};
const BIND_READERS = {
  apiVersion: `${RBAC}/v1`,
  kind: 'ClusterRoleBinding',
  metadata: { name: 'readers' },
  roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'read-nodes' },
  subjects: [{ kind: 'Group', apiGroup: RBAC, name: 'readers' }],
};
// May manage roles and bindings, and impersonate the user "bob" only.
const RBAC_ADMIN = {
  apiVersion: `${RBAC}/v1`,
  kind: 'ClusterRole',
  metadata: { name: 'rbac-admin' },
  rules: [
    {
      apiGroups: [RBAC],
      resources: ['clusterroles', 'clusterrolebindings', 'roles', 'rolebindings'],
      verbs: ['get', 'list', 'create', 'patch', 'update', 'delete'],
    },
    { apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: ['bob'] },
  ],
};
const BIND_RBAC_ADMIN = {
  apiVersion: `${RBAC}/v1`,
  kind: 'ClusterRoleBinding',
  metadata: { name: 'rbac-admins' },
  roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'rbac-admin' },
  subjects: [{ kind: 'User', apiGroup: RBAC, name: 'carol' }],
};

const auth = {
  tokens: {
    admin: { user: 'admin', groups: ['system:masters'] },
    reader: { user: 'rita', groups: ['readers'] },
    carol: { user: 'carol', groups: [] },
  },
};

let clock = new VirtualClock(START);

async function start(): Promise<KubeEmulator> {
  clock = new VirtualClock(START);
  kube = await startKubeEmulator({ clock, auth, rbac: [READ_NODES, BIND_READERS, RBAC_ADMIN, BIND_RBAC_ADMIN] });
  kube.store.seedNode({ name: 'ip-10-0-1-1.ec2.internal', instanceId: 'i-0a1b2c3d4e5f60001' });
  return kube;
}

type Reply = { status: number; body: Record<string, unknown>; headers: Headers };

async function call(
  k: KubeEmulator,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers = new Headers(options.headers);
  if (options.token !== undefined) headers.set('Authorization', `Bearer ${options.token}`);
  if (options.body !== undefined && !headers.has('Content-Type')) headers.set('Content-Type', 'application/json');
  const response = await fetch(`${k.url}${path}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: (text.startsWith('{') ? JSON.parse(text) : { text }) as Record<string, unknown>,
    headers: response.headers,
  };
}

const names = (reply: Reply): string[] =>
  (reply.body['items'] as { metadata: { name: string } }[]).map((i) => i.metadata.name);

describe('the RBAC API', () => {
  it('should serve the RBAC manifests it was given as objects, listed and read back', async () => {
    const k = await start();
    const list = await call(k, 'GET', `/apis/${RBAC}/v1/clusterroles`, { token: 'admin' });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ kind: 'ClusterRoleList', apiVersion: `${RBAC}/v1` });
    expect(names(list).sort()).toEqual(['rbac-admin', 'read-nodes']);
    const one = await call(k, 'GET', `/apis/${RBAC}/v1/clusterrolebindings/readers`, { token: 'admin' });
    expect(one.body).toMatchObject({
      kind: 'ClusterRoleBinding',
      roleRef: { name: 'read-nodes' },
      metadata: { name: 'readers', creationTimestamp: '2026-11-29T10:00:00Z' },
    });
    expect((one.body['metadata'] as { uid?: unknown }).uid).toEqual(expect.any(String));
  });

  it('should let what is stored govern authorization: a deleted binding takes access away, a created one gives it', async () => {
    const k = await start();
    expect((await call(k, 'GET', '/api/v1/nodes', { token: 'reader' })).status).toBe(200);
    expect((await call(k, 'DELETE', `/apis/${RBAC}/v1/clusterrolebindings/readers`, { token: 'admin' })).status).toBe(
      200,
    );
    expect((await call(k, 'GET', '/api/v1/nodes', { token: 'reader' })).status).toBe(403);
    // Without apiGroup on the subject and roleRef: rbac/v1 defaults them.
    const created = await call(k, 'POST', `/apis/${RBAC}/v1/namespaces/default/rolebindings`, {
      token: 'admin',
      body: {
        apiVersion: `${RBAC}/v1`,
        kind: 'RoleBinding',
        metadata: { name: 'readers' },
        roleRef: { kind: 'ClusterRole', name: 'read-nodes' },
        subjects: [{ kind: 'Group', name: 'readers' }],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      roleRef: { apiGroup: RBAC },
      subjects: [{ kind: 'Group', name: 'readers', apiGroup: RBAC }],
      metadata: { namespace: 'default' },
    });
    // A RoleBinding grants inside its namespace only: nodes are cluster-scoped.
    expect((await call(k, 'GET', '/api/v1/nodes', { token: 'reader' })).status).toBe(403);
    const role = await call(k, 'POST', `/apis/${RBAC}/v1/namespaces/default/roles`, {
      token: 'admin',
      body: {
        apiVersion: `${RBAC}/v1`,
        kind: 'Role',
        metadata: { name: 'pods' },
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }],
      },
    });
    expect(role.status).toBe(201);
    expect((await call(k, 'GET', '/api/v1/namespaces/default/pods', { token: 'reader' })).status).toBe(403);
    const patched = await call(k, 'PATCH', `/apis/${RBAC}/v1/namespaces/default/rolebindings/readers`, {
      token: 'admin',
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: { subjects: [{ kind: 'Group', name: 'readers' }] },
    });
    // roleRef cannot change; the subjects may.
    expect(patched.status).toBe(200);
    const moved = await call(k, 'PATCH', `/apis/${RBAC}/v1/namespaces/default/rolebindings/readers`, {
      token: 'admin',
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: { roleRef: { kind: 'Role', name: 'pods' } },
    });
    expect(moved.status).toBe(422);
    expect(moved.body).toMatchObject({ reason: 'Invalid', details: { causes: [{ field: 'roleRef' }] } });
    expect(moved.body['message']).toContain('cannot change roleRef');
    await call(k, 'DELETE', `/apis/${RBAC}/v1/namespaces/default/rolebindings/readers`, { token: 'admin' });
    await call(k, 'POST', `/apis/${RBAC}/v1/namespaces/default/rolebindings`, {
      token: 'admin',
      body: {
        apiVersion: `${RBAC}/v1`,
        kind: 'RoleBinding',
        metadata: { name: 'pod-readers' },
        roleRef: { kind: 'Role', name: 'pods' },
        subjects: [{ kind: 'User', name: 'rita' }],
      },
    });
    expect((await call(k, 'GET', '/api/v1/namespaces/default/pods', { token: 'reader' })).status).toBe(200);
    expect((await call(k, 'GET', '/api/v1/namespaces/kube-system/pods', { token: 'reader' })).status).toBe(403);
  });

  it('should validate roles and bindings as the API server does', async () => {
    const k = await start();
    const badRole = await call(k, 'POST', `/apis/${RBAC}/v1/namespaces/default/roles`, {
      token: 'admin',
      body: {
        apiVersion: `${RBAC}/v1`,
        kind: 'Role',
        metadata: { name: 'bad' },
        rules: [
          { verbs: ['get'], nonResourceURLs: ['/healthz'] },
          { verbs: [], apiGroups: [''], resources: ['pods'] },
        ],
      },
    });
    expect(badRole.status).toBe(422);
    expect(badRole.body).toMatchObject({ reason: 'Invalid', details: { name: 'bad', group: RBAC, kind: 'Role' } });
    expect(badRole.body['message']).toContain('rules[0].nonResourceURLs: Invalid value');
    expect(badRole.body['message']).toContain('rules[1].verbs: Required value');
    const badBinding = await call(k, 'POST', `/apis/${RBAC}/v1/clusterrolebindings`, {
      token: 'admin',
      body: {
        apiVersion: `${RBAC}/v1`,
        kind: 'ClusterRoleBinding',
        metadata: { name: 'bad' },
        roleRef: { kind: 'Role', name: 'x' },
        subjects: [{ kind: 'ServiceAccount', name: 'sa' }],
      },
    });
    expect(badBinding.status).toBe(422);
    expect(badBinding.body['message']).toContain('roleRef.kind: Unsupported value: "Role"');
    expect(badBinding.body['message']).toContain('subjects[0].namespace: Required value');
  });

  it('should refuse unknown fields under fieldValidation=Strict and drop them with a warning by default', async () => {
    const k = await start();
    const role = {
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRole',
      metadata: { name: 'typo' },
      rules: [{ apiGroups: [''], resources: ['pods'], verb: ['get'], verbs: ['list'] }],
    };
    const strict = await call(k, 'POST', `/apis/${RBAC}/v1/clusterroles?fieldValidation=Strict`, {
      token: 'admin',
      body: role,
    });
    expect(strict.status).toBe(400);
    expect(strict.body['message']).toBe(
      'ClusterRole in version "v1" cannot be handled as a ClusterRole: strict decoding error: unknown field "rules[0].verb"',
    );
    const warned = await call(k, 'POST', `/apis/${RBAC}/v1/clusterroles`, { token: 'admin', body: role });
    expect(warned.status).toBe(201);
    expect(warned.headers.get('warning')).toBe('299 - "unknown field \\"rules[0].verb\\""');
    expect(warned.body['rules']).toEqual([{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }]);
    expect(
      (await call(k, 'POST', `/apis/${RBAC}/v1/clusterroles?fieldValidation=Loose`, { token: 'admin', body: role }))
        .status,
    ).toBe(400);
  });

  it('should refuse to let anyone grant what they do not hold (escalation), and allow what they hold', async () => {
    const k = await start();
    // carol may write roles but holds no node access.
    const grantsNodes = {
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRole',
      metadata: { name: 'node-deleter' },
      rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['delete'] }],
    };
    const escalation = await call(k, 'POST', `/apis/${RBAC}/v1/clusterroles`, { token: 'carol', body: grantsNodes });
    expect(escalation.status).toBe(403);
    expect(escalation.body['message']).toBe(
      'clusterroles.rbac.authorization.k8s.io "node-deleter" is forbidden: user "carol" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["nodes"], Verbs:["delete"]}',
    );
    // What she holds, she may grant.
    const held = {
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRole',
      metadata: { name: 'role-reader' },
      rules: [{ apiGroups: [RBAC], resources: ['roles'], verbs: ['get', 'list'] }],
    };
    expect((await call(k, 'POST', `/apis/${RBAC}/v1/clusterroles`, { token: 'carol', body: held })).status).toBe(201);
    // Binding a role she does not hold is escalation too; the admin may.
    const bind = {
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRoleBinding',
      metadata: { name: 'carol-reads' },
      roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'read-nodes' },
      subjects: [{ kind: 'User', apiGroup: RBAC, name: 'carol' }],
    };
    expect((await call(k, 'POST', `/apis/${RBAC}/v1/clusterrolebindings`, { token: 'carol', body: bind })).status).toBe(
      403,
    );
    expect((await call(k, 'POST', `/apis/${RBAC}/v1/clusterrolebindings`, { token: 'admin', body: bind })).status).toBe(
      201,
    );
    expect((await call(k, 'GET', '/api/v1/nodes', { token: 'carol' })).status).toBe(200);
    // A binding to a role that does not exist cannot be checked, so it is refused.
    const dangling = await call(k, 'POST', `/apis/${RBAC}/v1/clusterrolebindings`, {
      token: 'carol',
      body: { ...bind, metadata: { name: 'x' }, roleRef: { ...bind.roleRef, name: 'nope' } },
    });
    expect(dangling.status).toBe(400);
  });
});

describe('impersonation', () => {
  it('should act as the impersonated user and groups when the caller may impersonate them', async () => {
    const k = await start();
    const asReader = await call(k, 'GET', '/api/v1/nodes', {
      token: 'admin',
      headers: { 'Impersonate-User': 'bob', 'Impersonate-Group': 'readers' },
    });
    expect(asReader.status).toBe(200);
    expect(k.requestLog.entries.at(-1)?.user).toBe('bob');
    const asNobody = await call(k, 'GET', '/api/v1/nodes', { token: 'admin', headers: { 'Impersonate-User': 'bob' } });
    expect(asNobody.status).toBe(403);
    expect(asNobody.body['message']).toBe(
      'nodes is forbidden: User "bob" cannot list resource "nodes" in API group "" at the cluster scope',
    );
    const whoami = await call(k, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      token: 'admin',
      headers: { 'Impersonate-User': 'system:serviceaccount:kube-system:drainer' },
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    expect(whoami.body['status']).toEqual({
      userInfo: {
        username: 'system:serviceaccount:kube-system:drainer',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
      },
    });
  });

  it('should refuse impersonation the caller is not allowed, and groups without a user', async () => {
    const k = await start();
    // carol may impersonate bob, not his groups, and nobody else.
    expect(
      (await call(k, 'GET', '/api/v1/nodes', { token: 'carol', headers: { 'Impersonate-User': 'bob' } })).status,
    ).toBe(403);
    const group = await call(k, 'GET', '/api/v1/nodes', {
      token: 'carol',
      headers: { 'Impersonate-User': 'bob', 'Impersonate-Group': 'readers' },
    });
    expect(group.status).toBe(403);
    expect(group.body['message']).toBe(
      'groups "readers" is forbidden: User "carol" cannot impersonate resource "groups" in API group "" at the cluster scope',
    );
    const other = await call(k, 'GET', '/api/v1/nodes', { token: 'carol', headers: { 'Impersonate-User': 'alice' } });
    expect(other.body['message']).toBe(
      'users "alice" is forbidden: User "carol" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
    expect(
      (await call(k, 'GET', '/api/v1/nodes', { token: 'admin', headers: { 'Impersonate-Group': 'readers' } })).status,
    ).toBe(400);
  });
});

describe('access reviews', () => {
  it('should answer a SelfSubjectRulesReview with the rules bound to the caller in the namespace, bootstrap roles included', async () => {
    const k = await start();
    await call(k, 'POST', `/apis/${RBAC}/v1/namespaces/kube-node-lease/roles`, {
      token: 'admin',
      body: {
        apiVersion: `${RBAC}/v1`,
        kind: 'Role',
        metadata: { name: 'leases' },
        rules: [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['list'] }],
      },
    });
    await call(k, 'POST', `/apis/${RBAC}/v1/namespaces/kube-node-lease/rolebindings`, {
      token: 'admin',
      body: {
        apiVersion: `${RBAC}/v1`,
        kind: 'RoleBinding',
        metadata: { name: 'leases' },
        roleRef: { kind: 'Role', name: 'leases' },
        subjects: [{ kind: 'Group', name: 'readers' }],
      },
    });
    const review = (namespace: string) =>
      call(k, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', {
        token: 'reader',
        body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace } },
      });
    const inLeases = await review('kube-node-lease');
    expect(inLeases.status).toBe(201);
    const status = inLeases.body['status'] as {
      resourceRules: unknown[];
      nonResourceRules: { nonResourceURLs: string[] }[];
      incomplete: boolean;
    };
    expect(status.incomplete).toBe(false);
    expect(status.resourceRules).toContainEqual({ verbs: ['get', 'list'], apiGroups: [''], resources: ['nodes'] });
    expect(status.resourceRules).toContainEqual({
      verbs: ['list'],
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
    });
    expect(status.resourceRules).toContainEqual({
      verbs: ['create'],
      apiGroups: ['authorization.k8s.io'],
      resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
    });
    expect(status.nonResourceRules.flatMap((r) => r.nonResourceURLs)).toContain('/version');
    const elsewhere = (await review('default')).body['status'] as { resourceRules: unknown[] };
    expect(elsewhere.resourceRules).not.toContainEqual({
      verbs: ['list'],
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
    });
    const admin = await call(k, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', {
      token: 'admin',
      body: { spec: { namespace: 'default' } },
    });
    expect((admin.body['status'] as { resourceRules: unknown[] }).resourceRules).toEqual([
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
    ]);
    expect(
      (await call(k, 'GET', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { token: 'admin' })).status,
    ).toBe(405);
  });
});

/** A length-delimited protobuf field. */
const field = (n: number, value: Buffer | string): Buffer => {
  const bytes = typeof value === 'string' ? Buffer.from(value) : value;
  return Buffer.concat([Buffer.from([(n << 3) | 2, bytes.length]), bytes]);
};

describe('protobuf request bodies', () => {
  const post = (k: KubeEmulator, path: string, body: Buffer, token = 'reader') =>
    fetch(`${k.url}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/vnd.kubernetes.protobuf' },
      body,
    });
  const envelope = (kind: string, object: Buffer) =>
    Buffer.concat([
      Buffer.from('k8s\0'),
      field(1, Buffer.concat([field(1, 'authorization.k8s.io/v1'), field(2, kind)])),
      field(2, object),
    ]);

  it('should decode the access reviews kubectl ≥1.32 sends as protobuf, and refuse other kinds with 415', async () => {
    const k = await start();
    const access = envelope(
      'SelfSubjectAccessReview',
      field(2, field(1, Buffer.concat([field(2, 'list'), field(5, 'nodes')]))),
    );
    const allowed = await post(k, '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', access);
    expect(allowed.status).toBe(201);
    expect(await allowed.json()).toMatchObject({
      spec: { resourceAttributes: { verb: 'list', resource: 'nodes' } },
      status: { allowed: true },
    });
    const rules = envelope('SelfSubjectRulesReview', field(2, field(1, 'kube-system')));
    expect(await (await post(k, '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', rules)).json()).toMatchObject({
      spec: { namespace: 'kube-system' },
      status: {
        resourceRules: expect.arrayContaining([
          { verbs: ['get', 'list'], apiGroups: [''], resources: ['nodes'] },
        ]) as unknown,
      },
    });
    const pod = await post(
      k,
      '/api/v1/namespaces/default/pods',
      Buffer.concat([Buffer.from('k8s\0'), field(2, Buffer.alloc(0))]),
      'admin',
    );
    expect(pod.status).toBe(415);
  });
});

describe('what kubectl reads besides objects', () => {
  it('should print events with the columns of kubectl get events', async () => {
    const k = await start();
    await call(k, 'POST', '/api/v1/namespaces/default/events', {
      token: 'admin',
      body: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'n1.cordoned' },
        involvedObject: { kind: 'Node', name: 'ip-10-0-1-1.ec2.internal' },
        reason: 'NodeCordoned',
        message: 'Spot interruption warning',
        type: 'Normal',
        source: { component: 'ec2-node-reconciler' },
        firstTimestamp: '2026-11-29T09:55:00Z',
        lastTimestamp: '2026-11-29T09:58:00Z',
        count: 2,
      },
    });
    const table = await call(k, 'GET', '/api/v1/namespaces/default/events', {
      token: 'admin',
      headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' },
    });
    expect(table.body['kind']).toBe('Table');
    const columns = (table.body['columnDefinitions'] as { name: string; priority: number }[]).map(
      (c) => `${c.name}:${c.priority}`,
    );
    expect(columns).toEqual([
      'Last Seen:0',
      'Type:0',
      'Reason:0',
      'Object:0',
      'Subobject:1',
      'Source:1',
      'Message:0',
      'First Seen:1',
      'Count:1',
      'Name:1',
    ]);
    const rows = table.body['rows'] as { cells: unknown[] }[];
    expect(rows.map((r) => r.cells)).toEqual([
      [
        '2m',
        'Normal',
        'NodeCordoned',
        'node/ip-10-0-1-1.ec2.internal',
        '',
        'ec2-node-reconciler',
        'Spot interruption warning',
        '5m',
        2,
        'n1.cordoned',
      ],
    ]);
  });

  it("should date every answer with the server's clock, refusals included", async () => {
    const k = await start();
    expect((await call(k, 'GET', '/version')).headers.get('date')).toBe('Sun, 29 Nov 2026 10:00:00 GMT');
    clock.advance(90_000);
    const refused = await call(k, 'GET', '/api/v1/pods', { token: 'wrong' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('date')).toBe('Sun, 29 Nov 2026 10:01:30 GMT');
  });

  it('should serve OpenAPI v3 discovery that says the server validates fields', async () => {
    const k = await start();
    const root = await call(k, 'GET', '/openapi/v3', { token: 'admin' });
    const paths = root.body['paths'] as Record<string, { serverRelativeURL: string }>;
    expect(paths[`apis/${RBAC}/v1`]?.serverRelativeURL).toMatch(
      new RegExp(`^/openapi/v3/apis/${RBAC}/v1\\?hash=[0-9A-F]{128}$`),
    );
    const document = await call(k, 'GET', `/openapi/v3/apis/${RBAC}/v1`, { token: 'admin' });
    const patch = (
      document.body['paths'] as Record<
        string,
        { patch?: { parameters: { name: string }[]; 'x-kubernetes-group-version-kind': unknown } }
      >
    )[`/apis/${RBAC}/v1/clusterroles/{name}`]?.patch;
    expect(patch?.parameters.map((p) => p.name)).toContain('fieldValidation');
    expect(patch?.['x-kubernetes-group-version-kind']).toEqual({ group: RBAC, version: 'v1', kind: 'ClusterRole' });
    expect((await call(k, 'GET', '/openapi/v3/apis/nothing.example.com/v1', { token: 'admin' })).status).toBe(404);
  });
});
