// The emulators in a process of their own, as the benchmarks need them: a generated scenario
// seeded into the sandbox (Kubernetes API with the shipped RBAC and EKS token authentication, AWS
// endpoint), its clock following the wall clock so Leases stay fresh for handlers that run on real
// time. The bench process talks to it over stdin/stdout, one JSON object a line.
//
// Parent side: `startWorld(options)`; child side: this file run with WORLD_PROCESS=1.
import { EC2Client, paginateDescribeInstances, type EC2ClientConfig } from '@aws-sdk/client-ec2';
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Session } from 'node:inspector';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { scaleScenarioText } from '../../../scripts/make-scale-scenario.js';
import { driveInRealTime } from '@ec2-node-reconciler/sandbox/kube/index.js';
import { parseScenario } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { ADMIN_TOKEN, startSandbox } from '@ec2-node-reconciler/sandbox/simulate/sandbox.js';

const CHILD_FLAG = 'WORLD_PROCESS';

export interface WorldOptions {
  readonly nodes: number;
  /** @default true: every machine in sync, so repeated sweeps see the same world */
  readonly healthy?: boolean;
  /** Pods on each Node, with a PDB per workload (scaleScenarioText's podsPerNode). @default 0 */
  readonly podsPerNode?: number;
  /** Extra node flags for the emulator process (e.g. --cpu-prof to see where its time goes). */
  readonly nodeArgs?: readonly string[];
  /**
   * Renders every instance's DescribeInstances answer once before the run, as an earlier sweep
   * would have (the emulator keeps each rendered until the instance changes): EC2 answers from
   * machines of its own, and the first rendering of 100k instances (~7 s of CPU) would otherwise
   * be taken from the handler's cores during the run. @default false
   */
  readonly warmInstanceAnswers?: boolean;
}

/** What a handler needs to reach the world (the functions' environment) and how it was built. */
export interface WorldInfo {
  readonly env: Readonly<Record<string, string>>;
  readonly kubeUrl: string;
  readonly awsEndpoint: string;
  readonly region: string;
  readonly accountId: string;
  readonly cluster: string;
  readonly parseSeconds: number;
  readonly seedSeconds: number;
  readonly rssAfterSeedMiB: number;
  /** How an operator reaches the world with the CLI: a cluster-admin kubeconfig and the sandbox's administrator credentials. */
  readonly operator: { readonly kubeconfig: string; readonly accessKeyId: string; readonly secretAccessKey: string };
}

/** A request as the emulators answered it, stamped with the wall clock when the answer was complete. */
export interface WallLogEntry {
  readonly wallMs: number;
  readonly what: string;
}

type Command =
  | { readonly cmd: 'latency'; readonly ms: number }
  | { readonly cmd: 'counts' }
  | { readonly cmd: 'cpu' }
  | { readonly cmd: 'profile-start' }
  | { readonly cmd: 'profile-stop'; readonly file: string }
  | { readonly cmd: 'log' }
  | { readonly cmd: 'clear-log' }
  | { readonly cmd: 'set-instance-state'; readonly id: string; readonly state: 'running' | 'stopped' }
  | { readonly cmd: 'uncordon'; readonly node: string };

export interface World {
  readonly info: WorldInfo;
  /** Requests answered by both emulators so far, by kind (`ec2 DescribeInstances`, `kube GET nodes`). */
  counts(): Promise<Record<string, number>>;
  /** CPU milliseconds the emulator process has used so far. */
  cpuMs(): Promise<number>;
  /** Adds `ms` of latency to every answer of both emulators (0: none). */
  latency(ms: number): Promise<void>;
  /** Requests answered since the last clear, with wall-clock times. */
  log(): Promise<WallLogEntry[]>;
  clearLog(): Promise<void>;
  send(command: Command): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * The emulator process's V8 flags. It stands for EKS and AWS, which answer from machines of their
 * own; here it shares the cores with the handler it serves, so its own costs must stay small.
 * `--external-memory-accounted-in-global-limit`: the emulators write ~2 GB of answer buffers per
 * 100k sweep, and by default V8 starts a full mark-compact of their ~800 MB heap for every 64 MB of
 * such memory. That was ~75% of the emulator's CPU (32 s of CPU per 100k sweep, twice the
 * handler's); counted in the heap's global limit instead, it is ~6–10 s.
 */
const WORLD_NODE_FLAGS = ['--max-old-space-size=6144', '--external-memory-accounted-in-global-limit'];

/** Starts the emulator process and waits until the scenario is seeded. */
export async function startWorld(options: WorldOptions): Promise<World> {
  const child: ChildProcess = spawn(
    process.execPath,
    [...WORLD_NODE_FLAGS, ...(options.nodeArgs ?? []), '--import', 'tsx', fileURLToPath(import.meta.url)],
    {
      env: { ...process.env, [CHILD_FLAG]: JSON.stringify(options) },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  if (!child.stdout || !child.stdin) throw new Error('world process: no stdio');
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<unknown> => {
    const line = await lines.next();
    if (line.done === true) throw new Error(`world process ended early with ${String(await exited)}`);
    return JSON.parse(line.value) as unknown;
  };
  const info = (await next()) as WorldInfo;
  const stdin = child.stdin;
  let queue = Promise.resolve<unknown>(undefined);
  const send = (command: Command): Promise<unknown> => {
    const answer = queue.then(async () => {
      stdin.write(`${JSON.stringify(command)}\n`);
      return next();
    });
    queue = answer.catch(() => undefined);
    return answer;
  };
  return {
    info,
    send,
    counts: async () => (await send({ cmd: 'counts' })) as Record<string, number>,
    latency: async (ms) => void (await send({ cmd: 'latency', ms })),
    cpuMs: async () => Number(await send({ cmd: 'cpu' })),
    log: async () => (await send({ cmd: 'log' })) as WallLogEntry[],
    clearLog: async () => void (await send({ cmd: 'clear-log' })),
    close: async () => {
      stdin.end();
      await exited;
    },
  };
}

/** Every instance, listed once in pages of 1000 (what warmInstanceAnswers asks for). */
async function describeEveryInstance(config: EC2ClientConfig): Promise<void> {
  const ec2 = new EC2Client(config);
  try {
    for await (const page of paginateDescribeInstances({ client: ec2, pageSize: 1000 }, {}))
      void page.Reservations?.length;
  } finally {
    ec2.destroy();
  }
}

async function serve(options: WorldOptions): Promise<void> {
  const parseStart = performance.now();
  const scenario = parseScenario(
    scaleScenarioText({
      nodes: options.nodes,
      healthy: options.healthy ?? true,
      ...(options.podsPerNode !== undefined ? { podsPerNode: options.podsPerNode } : {}),
    }),
    `scale-${options.nodes}.json`,
  );
  const parseSeconds = (performance.now() - parseStart) / 1000;
  const seedStart = performance.now();
  const sandbox = await startSandbox(scenario);
  const seedSeconds = (performance.now() - seedStart) / 1000;
  driveInRealTime(sandbox.clock);
  if (options.warmInstanceAnswers === true) await describeEveryInstance(sandbox.aws.clientConfig());
  // The sweep function as the stack deploys it: its environment (cluster, drain state machine, output
  // bus) and its role's session, whose policies the emulator enforces on every call.
  const deployed = sandbox.lambda.host(sandbox.functions.sweep)?.fn.environment;
  if (deployed === undefined)
    throw new Error(`world process: the stack has no sweep function ${sandbox.functions.sweep}`);
  const { region, accountId, name: cluster } = scenario.cluster;
  const kubeconfig = await sandbox.kube.writeKubeconfig(join(tmpdir(), `world-${process.pid}.kubeconfig`), {
    token: ADMIN_TOKEN,
  });
  const { credentials } = sandbox.aws.clientConfig();

  const wallLog: WallLogEntry[] = [];
  const kubeAdd = sandbox.kube.requestLog.add.bind(sandbox.kube.requestLog);
  sandbox.kube.requestLog.add = (entry) => {
    wallLog.push({
      wallMs: Date.now(),
      what: `kube ${entry.method} ${entry.resource}${entry.subresource ? `/${entry.subresource}` : ''}${entry.name ? ` ${entry.name}` : ''}`,
    });
    kubeAdd(entry);
  };
  const awsAdd = sandbox.aws.requestLog.add.bind(sandbox.aws.requestLog);
  sandbox.aws.requestLog.add = (entry) => {
    wallLog.push({ wallMs: Date.now(), what: `${entry.service} ${entry.operation}` });
    return awsAdd(entry);
  };
  const counts = (): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const { what } of wallLog) {
      const kind = what
        .split(' ')
        .slice(0, what.startsWith('kube') ? 3 : 2)
        .join(' ');
      out[kind] = (out[kind] ?? 0) + 1;
    }
    return out;
  };

  const info: WorldInfo = {
    env: {
      ...deployed,
      AWS_REGION: region,
      AWS_ENDPOINT_URL: sandbox.aws.endpoint,
      CLUSTER_NAME: cluster,
      RECONCILER_SETTINGS: JSON.stringify({ heartbeatGrace: '2m' }),
      POWERTOOLS_METRICS_DISABLED: 'true',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
      POWERTOOLS_TRACE_ENABLED: 'false',
    },
    kubeUrl: sandbox.kube.url,
    awsEndpoint: sandbox.aws.endpoint,
    region,
    accountId,
    cluster,
    parseSeconds,
    seedSeconds,
    rssAfterSeedMiB: Math.round(process.memoryUsage().rss / 1_048_576),
    operator: { kubeconfig, accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey },
  };
  process.stdout.write(`${JSON.stringify(info)}\n`);

  // Where the emulators' time goes during a run (not their seeding): see profile-start/stop.
  const profiler = new Session();
  const post = (method: string): Promise<unknown> =>
    new Promise((resolve, reject) =>
      profiler.post(method, (error, result) => (error ? reject(error) : resolve(result))),
    );

  for await (const line of createInterface({ input: process.stdin })) {
    const command = JSON.parse(line) as Command;
    let answer: unknown = null;
    switch (command.cmd) {
      case 'latency':
        sandbox.kube.faults.latencyMs = command.ms;
        sandbox.aws.faults.clear();
        if (command.ms > 0) sandbox.aws.faults.latency({ ms: command.ms });
        break;
      case 'counts':
        answer = counts();
        break;
      case 'profile-start':
        profiler.connect();
        await post('Profiler.enable');
        await post('Profiler.start');
        break;
      case 'profile-stop': {
        const { profile } = (await post('Profiler.stop')) as { profile: unknown };
        writeFileSync(command.file, JSON.stringify(profile));
        profiler.disconnect();
        break;
      }
      case 'cpu': {
        const used = process.cpuUsage();
        answer = (used.user + used.system) / 1000;
        break;
      }
      case 'log':
        answer = wallLog;
        break;
      case 'clear-log':
        wallLog.length = 0;
        break;
      case 'set-instance-state':
        sandbox.aws.state.setInstanceState(command.id, command.state);
        break;
      case 'uncordon': {
        const store = sandbox.kube.store;
        store.patch(store.resource('nodes'), undefined, command.node, 'application/strategic-merge-patch+json', {
          spec: { unschedulable: null },
        });
        break;
      }
    }
    process.stdout.write(`${JSON.stringify(answer)}\n`);
  }
  await sandbox.close();
  rmSync(kubeconfig, { force: true });
}

if (process.env[CHILD_FLAG] !== undefined) await serve(JSON.parse(process.env[CHILD_FLAG]) as WorldOptions);
