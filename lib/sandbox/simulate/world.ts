// The sandbox: both emulators on one virtual clock, seeded from a scenario, and the reconciler
// wired exactly as the Lambdas wire it (DescribeCluster → EKS token → Kubernetes API with the
// shipped RBAC), with drains run by the local stand-in for the workflow.
import { rbacManifests, RECONCILER_GROUP } from '../../../infra/rbac.js';
import { AutoScalingAdapter } from '../../aws/autoscaling.js';
import { OutputEventPublisher } from '../../aws/output-events.js';
import { sleepOn } from '../../drain/driver.js';
import { kubeDrainApi } from '../../drain/kube-api.js';
import { KubeClient } from '../../kube/client.js';
import { drainSettings } from '../../drain/settings.js';
import type { DrainDeps } from '../../drain/step.js';
import { placeOf } from '../../lambda/place.js';
import { WarmRuntime } from '../../lambda/runtime.js';
import { sweepSettings } from '../../lambda/sweep-payload.js';
import { VirtualClock } from '../../model/clock.js';
import type { ReconcilerDeps } from '../../pipeline/deps.js';
import { runSweep } from '../../pipeline/run.js';
import { DEFAULT_SETTINGS, type Settings } from '../../settings.js';
import { startAwsEmulator, type AwsEmulator } from '../aws/index.js';
import { startKubeEmulator, type KubeEmulator, type NodeObject } from '../kube/index.js';
import type { Scenario } from '../scenario/schema.js';
import { WorkloadControllers } from './controllers.js';
import { injectFaults } from './faults.js';
import { LocalDrains, type DrainRun } from './local-drains.js';
import { SignalQueue } from './signal-queue.js';
import { instanceSeed, nodeSeed, pdbSeed, podSeed } from './seed.js';

export const OUTPUT_BUS = 'ec2-node-reconciler';
/** The sweep function as the sandbox deploys it to the Lambda emulator (`ec2-node-reconciler invoke`). */
export const SWEEP_FUNCTION = 'ec2-node-reconciler-sweep';
/** A cluster-admin token for people looking at a served sandbox with kubectl. */
export const ADMIN_TOKEN = 'sandbox-admin';

export interface Sandbox {
  readonly scenario: Scenario;
  readonly clock: VirtualClock;
  readonly start: number;
  readonly kube: KubeEmulator;
  readonly aws: AwsEmulator;
  readonly settings: Settings;
  readonly drains: LocalDrains;
  /** The signal queue between the event rules and the events function. */
  readonly queue: SignalQueue;
  /** What a drain run by hand (the CLI's `drain`) works with: the emulators, the virtual clock, the workload controllers. */
  drainDeps(): Promise<DrainDeps>;
  /** The nodes the scenario's expectations name, as seeded (after the emulator's defaults), to tell `untouched` from changed. */
  readonly seededNodes: ReadonlyMap<string, NodeObject>;
  /** Deps for one reconcile run, built the Lambda way (a warm runtime across runs). */
  deps(settings?: Settings): Promise<ReconcilerDeps>;
  close(): Promise<void>;
}

export interface SandboxOptions {
  readonly onDrainFinished?: (run: DrainRun) => void;
  /**
   * Serve the Kubernetes API over TLS (a self-signed CA, handed out by DescribeCluster as EKS
   * does): kubectl sends bearer tokens only over https, so a served sandbox needs it.
   */
  readonly tls?: boolean;
}

export async function startSandbox(scenario: Scenario, options: SandboxOptions = {}): Promise<Sandbox> {
  // Whole seconds, as Kubernetes timestamps are: ages stay exact after a round trip.
  const start = Math.floor((scenario.start ? Date.parse(scenario.start) : Date.now()) / 1000) * 1000;
  const clock = new VirtualClock(start);
  const { name: clusterName, region, accountId } = scenario.cluster;
  // The loader already parsed them (durations are milliseconds now): only the defaults are missing.
  const settings: Settings = { ...DEFAULT_SETTINGS, ...scenario.settings };

  const aws = await startAwsEmulator({ clock, region, accountId, idSeed: scenario.name });
  const kube = await startKubeEmulator({
    clock,
    tls: options.tls === true,
    auth: {
      tokens: { [ADMIN_TOKEN]: { user: 'sandbox-admin', groups: ['system:masters'] } },
      // Like aws-iam-authenticator: the token is a presigned STS call, validated by STS.
      authenticate: async (token) => ((await aws.verifyEksToken(token, clusterName)).ok ? { name: 'ec2-node-reconciler', groups: [RECONCILER_GROUP] } : null),
    },
    rbac: rbacManifests(),
  });

  try {
    aws.state.seedCluster({ name: clusterName, endpoint: kube.url, ...(kube.caCert ? { certificateAuthorityData: Buffer.from(kube.caCert).toString('base64') } : {}) });
    aws.state.createEventBus(OUTPUT_BUS);
    for (const instance of scenario.instances) aws.state.seedInstance(instanceSeed(instance));
    for (const node of scenario.nodes) {
      kube.store.seedNode(nodeSeed(scenario, node, start));
    }
    for (const pdb of scenario.pdbs) kube.store.seedPdb(pdbSeed(pdb));
    for (const pod of scenario.pods) kube.store.seedPod(podSeed(pod, start));
    injectFaults(scenario.faults, { clock, start, aws, kube });
  } catch (error) {
    await Promise.all([kube.close(), aws.close()]);
    throw error;
  }
  // Only the Nodes an expectation names are ever compared with their seeded selves: copying all of
  // them would cost a 100,000-node scenario a second copy of its largest objects.
  const seededNodes = new Map<string, NodeObject>();
  for (const name of Object.keys(scenario.expect?.nodes ?? {})) {
    const node = kube.store.getNode(name);
    if (node) seededNodes.set(name, structuredClone(node));
  }

  // Machines stop heartbeating when they stop or go, and start again when they run. Nodes keep
  // their providerID (a kubelet re-registers the same one), so the seeded ones are the index; of
  // several Nodes claiming one machine, the first by name that exists now (the list order).
  const nodesByInstance = new Map<string, string[]>();
  for (const node of scenario.nodes) {
    const instanceId = /\/(i-[0-9a-f]+)$/.exec(node.providerID ?? '')?.[1];
    if (instanceId !== undefined) nodesByInstance.set(instanceId, [...(nodesByInstance.get(instanceId) ?? []), node.name].sort());
  }
  const nodeOfInstance = (instanceId: string) =>
    nodesByInstance.get(instanceId)?.find((name) => kube.store.getNode(name)?.spec?.providerID?.endsWith(`/${instanceId}`) === true);
  aws.state.onChange((change) => {
    if (change.kind !== 'instance-state') return;
    const node = nodeOfInstance(change.instanceId);
    if (node) kube.store.kubelets.setHeartbeating(node, change.to === 'running' || change.to === 'pending');
  });

  const runtime = new WarmRuntime({ clusterName, region, settings, outputEventBusName: OUTPUT_BUS }, clock, { endpoint: aws.endpoint, credentials: aws.clientConfig().credentials });
  const autoScaling = new AutoScalingAdapter(runtime.aws.autoScaling);
  // Evicted pods are replaced while a drain waits, as a real cluster's controllers do.
  const controllers = new WorkloadControllers(kube.store);
  const sleep = sleepOn(clock);
  const sleepThenReplace = async (ms: number) => {
    await sleep(ms);
    controllers.reconcile();
  };
  const drainDeps = async (): Promise<DrainDeps> => ({
    api: kubeDrainApi(new KubeClient(await runtime.kubeConnection(), { sleep })),
    clock,
    settings: drainSettings(settings),
    sleep: sleepThenReplace,
  });
  const drains = new LocalDrains({
    clock,
    drainDeps,
    autoScaling,
    output: new OutputEventPublisher(runtime.aws.eventBridge, OUTPUT_BUS),
    ...(options.onDrainFinished ? { onFinish: options.onDrainFinished } : {}),
    beforeStep: () => controllers.reconcile(),
  });

  // What functions/sweep.ts does with a manual invocation's payload, reached through Lambda Invoke.
  aws.state.functions.register(SWEEP_FUNCTION, async (payload, context) =>
    runSweep(await runtime.reconcilerDeps(sweepSettings(settings, payload), { drains: () => drains }), placeOf(context, region)),
  );

  return {
    scenario,
    clock,
    start,
    kube,
    aws,
    settings,
    drains,
    queue: new SignalQueue(),
    drainDeps,
    seededNodes,
    deps: (override) => runtime.reconcilerDeps(override ?? settings, { drains: () => drains }),
    close: async () => {
      await Promise.all([kube.close(), aws.close()]);
    },
  };
}
