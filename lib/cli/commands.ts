// The CLI's commands as `--help` and the flag parser know them: summary, usage, flags. What a command
// does is imported only when it runs (run/*.ts): `--help` loads nothing but this table, and the flags
// named after the settings come with the settings schema (settings-flags.ts) for the commands that take them.
import type { ParseArgsConfig } from 'node:util';
import type { CommandRun } from './command-run.js';

export type Options = NonNullable<ParseArgsConfig['options']>;

export interface Command {
  readonly summary: string;
  readonly usage: string;
  /** Its own flags. */
  readonly options: Options;
  /** Whether every setting is a flag too (`--heartbeat-grace 2m`, settings-flags.ts). @default false */
  readonly settings?: boolean;
  readonly help: string;
  /** The command itself, imported when it runs. */
  load(): Promise<CommandRun>;
}

const CONNECTION: Options = {
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  cluster: { type: 'string' },
  region: { type: 'string' },
  profile: { type: 'string' },
  'endpoint-url': { type: 'string' },
  'drain-state-machine': { type: 'string' },
};
const CONNECTION_HELP = `Connection:
  --kubeconfig PATH     kubeconfig file (default: $KUBECONFIG or ~/.kube/config)
  --context NAME        kubeconfig context (default: the current one)
  --cluster NAME        EKS cluster name (default: from an EKS context's ARN)
  --region REGION       AWS region (default: from an EKS context's ARN, else $AWS_REGION;
                        one that differs from the context's is refused)
  --profile NAME        AWS profile of the shared config and credentials files (default: $AWS_PROFILE)
  --endpoint-url URL    one AWS endpoint for every service (e.g. a served sandbox)
  --drain-state-machine ARN
                        the deployed drain workflow (stack output DrainStateMachineArn): asks it
                        whether a drain a Node records still runs, instead of leaving that Node be`;
const SETTINGS_HELP = `Settings (same names as the deployed configuration, in kebab case), e.g.:
  --heartbeat-grace 2m  --not-found-grace 10m  --min-node-age 10m  --max-deletions 10
  --max-deletion-percent 20  --rebalance cordon|drain|ignore  --drain-timeout 15m ...`;

const simulateCommand: Command = {
  summary: 'run a scenario in the sandbox (emulated AWS and Kubernetes) and check its expectations',
  usage: 'simulate FILE [--check] [-o table|wide|json] [--serve] [--timings]',
  options: {
    check: { type: 'boolean' },
    output: { type: 'string', short: 'o' },
    serve: { type: 'boolean' },
    timings: { type: 'boolean' },
  },
  help: `  --check               print only the expectation results
  -o, --output FORMAT   table (default: long cells cut to fit), wide (every cell whole) or json
  --serve               keep the emulators running afterwards: prints a kubeconfig and the AWS endpoint
  --timings             print how long loading, seeding and running took (stderr)`,
  load: async () => (await import('./run/simulate.js')).runSimulate,
};

const sweepCommand: Command = {
  summary: 'sweep a real cluster with your kubeconfig and AWS credentials',
  usage: 'sweep [--dry-run] [-o table|wide|json] [connection] [settings]',
  options: { 'dry-run': { type: 'boolean' }, output: { type: 'string', short: 'o' }, ...CONNECTION },
  settings: true,
  help: `  --dry-run             plan and report, change nothing
  -o, --output FORMAT   table (default: long cells cut to fit), wide (every cell whole) or json
${CONNECTION_HELP}
${SETTINGS_HELP}`,
  load: async () => (await import('./run/reconcile.js')).runSweepCommand,
};

const eventCommand: Command = {
  summary: 'handle one EventBridge event (from a file or stdin), the same path as the Lambda',
  usage: 'event FILE|- [--dry-run] [-o table|wide|json] [connection] [settings]',
  options: { 'dry-run': { type: 'boolean' }, output: { type: 'string', short: 'o' }, ...CONNECTION },
  settings: true,
  help: `  --dry-run             plan and report, change nothing
  -o, --output FORMAT   table (default: long cells cut to fit), wide (every cell whole) or json
A malformed event exits 2 naming the field, before anything is contacted.
${CONNECTION_HELP}`,
  load: async () => (await import('./run/reconcile.js')).runEventCommand,
};

const drainCommand: Command = {
  summary: 'cordon and drain one node with kubectl drain semantics, showing progress',
  usage: 'drain NODE [--timeout 15m] [--reason TEXT] [connection] [settings]',
  options: { timeout: { type: 'string' }, reason: { type: 'string' }, ...CONNECTION },
  settings: true,
  help: `  --timeout DURATION    stop and report what is left after this (default: the drainTimeout setting)
  --reason TEXT         recorded in the cordon annotation (default: "manual drain")
${CONNECTION_HELP}`,
  load: async () => (await import('./run/drain.js')).runDrainCommand,
};

const decommissionCommand: Command = {
  summary: 'mark an instance for decommissioning (tag); with --now, cordon and drain its node at once',
  usage: 'decommission INSTANCE [--now] [--reason TEXT] [connection] [settings]',
  options: { now: { type: 'boolean' }, reason: { type: 'string' }, ...CONNECTION },
  settings: true,
  help: `  --now                 also cordon and drain the instance's node now (otherwise the next event or sweep does)
  --reason TEXT         the tag's value (default: "decommissioned by <user>")
${CONNECTION_HELP}`,
  load: async () => (await import('./run/drain.js')).runDecommissionCommand,
};

const invokeCommand: Command = {
  summary: 'invoke the deployed sweep function and print its report',
  usage: 'invoke --function NAME [--dry-run] [-o table|wide|json] [--region REGION] [--profile NAME]',
  options: {
    function: { type: 'string' },
    'dry-run': { type: 'boolean' },
    output: { type: 'string', short: 'o' },
    region: { type: 'string' },
    profile: { type: 'string' },
    'endpoint-url': { type: 'string' },
  },
  help: `  --function NAME       the sweep function (the stack output SweepFunctionName)
  --dry-run             ask the function to plan and report only (without it, the deployed dryRun setting applies)
  -o, --output FORMAT   table (default: long cells cut to fit), wide (every cell whole) or json
  --profile NAME        AWS profile of the shared config and credentials files (default: $AWS_PROFILE)`,
  load: async () => (await import('./run/invoke.js')).runInvokeCommand,
};

const rbacCommand: Command = {
  summary: 'print the Kubernetes RBAC manifest the reconciler needs (kubectl apply -f -)',
  usage: 'rbac',
  options: {},
  help: '',
  load: async () => (await import('./run/rbac.js')).runRbacCommand,
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
