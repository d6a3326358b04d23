// The sweep function's answer and log line at scale: bounded whatever the cluster's size (a log line
// is cut past 256 KB, a synchronous response fails past 6 MB), with its counts whole.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseScenario } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { startSandbox, type Sandbox } from '@ec2-node-reconciler/sandbox/simulate/sandbox.js';
import { scaleScenarioText } from '../../scripts/make-scale-scenario.js';
import { SWEEP_RUN_LOG } from '@ec2-node-reconciler/model/contract/function-logs.js';
import type { ReportSummary } from '../../lib/report/summary.js';
import { lambdaContext, setFunctionEnvironment } from '../support/lambda-env.js';

/** Enough machines that the whole report (~173 bytes a pair) would be several times the bound. */
const NODES = 3_000;
/** What a summary may weigh, whatever the cluster's size. */
const BOUND = 100_000;

let sandbox: Sandbox;
let sweep: (event: unknown, context: unknown) => Promise<ReportSummary>;

beforeAll(async () => {
  sandbox = await startSandbox(parseScenario(scaleScenarioText({ nodes: NODES }), 'scale.json'));
  setFunctionEnvironment(sandbox);
  process.env['POWERTOOLS_LOG_LEVEL'] = 'INFO';
  sweep = (await import('../../functions/sweep.js')).handler as typeof sweep;
}, 60_000);

afterAll(async () => {
  await sandbox.close();
});

describe('sweep handler at scale', () => {
  it('should log and return a bounded summary of a sweep of thousands of nodes, its counts whole', async () => {
    const written: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    });
    let summary: ReportSummary;
    try {
      summary = await sweep({ dryRun: true }, lambdaContext(sandbox, 'sweep'));
    } finally {
      write.mockRestore();
    }

    const pairs = Object.values(summary.conditions).reduce((a, b) => a + b, 0);
    expect(pairs).toBe(NODES);
    expect(summary.conditions['stale-object']).toBe(1);
    expect(JSON.stringify(summary).length).toBeLessThan(BOUND);
    expect(summary.omitted?.rows).toBe(NODES - summary.rows.length);
    // The divergences come first among the rows kept.
    expect(summary.rows.filter((r) => r.condition !== 'in-sync')).toHaveLength(3);
    const line = written.find((text) => text.includes(SWEEP_RUN_LOG));
    expect(line?.length).toBeLessThan(BOUND);
  }, 60_000);
});
