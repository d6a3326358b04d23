import { SHUTDOWN_TAINT_KEY } from '../contract/labels.js';
import type { NodeView } from '../model/observation.js';
import { httpStatus, kubePath, statusMessage, STRATEGIC_MERGE_PATCH, type KubeClient } from './client.js';
import { toNodeView } from './node-view.js';
import { listPages } from './list.js';
import { IgnoredAnswer, NodeSchema, type KubeTaint } from './schemas.js';

export { LIST_PAGE } from './list.js';

export interface NodeTarget {
  readonly node: string;
  readonly uid: string;
  readonly resourceVersion: string;
}

/** How a guarded mutation ended. `moot`: the node is gone or is no longer the one we planned for. */
export type MutationOutcome =
  | { readonly kind: 'done' }
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'moot'; readonly reason: string };

const NODES = 'api/v1/nodes';
/** status.images: most of a Node's bytes (every image its kubelet has pulled), never read here. */
export const UNREAD_NODE_ARRAYS = ['images'] as const;

export class NodeClient {
  constructor(private readonly kube: KubeClient) {}

  private readNode(name: string) {
    return this.kube.call({ method: 'GET', path: kubePath(NODES, name) }, NodeSchema, { emptyArrays: UNREAD_NODE_ARRAYS });
  }

  /** Every Node, projected page by page (limit 500 + continue), so whole pages are never kept. */
  async listNodes(): Promise<NodeView[]> {
    const out: NodeView[] = [];
    await listPages(
      this.kube,
      NODES,
      NodeSchema,
      (page) => {
        for (const node of page.items) {
          const view = toNodeView(node);
          if (view) out.push(view);
        }
      },
      { emptyArrays: UNREAD_NODE_ARRAYS },
    );
    return out;
  }

  async getNode(name: string): Promise<NodeView | undefined> {
    try {
      return toNodeView(await this.readNode(name));
    } catch (error) {
      if (httpStatus(error) === 404) return undefined;
      throw error;
    }
  }

  /**
   * Deletes the Node only if it is still the object we observed: `preconditions.uid` makes the API
   * server refuse (409) to delete a Node re-registered under the same name by a live kubelet.
   */
  async deleteNode(target: NodeTarget): Promise<MutationOutcome> {
    try {
      await this.kube.call(
        { method: 'DELETE', path: kubePath(NODES, target.node), body: { preconditions: { uid: target.uid, resourceVersion: target.resourceVersion } } },
        IgnoredAnswer,
      );
      return { kind: 'done' };
    } catch (error) {
      const status = httpStatus(error);
      if (status === 404) return { kind: 'moot', reason: 'node already gone' };
      if (status === 409) return { kind: 'moot', reason: `node changed since it was observed: ${statusMessage(error)}` };
      throw error;
    }
  }

  /** Adds or removes `node.cloudprovider.kubernetes.io/shutdown:NoSchedule`, as the cloud controller does. */
  async setShutdownTaint(target: NodeTarget, present: boolean): Promise<MutationOutcome> {
    return this.patchTaints(target, (taints) => {
      const has = taints.some((t) => t.key === SHUTDOWN_TAINT_KEY);
      if (has === present) return undefined;
      return present ? [...taints, { key: SHUTDOWN_TAINT_KEY, effect: 'NoSchedule' }] : taints.filter((t) => t.key !== SHUTDOWN_TAINT_KEY);
    });
  }

  /**
   * Taints are replaced as a whole list, so the patch carries the resourceVersion we read: a
   * concurrent writer turns into a 409, and we re-read and re-apply once.
   */
  private async patchTaints(target: NodeTarget, change: (taints: KubeTaint[]) => KubeTaint[] | undefined): Promise<MutationOutcome> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const current = await this.readNode(target.node).catch((error: unknown) => {
        if (httpStatus(error) === 404) return undefined;
        throw error;
      });
      if (!current) return { kind: 'moot', reason: 'node already gone' };
      if (current.metadata.uid !== target.uid) return { kind: 'moot', reason: 'node was re-registered under the same name' };
      const taints = change(current.spec.taints ?? []);
      if (taints === undefined) return { kind: 'unchanged' };
      try {
        await this.kube.call(
          {
            method: 'PATCH',
            path: kubePath(NODES, target.node),
            contentType: STRATEGIC_MERGE_PATCH,
            body: { metadata: { uid: target.uid, resourceVersion: current.metadata.resourceVersion }, spec: { taints } },
          },
          IgnoredAnswer,
        );
        return { kind: 'done' };
      } catch (error) {
        if (httpStatus(error) !== 409 || attempt > 0) throw error;
      }
    }
    throw new Error(`patching taints of ${target.node}: conflict twice`);
  }
}
