// `invoke` leaves the deployed dryRun setting alone unless asked: a stack deployed with dryRun stays dry.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../../lib/report/report.js';
import { parseScenario } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { startSandbox, type Sandbox } from '@ec2-node-reconciler/sandbox/simulate/sandbox.js';

const run = promisify(execFile);
const BIN = new URL('../../bin/ec2-node-reconciler.mjs', import.meta.url).pathname;
const STALE = 'i-0cccccccccccccc02';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox(
    parseScenario(
      `
name: dry-deployment
cluster: { name: demo, region: us-east-1, accountId: "111122223333" }
settings: { dryRun: true }
instances:
  - { id: ${STALE}, state: terminated, zone: us-east-1a, tags: { eks:cluster-name: demo } }
nodes:
  - { name: node-2.ec2.internal, providerID: "aws:///us-east-1a/${STALE}", createdAgo: 2h, heartbeatAgo: 1h, ready: Unknown }
`,
      'dry.yaml',
    ),
  );
});

afterAll(async () => {
  await sandbox.close();
});

describe('ec2-node-reconciler invoke', () => {
  it('should send no dryRun without --dry-run, so a stack deployed dry stays dry', async () => {
    const { credentials } = sandbox.aws.clientConfig();
    const env = {
      ...process.env,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      AWS_REGION: 'us-east-1',
    };
    const { stdout } = await run(
      process.execPath,
      [BIN, 'invoke', '--function', sandbox.functions.sweep, '-o', 'json', '--endpoint-url', sandbox.aws.endpoint],
      { env, timeout: 120_000 },
    );

    const report = JSON.parse(stdout) as RunReport;
    expect(sandbox.aws.state.functions.invocations.map((i) => i.payload)).toEqual(['{}']);
    expect(report.dryRun).toBe(true);
    expect(report.actions.find((a) => a.kind === 'delete')?.outcome).toBe('dry-run');
    expect(sandbox.kube.store.getNode('node-2.ec2.internal')).toBeDefined();
  });
});
