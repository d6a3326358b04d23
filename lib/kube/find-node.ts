import type { InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import type { NodeView } from '@ec2-node-reconciler/model/observation.js';
import {
  instanceIdOfNodeName,
  MalformedProviderIdError,
  parseProviderId,
} from '@ec2-node-reconciler/model/provider-id.js';
import type { NodeClient } from './nodes.js';

/** How far a search for an instance's Node may go, by how sure we are that the instance is this cluster's. */
export interface FindOptions {
  /**
   * The instance's private DNS name, when a Node without providerID may be linked by it (the
   * instance is tagged as this cluster's: names repeat across VPCs with overlapping CIDRs).
   */
  readonly privateDnsName?: string;
  /** Names worth a GET (the private DNS name, which most Nodes are named after), beside the warm hint. */
  readonly names?: readonly string[];
  /** List the Nodes (`candidates`) when no named one matches (custom hostnames): not for another cluster's instances. */
  readonly scan: boolean;
  /**
   * Nodes this run has read already, by name (undefined: the read found none): not read again. A
   * warm container reads its hint while EC2 is asked about the instance; the Node read is still
   * verified here like any other.
   */
  readonly read?: ReadonlyMap<string, NodeView | undefined>;
  /**
   * The Nodes a scan reads: every Node, or those the instance's zone allows (lib/kube/zone-candidates.ts),
   * shared by the finds of one pass (an SQS batch's instances). Default: a list of every Node of its own.
   */
  readonly candidates?: () => Promise<readonly NodeView[]>;
}

export interface FoundNode {
  readonly node?: NodeView;
  /** Nodes met whose providerID does not parse: any of them may be the instance's. */
  readonly unlinked: readonly NodeView[];
}

/** Whether this Node is the one running on this instance: by providerID, instance-id name, or (when allowed) private DNS name. */
export function nodeBelongsTo(node: NodeView, instanceId: InstanceId, privateDnsName: string | undefined): boolean {
  if (node.providerID) {
    try {
      const ref = parseProviderId(node.providerID);
      return ref.kind === 'ec2' && ref.instanceId === instanceId;
    } catch (error) {
      if (error instanceof MalformedProviderIdError) return false;
      throw error;
    }
  }
  return (
    instanceIdOfNodeName(node.name) === instanceId || (privateDnsName !== undefined && node.name === privateDnsName)
  );
}

function isUnparseable(node: NodeView): boolean {
  if (!node.providerID) return false;
  try {
    parseProviderId(node.providerID);
    return false;
  } catch (error) {
    if (error instanceof MalformedProviderIdError) return true;
    throw error;
  }
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

  /** The name the warm container remembers for this instance, if any (to read alongside other lookups). */
  hint(instanceId: InstanceId): string | undefined {
    return this.names.get(instanceId);
  }

  /** One Node by name (undefined when there is none): the read `find` accepts back through `read`. */
  read(name: string): Promise<NodeView | undefined> {
    return this.nodes.getNode(name);
  }

  async find(instanceId: InstanceId, options: FindOptions): Promise<FoundNode> {
    const unlinked: NodeView[] = [];
    const candidates = [this.names.get(instanceId), ...(options.names ?? [])].filter(
      (n): n is string => n !== undefined,
    );
    for (const name of new Set(candidates)) {
      const node = options.read?.has(name) === true ? options.read.get(name) : await this.nodes.getNode(name);
      if (!node) continue;
      if (nodeBelongsTo(node, instanceId, options.privateDnsName))
        return { node: this.remember(instanceId, node), unlinked };
      if (isUnparseable(node)) unlinked.push(node);
    }
    if (options.scan) {
      // Names that do not follow the private DNS name (custom --hostname-override): scan.
      const all = await (options.candidates ?? (() => this.nodes.listNodes()))();
      const match = all.find((n) => nodeBelongsTo(n, instanceId, options.privateDnsName));
      if (match) return { node: this.remember(instanceId, match), unlinked: [] };
      for (const node of all)
        if (isUnparseable(node) && !unlinked.some((u) => u.name === node.name)) unlinked.push(node);
    }
    this.names.delete(instanceId);
    return { unlinked };
  }

  private remember(instanceId: InstanceId, node: NodeView): NodeView {
    this.names.set(instanceId, node.name);
    return node;
  }
}
