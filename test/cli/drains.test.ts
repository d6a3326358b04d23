// `ec2-node-reconciler drains` as an operator runs it: the real binary, a separate process, against a
// served sandbox (`simulate FILE --serve`) where the deployed workflow drains one node behind a
// PodDisruptionBudget that allows no disruption, has drained another (a spot warning), and an
// operator's CLI drain ended on a third.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { serveScenario, type Served } from '../support/served.js';

const BIN = new URL('../../bin/ec2-node-reconciler.mjs', import.meta.url).pathname;
const BLOCKED = 'ip-10-7-0-1.ec2.internal';
const SPOT = 'ip-10-7-0-2.ec2.internal';
const MANUAL = 'ip-10-7-0-3.ec2.internal';
const LIFECYCLE_TOKEN = '87654321-4321-4321-4321-2109876d0001';

const SCENARIO = `
name: drains-listed
start: 2026-11-29T12:00:00Z
cluster: { name: demo, region: us-east-1, accountId: "111122223333" }
settings: { drainTimeout: 45m }
instances:
  - { id: i-0a0000000000d0001, state: running, zone: us-east-1a, launchedAgo: 9d, tags: { eks:cluster-name: demo },
      autoScaling: { group: ng-a, hook: drain-hook } }
  - { id: i-0a0000000000d0002, state: running, zone: us-east-1b, launchedAgo: 9d, spot: true, tags: { eks:cluster-name: demo } }
  - { id: i-0a0000000000d0003, state: running, zone: us-east-1a, launchedAgo: 9d, tags: { eks:cluster-name: demo } }
nodes:
  - { name: ${BLOCKED}, providerID: "aws:///us-east-1a/i-0a0000000000d0001", createdAgo: 9d }
  - { name: ${SPOT}, providerID: "aws:///us-east-1b/i-0a0000000000d0002", createdAgo: 9d }
  - { name: ${MANUAL}, providerID: "aws:///us-east-1a/i-0a0000000000d0003", createdAgo: 9d }
pods:
  - { name: ledger-0, namespace: payments, node: ${BLOCKED}, labels: { app: ledger }, owner: StatefulSet/ledger }
  - { name: ledger-1, namespace: payments, node: ${BLOCKED}, labels: { app: ledger }, owner: StatefulSet/ledger }
  - { name: web-a, namespace: default, node: ${SPOT}, labels: { app: web }, owner: ReplicaSet/web-6d4f, terminationGracePeriodSeconds: 0 }
  - { name: batch-a, namespace: default, node: ${MANUAL}, labels: { app: batch }, owner: ReplicaSet/batch-1a2b, terminationGracePeriodSeconds: 0 }
pdbs:
  # Both replicas must stay up: nothing of ledger may be evicted, so that drain runs on.
  - { name: ledger, namespace: payments, selector: { app: ledger }, minAvailable: 2 }
steps:
  - event:
      inline:
        { version: "0", id: 5b7c1d2e-0000-4000-8000-0000000d0001, detail-type: EC2 Instance-terminate Lifecycle Action, source: aws.autoscaling, account: "111122223333", time: "2026-11-29T12:00:00Z", region: us-east-1,
          resources: ["arn:aws:autoscaling:us-east-1:111122223333:autoScalingGroup:d1e2f3a4-0000-4000-8000-0000000d0001:autoScalingGroupName/ng-a"],
          detail: { LifecycleActionToken: ${LIFECYCLE_TOKEN}, AutoScalingGroupName: ng-a, LifecycleHookName: drain-hook, EC2InstanceId: i-0a0000000000d0001, LifecycleTransition: "autoscaling:EC2_INSTANCE_TERMINATING", Origin: AutoScalingGroup, Destination: EC2 } }
  - event:
      inline:
        { version: "0", id: 0bd4a41b-8a4d-4c8b-9c4c-00000000d002, detail-type: EC2 Spot Instance Interruption Warning, source: aws.ec2, account: "111122223333", time: "2026-11-29T12:00:00Z", region: us-east-1,
          resources: ["arn:aws:ec2:us-east-1:111122223333:instance/i-0a0000000000d0002"],
          detail: { instance-id: i-0a0000000000d0002, instance-action: terminate } }
  - drain: { node: ${MANUAL}, reason: disk replacement }
  - advance: 3m
`;

const RowSchema = z.object({
  execution: z.string(),
  node: z.string().optional(),
  runs: z.enum(['workflow', 'local']),
  status: z.string(),
  outcome: z.string().optional(),
  reason: z.string().optional(),
  podsLeft: z.number().optional(),
  blockingPdbs: z.array(z.object({ pdb: z.string(), pods: z.number() })).optional(),
  lifecycle: z.object({ group: z.string(), hook: z.string() }).optional(),
  deadline: z.string().optional(),
  recordedOnNode: z.boolean(),
});

let dir: string;
let served: Served | undefined;

function drains(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const s = served;
  if (s === undefined) throw new Error('the sandbox is not served');
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, 'drains', '--kubeconfig', s.kubeconfig, '--endpoint-url', s.endpoint, ...args],
      { env: s.env, timeout: 120_000 },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr }),
    );
  });
}

/** The table's rows as cells: columns are two or more spaces apart, cells hold single spaces at most. */
function tableRows(stdout: string): Record<string, string>[] {
  const [header = '', , ...rows] = stdout.trimEnd().split('\n');
  const columns = header.split(/\s{2,}/);
  return rows.map((row) => Object.fromEntries(row.split(/\s{2,}/).map((cell, i) => [columns[i] ?? `#${i}`, cell])));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'drains-test-'));
  const file = join(dir, 'drains.yaml');
  writeFileSync(file, SCENARIO);
  served = await serveScenario(file);
}, 150_000);

afterAll(async () => {
  await served?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('ec2-node-reconciler drains, against a served sandbox', () => {
  it('should show the running drain with its pods left and the PDB blocking it, asking the deployed workflow', async () => {
    const { code, stdout, stderr } = await drains('--drain-state-machine', served?.stateMachineArn ?? '');

    expect(code, stderr).toBe(0);
    const rows = tableRows(stdout);
    expect(Object.keys(rows[0] ?? {})).toEqual([
      'EXECUTION',
      'NODE',
      'STATUS',
      'CAUSE',
      'STARTED',
      'PODS LEFT',
      'BLOCKING PDB',
    ]);
    expect(rows[0]).toEqual({
      EXECUTION: expect.stringMatching(/^demo-i-0a0000000000d0001-5b7c1d2e-/) as unknown,
      NODE: BLOCKED,
      STATUS: 'running',
      // Cut to fit (-o wide shows it whole).
      CAUSE: expect.stringMatching(/^Auto Scaling group ng-a is terminating i-0a0+…$/) as unknown,
      STARTED: expect.stringMatching(/ ago$/) as unknown,
      'PODS LEFT': '2',
      'BLOCKING PDB': 'payments/ledger (2)',
    });
    expect(rows.slice(1).map((row) => [row['NODE'], row['STATUS'], row['PODS LEFT'], row['BLOCKING PDB']])).toEqual([
      [SPOT, 'succeeded', '0', 'none'],
      [MANUAL, 'ended (local): done', '—', '—'],
    ]);
  });

  it('should give every field in JSON, the lifecycle action without its token', async () => {
    const { code, stdout, stderr } = await drains('--drain-state-machine', served?.stateMachineArn ?? '', '-o', 'json');

    expect(code, stderr).toBe(0);
    const rows = z.array(RowSchema).parse(JSON.parse(stdout));
    expect(rows.find((row) => row.node === BLOCKED)).toMatchObject({
      runs: 'workflow',
      status: 'running',
      podsLeft: 2,
      blockingPdbs: [{ pdb: 'payments/ledger', pods: 2 }],
      lifecycle: { group: 'ng-a', hook: 'drain-hook' },
      // drainTimeout after the events function took the record: the queue's 1 s batching window after the event.
      deadline: '2026-11-29T12:45:01.000Z',
      recordedOnNode: true,
    });
    expect(rows.find((row) => row.node === MANUAL)).toMatchObject({
      execution: expect.stringMatching(/^local-manual-/) as unknown,
      runs: 'local',
      status: 'ended',
      outcome: 'done',
      reason: 'disk replacement',
    });
    expect(stdout).not.toContain(LIFECYCLE_TOKEN);
  });

  it('should list the workflow’s running drain as unknown without --drain-state-machine, and say how to ask', async () => {
    const { code, stdout, stderr } = await drains('-o', 'wide');

    expect(code).toBe(0);
    const rows = tableRows(stdout);
    expect(rows.map((row) => [row['NODE'], row['STATUS'], row['PODS LEFT']])).toEqual([
      [BLOCKED, 'unknown', '—'],
      // The drain step wrote how it ended on the Node.
      [SPOT, 'ended: done', '—'],
      [MANUAL, 'ended (local): done', '—'],
    ]);
    expect(rows[0]?.['LIFECYCLE']).toBe('ng-a/drain-hook');
    expect(stderr).toMatch(
      /^note: 1 drain\(s\) of the deployed workflow listed as unknown: pass --drain-state-machine <DrainStateMachineArn>/m,
    );
  });

  it('should refuse an unknown output format, a state machine that is not an ARN, and a region it is not in, with exit 2', async () => {
    const arn = served?.stateMachineArn ?? '';
    const [format, notArn, region] = await Promise.all([
      drains('-o', 'yaml'),
      drains('--drain-state-machine', 'drain'),
      drains('--drain-state-machine', arn, '--region', 'eu-west-1'),
    ]);

    expect(format).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: -o/--output: expected table, wide, json, got yaml\n',
    });
    expect(notArn).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: --drain-state-machine: not a state machine ARN: drain\n',
    });
    expect(region).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: --region eu-west-1, but --drain-state-machine is in us-east-1: pass the state machine of this region, or leave --region out\n',
    });
  });
});
