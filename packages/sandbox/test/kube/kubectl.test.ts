// The emulator held to the real kubectl: get, cordon/uncordon, drain (DaemonSet, mirror, emptyDir,
// unreplicated and PDB-guarded pods), delete, auth can-i — on the dispatcher's version and on the
// oldest and newest kubectl installed.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rbacYaml } from '@ec2-node-reconciler/model/contract/rbac.js';
import { systemClock } from '@ec2-node-reconciler/model/clock.js';
import { startKubeEmulator, type KubeEmulator, type NodeObject } from '../../src/kube/index.js';
import { availableVersions, KUBECTL, kubectl, versioned } from './kubectl.js';

const N1 = 'ip-10-0-1-1.ec2.internal';
const N2 = 'ip-10-0-1-2.ec2.internal';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kube-emulator-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let kube: KubeEmulator | undefined;
afterEach(async () => {
  await kube?.close();
  kube = undefined;
});

/**
 * A two-node cluster on wall time (kubectl waits in real time), with every kind of pod drain meets.
 * N1's kubelet runs (it finishes terminating evicted pods); N2's is stopped, so a deleted N2 stays deleted.
 */
async function cluster(options: { pdbMinAvailable?: number } = {}): Promise<{ kube: KubeEmulator; config: string }> {
  kube = await startKubeEmulator({ clock: systemClock });
  const s = kube.store;
  const hourAgo = Date.now() - 3_600_000;
  s.seedNode({ name: N1, instanceId: 'i-0a1b2c3d4e5f60001', createdAt: hourAgo });
  s.seedNode({
    name: N2,
    instanceId: 'i-0a1b2c3d4e5f60002',
    createdAt: hourAgo,
    heartbeating: false,
    labels: { 'node-role.kubernetes.io/worker': '' },
  });
  const fast = { terminationGracePeriodSeconds: 1 };
  s.seedPod({ name: 'web-6d4f-aaaaa', node: N1, owner: 'ReplicaSet/web-6d4f', ...fast });
  s.seedPod({ name: 'web-6d4f-bbbbb', node: N1, owner: 'ReplicaSet/web-6d4f', ...fast });
  s.seedPod({ name: 'web-6d4f-ccccc', node: N2, owner: 'ReplicaSet/web-6d4f', ...fast });
  s.seedPod({ name: 'fluent-bit-x1', namespace: 'kube-system', node: N1, owner: 'DaemonSet/fluent-bit', ...fast });
  s.seedPod({ name: `kube-proxy-${N1}`, namespace: 'kube-system', node: N1, mirror: true, ...fast });
  s.seedPod({ name: 'cache', node: N1, owner: 'StatefulSet/cache', emptyDir: true, ...fast });
  s.seedPod({ name: 'solo', node: N1, ...fast });
  s.seedPod({ name: 'batch-done', node: N1, owner: 'Job/batch', phase: 'Succeeded', ...fast });
  if (options.pdbMinAvailable !== undefined)
    s.seedPdb({ name: 'web', selector: { app: 'web' }, minAvailable: options.pdbMinAvailable });
  const config = await kube.writeKubeconfig(join(dir, `kubeconfig-${kube.port}`));
  return { kube, config };
}

const podNames = (k: KubeEmulator, node: string): string[] =>
  k.store
    .listPods({ node })
    .map((p) => `${p.metadata.namespace ?? ''}/${p.metadata.name ?? ''}`)
    .sort();

describe('kubectl against the emulator', () => {
  it('should find kubectl (the faithfulness tests fail without it)', async () => {
    const { config } = await cluster();
    const result = await kubectl(config, ['version', '-o', 'json']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('"serverVersion"');
    expect(result.stdout).toContain('"minor": "31"');
  });

  it('should list nodes with their status, roles and version', async () => {
    const { config } = await cluster();
    const result = await kubectl(config, ['get', 'nodes']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION$/);
    expect(lines[1]).toMatch(new RegExp(`^${N1.replace(/\./g, '\\.')}\\s+Ready\\s+<none>\\s+60m\\s+v1\\.31\\.4-eks-`));
    expect(lines[2]).toMatch(/\s+Ready\s+worker\s+60m\s+/);
  });

  it('should list pods in all namespaces wide', async () => {
    const { config } = await cluster();
    const result = await kubectl(config, ['get', 'pods', '-A', '-o', 'wide']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(
      /^NAMESPACE\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES$/,
    );
    expect(lines).toHaveLength(9);
    expect(result.stdout).toMatch(
      /kube-system\s+fluent-bit-x1\s+1\/1\s+Running\s+0\s+\S+\s+10\.\S+\s+ip-10-0-1-1\.ec2\.internal\s+<none>\s+<none>/,
    );
    expect(result.stdout).toMatch(/default\s+batch-done\s+0\/1\s+Completed\s+0/);
  });

  it('should print a node as JSON with realistic status', async () => {
    const { config } = await cluster();
    const result = await kubectl(config, ['get', 'node', N1, '-o', 'json']);
    expect(result.code).toBe(0);
    const node = JSON.parse(result.stdout) as NodeObject;
    expect(node.spec?.providerID).toBe('aws:///us-east-1a/i-0a1b2c3d4e5f60001');
    expect(node.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(result.stdout.length).toBeGreaterThan(5_000);
  });

  it('should cordon and uncordon a node', async () => {
    const { kube: k, config } = await cluster();
    const cordon = await kubectl(config, ['cordon', N1]);
    expect(cordon).toMatchObject({ code: 0, stdout: `node/${N1} cordoned\n` });
    expect(k.store.getNode(N1)?.spec?.unschedulable).toBe(true);
    expect((await kubectl(config, ['get', 'node', N1])).stdout).toContain('Ready,SchedulingDisabled');
    expect((await kubectl(config, ['cordon', N1])).stdout).toBe(`node/${N1} already cordoned\n`);
    // kubectl sends a strategic-merge patch, as on a real cluster.
    expect(k.requestLog.filter({ verb: 'patch', name: N1 })).toHaveLength(1);

    // kubectl names no fieldManager: the server takes its User-Agent's product, `kubectl`.
    const writers = (k.store.getNode(N1)?.metadata['managedFields'] ?? []) as { manager: string; fieldsV1: unknown }[];
    expect(writers).toEqual([
      expect.objectContaining({ manager: 'kubectl', fieldsV1: { 'f:spec': { 'f:unschedulable': {} } } }),
    ]);

    const uncordon = await kubectl(config, ['uncordon', N1]);
    expect(uncordon).toMatchObject({ code: 0, stdout: `node/${N1} uncordoned\n` });
    expect(k.store.getNode(N1)?.spec?.unschedulable).toBeUndefined();
    // The field went: nobody manages it any more.
    expect(k.store.getNode(N1)?.metadata['managedFields']).toBeUndefined();
  });

  it('should drain a node: evict what drain evicts, keep DaemonSet and mirror pods', async () => {
    const { kube: k, config } = await cluster();
    const result = await kubectl(config, [
      'drain',
      N1,
      '--ignore-daemonsets',
      '--delete-emptydir-data',
      '--force',
      '--timeout=30s',
    ]);
    expect(result.code).toBe(0);
    const out = result.stdout.split('\n');
    expect(out[0]).toBe(`node/${N1} cordoned`);
    for (const pod of [
      'default/web-6d4f-aaaaa',
      'default/web-6d4f-bbbbb',
      'default/cache',
      'default/solo',
      'default/batch-done',
    ]) {
      expect(out).toContain(`evicting pod ${pod}`);
      expect(out).toContain(`pod/${pod.split('/')[1] ?? ''} evicted`);
    }
    expect(out).toContain(`node/${N1} drained`);
    expect(result.stderr).toMatch(/^Warning: /);
    expect(result.stderr).toContain('ignoring DaemonSet-managed Pods: kube-system/fluent-bit-x1');
    expect(result.stderr).toContain('deleting Pods that declare no controller: default/solo');
    expect(result.stderr).not.toContain('kube-proxy');
    expect(podNames(k, N1)).toEqual(['kube-system/fluent-bit-x1', `kube-system/kube-proxy-${N1}`]);
    expect(podNames(k, N2)).toEqual(['default/web-6d4f-ccccc']);
    expect(k.requestLog.count({ verb: 'create', subresource: 'eviction' })).toBe(5);
  });

  it('should retry a PDB-blocked eviction until the drain times out', async () => {
    const { kube: k, config } = await cluster({ pdbMinAvailable: 2 });
    const result = await kubectl(config, [
      'drain',
      N1,
      '--ignore-daemonsets',
      '--delete-emptydir-data',
      '--force',
      '--timeout=3s',
    ]);
    expect(result.code).toBe(1);
    // Three web pods, two required: exactly one of the two on N1 may go.
    const left = podNames(k, N1).filter((p) => p.startsWith('default/web-'));
    expect(left).toHaveLength(1);
    const blocked = (left[0] ?? '').split('/')[1] ?? '';
    expect(result.stderr).toContain(
      `error when evicting pods/"${blocked}" -n "default" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.`,
    );
    expect(result.stderr).toContain(`error when evicting pods/"${blocked}" -n "default": global timeout reached: 3s`);
    expect(result.stderr).toContain(`There are pending nodes to be drained:\n ${N1}`);
    expect(result.stderr).toContain(`There are pending pods in node "${N1}" when an error occurred`);
    expect(podNames(k, N1)).toEqual([
      `default/${blocked}`,
      'kube-system/fluent-bit-x1',
      `kube-system/kube-proxy-${N1}`,
    ]);
    // kubectl retried the same eviction after its 5 s back-off, as against a real server.
    expect(result.stdout.split('\n').filter((l) => l === `evicting pod default/${blocked}`)).toHaveLength(2);
    const refusals = k.requestLog.filter({ verb: 'create', subresource: 'eviction', name: blocked, status: 429 });
    expect(refusals.length).toBeGreaterThanOrEqual(1);
  });

  it('should delete a node, after which it is not found', async () => {
    const { kube: k, config } = await cluster();
    const deleted = await kubectl(config, ['delete', 'node', N2]);
    expect(deleted).toMatchObject({ code: 0, stdout: `node "${N2}" deleted\n` });
    const get = await kubectl(config, ['get', 'node', N2]);
    expect(get.code).toBe(1);
    expect(get.stderr).toBe(`Error from server (NotFound): nodes "${N2}" not found\n`);
    // The garbage collector removed the node's Lease with it.
    expect(k.store.getLease(N2)).toBeUndefined();
  });

  it('should answer kubectl auth can-i from RBAC', async () => {
    // kubectl sends tokens only over TLS.
    kube = await startKubeEmulator({
      clock: systemClock,
      tls: true,
      auth: { tokens: { 'reconciler-token': { user: 'reconciler', groups: ['ec2-node-reconciler'] } } },
      rbac: [READ_NODES],
    });
    const config = await kube.writeKubeconfig(join(dir, 'rbac-kubeconfig'), { token: 'reconciler-token' });
    expect(await kubectl(config, ['auth', 'can-i', 'list', 'nodes'])).toMatchObject({ code: 0, stdout: 'yes\n' });
    expect(await kubectl(config, ['auth', 'can-i', 'delete', 'nodes'])).toMatchObject({ code: 1, stdout: 'no\n' });
    const denied = await kubectl(config, ['delete', 'node', 'any']);
    expect(denied.stderr).toContain(
      'Error from server (Forbidden): nodes "any" is forbidden: User "reconciler" cannot delete resource "nodes" in API group "" at the cluster scope',
    );
  });

  // kubectl 1.27 and 1.28 apply only with --validate=false: they first read OpenAPI v2 (protobuf),
  // which the emulator does not serve; from 1.29 the OpenAPI v3 discovery is enough.
  describe.each([KUBECTL, versioned(29), versioned(33)].filter((b) => b === KUBECTL || existsSync(b)))(
    'apply of the reconciler RBAC with %s',
    (binary) => {
      it('should apply the manifest, then govern the identities it binds (can-i --list --as)', async () => {
        kube = await startKubeEmulator({
          clock: systemClock,
          tls: true,
          auth: { tokens: { 'admin-token': { user: 'admin', groups: ['system:masters'] } } },
          rbac: [],
        });
        const config = await kube.writeKubeconfig(join(dir, `apply-${kube.port}`), { token: 'admin-token' });
        const manifest = join(dir, `rbac-${kube.port}.yaml`);
        await writeFile(manifest, rbacYaml());
        const applied = await kubectl(config, ['apply', '-f', manifest], binary);
        expect(applied.stderr).toBe('');
        expect(applied.stdout).toContain('clusterrolebinding.rbac.authorization.k8s.io/ec2-node-reconciler created');
        expect((await kubectl(config, ['apply', '-f', manifest], binary)).stdout).toContain(
          'role.rbac.authorization.k8s.io/ec2-node-reconciler unchanged',
        );
        const asReconciler = ['--as=reconciler', '--as-group=ec2-node-reconciler'];
        const list = await kubectl(
          config,
          ['auth', 'can-i', '--list', '-n', 'kube-node-lease', ...asReconciler],
          binary,
        );
        expect(list.stdout).toMatch(/^leases\.coordination\.k8s\.io\s+\[\]\s+\[\]\s+\[get list\]$/m);
        expect(list.stdout).toMatch(/^nodes\s+\[\]\s+\[\]\s+\[get list patch delete\]$/m);
        expect((await kubectl(config, ['get', 'pods', '-A', ...asReconciler], binary)).code).toBe(0);
        // kubectl ≥1.32 sends these reviews as protobuf.
        expect((await kubectl(config, ['auth', 'can-i', 'delete', 'nodes', ...asReconciler], binary)).stdout).toBe(
          'yes\n',
        );
        expect((await kubectl(config, ['auth', 'can-i', 'delete', 'pods', ...asReconciler], binary)).stdout).toBe(
          'no\n',
        );
        expect((await kubectl(config, ['auth', 'whoami', ...asReconciler], binary)).stdout).toMatch(
          /^Username\s+reconciler$/m,
        );
        const denied = await kubectl(config, ['delete', 'pod', 'x', '-n', 'default', ...asReconciler], binary);
        expect(denied.stderr).toContain(
          'Error from server (Forbidden): pods "x" is forbidden: User "reconciler" cannot delete resource "pods" in API group "" in the namespace "default"',
        );
      });
    },
  );

  describe.each(availableVersions())('with %s', (binary) => {
    it('should get, cordon and drain', async () => {
      const { kube: k, config } = await cluster();
      expect((await kubectl(config, ['get', 'nodes'], binary)).stdout).toContain(N1);
      expect((await kubectl(config, ['get', 'pods', '-A', '-o', 'wide'], binary)).stdout).toContain('fluent-bit-x1');
      const drain = await kubectl(
        config,
        ['drain', N1, '--ignore-daemonsets', '--delete-emptydir-data', '--force', '--timeout=30s'],
        binary,
      );
      expect(drain.code).toBe(0);
      expect(drain.stdout).toContain(`node/${N1} drained`);
      expect(podNames(k, N1)).toEqual(['kube-system/fluent-bit-x1', `kube-system/kube-proxy-${N1}`]);
    });
  });

  it('should use the dispatcher unless KUBECTL says otherwise', () => {
    expect(KUBECTL).toBeTruthy();
    expect(availableVersions().length).toBeGreaterThan(0);
  });
});

const READ_NODES = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: read-nodes }
rules:
  - apiGroups: [""]
    resources: [nodes]
    verbs: [get, list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: read-nodes }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: read-nodes }
subjects:
  - { kind: Group, name: ec2-node-reconciler, apiGroup: rbac.authorization.k8s.io }
`;
