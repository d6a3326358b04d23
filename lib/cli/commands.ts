// The CLI's commands: each parses its flags, runs, prints, and returns an exit code.
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ParseArgsConfig } from 'node:util';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { rbacYaml } from '../../infra/rbac.js';
import { Ec2Adapter } from '../aws/ec2.js';
import { createAwsClients } from '../aws/clients.js';
import { runOperatorDrain } from '../drain/operator-drain.js';
import { endLines, progressLine } from '../drain/report.js';
import { KubeClient } from '../kube/client.js';
import { NodeFinder } from '../kube/find-node.js';
import { NodeClient } from '../kube/nodes.js';
import { isInstanceId, type InstanceId } from '../model/instance-id.js';
import { runSignals, runSweep } from '../pipeline/run.js';
import type { RunReport } from '../report/report.js';
import { humanDuration } from '../sandbox/kube/time.js';
import { loadScenario, ScenarioError } from '../sandbox/scenario/load.js';
import { simulate } from '../sandbox/simulate/run.js';
import { serveInRealTime } from '../sandbox/simulate/serve.js';
import { ADMIN_TOKEN } from '../sandbox/simulate/world.js';
import { parseEvent, SignalRejection } from '../signals/index.js';
import { CliError, EXIT } from './exit-codes.js';
import { formatRunReport } from './format-report.js';
import { formatSimulation } from './format-simulation.js';
import { connect, type Live, type LiveOptions, type LocalDrainLauncher } from './live.js';
import { settingOptions, settingsFromFlags } from './settings-flags.js';

type Options = NonNullable<ParseArgsConfig['options']>;
const out = (text: string) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
const err = (text: string) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`);

export interface Command {
  readonly summary: string;
  readonly usage: string;
  readonly options: Options;
  readonly help: string;
  run(values: Record<string, unknown>, positionals: string[]): Promise<number>;
}

const CONNECTION: Options = {
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  cluster: { type: 'string' },
  region: { type: 'string' },
  'endpoint-url': { type: 'string' },
  'drain-state-machine': { type: 'string' },
};
const CONNECTION_HELP = `Connection:
  --kubeconfig PATH     kubeconfig file (default: $KUBECONFIG or ~/.kube/config)
  --context NAME        kubeconfig context (default: the current one)
  --cluster NAME        EKS cluster name (default: from an EKS context's ARN)
  --region REGION       AWS region (default: $AWS_REGION, or from the context's ARN)
  --endpoint-url URL    one AWS endpoint for every service (e.g. a served sandbox)
  --drain-state-machine ARN
                        the deployed drain workflow (stack output DrainStateMachineArn): asks it
                        whether a drain a Node records still runs, instead of leaving that Node be`;
const SETTINGS_HELP = `Settings (same names as the deployed configuration, in kebab case), e.g.:
  --heartbeat-grace 2m  --not-found-grace 10m  --min-node-age 10m  --max-deletions 10
  --max-deletion-percent 20  --rebalance cordon|drain|ignore  --drain-timeout 15m ...`;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const liveOptions = (v: Record<string, unknown>): LiveOptions => ({
  ...(str(v['kubeconfig']) ? { kubeconfig: str(v['kubeconfig']) } : {}),
  ...(str(v['context']) ? { context: str(v['context']) } : {}),
  ...(str(v['cluster']) ? { cluster: str(v['cluster']) } : {}),
  ...(str(v['region']) ? { region: str(v['region']) } : {}),
  ...(str(v['endpoint-url']) ? { endpointUrl: str(v['endpoint-url']) } : {}),
  ...(str(v['drain-state-machine']) ? { drainStateMachineArn: str(v['drain-state-machine']) } : {}),
});

function outputMode(v: Record<string, unknown>): 'table' | 'json' {
  const mode = str(v['output']) ?? 'table';
  if (mode !== 'table' && mode !== 'json') throw new CliError(`-o/--output: expected table or json, got ${mode}`);
  return mode;
}

/** Exit 1 when a drain run in this process ended other than drained. */
const drainsExit = (drains: LocalDrainLauncher): number => (drains.allDrained() ? EXIT.ok : EXIT.findings);
const worst = (...codes: number[]): number => Math.max(...codes);

function printReport(report: RunReport, mode: 'table' | 'json'): number {
  out(mode === 'json' ? JSON.stringify(report, null, 2) : formatRunReport(report));
  return report.errors.length > 0 || report.actions.some((a) => a.outcome === 'failed') ? EXIT.findings : EXIT.ok;
}

const simulateCommand: Command = {
  summary: 'run a scenario in the sandbox (emulated AWS and Kubernetes) and check its expectations',
  usage: 'simulate FILE [--check] [-o table|json] [--serve] [--timings]',
  options: { check: { type: 'boolean' }, output: { type: 'string', short: 'o' }, serve: { type: 'boolean' }, timings: { type: 'boolean' } },
  help: `  --check               print only the expectation results
  -o, --output FORMAT   table (default) or json
  --serve               keep the emulators running afterwards: prints a kubeconfig and the AWS endpoint
  --timings             print how long loading, seeding and running took (stderr)`,
  async run(v, [file]) {
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
    const { simulation, sandbox, timings } = await simulate(loaded, { keepOpen: serve });
    if (v['timings'] === true) {
      const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
      err(`timings: load ${s(loadMs)}, seed ${s(timings.seedMs)}, run ${s(timings.runMs)} (${loaded.scenario.nodes.length} nodes, ${loaded.scenario.instances.length} instances)`);
    }
    if (v['check'] === true) {
      const e = simulation.expectations;
      out(e ? (e.failures.length === 0 ? `${simulation.name}: all ${e.passed} expectation(s) hold` : [`${simulation.name}: ${e.failures.length} expectation(s) failed`, ...e.failures.map((f) => `  ✗ ${f}`)].join('\n')) : `${simulation.name}: no expectations`);
    } else out(mode === 'json' ? JSON.stringify(simulation, null, 2) : formatSimulation(simulation));
    const code = simulation.expectations && simulation.expectations.failures.length > 0 ? EXIT.findings : EXIT.ok;
    if (!serve) return code;
    const kubeconfig = await sandbox.kube.writeKubeconfig(join(tmpdir(), `ec2-node-reconciler-${process.pid}.kubeconfig`), { token: ADMIN_TOKEN });
    const { region, name: cluster } = sandbox.scenario.cluster;
    const { credentials } = sandbox.aws.clientConfig();
    const endpoint = `--endpoint-url ${sandbox.aws.endpoint}`;
    // The served cluster lives on: its clock runs at wall speed from where the scenario ended.
    const stop = serveInRealTime(sandbox);
    out(
      [
        `\nsandbox serving (Ctrl-C to stop); its clock runs at wall speed from the scenario's end, ${new Date(sandbox.clock.now()).toISOString()}:`,
        `  kubectl --kubeconfig ${kubeconfig} get nodes`,
        `  export AWS_ACCESS_KEY_ID=${credentials.accessKeyId} AWS_SECRET_ACCESS_KEY=${credentials.secretAccessKey} AWS_REGION=${region}`,
        `  aws ${endpoint} ec2 describe-instances`,
        `  aws eks get-token --cluster-name ${cluster}   (a token the sandbox's API server accepts: these credentials created the cluster, so they are its admin)`,
        `  ec2-node-reconciler sweep --kubeconfig ${kubeconfig} --cluster ${cluster} ${endpoint} --drain-state-machine ${sandbox.stack.deployment.stateMachines[0]?.arn ?? ''} --dry-run`,
        `  ec2-node-reconciler invoke --function ${sandbox.functions.sweep} ${endpoint} --dry-run`,
      ].join('\n'),
    );
    await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
    stop();
    await sandbox.close();
    return code;
  },
};

/**
 * Works on the API server's time when it is not this machine's (a skewed clock, or a served sandbox
 * whose clock runs on from its scenario's end), saying so on stderr.
 */
async function followClock(live: Live): Promise<void> {
  const offset = await live.followServerClock();
  if (offset === undefined) return;
  const ahead = offset > 0 ? 'ahead of' : 'behind';
  err(`the API server's clock is ${humanDuration(Math.abs(offset))} ${ahead} this machine's; working on the server's time (${new Date(live.clock.now()).toISOString()})`);
}

const sweepCommand: Command = {
  summary: 'sweep a real cluster with your kubeconfig and AWS credentials',
  usage: 'sweep [--dry-run] [-o table|json] [connection] [settings]',
  options: { 'dry-run': { type: 'boolean' }, output: { type: 'string', short: 'o' }, ...CONNECTION, ...settingOptions() },
  help: `  --dry-run             plan and report, change nothing
  -o, --output FORMAT   table (default) or json
${CONNECTION_HELP}
${SETTINGS_HELP}`,
  async run(v) {
    const mode = outputMode(v);
    const settings = settingsFromFlags(v, v['dry-run'] === true);
    const live = connect(liveOptions(v));
    await followClock(live);
    const drains = live.localDrains(settings);
    return worst(printReport(await runSweep(live.deps(settings, drains), { region: live.region }), mode), drainsExit(drains));
  },
};

async function readInput(file: string): Promise<string> {
  if (file !== '-') return readFile(file, 'utf8');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const eventCommand: Command = {
  summary: 'handle one EventBridge event (from a file or stdin), the same path as the Lambda',
  usage: 'event FILE|- [--dry-run] [-o table|json] [connection] [settings]',
  options: { 'dry-run': { type: 'boolean' }, output: { type: 'string', short: 'o' }, ...CONNECTION, ...settingOptions() },
  help: `  --dry-run             plan and report, change nothing
  -o, --output FORMAT   table (default) or json
A malformed event exits 2 naming the field, before anything is contacted.
${CONNECTION_HELP}`,
  async run(v, [file]) {
    if (!file) throw new CliError('event: which event? (event FILE, or - for stdin)');
    const mode = outputMode(v);
    let event: unknown;
    try {
      event = JSON.parse(await readInput(file));
    } catch (error) {
      throw new CliError(`${file}: not a JSON event (${error instanceof Error ? error.message : String(error)})`);
    }
    let parsed;
    try {
      parsed = parseEvent(event);
    } catch (error) {
      if (error instanceof SignalRejection) throw new CliError(`${file}: ${error.message}`);
      throw error;
    }
    if (parsed.outcome === 'ignored') {
      out(`ignored: ${parsed.reason}`);
      return EXIT.ok;
    }
    const settings = settingsFromFlags(v, v['dry-run'] === true);
    const live = connect(liveOptions(v));
    await followClock(live);
    const drains = live.localDrains(settings);
    return worst(printReport(await runSignals(live.deps(settings, drains), parsed.signals, { region: live.region }), mode), drainsExit(drains));
  },
};

const drainCommand: Command = {
  summary: 'cordon and drain one node with kubectl drain semantics, showing progress',
  usage: 'drain NODE [--timeout 15m] [--reason TEXT] [connection] [settings]',
  options: { timeout: { type: 'string' }, reason: { type: 'string' }, ...CONNECTION, ...settingOptions() },
  help: `  --timeout DURATION    stop and report what is left after this (default: the drainTimeout setting)
  --reason TEXT         recorded in the cordon annotation (default: "manual drain")
${CONNECTION_HELP}`,
  async run(v, [node]) {
    if (!node) throw new CliError('drain: which node? (drain NODE)');
    const settings = settingsFromFlags({ ...v, ...(str(v['timeout']) ? { 'drain-timeout': v['timeout'] } : {}) }, false);
    const live = connect({ ...liveOptions(v), cluster: str(v['cluster']) ?? 'unnamed' });
    await followClock(live);
    const result = await runOperatorDrain(live.drainDeps(settings, (r) => err(`${node}: ${progressLine(r.counts, r.blocked)}`)), {
      node,
      reason: str(v['reason']) ?? 'manual drain',
      timeoutMs: settings.drainTimeout,
    });
    out(`${node}: ${result.status}${result.message ? ` — ${result.message}` : ''}`);
    for (const line of endLines(result.pods)) out(`  ${line}`);
    // Like kubectl drain: anything but a drained node (pods left, a replaced or vanished node, an uncordon) exits 1.
    return result.status === 'drained' ? EXIT.ok : EXIT.findings;
  },
};

const decommissionCommand: Command = {
  summary: 'mark an instance for decommissioning (tag); with --now, cordon and drain its node at once',
  usage: 'decommission INSTANCE [--now] [--reason TEXT] [connection] [settings]',
  options: { now: { type: 'boolean' }, reason: { type: 'string' }, ...CONNECTION, ...settingOptions() },
  help: `  --now                 also cordon and drain the instance's node now (otherwise the next event or sweep does)
  --reason TEXT         the tag's value (default: "decommissioned by <user>")
${CONNECTION_HELP}`,
  async run(v, [id]) {
    if (!isInstanceId(id)) throw new CliError(`decommission: not an EC2 instance id: ${JSON.stringify(id ?? '')}`);
    const instanceId: InstanceId = id;
    const settings = settingsFromFlags(v, false);
    const live = connect(liveOptions(v));
    await followClock(live);
    const reason = str(v['reason']) ?? `decommissioned by ${process.env['USER'] ?? 'operator'}`;
    const ec2 = new Ec2Adapter(createAwsClients({ region: live.region, ...(str(v['endpoint-url']) ? { endpoint: str(v['endpoint-url']) } : {}) }).ec2);
    await ec2.tagDecommission(instanceId, reason);
    out(`tagged ${instanceId} with ec2-node-reconciler/decommission=${reason}`);
    if (v['now'] !== true) return EXIT.ok;
    const lookup = await ec2.describeByIds([instanceId]);
    const dnsName = lookup.found[0]?.privateDnsName;
    // The operator named the instance: its Node may be looked for everywhere, by name too.
    const { node } = await new NodeFinder(new NodeClient(new KubeClient(live.kube))).find(instanceId, {
      ...(dnsName ? { privateDnsName: dnsName, names: [dnsName] } : {}),
      scan: true,
    });
    if (!node) throw new CliError(`no Node found for ${instanceId}`, EXIT.findings);
    const result = await runOperatorDrain(live.drainDeps(settings, (r) => err(`${node.name}: ${progressLine(r.counts, r.blocked)}`)), {
      node: node.name,
      reason,
      timeoutMs: settings.drainTimeout,
      expectedUid: node.uid,
    });
    out(`${node.name}: ${result.status}${result.message ? ` — ${result.message}` : ''}`);
    for (const line of endLines(result.pods)) out(`  ${line}`);
    return result.status === 'drained' ? EXIT.ok : EXIT.findings;
  },
};

const invokeCommand: Command = {
  summary: 'invoke the deployed sweep function and print its report',
  usage: 'invoke --function NAME [--dry-run] [-o table|json] [--region REGION]',
  options: { function: { type: 'string' }, 'dry-run': { type: 'boolean' }, output: { type: 'string', short: 'o' }, region: { type: 'string' }, 'endpoint-url': { type: 'string' } },
  help: `  --function NAME       the sweep function (the stack output SweepFunctionName)
  --dry-run             ask the function to plan and report only (without it, the deployed dryRun setting applies)
  -o, --output FORMAT   table (default) or json`,
  async run(v) {
    const name = str(v['function']);
    if (!name) throw new CliError('invoke: pass --function <name> (the stack output SweepFunctionName)');
    const region = str(v['region']) ?? process.env['AWS_REGION'] ?? process.env['AWS_DEFAULT_REGION'];
    if (!region) throw new CliError('no AWS region; pass --region or set AWS_REGION');
    const endpoint = str(v['endpoint-url']);
    const lambda = new LambdaClient({ region, ...(endpoint ? { endpoint } : {}) });
    // Only --dry-run says anything about dryRun: otherwise the deployed setting stands (a stack deployed dry stays dry).
    const payload = v['dry-run'] === true ? { dryRun: true } : {};
    const response = await lambda.send(new InvokeCommand({ FunctionName: name, Payload: Buffer.from(JSON.stringify(payload)) }));
    const body = response.Payload ? Buffer.from(response.Payload).toString('utf8') : '';
    if (response.FunctionError) throw new CliError(`the sweep function failed: ${body}`, EXIT.error);
    return printReport(JSON.parse(body) as RunReport, outputMode(v));
  },
};

const rbacCommand: Command = {
  summary: 'print the Kubernetes RBAC manifest the reconciler needs (kubectl apply -f -)',
  usage: 'rbac',
  options: {},
  help: '',
  run() {
    out(rbacYaml());
    return Promise.resolve(EXIT.ok);
  },
};

export const COMMANDS: Readonly<Record<string, Command>> = {
  simulate: simulateCommand,
  sweep: sweepCommand,
  event: eventCommand,
  drain: drainCommand,
  decommission: decommissionCommand,
  invoke: invokeCommand,
  rbac: rbacCommand,
};
