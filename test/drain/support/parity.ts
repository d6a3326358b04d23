// kubectl drain and lib/drain side by side: two identical emulated clusters, one drained by the
// real kubectl, the other by runDrain over the KubeClient. Used by the parity tests and the benchmark.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { runDrain } from '../../../cli/drain/driver.js';
import { drainSettings } from '../../../lib/drain/settings.js';
import type { DrainStepResult } from '../../../lib/drain/step-result.js';
import { sleepOn, systemClock } from '@ec2-node-reconciler/model/clock.js';
import type { RequestLogEntry } from '@ec2-node-reconciler/sandbox/kube/index.js';
import { emulated, N1, podState, seedMixedPods, seedNodes, type Emulated } from './emulated.js';

export const KUBECTL = process.env['KUBECTL'] ?? 'kubectl';

export interface ParityScenario {
  /** Adds a PDB that never lets db-0 go: both drains must stop at the timeout and leave it. */
  readonly blockingPdb: boolean;
  readonly timeoutSeconds: number;
  /** Grace period of every pod (kubectl waits in wall time, so keep it short). */
  readonly graceSeconds: number;
  /** Ordinary ReplicaSet pods added to the node, for figures at scale. */
  readonly extraPods?: number;
}

export interface DrainFigures {
  readonly wallMs: number;
  /** Every request the emulator answered during the drain, discovery included. */
  readonly requests: number;
  /** Requests by kind: `discovery`, `get pods`, `create pods/eviction`, … */
  readonly byKind: Readonly<Record<string, number>>;
  /** Every pod of the cluster after the drain (namespace/name@node, terminating or not). */
  readonly endState: readonly string[];
  readonly unschedulable: boolean;
}

export interface ParityResult {
  readonly kubectl: DrainFigures & { readonly exitCode: number; readonly stdout: string; readonly stderr: string };
  readonly ours: DrainFigures & { readonly result: DrainStepResult };
}

export const kubectlDrainArgs = (timeoutSeconds: number): string[] => [
  'drain',
  N1,
  '--ignore-daemonsets',
  '--delete-emptydir-data',
  '--force',
  `--timeout=${timeoutSeconds}s`,
];

const kindOf = (entry: RequestLogEntry): string =>
  entry.resource === ''
    ? 'discovery'
    : `${entry.verb} ${entry.resource}${entry.subresource ? `/${entry.subresource}` : ''}`;

function figures(env: Emulated, wallMs: number): DrainFigures {
  const byKind: Record<string, number> = {};
  for (const entry of env.kube.requestLog.entries) byKind[kindOf(entry)] = (byKind[kindOf(entry)] ?? 0) + 1;
  return {
    wallMs: Math.round(wallMs),
    requests: env.kube.requestLog.entries.length,
    byKind,
    endState: podState(env.kube.store),
    unschedulable: env.kube.store.getNode(N1)?.spec?.unschedulable === true,
  };
}

function run(
  binary: string,
  args: string[],
  timeoutMs: number,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(binary, args, { timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error !== null && typeof error.code !== 'number') {
        reject(new Error(`running ${binary} ${args.join(' ')} (is kubectl installed?)`, { cause: error }));
        return;
      }
      resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr });
    });
  });
}

async function prepare(): Promise<Emulated> {
  // Wall time on both sides: kubectl sleeps and polls in real time.
  const env = await emulated(systemClock);
  seedNodes(env.kube.store, Date.now());
  return env;
}

async function drainWithKubectl(scenario: ParityScenario, dir: string): Promise<ParityResult['kubectl']> {
  const env = await prepare();
  try {
    const config = await env.kube.writeKubeconfig(join(dir, `kubeconfig-${env.kube.port}`));
    // Seeded last, so the already-terminating pod is as fresh for kubectl as for us.
    seedMixedPods(env.kube.store, scenario);
    env.kube.requestLog.clear();
    const started = performance.now();
    const out = await run(
      KUBECTL,
      ['--kubeconfig', config, ...kubectlDrainArgs(scenario.timeoutSeconds)],
      (scenario.timeoutSeconds + 30) * 1000,
    );
    return { ...figures(env, performance.now() - started), exitCode: out.code, stdout: out.stdout, stderr: out.stderr };
  } finally {
    await env.kube.close();
  }
}

async function drainWithUs(scenario: ParityScenario): Promise<ParityResult['ours']> {
  const env = await prepare();
  try {
    seedMixedPods(env.kube.store, scenario);
    env.kube.requestLog.clear();
    const started = performance.now();
    const result = await runDrain(
      { api: env.api, clock: systemClock, settings: drainSettings(), sleep: sleepOn(systemClock) },
      { node: N1, deadline: Date.now() + scenario.timeoutSeconds * 1000, cordon: { reason: 'parity test' } },
    );
    return { ...figures(env, performance.now() - started), result };
  } finally {
    await env.kube.close();
  }
}

/** Drains the same seeded cluster with kubectl and with lib/drain; `concurrently` halves the test's time. */
export async function runParity(
  scenario: ParityScenario,
  dir: string,
  options: { concurrently?: boolean } = {},
): Promise<ParityResult> {
  if (options.concurrently) {
    const [kubectl, ours] = await Promise.all([drainWithKubectl(scenario, dir), drainWithUs(scenario)]);
    return { kubectl, ours };
  }
  const kubectl = await drainWithKubectl(scenario, dir);
  const ours = await drainWithUs(scenario);
  return { kubectl, ours };
}
