// What the sandbox's machines and kubelets do about node health, for repair (docs/design.md §1b): a kubelet or
// the node monitoring agent posts a condition (a scenario's `condition` step), and a machine Auto
// Scaling launched to replace an Unhealthy one joins the cluster once it runs. Kept apart from
// sandbox.ts and run.ts, which only call in here (with the parts of the sandbox they need).
import type { AwsEmulator } from '../aws/index.js';
import type { KubeEmulator } from '../kube/index.js';
import type { ScenarioStep } from '../scenario/schema.js';
import type { VirtualClock } from '@ec2-node-reconciler/model/clock.js';

export type PostedCondition = Extract<ScenarioStep, { condition: unknown }>['condition'];

/**
 * The node's kubelet or monitoring agent posts a condition now (through /status, as they do): a status
 * that changes takes the moment as its lastTransitionTime. Ready True means the kubelet is back (it
 * heartbeats again); Ready Unknown means it went quiet.
 */
export function postCondition(
  sandbox: { readonly kube: KubeEmulator; readonly clock: VirtualClock },
  posted: PostedCondition,
): void {
  const store = sandbox.kube.store;
  const node = store.getNode(posted.node);
  if (node === undefined) throw new Error(`condition step: node ${posted.node} does not exist (any more)`);
  if (posted.type === 'Ready' && posted.status !== 'False')
    store.kubelets.setHeartbeating(posted.node, posted.status === 'True');
  const now = new Date(sandbox.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const conditions = [...(node.status?.conditions ?? [])];
  const index = conditions.findIndex((c) => c.type === posted.type);
  const current = index >= 0 ? conditions[index] : undefined;
  const changed = current?.status !== posted.status;
  const next = {
    ...(current ?? { type: posted.type }),
    status: posted.status,
    lastHeartbeatTime: now,
    ...(changed ? { lastTransitionTime: now } : {}),
  };
  if (index >= 0) conditions[index] = next;
  else conditions.push(next);
  const { resourceVersion: _read, ...metadata } = node.metadata;
  store.update(
    store.resource('nodes'),
    undefined,
    posted.node,
    { ...node, metadata, status: { ...node.status, conditions } },
    { subresource: 'status' },
  );
}

/**
 * A machine Auto Scaling launched to replace an Unhealthy one joins the cluster once it runs (its
 * kubelet registers its Node under its private DNS name), as a node group's launch template makes it do.
 */
export function joinReplacements(aws: AwsEmulator, kube: KubeEmulator): void {
  const replacements = new Set<string>();
  aws.state.onChange((change) => {
    if (change.kind === 'instance-launched') replacements.add(change.instanceId);
    if (change.kind !== 'instance-state' || change.to !== 'running' || !replacements.has(change.instanceId)) return;
    replacements.delete(change.instanceId);
    // The record as it is (not instanceView, which settles: this runs inside a settle's change).
    const instance = aws.state.instances.get(change.instanceId);
    if (instance === undefined) return;
    if (kube.store.listNodes().some((n) => n.spec?.providerID?.endsWith(`/${change.instanceId}`))) return;
    kube.store.seedNode({
      name: instance.privateDnsName,
      instanceId: change.instanceId,
      zone: instance.zone,
      createdAt: change.at,
      lastHeartbeat: change.at,
      readyHeartbeat: change.at,
      heartbeating: true,
    });
  });
}
