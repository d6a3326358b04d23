// The operator commands against a served sandbox, as a user runs them: a subprocess with a
// kubeconfig (TLS, bearer token) and AWS credentials from the environment.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { ADMIN_TOKEN, startSandbox, type Sandbox } from '@ec2-node-reconciler/sandbox/simulate/sandbox.js';
import type { RunReport } from '../../lib/report/report.js';

const run = promisify(execFile);
const BIN = new URL('../../bin/ec2-node-reconciler.mjs', import.meta.url).pathname;
const SPOT = 'i-0bbbbbbbbbbbbbbb1';
const STALE = 'i-0bbbbbbbbbbbbbbb2';
const TAGGED = 'i-0bbbbbbbbbbbbbbb3';
const MANUAL = 'i-0bbbbbbbbbbbbbbb4';
const node = (id: string) => `node-${id.slice(-1)}.ec2.internal`;

let sandbox: Sandbox;
let dir: string;
let kubeconfig: string;

async function cli(args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const { credentials } = sandbox.aws.clientConfig();
  const env = {
    ...process.env,
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_REGION: 'us-east-1',
  };
  // `invoke` talks to Lambda only; `rbac` to nothing.
  const connection =
    args[0] === 'rbac'
      ? []
      : args[0] === 'invoke'
        ? ['--endpoint-url', sandbox.aws.endpoint]
        : ['--kubeconfig', kubeconfig, '--cluster', 'demo', '--endpoint-url', sandbox.aws.endpoint];
  try {
    const child = run(process.execPath, [BIN, ...args, ...connection], { env, timeout: 120_000 });
    if (input !== undefined) child.child.stdin?.end(input);
    const { stdout, stderr } = await child;
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

beforeAll(async () => {
  sandbox = await startSandbox(
    parseScenario(
      `
name: cli
cluster: { name: demo, region: us-east-1, accountId: "111122223333" }
instances:
  - { id: ${SPOT}, state: running, zone: us-east-1a, tags: { eks:cluster-name: demo } }
  - { id: ${STALE}, state: terminated, zone: us-east-1a, tags: { eks:cluster-name: demo } }
  - { id: ${TAGGED}, state: running, zone: us-east-1a, privateDnsName: ${node(TAGGED)}, tags: { eks:cluster-name: demo } }
  - { id: ${MANUAL}, state: running, zone: us-east-1a, tags: { eks:cluster-name: demo } }
nodes:
  - { name: ${node(SPOT)}, providerID: "aws:///us-east-1a/${SPOT}", createdAgo: 2h }
  - { name: ${node(STALE)}, providerID: "aws:///us-east-1a/${STALE}", createdAgo: 2h, heartbeatAgo: 1h, ready: Unknown }
  - { name: ${node(TAGGED)}, providerID: "aws:///us-east-1a/${TAGGED}", createdAgo: 2h }
  - { name: ${node(MANUAL)}, providerID: "aws:///us-east-1a/${MANUAL}", createdAgo: 2h }
pods:
  - { name: web-1, node: ${node(SPOT)}, owner: ReplicaSet/web-1a2b, terminationGracePeriodSeconds: 0 }
  - { name: api-1, node: ${node(TAGGED)}, owner: ReplicaSet/api-1a2b, terminationGracePeriodSeconds: 0 }
  - { name: debug-shell, node: ${node(MANUAL)}, terminationGracePeriodSeconds: 0 }
  - { name: batch-1, node: ${node(MANUAL)}, owner: ReplicaSet/batch-1a2b, terminationGracePeriodSeconds: 0 }
`,
      'cli.yaml',
    ),
    { tls: true },
  );
  dir = mkdtempSync(join(tmpdir(), 'cli-test-'));
  kubeconfig = await sandbox.kube.writeKubeconfig(join(dir, 'kubeconfig'), { token: ADMIN_TOKEN });
});

afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('ec2-node-reconciler against a live cluster (a served sandbox)', () => {
  it('should sweep in dry run, changing nothing, and report in JSON', async () => {
    const { code, stdout } = await cli(['sweep', '--dry-run', '-o', 'json']);
    const report = JSON.parse(stdout) as RunReport;
    expect(code).toBe(0);
    expect(report.conditions['stale-object']).toBe(1);
    expect(report.actions.find((a) => a.kind === 'delete')?.outcome).toBe('dry-run');
    expect(sandbox.kube.store.getNode(node(STALE))).toBeDefined();
  });

  it('should handle a spot warning from stdin the way the Lambda does, draining in-process', async () => {
    const fixture = JSON.parse(
      readFileSync(new URL('../fixtures/events/spot-interruption.json', import.meta.url), 'utf8'),
    ) as Record<string, unknown>;
    const event = {
      ...fixture,
      region: 'us-east-1',
      time: new Date().toISOString(),
      detail: { 'instance-id': SPOT, 'instance-action': 'terminate' },
    };
    const { code, stdout, stderr } = await cli(['event', '-'], JSON.stringify(event));
    expect(code, stderr).toBe(0);
    // The drain ran to its end before the report: the table says how it ended.
    expect(stdout).toMatch(/drain\s+node-1\.ec2\.internal\s+done: drained/);
    expect(stderr).toMatch(/node-1\.ec2\.internal: drained/);
    expect(sandbox.kube.store.getNode(node(SPOT))?.spec?.unschedulable).toBe(true);
    expect(sandbox.kube.store.listPods({ node: node(SPOT) })).toEqual([]);
  });

  it('should refuse a malformed event with exit 2, naming the field, before contacting anything', async () => {
    const file = join(dir, 'bad.json');
    writeFileSync(
      file,
      JSON.stringify({
        version: '0',
        id: 'x',
        source: 'aws.ec2',
        'detail-type': 'EC2 Spot Instance Interruption Warning',
        account: '111122223333',
        time: '2026-11-29T12:00:00Z',
        region: 'us-east-1',
        resources: [],
        detail: {},
      }),
    );
    const before = sandbox.kube.requestLog.filter({}).length;
    const { code, stderr } = await cli(['event', file]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/detail\.instance-id/);
    expect(sandbox.kube.requestLog.filter({}).length).toBe(before);
  });

  it('should refuse an event from another region with exit 2, naming both regions, before contacting anything', async () => {
    const fixture = JSON.parse(
      readFileSync(new URL('../fixtures/events/spot-interruption.json', import.meta.url), 'utf8'),
    ) as Record<string, unknown>;
    const event = {
      ...fixture,
      region: 'eu-west-1',
      time: new Date().toISOString(),
      detail: { 'instance-id': SPOT, 'instance-action': 'terminate' },
    };
    const before = sandbox.kube.requestLog.filter({}).length;
    const { code, stdout, stderr } = await cli(['event', '-'], JSON.stringify(event));
    expect(code, stdout).toBe(2);
    expect(stderr).toContain('the event is from eu-west-1, but this command works in us-east-1');
    expect(stdout).not.toContain('trying again');
    expect(sandbox.kube.requestLog.filter({}).length).toBe(before);
  });

  it('should tag an instance for decommissioning and, with --now, drain its node', async () => {
    const { code, stdout, stderr } = await cli(['decommission', TAGGED, '--now', '--reason', 'disk failing']);
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/tagged i-0bbbbbbbbbbbbbbb3/);
    expect(stdout).toMatch(/node-3\.ec2\.internal: drained/);
    expect(sandbox.aws.state.instanceView(TAGGED)?.tags['ec2-node-reconciler/decommission']).toBe('disk failing');
  });

  it('should exit 1 from a drain that leaves refused pods, naming them, like kubectl drain without --force', async () => {
    const { code, stdout, stderr } = await cli([
      'drain',
      node(MANUAL),
      '--evict-unreplicated',
      'false',
      '--timeout',
      '1m',
    ]);
    expect(code, stderr).toBe(1);
    expect(stdout).toMatch(/node-4\.ec2\.internal: incomplete/);
    expect(stdout).toMatch(/left default\/debug-shell: refused — declares no controller/);
    expect(sandbox.kube.store.listPods({ node: node(MANUAL) }).map((p) => p.metadata.name)).toEqual(['debug-shell']);
  });

  it('should invoke the deployed sweep function (through the Lambda emulator) and print its dry-run report', async () => {
    const { code, stdout, stderr } = await cli([
      'invoke',
      '--function',
      sandbox.functions.sweep,
      '--dry-run',
      '-o',
      'json',
    ]);
    expect(code, stderr).toBe(0);
    const report = JSON.parse(stdout) as RunReport;
    expect(report.dryRun).toBe(true);
    expect(report.conditions['stale-object']).toBe(1);
    expect(sandbox.aws.state.functions.invocations.map((i) => [i.functionName, i.payload])).toEqual([
      [sandbox.functions.sweep, '{"dryRun":true}'],
    ]);
    expect(sandbox.kube.store.getNode(node(STALE))).toBeDefined();
  });

  it('should say which function it could not find', async () => {
    const { code, stderr } = await cli(['invoke', '--function', 'no-such-function']);
    expect(code).toBe(3);
    expect(stderr).toMatch(/Function not found: arn:aws:lambda:us-east-1:111122223333:function:no-such-function/);
  });

  it('should sweep for real and delete the stale object', async () => {
    const { code, stdout } = await cli(['sweep']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/delete\s+node-2\.ec2\.internal\s+done/);
    expect(sandbox.kube.store.getNode(node(STALE))).toBeUndefined();
  });

  it('should refuse something that is not an instance id, before contacting anything', async () => {
    const { code, stderr } = await cli(['decommission', 'i-zz']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/not an EC2 instance id/);
  });

  it('should print the RBAC manifest', async () => {
    const { code, stdout } = await cli(['rbac']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/kind: ClusterRole\b/);
    expect(stdout).toMatch(/pods\/eviction/);
  });
});
