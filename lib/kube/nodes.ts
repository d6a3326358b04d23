import { FIELD_MANAGER } from '@ec2-node-reconciler/model/contract/labels.js';
import type { NodeView } from '@ec2-node-reconciler/model/observation.js';
import { httpStatus, kubePath, STRATEGIC_MERGE_PATCH, type KubeClient } from './client.js';
import { toNodeView } from './node-view.js';
import { listPages } from './list.js';
import type { NodeDeleteApi, NodePatch, NodeWriteApi } from './node-writes.js';
import { IgnoredAnswer, NodeSchema } from './schemas.js';

const NODES = 'api/v1/nodes';
/** status.images: most of a Node's bytes (every image its kubelet has pulled), never read here. */
export const UNREAD_NODE_ARRAYS = ['images'] as const;

/** Nodes on the API server: the one place that speaks `api/v1/nodes`. What to write is decided in node-writes.ts. */
export class NodeClient implements NodeWriteApi, NodeDeleteApi {
  constructor(private readonly kube: KubeClient) {}

  private readNode(name: string) {
    return this.kube.call({ method: 'GET', path: kubePath(NODES, name) }, NodeSchema, {
      emptyArrays: UNREAD_NODE_ARRAYS,
    });
  }

  /**
   * Every Node (or those `labelSelector` matches), projected page by page (limit 500 + continue), so
   * whole pages are never kept.
   */
  async listNodes(labelSelector?: string): Promise<NodeView[]> {
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
      { emptyArrays: UNREAD_NODE_ARRAYS, ...(labelSelector === undefined ? {} : { labelSelector }) },
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

  /** Sends the guarded patch and answers with the Node as it now is; the server's refusal is thrown as it came (KubeApiError). */
  async patchNode(name: string, patch: NodePatch): Promise<NodeView> {
    const request = {
      method: 'PATCH',
      path: kubePath(NODES, name),
      // Named, so that managedFields tell our cordon from one someone else wrote after ours went.
      query: { fieldManager: FIELD_MANAGER },
      contentType: STRATEGIC_MERGE_PATCH,
      body: nodePatchBody(patch),
    } as const;
    const view = toNodeView(await this.kube.call(request, NodeSchema, { emptyArrays: UNREAD_NODE_ARRAYS }));
    if (!view) throw new Error(`patching node ${name}: the answer has no name or uid`);
    return view;
  }

  /** DELETE with preconditions: the server refuses (409) another incarnation or a changed object. Node writes decide what a refusal means. */
  async deleteNode(
    name: string,
    preconditions: { readonly uid: string; readonly resourceVersion: string },
  ): Promise<void> {
    await this.kube.call({ method: 'DELETE', path: kubePath(NODES, name), body: { preconditions } }, IgnoredAnswer);
  }
}

/** The strategic-merge patch body for a NodePatch (null deletes, as in JSON merge patch). */
export function nodePatchBody(patch: NodePatch): Record<string, unknown> {
  const metadata: Record<string, unknown> = {};
  if (patch.annotations) metadata['annotations'] = patch.annotations;
  if (patch.labels) metadata['labels'] = patch.labels;
  if (patch.uid !== undefined) metadata['uid'] = patch.uid;
  if (patch.resourceVersion !== undefined) metadata['resourceVersion'] = patch.resourceVersion;
  const spec: Record<string, unknown> = {};
  if (patch.unschedulable !== undefined) spec['unschedulable'] = patch.unschedulable;
  if (patch.taints) spec['taints'] = patch.taints;
  return {
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
    ...(Object.keys(spec).length > 0 ? { spec } : {}),
  };
}
