// Both worlds as the scenario describes them at its start: the cluster in EKS, the stack's buses, the
// machines, the Nodes, PodDisruptionBudgets and pods, and the faults to come.
import type { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import type { AwsEmulator } from '../aws/index.js';
import type { Deployment } from '../deployment/template.js';
import type { KubeEmulator, NodeObject } from '../kube/index.js';
import { hookDefinitions } from '../scenario/hooks.js';
import type { Scenario } from '../scenario/schema.js';
import { WorkloadControllers } from './controllers.js';
import { injectFaults } from './faults.js';
import { instanceSeed, nodeSeed, pdbSeed, podSeed } from './seed.js';

/** Seeds both worlds; returns the controllers that replace evicted pods as time passes, as a real cluster's do. */
export function seedWorld(world: {
  readonly scenario: Scenario;
  readonly deployment: Deployment;
  readonly clock: VirtualClock;
  readonly start: number;
  readonly aws: AwsEmulator;
  readonly kube: KubeEmulator;
}): WorkloadControllers {
  const { scenario, deployment, clock, start, aws, kube } = world;
  aws.state.seedCluster({
    name: scenario.cluster.name,
    endpoint: kube.url,
    ...(kube.caCert ? { certificateAuthorityData: Buffer.from(kube.caCert).toString('base64') } : {}),
  });
  for (const bus of deployment.eventBuses) aws.state.createEventBus(bus.name);
  const { hooks } = hookDefinitions(scenario.instances);
  for (const instance of scenario.instances) aws.state.seedInstance(instanceSeed(instance, hooks));
  for (const node of scenario.nodes) kube.store.seedNode(nodeSeed(scenario, node, start));
  for (const pdb of scenario.pdbs) kube.store.seedPdb(pdbSeed(pdb));
  for (const pod of scenario.pods) kube.store.seedPod(podSeed(pod, start));
  injectFaults(scenario.faults, { clock, start, aws, kube });
  return new WorkloadControllers(kube.store);
}

/**
 * The Nodes the scenario's expectations name, as seeded. Only those are ever compared with their
 * seeded selves: copying all of them would cost a 100,000-node scenario a second copy of its largest objects.
 */
export function seededNodesOf(scenario: Scenario, kube: KubeEmulator): ReadonlyMap<string, NodeObject> {
  const seededNodes = new Map<string, NodeObject>();
  for (const name of Object.keys(scenario.expect?.nodes ?? {})) {
    const node = kube.store.getNode(name);
    if (node) seededNodes.set(name, structuredClone(node));
  }
  return seededNodes;
}
