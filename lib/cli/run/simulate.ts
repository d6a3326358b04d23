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
import { err, out, outputMode, tableStyle } from './shared.js';

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
  if (v['check'] === true) {
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
  const kubeconfig = await sandbox.kube.writeKubeconfig(
    join(tmpdir(), `ec2-node-reconciler-${process.pid}.kubeconfig`),
    { token: ADMIN_TOKEN },
  );
  const { region, name: cluster } = sandbox.scenario.cluster;
  const { credentials } = sandbox.aws.clientConfig();
  // The credentials go to a file only its owner reads, as the kubeconfig's token does: never to the terminal.
  const awsEnv = join(tmpdir(), `ec2-node-reconciler-${process.pid}.aws.env`);
  await writeFile(
    awsEnv,
    `export AWS_ACCESS_KEY_ID=${credentials.accessKeyId} AWS_SECRET_ACCESS_KEY=${credentials.secretAccessKey} AWS_REGION=${region}\n`,
    { mode: 0o600 },
  );
  const endpoint = `--endpoint-url ${sandbox.aws.endpoint}`;
  // The served cluster lives on: its clock runs at wall speed from where the scenario ended.
  const stop = serveInRealTime(sandbox);
  out(
    [
      `\nsandbox serving (Ctrl-C to stop); its clock runs at wall speed from the scenario's end, ${new Date(sandbox.clock.now()).toISOString()}:`,
      `  kubectl --kubeconfig ${kubeconfig} get nodes`,
      `  . ${awsEnv}   (the sandbox's AWS credentials and region, for aws and ec2-node-reconciler)`,
      `  aws ${endpoint} ec2 describe-instances`,
      `  aws eks get-token --cluster-name ${cluster}   (a token the sandbox's API server accepts: these credentials created the cluster, so they are its admin)`,
      `  ec2-node-reconciler sweep --kubeconfig ${kubeconfig} --cluster ${cluster} ${endpoint} --drain-state-machine ${sandbox.stack.deployment.stateMachines[0]?.arn ?? ''} --dry-run`,
      `  ec2-node-reconciler invoke --function ${sandbox.functions.sweep} ${endpoint} --dry-run`,
    ].join('\n'),
  );
  await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
  stop();
  await Promise.all([sandbox.close(), rm(awsEnv, { force: true })]);
  return code;
};
