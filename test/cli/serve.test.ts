// `simulate test/scenarios/demo.yaml --serve` held to the real clients an operator points at it:
// kubectl (drain, apply of the reconciler's RBAC, auth can-i --list --as, get events), the AWS CLI's
// `eks get-token`, and the CLI's own `sweep`. Everything runs as separate processes through the
// real binaries, as on an operator's machine.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { kubectl } from '@ec2-node-reconciler/sandbox/test/kube/kubectl.js';
import { serveScenario, type Served as BaseServed } from '../support/served.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/ec2-node-reconciler.mjs');
const DEMO = join(ROOT, 'test/scenarios/demo.yaml');

type Served = BaseServed & { unresponsiveAtEnd: number; endedAt: number };

let served: Served;

/** Starts the served demo and reads, from what it prints, how to reach it and where its scenario ended. */
async function serve(): Promise<Served> {
  const base = await serveScenario(DEMO);
  const ended = /its clock runs at wall speed from the scenario's end, (\S+):/.exec(base.stdout);
  // The scenario's own last sweep, as the simulation printed it ("after: in-sync 33, gone 4, …, unresponsive-machine 1, …").
  const after = [...base.stdout.matchAll(/after:.*?unresponsive-machine (\d+)/g)].at(-1);
  return { ...base, unresponsiveAtEnd: Number(after?.[1] ?? 0), endedAt: Date.parse(ended?.[1] ?? '') };
}

type Run = { code: number; stdout: string; stderr: string };

function run(
  file: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { cwd: ROOT, env: options.env ?? process.env, timeout: options.timeoutMs ?? 60_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error !== null && typeof error.code !== 'number') {
          reject(new Error(`running ${file} ${args.join(' ')}`, { cause: error }));
          return;
        }
        resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr });
      },
    );
  });
}

const PodListSchema = z.object({
  items: z.array(
    z.object({
      metadata: z.object({ ownerReferences: z.array(z.object({ kind: z.string() })).optional() }),
      spec: z.object({ nodeName: z.string().optional(), terminationGracePeriodSeconds: z.number().optional() }),
    }),
  ),
});
const NodeListSchema = z.object({
  items: z.array(
    z.object({
      metadata: z.object({ name: z.string(), labels: z.record(z.string(), z.string()).optional() }),
      spec: z.object({ unschedulable: z.boolean().optional() }),
    }),
  ),
});

beforeAll(async () => {
  served = await serve();
}, 150_000);

afterAll(async () => {
  // Unset when serving failed (serveScenario stopped the process then).
  await (served as Served | undefined)?.stop();
});

describe('simulate demo.yaml --serve, driven by the real binaries', () => {
  it('should print events with the columns kubectl get events shows', async () => {
    const events = await kubectl(served.kubeconfig, ['get', 'events', '-A']);
    expect(events.code).toBe(0);
    const [header = '', ...rows] = events.stdout.trim().split('\n');
    expect(header.split(/\s{2,}/)).toEqual(['NAMESPACE', 'LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    expect(rows.some((row) => /\bNormal\s+NodeDeleted\s+node\/ip-/.test(row))).toBe(true);
  });

  it('should apply `ec2-node-reconciler rbac | kubectl apply -f -`, and what is applied governs the reconciler', async () => {
    const pipeline = `"${process.execPath}" "${BIN}" rbac | kubectl --kubeconfig "${served.kubeconfig}" apply -f -`;
    const applied = await run('sh', ['-c', pipeline]);
    expect(applied.stderr).not.toContain('error');
    expect(applied.code).toBe(0);
    expect(applied.stdout.trim().split('\n')).toEqual([
      'clusterrole.rbac.authorization.k8s.io/ec2-node-reconciler configured',
      'clusterrolebinding.rbac.authorization.k8s.io/ec2-node-reconciler configured',
      'role.rbac.authorization.k8s.io/ec2-node-reconciler configured',
      'rolebinding.rbac.authorization.k8s.io/ec2-node-reconciler configured',
    ]);
    // Applied again: kubectl now finds its last-applied annotation and nothing to change.
    const again = await run('sh', ['-c', pipeline]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('clusterrole.rbac.authorization.k8s.io/ec2-node-reconciler unchanged');

    const asReconciler = ['--as=ec2-node-reconciler', '--as-group=ec2-node-reconciler'];
    const list = await kubectl(served.kubeconfig, ['auth', 'can-i', '--list', ...asReconciler]);
    expect(list.code).toBe(0);
    const rows = list.stdout.split('\n').map((line) => line.trim().split(/\s{2,}/));
    expect(rows[0]).toEqual(['Resources', 'Non-Resource URLs', 'Resource Names', 'Verbs']);
    expect(rows).toContainEqual(['nodes', '[]', '[]', '[get list patch delete]']);
    expect(rows).toContainEqual(['pods/eviction', '[]', '[]', '[create]']);
    const leases = await kubectl(served.kubeconfig, [
      'auth',
      'can-i',
      '--list',
      '-n',
      'kube-node-lease',
      ...asReconciler,
    ]);
    expect(leases.stdout).toMatch(/^leases\.coordination\.k8s\.io\s+\[\]\s+\[\]\s+\[get list\]$/m);
    expect((await kubectl(served.kubeconfig, ['auth', 'can-i', 'delete', 'nodes', ...asReconciler])).stdout).toBe(
      'yes\n',
    );
    expect((await kubectl(served.kubeconfig, ['auth', 'can-i', 'delete', 'pods', ...asReconciler])).stdout).toBe(
      'no\n',
    );

    // Take `delete` away from the applied ClusterRole: the reconciler's identity loses it at once.
    const patch = await kubectl(served.kubeconfig, [
      'patch',
      'clusterrole',
      'ec2-node-reconciler',
      '--type=json',
      '-p',
      '[{"op":"replace","path":"/rules/0/verbs","value":["get","list","patch"]}]',
    ]);
    expect(patch.stdout).toBe('clusterrole.rbac.authorization.k8s.io/ec2-node-reconciler patched\n');
    expect((await kubectl(served.kubeconfig, ['auth', 'can-i', 'delete', 'nodes', ...asReconciler])).stdout).toBe(
      'no\n',
    );
    expect((await run('sh', ['-c', pipeline])).stdout).toContain(
      'clusterrole.rbac.authorization.k8s.io/ec2-node-reconciler configured',
    );
    expect((await kubectl(served.kubeconfig, ['auth', 'can-i', 'delete', 'nodes', ...asReconciler])).stdout).toBe(
      'yes\n',
    );
  });

  it("should accept the token of `aws eks get-token` as the cluster creator's: cluster admin, as EKS bootstraps it", async () => {
    const got = await run('aws', ['eks', 'get-token', '--cluster-name', served.cluster, '--output', 'json'], {
      env: served.env,
    });
    expect(got.stderr).toBe('');
    const token = z
      .object({ status: z.object({ token: z.string().startsWith('k8s-aws-v1.') }) })
      .parse(JSON.parse(got.stdout)).status.token;
    const whoami = await kubectl(served.kubeconfig, ['--token', token, 'auth', 'whoami', '-o', 'json']);
    expect(whoami.stderr).toBe('');
    expect(JSON.parse(whoami.stdout)).toMatchObject({
      status: {
        userInfo: {
          username: expect.stringMatching(/^arn:aws:iam::\d{12}:user\//) as unknown,
          groups: ['system:masters', 'system:authenticated'],
        },
      },
    });
    expect((await kubectl(served.kubeconfig, ['--token', token, 'get', 'nodes', '-o', 'name'])).stdout).toContain(
      'node/ip-',
    );
    expect((await kubectl(served.kubeconfig, ['--token', token, 'auth', 'can-i', 'delete', 'pods'])).stdout).toBe(
      'yes\n',
    );
    // A token signed with a key the sandbox never issued is refused.
    const forged = await run('aws', ['eks', 'get-token', '--cluster-name', served.cluster, '--output', 'json'], {
      env: { ...served.env, AWS_SECRET_ACCESS_KEY: 'not-the-secret' },
    });
    const forgedToken = z.object({ status: z.object({ token: z.string() }) }).parse(JSON.parse(forged.stdout))
      .status.token;
    expect((await kubectl(served.kubeconfig, ['--token', forgedToken, 'get', 'nodes'])).stderr).toMatch(
      /Unauthorized|provide credentials/,
    );
  });

  it("should run the CLI's sweep on the served sandbox's clock, seeing what the scenario's last sweep saw", async () => {
    const sweep = await run(
      process.execPath,
      [
        BIN,
        'sweep',
        '--kubeconfig',
        served.kubeconfig,
        '--cluster',
        served.cluster,
        '--endpoint-url',
        served.endpoint,
        '--dry-run',
        '-o',
        'json',
      ],
      {
        env: served.env,
        timeoutMs: 120_000,
      },
    );
    const report = z
      .object({
        startedAt: z.string(),
        dryRun: z.literal(true),
        actions: z.array(z.unknown()),
        conditions: z.record(z.string(), z.number()),
      })
      .parse(JSON.parse(sweep.stdout));
    // On the wall clock almost every node's Lease would look silent (the issue saw 33 of 37).
    expect(report.conditions['unresponsive-machine']).toBe(served.unresponsiveAtEnd);
    expect(report.conditions['in-sync']).toBeGreaterThan(30);
    // The served clock runs on at wall speed from the scenario's end, not from today's date.
    const startedAt = Date.parse(report.startedAt);
    expect(startedAt).toBeGreaterThanOrEqual(served.endedAt);
    expect(startedAt - served.endedAt).toBeLessThan(10 * 60_000);
    expect(sweep.stderr).toMatch(
      /^the API server's clock is \S+ (behind|ahead of) this machine's; working on the server's time \(\d{4}-\d\d-\d\dT[\d:.]+Z\)$/m,
    );
  });

  it('should let `kubectl drain NODE --ignore-daemonsets --delete-emptydir-data` complete: the served clock runs at wall speed', async () => {
    // Through run(): these lists outgrow kubectl()'s output buffer.
    const nodes = NodeListSchema.parse(
      JSON.parse((await run('kubectl', ['--kubeconfig', served.kubeconfig, 'get', 'nodes', '-o', 'json'])).stdout),
    );
    const pods = PodListSchema.parse(
      JSON.parse((await run('kubectl', ['--kubeconfig', served.kubeconfig, 'get', 'pods', '-A', '-o', 'json'])).stdout),
    );
    // A schedulable EC2 node whose pods all have controllers (the command has no --force), with the
    // shortest longest grace period among those with pods to evict.
    const candidates = nodes.items
      .filter((n) => n.spec.unschedulable !== true && !n.metadata.name.startsWith('fargate-'))
      .map((n) => {
        const evictable = pods.items.filter(
          (p) =>
            p.spec.nodeName === n.metadata.name &&
            !(p.metadata.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet'),
        );
        const uncontrolled = evictable.some((p) => (p.metadata.ownerReferences ?? []).length === 0);
        return {
          name: n.metadata.name,
          count: uncontrolled ? 0 : evictable.length,
          grace: Math.max(0, ...evictable.map((p) => p.spec.terminationGracePeriodSeconds ?? 30)),
        };
      })
      .filter((c) => c.count > 0)
      .sort((a, b) => a.grace - b.grace || a.count - b.count);
    const node = candidates[0]?.name ?? '';
    expect(node).not.toBe('');
    const drain = await kubectl(
      served.kubeconfig,
      ['drain', node, '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=150s'],
      undefined,
      170_000,
    );
    expect(drain.stderr).not.toContain('error');
    expect(drain.code).toBe(0);
    expect(drain.stdout).toContain(`node/${node} drained`);
    expect(drain.stdout).toMatch(/^pod\/\S+ evicted$/m);
    const left = PodListSchema.parse(
      JSON.parse(
        (
          await run('kubectl', [
            '--kubeconfig',
            served.kubeconfig,
            'get',
            'pods',
            '-A',
            '--field-selector',
            `spec.nodeName=${node}`,
            '-o',
            'json',
          ])
        ).stdout,
      ),
    );
    expect(left.items.every((p) => (p.metadata.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet'))).toBe(true);
  }, 200_000);
});
