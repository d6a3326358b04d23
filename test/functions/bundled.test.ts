// What `cdk deploy` uploads, run: each handler bundled exactly as the CDK app bundles it (minified
// ESM, createRequire banner, @aws-sdk/* left to the runtime), imported from the bundle and invoked
// against the sandbox's emulators. Catches what source-level tests cannot: a dependency that breaks
// when bundled, a missing banner, a module the runtime does not provide.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ENTRIES, PROJECT_ROOT, type FunctionKind } from '../../infra/functions.js';
import type { RunReport } from '../../lib/report/report.js';
import { parseScenario } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { startSandbox, type Sandbox } from '@ec2-node-reconciler/sandbox/simulate/sandbox.js';
import type { DrainStepOutput } from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import { appBuildOptions } from '../../scripts/bundle-size.js';
import { lambdaContext, setFunctionEnvironment, sqsRecord } from '../support/lambda-env.js';

const SPOT = 'i-0bbbbbbbbbbbbbbb1';
const STALE = 'i-0bbbbbbbbbbbbbbb2';
const node = (id: string) => `node-${id.slice(-1)}.ec2.internal`;

const SCENARIO = `
name: bundled
cluster: { name: demo, region: us-east-1, accountId: "111122223333" }
instances:
  - { id: ${SPOT}, state: running, zone: us-east-1a, tags: { eks:cluster-name: demo } }
  - { id: ${STALE}, state: terminated, zone: us-east-1a, tags: { eks:cluster-name: demo } }
nodes:
  - { name: ${node(SPOT)}, providerID: "aws:///us-east-1a/${SPOT}", createdAgo: 2h }
  - { name: ${node(STALE)}, providerID: "aws:///us-east-1a/${STALE}", createdAgo: 2h, heartbeatAgo: 1h, ready: Unknown }
pods:
  - { name: web-1, node: ${node(SPOT)}, owner: ReplicaSet/web-1a2b, terminationGracePeriodSeconds: 0 }
`;

// Inside the repository, so the bundles resolve @aws-sdk/* from node_modules as the runtime would provide them.
const OUT = join(PROJECT_ROOT, '.tmp', 'bundled-test');

let sandbox: Sandbox;
let handlers: {
  events: (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;
  sweep: (event: unknown, context: Context) => Promise<RunReport>;
  drainStep: (event: unknown, context: Context) => Promise<DrainStepOutput>;
};

async function bundled<T>(kind: FunctionKind): Promise<T> {
  const outfile = join(OUT, kind, 'index.mjs');
  await build(appBuildOptions(DEFAULT_ENTRIES[kind], outfile));
  const module = (await import(pathToFileURL(outfile).href)) as { handler: T };
  return module.handler;
}

beforeAll(async () => {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  sandbox = await startSandbox(parseScenario(SCENARIO, 'bundled.yaml'));
  setFunctionEnvironment(sandbox);
  const [events, sweep, drainStep] = await Promise.all([
    bundled<typeof handlers.events>('events'),
    bundled<typeof handlers.sweep>('sweep'),
    bundled<typeof handlers.drainStep>('drainStep'),
  ]);
  handlers = { events, sweep, drainStep };
});

afterAll(async () => {
  await sandbox.close();
  rmSync(OUT, { recursive: true, force: true });
});

describe('the bundled functions, against the emulators', () => {
  it('sweep: should delete the stale Node object through the EKS token and the shipped RBAC', async () => {
    const report = await handlers.sweep({}, lambdaContext(sandbox, 'sweep'));
    expect(report.errors).toEqual([]);
    expect(report.conditions['stale-object']).toBe(1);
    expect(sandbox.kube.store.getNode(node(STALE))).toBeUndefined();
  });

  it('events: should cordon the node of a spot warning and start its drain', async () => {
    const spot = {
      version: '0',
      id: 'e0b5c1a2-7d7a-4f2b-9a51-0c6a1b2c3d4e',
      'detail-type': 'EC2 Spot Instance Interruption Warning',
      source: 'aws.ec2',
      account: '111122223333',
      time: new Date(sandbox.clock.now()).toISOString(),
      region: 'us-east-1',
      resources: [`arn:aws:ec2:us-east-1:111122223333:instance/${SPOT}`],
      detail: { 'instance-id': SPOT, 'instance-action': 'terminate' },
    };
    const response = await handlers.events({ Records: [sqsRecord('m-1', spot)] }, lambdaContext(sandbox, 'events'));

    expect(response.batchItemFailures).toEqual([]);
    expect(sandbox.kube.store.getNode(node(SPOT))?.spec?.unschedulable).toBe(true);
    expect(sandbox.aws.state.stepFunctions.executions()).toHaveLength(1);
  });

  it('drain-step: should evict the pods of the cordoned node', async () => {
    const uid = sandbox.kube.store.getNode(node(SPOT))?.metadata.uid ?? '';
    const input = {
      cluster: 'demo',
      node: node(SPOT),
      nodeUid: uid,
      instanceId: SPOT,
      deadline: new Date(sandbox.clock.now() + 600_000).toISOString(),
      reason: 'spot',
      cause: 'e0b5c1a2',
    };

    const output = await handlers.drainStep({ input }, lambdaContext(sandbox, 'drain-step'));

    expect(output.outcome).toBe('done');
    expect(sandbox.kube.store.listPods({ node: node(SPOT) })).toEqual([]);
  });
});
