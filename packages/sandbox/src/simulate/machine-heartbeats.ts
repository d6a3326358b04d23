// Machines stop heartbeating when they stop or go, and start again when they run: their Nodes' kubelets
// follow the machines' states.
import type { AwsEmulator } from '../aws/index.js';
import type { KubeEmulator } from '../kube/index.js';
import type { Scenario } from '../scenario/schema.js';

/**
 * Nodes keep their providerID (a kubelet re-registers the same one), so the seeded ones are the
 * index; of several Nodes claiming one machine, the first by name that exists now (the list order).
 */
export function followMachineStates(scenario: Scenario, aws: AwsEmulator, kube: KubeEmulator): void {
  const nodesByInstance = new Map<string, string[]>();
  for (const node of scenario.nodes) {
    const instanceId = /\/(i-[0-9a-f]+)$/.exec(node.providerID ?? '')?.[1];
    if (instanceId !== undefined)
      nodesByInstance.set(instanceId, [...(nodesByInstance.get(instanceId) ?? []), node.name].sort());
  }
  const claims = (instanceId: string) => (name: string | undefined) =>
    name !== undefined && kube.store.getNode(name)?.spec?.providerID?.endsWith(`/${instanceId}`) === true;
  // A machine launched mid-run (a group's replacement, node-health.ts) registers its Node under its private DNS name.
  const nodeOfInstance = (instanceId: string) =>
    nodesByInstance.get(instanceId)?.find(claims(instanceId)) ??
    [aws.state.instances.get(instanceId)?.privateDnsName].find(claims(instanceId));
  aws.state.onChange((change) => {
    if (change.kind !== 'instance-state') return;
    const node = nodeOfInstance(change.instanceId);
    if (node) kube.store.kubelets.setHeartbeating(node, change.to === 'running' || change.to === 'pending');
  });
}
