// The CLI's commands as `--help` and the flag parser know them: summary, usage, flags. What a command
// does is imported only when it runs (run/*.ts): `--help` loads nothing but this table, and the flags
// named after the settings come with the settings schema (settings-flags.ts) for the commands that take them.
import type { ParseArgsConfig } from 'node:util';
import type { CommandRun } from './command-run.js';
import { DESTRUCTIVE_ACTIONS } from './report/policy-diff.js';

export type Options = NonNullable<ParseArgsConfig['options']>;

export interface Command {
  readonly summary: string;
  readonly usage: string;
  /** Its own flags. */
  readonly options: Options;
  /** How many positional arguments it takes at most (more are refused, naming them). @default 0 */
  readonly positionals?: number;
  /**
   * Values a boolean flag takes written `--flag=VALUE` (kubectl style), beyond `true` and `false`,
   * which every boolean flag takes: e.g. `{ 'dry-run': { client: true } }`. @default - true and false only
   */
  readonly flagValues?: Readonly<Record<string, Readonly<Record<string, boolean>>>>;
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
  'output-event-bus': { type: 'string' },
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
                        whether a drain a Node records still runs, instead of leaving that Node be
  --output-event-bus NAME
                        the reconciler's bus (stack output OutputEventBusName): drains run here
                        report Node Drained / Drain Failed on it, as the deployed workflow does`;
/** The connection of the commands that call no AWS API: they read only the kubeconfig's flags. */
const KUBE_CONNECTION_HELP = `Connection:
  --kubeconfig PATH     kubeconfig file (default: $KUBECONFIG or ~/.kube/config)
  --context NAME        kubeconfig context (default: the current one)
  (--cluster, --region, --profile, --endpoint-url and --drain-state-machine are accepted, as by
  every command that connects, and unused: this command calls no AWS API)`;
const PROGRESS: Options = { progress: { type: 'string' } };
const PROGRESS_HELP = `  --progress MODE       how a drain's progress shows on stderr: auto (the default: one line updated in
                        place on a terminal, else a line each time it changes), tty, or plain`;
const SETTINGS_HELP = `Settings (same names as the deployed configuration, in kebab case), e.g.:
  --heartbeat-grace 2m  --not-found-grace 10m  --min-node-age 10m  --max-deletions 10
  --max-deletion-percent 20  --rebalance cordon|drain|ignore  --drain-timeout 15m ...`;

const simulateCommand: Command = {
  summary: 'run a scenario in the sandbox (emulated AWS and Kubernetes) and check its expectations',
  usage:
    'simulate FILE [--check] [-o table|wide|json] [--serve] [--timings] [--explain NODE] [--replay EVENTS [--every-sweep]] [--settings FILE] [--compare A B [--allow-destructive]]',
  options: {
    check: { type: 'boolean' },
    explain: { type: 'string' },
    output: { type: 'string', short: 'o' },
    serve: { type: 'boolean' },
    timings: { type: 'boolean' },
    replay: { type: 'string' },
    'every-sweep': { type: 'boolean' },
    settings: { type: 'string', multiple: true },
    compare: { type: 'string' },
    'allow-destructive': { type: 'boolean' },
  },
  help: `  --check               print only the expectation results
  -o, --output FORMAT   table (default: long cells cut to fit), wide (every cell whole) or json
  --serve               keep the emulators running afterwards: prints a kubeconfig and the AWS endpoint
  --timings             print how long loading, seeding and running took (stderr)
  --explain NODE        print that node's timeline instead of the report: each event about its machine (with
                        its id), each run's condition, actions and skipped actions for it, its drains (pods left,
                        blocking PDBs), the operator's steps on it
What-if (docs/what-if.md):
  --replay EVENTS       feed a recorded history instead of the scenario's steps: a JSON-lines file of
                        EventBridge events (the event a line, a CloudWatch Logs log event or
                        \`aws logs filter-log-events\` output, a CloudWatch Logs export to S3 line
                        \`TIMESTAMP {event}\`; .gz read as gzip), or a directory of them. Each event
                        goes on the bus at its own time, sweeps run at the deployed schedule's rate;
                        a scenario starting after the first event starts a minute before it. Events of
                        another account or region, or that no rule matches, are counted and ignored;
                        replay-name (an archive replay) is taken off: the event is fed as the original.
                        A line that is none of these exits 2 naming it. A scheduled sweep that
                        provably changes nothing (the world unchanged as the sweep reads it, and the
                        sweep's own classify and plan at the new clock planning nothing) is counted,
                        not run
  --every-sweep         with --replay: run every scheduled sweep through the deployed stack
  --settings FILE       run with the settings of a JSON or YAML file (docs/settings.md names) instead
                        of the scenario's: the file is a deployment's whole configuration
  --compare A B         run the same world and history under settings files A (baseline) and B
                        (candidate) and print the policy diff: per node, actions added or removed.
                        --settings A --settings B does the same. Exits 1 when B adds a destructive
                        action: ${[...DESTRUCTIVE_ACTIONS].join(', ')}
  --allow-destructive   with --compare: exit 0 even when B adds destructive actions`,
  positionals: 2,
  load: async () => (await import('./run/simulate.js')).runSimulate,
};

const sweepCommand: Command = {
  summary: 'sweep a real cluster with your kubeconfig and AWS credentials',
  usage: 'sweep [--dry-run] [-o table|wide|json] [--progress MODE] [connection] [settings]',
  options: { 'dry-run': { type: 'boolean' }, output: { type: 'string', short: 'o' }, ...PROGRESS, ...CONNECTION },
  settings: true,
  help: `  --dry-run             plan and report, change nothing
  -o, --output FORMAT   table (default: long cells cut to fit), wide (every cell whole) or json
${PROGRESS_HELP}
${CONNECTION_HELP}
${SETTINGS_HELP}`,
  load: async () => (await import('./run/reconcile.js')).runSweepCommand,
};

const eventCommand: Command = {
  summary: 'handle one EventBridge event (from a file or stdin), the same path as the Lambda',
  usage: 'event FILE|- [--dry-run] [-o table|wide|json] [--progress MODE] [connection] [settings]',
  options: { 'dry-run': { type: 'boolean' }, output: { type: 'string', short: 'o' }, ...PROGRESS, ...CONNECTION },
  settings: true,
  help: `  --dry-run             plan and report, change nothing
  -o, --output FORMAT   table (default: long cells cut to fit), wide (every cell whole) or json
${PROGRESS_HELP}
A malformed event exits 2 naming the field, before anything is contacted. A drain the event starts
runs here to its end; the report shows how it ended, and one that did not drain exits 1.
${CONNECTION_HELP}`,
  positionals: 1,
  load: async () => (await import('./run/reconcile.js')).runEventCommand,
};

const drainCommand: Command = {
  summary: 'cordon and drain one node with kubectl drain semantics, showing progress',
  usage:
    'drain NODE [--dry-run] [--pod-selector SELECTOR] [--grace-period SECONDS] [--timeout 15m] [--reason TEXT] [--progress MODE] [connection] [settings]',
  options: {
    'dry-run': { type: 'boolean' },
    'pod-selector': { type: 'string' },
    'grace-period': { type: 'string' },
    timeout: { type: 'string' },
    reason: { type: 'string' },
    ...PROGRESS,
    'ignore-daemonsets': { type: 'boolean' },
    'delete-emptydir-data': { type: 'boolean' },
    force: { type: 'boolean' },
    'disable-eviction': { type: 'boolean' },
    ...CONNECTION,
  },
  flagValues: { 'dry-run': { client: true, none: false } },
  positionals: 1,
  settings: true,
  help: `  --dry-run             print what a drain would do with each pod (evict, skip, wait, refuse) and why,
                        and change nothing: no cordon, no eviction, no record. Exits 1 when a drain
                        would leave pods refused. kubectl's --dry-run=client is accepted
  --pod-selector SELECTOR
                        drain only the pods this label selector selects (app=web,tier!=db, as kubectl);
                        the node is cordoned all the same
  --grace-period SECONDS
                        the grace period each eviction gives its pod (DeleteOptions.gracePeriodSeconds);
                        -1 (the default): the pod's own. Like a pod's own, it is shortened to end
                        before the timeout. (--grace-period pod|fit-deadline is the gracePeriod setting:
                        pod never shortens a pod's own)
  --timeout DURATION    stop and report what is left after this (default: the drainTimeout setting)
  --reason TEXT         recorded in the cordon annotation (default: "manual drain")
${PROGRESS_HELP}
kubectl drain's flags, accepted where they mean something here (this drain's defaults are
kubectl drain --ignore-daemonsets --delete-emptydir-data --force: the reconciler drains unattended):
  --ignore-daemonsets   changes nothing: DaemonSet pods are always left in place (their DaemonSet would
                        recreate them at once). =false is refused: this drain never stops for them
  --delete-emptydir-data
                        evict pods with emptyDir volumes, whose data is lost: the setting
                        --delete-empty-dir-data true (the default); =false leaves such pods, refused
  --force               evict pods no controller manages, and pods of a deleted DaemonSet: the setting
                        --evict-unreplicated true (the default); =false leaves such pods, refused
  --disable-eviction    refused: this drain only evicts (policy/v1 Eviction), so PodDisruptionBudgets
                        always hold
Exits 0 when the node drained; 1 when it did not (pods left, the node replaced, gone, or uncordoned
by someone else), or does not exist.
${KUBE_CONNECTION_HELP}`,
  load: async () => (await import('./run/drain.js')).runDrainCommand,
};

const uncordonCommand: Command = {
  summary: 'make a cordoned node schedulable again, whoever cordoned it, saying whose cordon it was',
  usage: 'uncordon NODE [connection]',
  options: { ...CONNECTION },
  positionals: 1,
  help: `Reverses the reconciler's own cordon (made for a signal), an operator's made through this CLI
(drain, decommission --now), or anyone else's (kubectl cordon), and says which it was. With the
reconciler's cordon go its marks (annotations), its taints (ec2-node-reconciler/…) and the
load-balancer exclusion label it added. A drain the node records stays recorded: a drain still
running stops at its next check (cancelled by the uncordon), and no sweep drains the node again for
the same removal. The write is guarded by the node's uid and resourceVersion.
Exits 0 when the node is schedulable (or already was); 1 when there is no such node.
${KUBE_CONNECTION_HELP}`,
  load: async () => (await import('./run/uncordon.js')).runUncordonCommand,
};

const decommissionCommand: Command = {
  summary: 'tag an instance for decommissioning (the next event or sweep drains it); --now drains at once; --undo',
  usage: 'decommission INSTANCE|NODE [--now | --undo] [--reason TEXT] [--progress MODE] [connection] [settings]',
  options: {
    now: { type: 'boolean' },
    undo: { type: 'boolean' },
    reason: { type: 'string' },
    ...PROGRESS,
    ...CONNECTION,
  },
  positionals: 1,
  settings: true,
  help: `  INSTANCE|NODE         an instance id (i-0123456789abcdef0), or a node's name (its instance is found
                        from its providerID)
  --now                 also cordon and drain the instance's node now (otherwise the next event or sweep does)
  --undo                remove the tag (only with the value it has: one set again since stays); changes
                        nothing when there is none. A cordon or drain already made stays: uncordon does that
  --reason TEXT         the tag's value (default: "decommissioned by <user>")
${PROGRESS_HELP}
Exits 1 when there is no such instance or node.
${CONNECTION_HELP}`,
  load: async () => (await import('./run/decommission.js')).runDecommissionCommand,
};

const drainsCommand: Command = {
  summary: 'list running and recent drains: node, cause, pods left and the PDBs blocking them',
  usage: 'drains [-o table|wide|json] [--since 24h] [connection]',
  options: { output: { type: 'string', short: 'o' }, since: { type: 'string' }, ...CONNECTION },
  help: `  -o, --output FORMAT   table (default), wide (every column) or json
  --since DURATION      also list the workflow's drains started this long ago at most (default: 24h);
                        running ones are always listed
Sources: the drain records on the Nodes (which execution drains them, its deadline, the lifecycle
action) and, with --drain-state-machine, Step Functions (ListExecutions, DescribeExecution, and the
execution history for the last drain step: pods left, blocking PodDisruptionBudgets). Without it, a
drain of the deployed workflow is listed as unknown, unless its Node says how it ended. Drains run
by a CLI process show as (local). Exits 3 when a question failed (its rows say unknown).
IAM: states:ListExecutions on the state machine; states:DescribeExecution and
states:GetExecutionHistory on its executions.
Connection:
  --kubeconfig PATH     kubeconfig file (default: $KUBECONFIG or ~/.kube/config)
  --context NAME        kubeconfig context (default: the current one)
  --drain-state-machine ARN
                        the deployed drain workflow (stack output DrainStateMachineArn), asked in
                        its own region (a --region that differs is refused)
  --profile NAME        AWS profile of the shared config and credentials files (default: $AWS_PROFILE)
  --endpoint-url URL    one AWS endpoint for every service (e.g. a served sandbox)
  (--cluster and --output-event-bus are accepted, as by every command that connects, and unused)`,
  load: async () => (await import('./run/drains.js')).runDrainsCommand,
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

const doctorCommand: Command = {
  summary: 'check a deployment: access, RBAC, IAM, rules, queues, schedule, functions, the last sweep, the endpoint',
  usage: 'doctor [--stack NAME] [-o table|json] [connection]',
  options: { stack: { type: 'string' }, output: { type: 'string', short: 'o' }, ...CONNECTION },
  help: `  --stack NAME          the deployed stack (default: ec2-node-reconciler-<cluster>, as cdk deploy names it)
  -o, --output FORMAT   table (default: a line per check, ✓ passed, ✗ failed with the fix, ? not checked) or json
Checks, each against the cluster of the kubeconfig context and the stack's outputs:
  stack                 deployed and settled, with the cluster's outputs
  authentication mode   and each function role's access entry (or aws-auth line) in group ec2-node-reconciler
  rbac                  every verb of the manifest, as the identity each role is taken for (SelfSubjectAccessReview,
                        impersonating it: needs the impersonate verb on users and groups)
  iam                   each action each function calls, on what it calls it on (iam:SimulatePrincipalPolicy)
  function              Active, with the stack's role
  endpoint              reachable from where the functions run (public access CIDRs, or the VPC)
  rules                 one enabled rule per signal, targeting the queue
  queue, dead-letter queue, event source mapping, schedule
  last sweep            recent enough for the schedule, no errors, nothing incomplete, breaker not tripped
Exits 0 when every check passed; 1 when one failed; 3 when one could not be made (an API refused doctor), or
doctor cannot run (no kubeconfig, unknown context, no AWS credentials, API server unreachable).
${CONNECTION_HELP}`,
  load: async () => (await import('./run/doctor.js')).runDoctorCommand,
};

const snapshotCommand: Command = {
  summary: 'write the live cluster and account as a scenario file the sandbox runs (read-only)',
  usage: 'snapshot -o FILE [--anonymize [--history EVENTS --history-out FILE]] [connection]',
  options: {
    output: { type: 'string', short: 'o' },
    anonymize: { type: 'boolean' },
    history: { type: 'string' },
    'history-out': { type: 'string' },
    ...CONNECTION,
  },
  help: `  -o, --output FILE     the scenario file to write (- for stdout); written whole or not at all
  --anonymize           rename the cluster, the account, instance ids, DNS names, Nodes, groups,
                        namespaces, pods, owners, PDBs, label and tag values, consistently (docs/snapshot.md)
  --history EVENTS      with --anonymize: a history for simulate --replay (a file or directory, docs/what-if.md),
  --history-out FILE    written to FILE renamed with the snapshot's names, one event a line, so the two replay together
Reads, never writes: Nodes, Leases (kube-node-lease), pods, DaemonSets and PodDisruptionBudgets (get/list)
with the kubeconfig; DescribeInstances, DescribeInstanceStatus, DescribeAutoScalingGroups,
DescribeLifecycleHooks and sts:GetCallerIdentity with the AWS credentials. Pods are reduced to what a
drain reads (controller, labels, mirror, emptyDir, phase, grace period, Node): no spec, env or image.
What the format cannot say (a PDB selecting with matchExpressions, a second terminate hook) is left out
with a warning on stderr. Then: ec2-node-reconciler simulate FILE.
Exits 0 when the file is written; 3 when a read failed (no file is left behind).
${CONNECTION_HELP}`,
  load: async () => (await import('./run/snapshot.js')).runSnapshotCommand,
};

const explainCommand: Command = {
  summary: "one node's story: its signals, condition and why, planned and skipped actions, drains and Events",
  usage: 'explain NODE [-o table|wide|json] [connection] [settings]',
  options: { output: { type: 'string', short: 'o' }, ...CONNECTION },
  positionals: 1,
  settings: true,
  help: `  -o, --output FORMAT   table (default: long texts cut to fit), wide (every text whole) or json
What the cluster and the account show now, oldest first: the reconciler's Events on the Node (what earlier
runs found and did), the drain its record names (the signal's event id, the lifecycle action, the deadline;
with --drain-state-machine, the pods the last drain step left and the PodDisruptionBudgets blocking them),
and a dry-run sweep's verdict on it: its condition and why, each action a sweep would take and why, each
action it would skip and why. Reads only: the sweep is a dry run, which tells no Event. In a simulation:
simulate FILE --explain NODE (every event with its id, every run's verdict, every drain).
Exits 0 when the node was explained; 1 when there is no such node.
${CONNECTION_HELP}
${SETTINGS_HELP}`,
  load: async () => (await import('./run/explain.js')).runExplainCommand,
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
  uncordon: uncordonCommand,
  decommission: decommissionCommand,
  drains: drainsCommand,
  snapshot: snapshotCommand,
  explain: explainCommand,
  invoke: invokeCommand,
  doctor: doctorCommand,
  rbac: rbacCommand,
};
