// `npm run bench cdk-synth`: `npx cdk synth -c clusterName=demo -c region=eu-west-1` as docs/deploy.md gives it, with every
// network connection refused (a proxy on a closed port, no version check, no notices): the template
// and the three bundles from a local esbuild. Median of RUNS, each into a fresh output directory.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../infra/functions.js';
import { median, type BenchResult } from './support/results.js';
import type { BenchOutput } from './run.js';

const RUNS = Number(process.env['CDK_BENCH_RUNS'] ?? 3);
const run = promisify(execFile);
/** Nothing listens on port 9 (discard): every attempt to reach the network fails at once. */
const NO_NETWORK = 'http://127.0.0.1:9';

export default async function cdkSynth(): Promise<BenchOutput> {
  const seconds: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const out = await mkdtemp(join(tmpdir(), 'cdk-synth-bench-'));
    try {
      const started = performance.now();
      await run(
        'npx',
        [
          'cdk',
          'synth',
          '-c',
          'clusterName=demo',
          '-c',
          'region=eu-west-1',
          '--quiet',
          '--no-notices',
          '--no-version-reporting',
          '-o',
          out,
        ],
        {
          cwd: PROJECT_ROOT,
          env: {
            ...process.env,
            HTTP_PROXY: NO_NETWORK,
            HTTPS_PROXY: NO_NETWORK,
            http_proxy: NO_NETWORK,
            https_proxy: NO_NETWORK,
            CDK_DISABLE_VERSION_CHECK: 'true',
            npm_config_offline: 'true',
          },
          maxBuffer: 16 * 1024 * 1024,
        },
      );
      seconds.push((performance.now() - started) / 1000);
      const files = await readdir(out);
      if (!files.some((f) => f.endsWith('.template.json')))
        throw new Error(`cdk synth wrote no template: ${files.join(', ')}`);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  }
  const value = Number(median(seconds).toFixed(1));
  const results: BenchResult[] = [{ name: 'cdk-synth-offline', unit: 's', value, goal: 30, better: 'lower' }];
  return { figures: { seconds: seconds.map((s) => s.toFixed(1)).join(', ') }, results };
}
