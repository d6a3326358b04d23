// `npm run bench startup`: what a cold start costs before any work. Each bundled handler (built as
// `cdk deploy` builds it) is imported in a fresh process, its module init timed (median of RUNS);
// the bundles are weighed; the CLI's `--help` is timed from process start to exit (median of RUNS).
import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FUNCTION_KINDS, PROJECT_ROOT, type FunctionKind } from '../../infra/functions.js';
import { DEFAULTS } from '../../infra/node-reconciler.js';
import { buildCli } from '../../scripts/build-cli.js';
import { bundleHandlers, runHandler } from './support/handlers.js';
import { median, type BenchResult } from './support/results.js';
import type { BenchFigures, BenchOutput } from './run.js';

const RUNS = Number(process.env['STARTUP_BENCH_RUNS'] ?? 7);
const MB = 1024 * 1024;
const run = promisify(execFile);

/** The name each function's results carry (bench/results.json). */
const RESULT_NAME: Readonly<Record<FunctionKind, string>> = {
  events: 'events',
  sweep: 'sweep',
  drainStep: 'drain-step',
};

/**
 * What a deployed function finds in its environment. Tracing as the stack sets it by default
 * (infra/functions.ts: POWERTOOLS_TRACE_ENABLED follows the `tracing` prop): off, so the Tracer and
 * the X-Ray SDK under it are not loaded (lib/lambda/telemetry.ts). Left unset, Powertools counts
 * tracing as on, and every run timed a traced function.
 */
const ENV: Readonly<Record<string, string>> = {
  POWERTOOLS_TRACE_ENABLED: String(DEFAULTS.tracing),
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'secret',
  CLUSTER_NAME: 'demo',
  DRAIN_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:111122223333:stateMachine:demo-drain',
  POWERTOOLS_LOG_LEVEL: 'ERROR',
};

const round = (value: number, digits: number): number => Number(value.toFixed(digits));

export default async function startup(): Promise<BenchOutput> {
  const figures: BenchFigures = {};
  const results: BenchResult[] = [];
  const bundles = await bundleHandlers();
  for (const kind of FUNCTION_KINDS) {
    const bundle = bundles[kind];
    const inits: number[] = [];
    for (let i = 0; i < RUNS; i++) inits.push((await runHandler(bundle, ENV, [])).initMs);
    const init = median(inits);
    const mb = statSync(bundle).size / MB;
    figures[`${kind}.initMs`] = `${round(init, 1)} (runs ${inits.map((ms) => Math.round(ms)).join(', ')})`;
    figures[`${kind}.bundleMB`] = round(mb, 2);
    results.push({
      name: `init-${RESULT_NAME[kind]}-ms`,
      unit: 'ms',
      value: Math.round(init),
      goal: 150,
      better: 'lower',
    });
  }
  for (const kind of FUNCTION_KINDS) {
    results.push({
      name: `bundle-${RESULT_NAME[kind]}-mb`,
      unit: 'MB',
      value: round(statSync(bundles[kind]).size / MB, 2),
      goal: 1.5,
      better: 'lower',
    });
  }

  // The published binary as npm links it (its CLI built, as `npm ci` builds it), started the way a user starts it.
  await buildCli();
  const bin = join(PROJECT_ROOT, 'bin', 'ec2-node-reconciler.mjs');
  const helps: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const { stdout } = await run(process.execPath, [bin, '--help'], { cwd: PROJECT_ROOT });
    helps.push(performance.now() - started);
    if (!/usage/i.test(stdout)) throw new Error(`--help printed no usage: ${stdout.slice(0, 200)}`);
  }
  figures['cli.helpMs'] = `${Math.round(median(helps))} (runs ${helps.map((ms) => Math.round(ms)).join(', ')})`;
  results.push({ name: 'cli-help-ms', unit: 'ms', value: Math.round(median(helps)), goal: 300, better: 'lower' });
  return { figures, results };
}
