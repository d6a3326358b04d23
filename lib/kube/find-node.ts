import type { InstanceId } from '../model/instance-id.js';
import type { NodeView } from '../model/observation.js';
import { ec2InstanceIdOf } from '../model/provider-id.js';
import type { NodeClient } from './nodes.js';

/** Whether this Node is the one running on this instance (by providerID, else by name). */
export function nodeBelongsTo(node: NodeView, instanceId: InstanceId, privateDnsName: string | undefined): boolean {
  if (node.providerID) return ec2InstanceIdOf(node.providerID) === instanceId;
  return privateDnsName !== undefined && node.name === privateDnsName;
}

/**
 * Finds the Node of one instance for the event path. Warm containers remember instance → node
 * name, but a remembered name is only a hint: it is always re-read and re-verified, because the
 * name may have been reused by another machine since.
 */
export class NodeFinder {
  /**
   * @param names instance id → node name hints: the warm-container cache a Lambda keeps across
   * invocations (pass the same map to each invocation's finder).
   */
  constructor(
    private readonly nodes: Pick<NodeClient, 'getNode' | 'listNodes'>,
    private readonly names: Map<InstanceId, string> = new Map(),
  ) {}

  async find(instanceId: InstanceId, privateDnsName: string | undefined): Promise<NodeView | undefined> {
    const candidates = [this.names.get(instanceId), privateDnsName].filter((n): n is string => n !== undefined);
    for (const name of new Set(candidates)) {
      const node = await this.nodes.getNode(name);
      if (node && nodeBelongsTo(node, instanceId, privateDnsName)) return this.remember(instanceId, node);
    }
    // Names that do not follow the private DNS name (custom --hostname-override): scan.
    const match = (await this.nodes.listNodes()).find((n) => nodeBelongsTo(n, instanceId, privateDnsName));
    if (match) return this.remember(instanceId, match);
    this.names.delete(instanceId);
    return undefined;
  }

  private remember(instanceId: InstanceId, node: NodeView): NodeView {
    this.names.set(instanceId, node.name);
    return node;
  }
}
