// `snapshot` end to end, as an operator runs it: a world is served (`simulate FILE --serve`, its own
// process), the real binary snapshots it with the served kubeconfig and AWS credentials, the file is
// loaded into a new sandbox, and the two worlds are compared — what the scenario seeded against what the
// snapshot says, the new world's own snapshot against the first (a fixed point), and the sweep's
// dry-run report on each. `--anonymize` is held to the same reports, with no original name left.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenario, type LoadedScenario } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import type { Scenario } from '@ec2-node-reconciler/sandbox/scenario/schema.js';
import { ADMIN_TOKEN, startSandbox, type Sandbox } from '@ec2-node-reconciler/sandbox/simulate/sandbox.js';
import { isInstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import { parseProviderId } from '@ec2-node-reconciler/model/provider-id.js';
import type { RunReport } from '../../lib/report/report.js';
import { serveScenario, type Served } from '../support/served.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/ec2-node-reconciler.mjs');
const WORLD = join(ROOT, 'test/fixtures/snapshot/world.yaml');

type Run = { code: number; stdout: string; stderr: string };

function cli(args: readonly string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: ROOT, env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error !== null && typeof error.code !== 'number') {
          reject(new Error(`running ${args.join(' ')}`, { cause: error }));
          return;
        }
        resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr });
      },
    );
  });
}

/** A world to point the binary at: its kubeconfig, AWS endpoint, cluster and credentials. */
interface Target {
  readonly kubeconfig: string;
  readonly endpoint: string;
  readonly cluster: string;
  readonly env: NodeJS.ProcessEnv;
}

const connection = (t: Target) => ['--kubeconfig', t.kubeconfig, '--cluster', t.cluster, '--endpoint-url', t.endpoint];

async function snapshotOf(target: Target, file: string, ...flags: string[]): Promise<LoadedScenario> {
  const result = await cli(['snapshot', '-o', file, ...flags, ...connection(target)], target.env);
  expect(result.stderr).toContain(`wrote ${file}`);
  expect(result.code).toBe(0);
  return loadScenario(file);
}

async function dryRunSweep(target: Target): Promise<RunReport> {
  const result = await cli(['sweep', '--dry-run', '-o', 'json', ...connection(target)], target.env);
  expect(result.code, result.stderr).toBeLessThanOrEqual(1);
  return JSON.parse(result.stdout) as RunReport;
}

/** A sandbox seeded from a scenario (not served: its clock stands at the scenario's start). */
async function seeded(scenario: Scenario, dir: string): Promise<{ sandbox: Sandbox; target: Target }> {
  const sandbox = await startSandbox(scenario, { tls: true });
  const kubeconfig = await sandbox.kube.writeKubeconfig(join(dir, `${scenario.cluster.name}.kubeconfig`), {
    token: ADMIN_TOKEN,
  });
  const { credentials } = sandbox.aws.clientConfig();
  const env = {
    ...process.env,
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_REGION: scenario.cluster.region,
  };
  return { sandbox, target: { kubeconfig, endpoint: sandbox.aws.endpoint, cluster: scenario.cluster.name, env } };
}

/** What a sweep decided, per pair and per action, without its times and counts. */
const decisions = (report: RunReport) => ({
  conditions: report.conditions,
  rows: report.rows.map((r) => `${r.node ?? '-'} ${r.instanceId ?? '-'} ${r.condition}`).sort(),
  actions: report.actions.map((a) => `${a.kind} ${a.node ?? '-'} ${a.instanceId ?? '-'} ${a.outcome}`).sort(),
  skipped: report.skipped.length,
});

/** The decisions with names taken out: what an anonymized world must share with the original. */
const shapeOf = (report: RunReport) => ({
  conditions: report.conditions,
  actions: report.actions.map((a) => `${a.kind} ${a.outcome}`).sort(),
  skipped: report.skipped.length,
});

const SECOND = 1000;
const startOf = (s: Scenario) => Date.parse(s.start ?? '');

/**
 * A snapshot's text as it would read taken `shift` seconds earlier, at `start`: its ages (`…Ago`,
 * a condition's `since`) are that much shorter and its windows ahead (`notBefore`, `notAfter`) that
 * much longer. Anything else that differs is a difference of the world.
 */
const atStart = (text: string, shift: number, start: string): string =>
  text
    .replace(/"start": ?"[^"]*"/, `"start": "${start}"`)
    .replace(/"(\w+Ago|since)":"(\d+)s"/g, (_, key: string, s: string) => `"${key}":"${Number(s) - shift}s"`)
    .replace(/"(notBefore|notAfter)":"(\d+)s"/g, (_, key: string, s: string) => `"${key}":"${Number(s) + shift}s"`);

let served: Served;
let dir: string;
let original: Scenario;
let first: LoadedScenario;
let servedReport: RunReport;
const closers: (() => Promise<void>)[] = [];
const servedTarget = (): Target => ({ ...served, env: served.env });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'snapshot-test-'));
  original = (await loadScenario(WORLD)).scenario;
  served = await serveScenario(WORLD);
  first = await snapshotOf(servedTarget(), join(dir, 'first.yaml'));
  servedReport = await dryRunSweep(servedTarget());
}, 180_000);

afterAll(async () => {
  for (const close of closers) await close();
  await (served as Served | undefined)?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('snapshot of a served sandbox, by the real binary', () => {
  it('should write the machines as the account has them, at the same moments', () => {
    const snap = first.scenario;
    const elapsed = startOf(snap) - startOf(original);
    expect(elapsed).toBeGreaterThanOrEqual(0);
    const written = new Map(snap.instances.map((i) => [i.id, i]));
    for (const seed of original.instances.filter((i) => i.state !== 'absent')) {
      const got = written.get(seed.id);
      expect(got, seed.id).toBeDefined();
      if (!got) continue;
      expect({ state: got.state, zone: got.zone, spot: got.spot }).toEqual({
        state: seed.state,
        zone: seed.zone,
        spot: seed.spot,
      });
      expect(got.tags).toEqual(expect.objectContaining(seed.tags));
      // Launched at the same moment: the age grew by the time the served world ran before the snapshot.
      expect(Math.abs(got.launchedAgo - seed.launchedAgo - elapsed)).toBeLessThanOrEqual(SECOND);
      expect(got.autoScaling?.group).toBe(seed.autoScaling?.group);
      expect(got.autoScaling?.lifecycleState).toBe(seed.autoScaling?.lifecycleState);
      expect(got.autoScaling?.hook).toBe(seed.autoScaling?.hook);
      if (seed.autoScaling?.heartbeatTimeout !== undefined)
        expect(got.autoScaling?.heartbeatTimeout).toBe(seed.autoScaling.heartbeatTimeout);
      if (seed.autoScaling?.defaultResult !== undefined)
        expect(got.autoScaling?.defaultResult).toBe(seed.autoScaling.defaultResult);
      expect(got.scheduledEvents.map((e) => [e.code, e.notBefore + elapsed, e.notAfter])).toEqual(
        seed.scheduledEvents.map((e) => [
          e.code,
          e.notBefore,
          e.notAfter === undefined ? undefined : e.notAfter - elapsed,
        ]),
      );
    }
    // An instance EC2 no longer returns is left out: the sandbox's default for a Node's machine is `absent`.
    expect(snap.instances.length).toBe(original.instances.filter((i) => i.state !== 'absent').length);
  });

  it('should write each Node with its link, marks, conditions and heartbeat', () => {
    const snap = first.scenario;
    const elapsed = startOf(snap) - startOf(original);
    const written = new Map(snap.nodes.map((n) => [n.name, n]));
    expect(snap.nodes).toHaveLength(original.nodes.length);
    for (const seed of original.nodes) {
      const got = written.get(seed.name);
      expect(got, seed.name).toBeDefined();
      if (!got) continue;
      expect(got.providerID).toBe(seed.providerID);
      expect(Math.abs(got.createdAgo - seed.createdAgo - elapsed)).toBeLessThanOrEqual(SECOND);
      expect(got.unschedulable).toBe(seed.unschedulable);
      expect(got.labels).toEqual(expect.objectContaining(seed.labels));
      expect(got.annotations).toEqual(seed.annotations);
      expect(got.taints).toEqual(seed.taints);
      const ready = seed.conditions.Ready?.status ?? seed.ready ?? 'True';
      expect(got.conditions.Ready?.status).toBe(ready);
      expect(got.conditions.KernelReady?.status).toBe(seed.conditions.KernelReady?.status);
      if (got.heartbeating === true) expect(got.heartbeatAgo).not.toBe('none');
      // A kubelet that went quiet: its last heartbeat is where it was, and it stays quiet in the new world.
      if (typeof seed.heartbeatAgo === 'number' && seed.heartbeatAgo > 60 * SECOND) {
        expect(got.heartbeating).toBe(false);
        expect(Math.abs(Number(got.heartbeatAgo) - seed.heartbeatAgo - elapsed)).toBeLessThanOrEqual(SECOND);
      }
    }
  });

  it('should write the pods as a drain reads them, and the PDBs', () => {
    const snap = first.scenario;
    const key = (p: { namespace: string; name: string }) => `${p.namespace}/${p.name}`;
    const written = new Map(snap.pods.map((p) => [key(p), p]));
    expect(snap.pods).toHaveLength(original.pods.length);
    for (const seed of original.pods) {
      const got = written.get(key(seed));
      expect(got, key(seed)).toBeDefined();
      if (!got) continue;
      const { labels, ...rest } = seed;
      expect(got).toEqual(expect.objectContaining(rest));
      expect(got.labels).toEqual(expect.objectContaining(labels));
    }
    const pdbs = (s: Scenario) => [...s.pdbs].sort((a, b) => key(a).localeCompare(key(b)));
    expect(pdbs(snap)).toEqual(pdbs(original));
  });

  it('should seed a sandbox with the same world: its own snapshot is the same file, its sweep decides the same', async () => {
    const { sandbox, target } = await seeded(first.scenario, dir);
    closers.push(() => sandbox.close());
    const again = await snapshotOf(target, join(dir, 'again.yaml'));
    // The seeded world's clock stands still, but the CLI reads it once from the Date header (whole
    // seconds) and runs on at wall speed: a slow machine's snapshot can start a second or two later.
    const shift = (startOf(again.scenario) - startOf(first.scenario)) / SECOND;
    expect(Math.abs(shift)).toBeLessThanOrEqual(2);
    expect(atStart(readFileSync(again.file, 'utf8'), shift, first.scenario.start ?? '')).toBe(
      readFileSync(first.file, 'utf8'),
    );
    expect(decisions(await dryRunSweep(target))).toEqual(decisions(servedReport));
  }, 120_000);

  it('should rename every name under --anonymize, consistently, and the sweep should decide the same', async () => {
    const anonymous = await snapshotOf(servedTarget(), join(dir, 'anonymous.yaml'), '--anonymize');
    const text = readFileSync(anonymous.file, 'utf8');
    const leaks = [
      'shop-prod',
      '111122223333',
      'i-0a0000000000',
      'ng-general',
      'eks-spot-1234',
      'drain-hook',
      'payments',
      '"shop"',
      'web-6d4f',
      'fluent-bit',
      'degraded hardware',
      'retire the old type',
      'acme.io',
    ];
    // The original machines' DNS names (and so the Nodes named after them), whole: an anonymized name is
    // another private address, which may begin `ip-10-0-` by chance.
    for (const instance of original.instances)
      if (instance.privateDnsName !== undefined) leaks.push(`"${instance.privateDnsName}"`);
    for (const node of original.nodes) leaks.push(`"${node.name}"`);
    for (const leak of leaks) expect(text, leak).not.toContain(leak);
    const snap = anonymous.scenario;
    expect(snap.cluster.region).toBe(original.cluster.region);
    const instances = new Map(snap.instances.map((i) => [i.id, i]));
    for (const instance of snap.instances) expect(isInstanceId(instance.id), instance.id).toBe(true);
    // The links the sandbox makes: providerID → instance (and its zone), Node name → its private DNS name.
    let linked = 0;
    for (const node of snap.nodes) {
      if (!node.providerID) continue;
      const ref = parseProviderId(node.providerID);
      if (ref.kind !== 'ec2') continue;
      const instance = instances.get(ref.instanceId);
      if (!instance) continue;
      linked++;
      expect(ref.zone).toBe(instance.zone);
      if (instance.privateDnsName !== undefined) expect(node.name).toBe(instance.privateDnsName);
    }
    expect(linked).toBe(
      original.nodes.filter((n) => original.instances.some((i) => n.providerID?.endsWith(i.id))).length,
    );
    // EKS's own hook keeps its name: it tells the reconciler the action is not its own.
    expect(snap.instances.some((i) => i.autoScaling?.hook === 'Terminate-LC-Hook')).toBe(true);

    const { sandbox, target } = await seeded(snap, dir);
    closers.push(() => sandbox.close());
    expect(shapeOf(await dryRunSweep(target))).toEqual(shapeOf(servedReport));
  }, 120_000);

  it('should write one JSON document, one entry a line, that the loader reads without the YAML parser', () => {
    const text = readFileSync(first.file, 'utf8');
    expect(text.startsWith('{')).toBe(true);
    const parsed = JSON.parse(text) as { pods: unknown[] };
    expect(parsed.pods).toHaveLength(original.pods.length);
    expect(text.split('\n').filter((line) => line.startsWith('  {"name"')).length).toBe(
      original.nodes.length + original.pods.length + original.pdbs.length,
    );
  });

  it('should refuse to run without a file to write, naming the flag', async () => {
    const result = await cli(['snapshot', ...connection(servedTarget())], served.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('snapshot -o FILE');
  });

  it('should refuse --history without --history-out, or without --anonymize, before reading anything', async () => {
    const file = join(dir, 'refused.yaml');
    const refusals = [
      [['--anonymize', '--history', 'h.jsonl'], '--history EVENTS goes with --history-out FILE'],
      [
        ['--history', 'h.jsonl', '--history-out', 'out.jsonl'],
        '--history renames a history as --anonymize renames the world',
      ],
    ] as const;
    for (const [flags, message] of refusals) {
      const result = await cli(['snapshot', '-o', file, ...flags, ...connection(servedTarget())], served.env);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(message);
    }
    expect(existsSync(file)).toBe(false);
  });
});
