// `simulate FILE`: a scenario in the sandbox (emulated AWS and Kubernetes), its expectations checked;
// with `--replay EVENTS`, a recorded history instead of its steps; with `--compare A B`, the same world
// and history under two settings files, and the difference in what the reconciler did.
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadScenario, ScenarioError, type LoadedScenario } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { HistoryError, readHistory, type History } from '@ec2-node-reconciler/sandbox/simulate/replay-events.js';
import { simulate } from '@ec2-node-reconciler/sandbox/simulate/run.js';
import { serveInRealTime } from '@ec2-node-reconciler/sandbox/simulate/serve.js';
import { ADMIN_TOKEN } from '@ec2-node-reconciler/sandbox/simulate/sandbox.js';
import type { Settings } from '@ec2-node-reconciler/model/contract/settings.js';
import { addsDestructive, DESTRUCTIVE_ACTIONS, diffActions } from '../report/policy-diff.js';
import type { CommandRun } from '../command-run.js';
import { CliError, EXIT } from '../exit-codes.js';
import { actionCounts, actionCountsJson, actionTotals, cutNote, formatPolicyDiff, runLine } from '../format/replay.js';
import { formatSimulation } from '../format/simulation.js';
import { readSettingsFile } from '../settings-file.js';
import { cliOperator } from '../simulation-operator.js';
import { explainSimulation } from '../explain/simulation.js';
import { explanationJson, formatExplanation } from '../format/explain.js';
import { err, out, outputMode, str, tableStyle } from './shared.js';

/** The scenario with a settings file's settings in place of its own: the file is a deployment's whole configuration. */
const withSettings = (loaded: LoadedScenario, settings: Settings): LoadedScenario => ({
  ...loaded,
  scenario: { ...loaded.scenario, settings },
});

/** Which two settings files `--compare A B` or `--settings A --settings B` name, or the one `--settings A` names. */
function settingsFilesOf(
  v: Record<string, unknown>,
  extra: string | undefined,
): { pair?: [string, string]; one?: string } {
  const compared = str(v['compare']);
  const files = Array.isArray(v['settings']) ? v['settings'].filter((f): f is string => typeof f === 'string') : [];
  if (compared !== undefined) {
    if (extra === undefined) throw new CliError('--compare takes two settings files: --compare A B');
    if (files.length > 0) throw new CliError('--compare A B and --settings say the same thing: pass one of them');
    return { pair: [compared, extra] };
  }
  if (extra !== undefined) throw new CliError(`unexpected argument ${JSON.stringify(extra)}: usage: simulate FILE`);
  if (files.length > 2) throw new CliError('--settings: at most twice (twice compares them)');
  const [a, b] = files;
  if (a !== undefined && b !== undefined) return { pair: [a, b] };
  return a !== undefined ? { one: a } : {};
}

async function loadOrExit2(file: string): Promise<LoadedScenario> {
  try {
    return await loadScenario(file);
  } catch (error) {
    if (error instanceof ScenarioError) throw new CliError(error.message, EXIT.usage);
    throw error;
  }
}

async function historyOrExit2(path: string): Promise<History> {
  try {
    return await readHistory(path);
  } catch (error) {
    if (error instanceof HistoryError) throw new CliError(`--replay ${error.message}`, EXIT.usage);
    throw error;
  }
}

export const runSimulate: CommandRun = async (v, [file, extra]) => {
  if (!file) throw new CliError('simulate: which scenario? (simulate FILE)');
  const mode = outputMode(v);
  const { pair, one } = settingsFilesOf(v, extra);
  if (v['allow-destructive'] === true && !pair) throw new CliError('--allow-destructive goes with --compare A B');
  const everySweep = v['every-sweep'] === true;
  if (everySweep && str(v['replay']) === undefined) throw new CliError('--every-sweep goes with --replay EVENTS');
  if (pair && (v['serve'] === true || v['check'] === true))
    throw new CliError(`--compare runs two worlds: --${v['serve'] === true ? 'serve' : 'check'} does not go with it`);
  const loadStart = performance.now();
  let loaded = await loadOrExit2(file);
  const replayPath = str(v['replay']);
  const history = replayPath !== undefined ? await historyOrExit2(replayPath) : undefined;
  if (pair) {
    const [a, b] = await Promise.all(pair.map(readSettingsFile));
    if (!a || !b) throw new CliError('--compare takes two settings files');
    return compare(loaded, history, { files: pair, a, b }, mode, v['allow-destructive'] === true, everySweep);
  }
  if (one !== undefined) loaded = withSettings(loaded, await readSettingsFile(one));
  const loadMs = performance.now() - loadStart;
  const serve = v['serve'] === true;
  const { simulation, sandbox, timings } = await simulate(loaded, {
    operator: cliOperator,
    keepOpen: serve,
    ...(history ? { replay: history, everySweep } : {}),
  });
  if (v['timings'] === true) {
    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    err(
      `timings: load ${s(loadMs)}, seed ${s(timings.seedMs)}, run ${s(timings.runMs)} (${loaded.scenario.nodes.length} nodes, ${loaded.scenario.instances.length} instances${history ? `, ${history.events.length} events` : ''})`,
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
  } else
    out(
      mode === 'json'
        ? // With what it did per node, as `--compare` counts it: a run's actions, read without the records.
          JSON.stringify({ ...simulation, actions: actionCountsJson(actionCounts(simulation)) }, null, 2)
        : formatSimulation(simulation, tableStyle(mode)),
    );
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

/**
 * `--compare A B`: the same world and history run under A (the baseline) and B (the candidate), one
 * after the other, each from the same start on the same virtual clock (a scenario without a start
 * gets one, now, for both); prints the policy diff. Exits 1 when B adds a destructive action
 * (policy-diff.ts DESTRUCTIVE_ACTIONS) unless `--allow-destructive`.
 */
async function compare(
  loaded: LoadedScenario,
  history: History | undefined,
  settings: { files: [string, string]; a: Settings; b: Settings },
  mode: ReturnType<typeof outputMode>,
  allowDestructive: boolean,
  everySweep: boolean,
): Promise<number> {
  const start = loaded.scenario.start ?? new Date(Math.floor(Date.now() / 1000) * 1000).toISOString();
  const fixed: LoadedScenario = { ...loaded, scenario: { ...loaded.scenario, start } };
  const run = async (s: Settings) =>
    (
      await simulate(withSettings(fixed, s), {
        operator: cliOperator,
        ...(history ? { replay: history, everySweep } : {}),
      })
    ).simulation;
  const baseline = await run(settings.a);
  const candidate = await run(settings.b);
  const countsA = actionCounts(baseline);
  const countsB = actionCounts(candidate);
  const diff = diffActions(countsA, countsB);
  const destructive = addsDestructive(diff);
  const [fileA, fileB] = settings.files;
  if (mode === 'json')
    out(
      JSON.stringify(
        {
          baseline: { settings: fileA, actions: Object.fromEntries(actionTotals(countsA)) },
          candidate: { settings: fileB, actions: Object.fromEntries(actionTotals(countsB)) },
          ...(baseline.replay ? { replay: baseline.replay } : {}),
          diff,
          addsDestructive: destructive,
        },
        null,
        2,
      ),
    );
  else
    out(
      [
        `scenario ${loaded.scenario.name}${history ? `, replaying ${history.events.length} events` : ''}: the same world and history under two settings`,
        `  A ${runLine('baseline', fileA, baseline)}`,
        `  B ${runLine('candidate', fileB, candidate)}`,
        ...cutNote(baseline),
        ...cutNote(candidate),
        '',
        formatPolicyDiff(diff, countsA, countsB, tableStyle(mode)),
      ].join('\n'),
    );
  if (!destructive) return EXIT.ok;
  if (allowDestructive) {
    err('the candidate adds destructive actions (accepted: --allow-destructive)');
    return EXIT.ok;
  }
  err(
    `the candidate (${fileB}) adds destructive actions (${[...DESTRUCTIVE_ACTIONS].join(', ')}): exit 1; --allow-destructive accepts them`,
  );
  return EXIT.findings;
}
