// `npm run bench snapshot`: the CLI's `snapshot` (the real binary, a process of its own) against a
// served world of 10,000 Nodes with 10 pods each (a DaemonSet's and nine of ReplicaSets, a PDB per
// workload) and their instances in Auto Scaling groups of 500. Wall time and peak RSS of the CLI
// process; the file it wrote is loaded with the scenario schema and must hold the whole world.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadScenario } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { median } from './support/results.js';
import { startWorld } from './support/world-process.js';
import type { BenchOutput } from './run.js';

const NODES = Number(process.env['SNAPSHOT_BENCH_NODES'] ?? 10_000);
const PODS_PER_NODE = 10;
const RUNS = Number(process.env['SNAPSHOT_BENCH_RUNS'] ?? 3);
const BIN = fileURLToPath(new URL('../../bin/ec2-node-reconciler.mjs', import.meta.url));
/** Reports the process's peak RSS (VmHWM) on stderr as it exits. */
const PEAK_RSS = new URL('./support/peak-rss.mjs', import.meta.url).href;

interface CliRun {
  readonly wallSeconds: number;
  readonly peakRssMiB: number;
  readonly stderr: string;
}

function runCli(args: readonly string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', PEAK_RSS, BIN, ...args], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallSeconds = (performance.now() - started) / 1000;
      const peak = /^peak-rss-kib (\d+)$/m.exec(stderr)?.[1];
      if (code !== 0 || peak === undefined) reject(new Error(`snapshot exited ${String(code)}:\n${stderr}`));
      else resolve({ wallSeconds, peakRssMiB: Math.round(Number(peak) / 1024), stderr });
    });
  });
}

export default async function snapshotBench(): Promise<BenchOutput> {
  const world = await startWorld({ nodes: NODES, podsPerNode: PODS_PER_NODE });
  const dir = mkdtempSync(join(tmpdir(), 'snapshot-bench-'));
  try {
    const { operator, awsEndpoint, cluster, region } = world.info;
    const env = {
      ...process.env,
      AWS_ACCESS_KEY_ID: operator.accessKeyId,
      AWS_SECRET_ACCESS_KEY: operator.secretAccessKey,
      AWS_REGION: region,
    };
    const file = join(dir, 'cluster.yaml');
    const args = ['snapshot', '-o', file, '--kubeconfig', operator.kubeconfig, '--cluster', cluster];
    const runs: CliRun[] = [];
    for (let run = 0; run < RUNS; run++) runs.push(await runCli([...args, '--endpoint-url', awsEndpoint], env));
    const loadStarted = performance.now();
    const { scenario } = await loadScenario(file);
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    if (scenario.nodes.length !== NODES || scenario.pods.length !== NODES * PODS_PER_NODE)
      throw new Error(
        `the snapshot holds ${scenario.nodes.length} nodes and ${scenario.pods.length} pods, not ${NODES} and ${NODES * PODS_PER_NODE}`,
      );
    const wall = median(runs.map((r) => r.wallSeconds));
    const rss = median(runs.map((r) => r.peakRssMiB));
    const k = `${NODES / 1000}k`;
    return {
      figures: {
        nodes: NODES,
        pods: NODES * PODS_PER_NODE,
        instances: scenario.instances.length,
        pdbs: scenario.pdbs.length,
        seedSeconds: Number(world.info.seedSeconds.toFixed(1)),
        wallSeconds: runs.map((r) => r.wallSeconds.toFixed(2)).join(' '),
        peakRssMiB: runs.map((r) => r.peakRssMiB).join(' '),
        fileMB: Number((statSync(file).size / 1e6).toFixed(1)),
        loadSeconds: Number(loadSeconds.toFixed(1)),
      },
      results: [
        { name: `snapshot-${k}-nodes`, unit: 's', value: Number(wall.toFixed(2)), goal: 30, better: 'lower' },
        { name: `snapshot-${k}-nodes-rss`, unit: 'MiB', value: rss, goal: 1024, better: 'lower' },
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await world.close();
  }
}
