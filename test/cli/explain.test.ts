// `explain NODE` through the real binary: in a simulation (`simulate FILE --explain NODE`: the signal with
// its event id, the condition and why, the actions and how they went, the drain with the pods it left
// and the PDB that blocked them), and live against a sandbox (the reconciler's Events on the Node from an
// earlier sweep, a dry-run sweep's verdict, actions it would take and skip), changing nothing.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { ADMIN_TOKEN, startSandbox, type Sandbox } from '@ec2-node-reconciler/sandbox/simulate/sandbox.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/ec2-node-reconciler.mjs');
const PDB_BLOCKED = join(ROOT, 'test/scenarios/drain-blocked-by-pdb-until-deadline.yaml');
const SPOT_EVENT_ID = (
  JSON.parse(readFileSync(join(ROOT, 'test/scenarios/events/spot-interruption.json'), 'utf8')) as {
    id: string;
  }
).id;
const DRAINED_NODE = 'ip-10-40-1-11.eu-west-1.compute.internal';

type Run = { code: number; stdout: string; stderr: string };

function cli(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ROOT, env, timeout: 90_000 }, (error, stdout, stderr) => {
      if (error !== null && typeof error.code !== 'number') {
        reject(new Error(`running ${args.join(' ')}`, { cause: error }));
        return;
      }
      resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr });
    });
  });
}

interface Entry {
  readonly at: string;
  readonly kind: string;
  readonly source: string;
  readonly text: string;
}

describe('simulate FILE --explain NODE', () => {
  let entries: Entry[];
  let table: string;

  beforeAll(async () => {
    const [json, text] = await Promise.all([
      cli(['simulate', PDB_BLOCKED, '--explain', DRAINED_NODE, '-o', 'json']),
      cli(['simulate', PDB_BLOCKED, '--explain', DRAINED_NODE, '-o', 'wide']),
    ]);
    expect(json.code, json.stderr).toBe(0);
    entries = (JSON.parse(json.stdout) as { entries: Entry[] }).entries;
    table = text.stdout;
  }, 120_000);

  it('should name the signal with its AWS event id, then the condition it put the node in and why', () => {
    const signal = entries.findIndex((e) => e.kind === 'signal' && e.text.includes(SPOT_EVENT_ID));
    expect(signal).toBeGreaterThanOrEqual(0);
    expect(entries[signal]?.source).toBe('EC2 Spot Instance Interruption Warning');
    const condition = entries.slice(signal).find((e) => e.kind === 'condition');
    expect(condition?.text).toMatch(/^slated-for-removal: Spot interruption warning/);
  });

  it('should tell each planned action and what happened, and the action skipped later with its reason', () => {
    const actions = entries.filter((e) => e.kind === 'action' && e.source === 'event').map((e) => e.text);
    expect(actions).toEqual([
      expect.stringMatching(/^cordon: done; because/),
      expect.stringMatching(/^drain: started; because/),
    ]);
    expect(
      entries.some((e) => e.kind === 'skipped' && /drain not taken: this removal already had its drain/.test(e.text)),
    ).toBe(true);
  });

  it('should tell how the drain ended: the pods it left and the PDB that blocked them', () => {
    const ended = entries.filter((e) => e.kind === 'drain').at(-1);
    expect(ended?.text).toMatch(
      /^drain incomplete after \d+ step\(s\), \d+ evicted, 2 pod\(s\) left \(2 blocked-by-pdb\)/,
    );
    expect(ended?.text).toContain('(payments/ledger)');
  });

  it('should keep time order, and print the same as a table with times from the start', () => {
    const times = entries.map((e) => Date.parse(e.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(table).toContain(`Node ${DRAINED_NODE} (i-0bb0000000000b101)`);
    expect(table).toMatch(/\+0m01s\s+SIGNAL\s+EC2 Spot Instance Interruption Warning\s+event 0bd4a41b/);
  });

  it('should say so of a node nothing was reported about', async () => {
    const result = await cli(['simulate', PDB_BLOCKED, '--explain', 'no-such-node']);
    expect(result.stdout).toContain('Node no-such-node: nothing reported about it.');
  }, 180_000);
});

describe('explain NODE against a live cluster', () => {
  const UNRESPONSIVE = 'ip-10-0-1-2.ec2.internal';
  const RETIRING = 'ip-10-0-1-3.ec2.internal';
  let sandbox: Sandbox;
  let dir: string;
  let args: (node: string, ...more: string[]) => string[];
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    sandbox = await startSandbox(
      parseScenario(
        `
name: explain-live
cluster: { name: demo, region: us-east-1, accountId: "111122223333" }
instances:
  - { id: i-0c00000000000c002, state: running, zone: us-east-1a, privateDnsName: ${UNRESPONSIVE}, tags: { eks:cluster-name: demo } }
  - { id: i-0c00000000000c003, state: running, zone: us-east-1a, privateDnsName: ${RETIRING}, tags: { eks:cluster-name: demo }, scheduledEvents: [ { code: instance-retirement, notBefore: 2d } ] }
nodes:
  - { name: ${UNRESPONSIVE}, providerID: "aws:///us-east-1a/i-0c00000000000c002", createdAgo: 2h, heartbeatAgo: 20m, heartbeating: false, ready: Unknown }
  - { name: ${RETIRING}, providerID: "aws:///us-east-1a/i-0c00000000000c003", createdAgo: 2h }
`,
        'explain-live.yaml',
      ),
      { tls: true },
    );
    dir = mkdtempSync(join(tmpdir(), 'explain-test-'));
    const kubeconfig = await sandbox.kube.writeKubeconfig(join(dir, 'kubeconfig'), { token: ADMIN_TOKEN });
    const { credentials } = sandbox.aws.clientConfig();
    env = {
      ...process.env,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      AWS_REGION: 'us-east-1',
    };
    const connection = ['--kubeconfig', kubeconfig, '--cluster', 'demo', '--endpoint-url', sandbox.aws.endpoint];
    args = (node, ...more) => ['explain', node, ...more, ...connection];
    // An earlier run of the reconciler: it tells the unresponsive machine on its Node.
    const sweep = await cli(['sweep', '--dry-run=false', ...connection, '--rebalance', 'cordon'], env);
    expect(sweep.code, sweep.stderr).toBeLessThanOrEqual(1);
  }, 120_000);

  afterAll(async () => {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("should show the reconciler's Event from the earlier run, then the dry-run sweep's condition and why", async () => {
    const before = sandbox.kube.store.list(sandbox.kube.store.resource('nodes')).items;
    const result = await cli(args(UNRESPONSIVE, '-o', 'json'), env);
    expect(result.code, result.stderr).toBe(0);
    const explained = JSON.parse(result.stdout) as { instanceId: string; entries: Entry[] };
    expect(explained.instanceId).toBe('i-0c00000000000c002');
    const kinds = explained.entries.map((e) => `${e.kind} ${e.source}`);
    expect(kinds).toContain('event UnresponsiveMachine');
    const condition = explained.entries.find((e) => e.kind === 'condition');
    expect(condition?.source).toBe('sweep (dry run)');
    expect(condition?.text).toMatch(/^unresponsive-machine: /);
    // Read only: the Nodes are as they were (a dry run tells no Event and patches nothing).
    expect(sandbox.kube.store.list(sandbox.kube.store.resource('nodes')).items).toEqual(before);
  }, 180_000);

  it('should show the drain its record names, its Events, and what a sweep would skip now and why', async () => {
    const result = await cli(args(RETIRING, '-o', 'wide'), env);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split('\n');
    const at = (pattern: RegExp) => lines.findIndex((line) => pattern.test(line));
    // The earlier sweep drained it (the retirement is a removal): its record, its Events, and today's verdict.
    // (Their order is not asserted: this sandbox's clock stands still while the CLI's runs on.)
    const started = at(
      /DRAIN\s+local\s+drain local-demo-i-0c00000000000c003-sweep-\S+ started: scheduled instance-retirement/,
    );
    const cordoned = at(/EVENT\s+NodeCordoned\s+Normal: scheduled instance-retirement/);
    const ended = at(/DRAIN\s+local\s+drain ended: done/);
    const condition = at(/CONDITION\s+sweep \(dry run\)\s+slated-for-removal: scheduled instance-retirement/);
    const skipped = at(/SKIPPED\s+sweep \(dry run\)\s+drain not taken: this removal already had its drain/);
    for (const index of [started, cordoned, ended, condition, skipped]) expect(index, result.stdout).toBeGreaterThan(0);
  }, 180_000);

  it('should exit 1, as kubectl says it, for a node that does not exist', async () => {
    const result = await cli(args('ip-10-9-9-9.ec2.internal'), env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('nodes "ip-10-9-9-9.ec2.internal" not found');
  }, 180_000);
});
