// `simulate FILE`: a scenario in the sandbox (emulated AWS and Kubernetes), its expectations checked.
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadScenario, ScenarioError } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { simulate } from '@ec2-node-reconciler/sandbox/simulate/run.js';
import { serveInRealTime } from '@ec2-node-reconciler/sandbox/simulate/serve.js';
import { ADMIN_TOKEN } from '@ec2-node-reconciler/sandbox/simulate/sandbox.js';
import type { CommandRun } from '../command-run.js';
import { CliError, EXIT } from '../exit-codes.js';
import { formatSimulation } from '../format-simulation.js';
import { cliOperator } from '../simulation-operator.js';
import { explainSimulation } from '../explain-simulation.js';
import { explanationJson, formatExplanation } from '../format-explain.js';
import { err, out, outputMode, str, tableStyle } from './shared.js';

export const runSimulate: CommandRun = async (v, [file]) => {
  if (!file) throw new CliError('simulate: which scenario? (simulate FILE)');
  const mode = outputMode(v);
  let loaded;
  const loadStart = performance.now();
  try {
    loaded = await loadScenario(file);
  } catch (error) {
    if (error instanceof ScenarioError) throw new CliError(error.message, EXIT.usage);
    throw error;
  }
  const loadMs = performance.now() - loadStart;
  const serve = v['serve'] === true;
  const { simulation, sandbox, timings } = await simulate(loaded, { operator: cliOperator, keepOpen: serve });
  if (v['timings'] === true) {
    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    err(
      `timings: load ${s(loadMs)}, seed ${s(timings.seedMs)}, run ${s(timings.runMs)} (${loaded.scenario.nodes.length} nodes, ${loaded.scenario.instances.length} instances)`,
    );
  }
  const explain = str(v['explain']);
  if (explain !== undefined) {
    const explanation = explainSimulation(simulation, explain);
    out(
      mode === 'json'
        ? JSON.stringify(explanationJson(explanation), null, 2)
        : formatExplanation(explanation, { ...tableStyle(mode), start: simulation.start }),
    );
  } else if (v['check'] === true) {
    const e = simulation.expectations;
    out(
      e
        ? e.failures.length === 0
          ? `${simulation.name}: all ${e.passed} expectation(s) hold`
          : [
              `${simulation.name}: ${e.failures.length} expectation(s) failed`,
              ...e.failures.map((f) => `  ✗ ${f}`),
            ].join('\n')
        : `${simulation.name}: no expectations`,
    );
  } else out(mode === 'json' ? JSON.stringify(simulation, null, 2) : formatSimulation(simulation, tableStyle(mode)));
  const code = simulation.expectations && simulation.expectations.failures.length > 0 ? EXIT.findings : EXIT.ok;
  if (!serve) return code;
  const kubeconfig = join(tmpdir(), `ec2-node-reconciler-${process.pid}.kubeconfig`);
  // The credentials go to a file only its owner reads, as the kubeconfig's token does: never to the terminal.
  const awsEnv = join(tmpdir(), `ec2-node-reconciler-${process.pid}.aws.env`);
  // The served cluster lives on: its clock runs at wall speed from where the scenario ended.
  const stop = serveInRealTime(sandbox);
  try {
    const stopped = stopSignal();
    await sandbox.kube.writeKubeconfig(kubeconfig, { token: ADMIN_TOKEN });
    const { region, name: cluster } = sandbox.scenario.cluster;
    const { credentials } = sandbox.aws.clientConfig();
    // AWS CLI v1 reads only AWS_DEFAULT_REGION; v2 and the SDKs read AWS_REGION first.
    await writeFile(
      awsEnv,
      `export AWS_ACCESS_KEY_ID=${credentials.accessKeyId} AWS_SECRET_ACCESS_KEY=${credentials.secretAccessKey} AWS_REGION=${region} AWS_DEFAULT_REGION=${region}\n`,
      { mode: 0o600 },
    );
    const endpoint = `--endpoint-url ${sandbox.aws.endpoint}`;
    out(
      [
        `\nsandbox serving (Ctrl-C to stop); its clock runs at wall speed from the scenario's end, ${new Date(sandbox.clock.now()).toISOString()}:`,
        `  kubectl --kubeconfig ${kubeconfig} get nodes`,
        `  . ${awsEnv}   (the sandbox's AWS credentials and region, for aws and ec2-node-reconciler)`,
        `  aws ${endpoint} ec2 describe-instances`,
        `  aws eks get-token --cluster-name ${cluster}   (a token the sandbox's API server accepts: these credentials created the cluster, so they are its admin)`,
        `  ${CLI} sweep --kubeconfig ${kubeconfig} --cluster ${cluster} ${endpoint} --drain-state-machine ${sandbox.stack.deployment.stateMachines[0]?.arn ?? ''} --dry-run`,
        `  ${CLI} invoke --function ${sandbox.functions.sweep} ${endpoint} --dry-run`,
      ].join('\n'),
    );
    await stopped;
  } finally {
    stop();
    // Its credentials and token are no use once it stops, and nobody else's to read.
    await Promise.all([sandbox.close(), rm(awsEnv, { force: true }), rm(kubeconfig, { force: true })]);
  }
  return code;
};

/** How an operator runs the CLI from the project's directory (the package is not installed globally). */
const CLI = 'npx ec2-node-reconciler';

/** Resolves on the first Ctrl-C (SIGINT) or SIGTERM (a terminal closing, a process manager stopping it). */
function stopSignal(): Promise<NodeJS.Signals> {
  const signals: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals): void => {
      for (const s of signals) process.off(s, on);
      resolve(signal);
    };
    for (const s of signals) process.once(s, on);
  });
}
