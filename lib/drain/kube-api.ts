import { httpStatus, KubeApiError, kubePath, STRATEGIC_MERGE_PATCH, type KubeClient } from '../kube/client.js';
import { epochOf } from '../kube/node-view.js';
import { UNREAD_NODE_ARRAYS } from '../kube/nodes.js';
import { IgnoredAnswer, listOf, NodeSchema, PodSchema, type KubeNode, type KubePod, type KubeStatus } from '../kube/schemas.js';
import {
  DrainApiError,
  MIRROR_POD_ANNOTATION,
  podKey,
  type DrainApi,
  type DrainNode,
  type DrainPod,
  type NodePatch,
  type PodRef,
  type RemovalOptions,
  type RemovalOutcome,
} from './api.js';

/**
 * The PDB a 429 names. The API server puts it in a cause: `The disruption budget web needs 2
 * healthy pods and has 2 currently` (pkg/registry/core/pod/storage/eviction.go); its namespace is the pod's.
 */
export function pdbFromStatus(body: KubeStatus, namespace: string): string | undefined {
  for (const cause of body.details?.causes ?? []) {
    const match = /disruption budget (\S+) needs/i.exec(cause.message ?? '');
    if (match?.[1]) return `${namespace}/${match[1]}`;
  }
  return undefined;
}

/** Maps an eviction's or delete's error answer; anything that is not an HTTP answer is rethrown. */
function removalOutcome(error: unknown, pod: PodRef, action: string): RemovalOutcome {
  if (!(error instanceof KubeApiError)) throw new Error(`${action} pod ${podKey(pod)}`, { cause: error });
  const body = error.details;
  // The causes carry the useful part ("The disruption budget web needs 2 healthy pods and has 2 currently").
  const causes = (body.details?.causes ?? []).flatMap((c) => (c.message ? [c.message] : []));
  const main = body.message ?? error.message;
  const message = causes.length > 0 ? `${main} (${causes.join('; ')})` : main;
  switch (error.status) {
    case 404:
      return { kind: 'not-found' };
    case 409:
      // The uid precondition failed: the name now belongs to a new pod.
      if (/precondition|uid/i.test(message)) return { kind: 'replaced' };
      return { kind: 'failed', status: 409, message };
    case 429: {
      const pdb = pdbFromStatus(body, pod.namespace);
      return { kind: 'too-many-requests', message, ...(pdb !== undefined ? { pdb } : {}) };
    }
    case 500:
      if (/more than one PodDisruptionBudget/i.test(message)) return { kind: 'multiple-pdbs', message };
      return { kind: 'failed', status: 500, message };
    default:
      return { kind: 'failed', status: error.status, message };
  }
}

function rethrow(error: unknown, action: string): never {
  if (error instanceof KubeApiError) throw new DrainApiError(error.status, `${action}: ${error.details.message ?? error.message}`, { cause: error });
  throw new Error(action, { cause: error });
}

export function toDrainPod(pod: KubePod): DrainPod {
  const meta = pod.metadata;
  const owner = meta.ownerReferences?.find((ref) => ref.controller === true);
  const deletionTimestamp = epochOf(meta.deletionTimestamp);
  return {
    namespace: meta.namespace ?? 'default',
    name: meta.name ?? '',
    uid: meta.uid ?? '',
    mirror: meta.annotations?.[MIRROR_POD_ANNOTATION] !== undefined,
    emptyDir: pod.spec.volumes?.some((v) => v.emptyDir !== undefined && v.emptyDir !== null) ?? false,
    ...(pod.status.phase !== undefined ? { phase: pod.status.phase } : {}),
    ...(deletionTimestamp !== undefined ? { deletionTimestamp } : {}),
    ...(owner ? { controller: { kind: owner.kind, name: owner.name } } : {}),
    ...(typeof pod.spec.terminationGracePeriodSeconds === 'number' ? { terminationGracePeriodSeconds: pod.spec.terminationGracePeriodSeconds } : {}),
  };
}

export function toDrainNode(node: KubeNode): DrainNode {
  const meta = node.metadata;
  return {
    name: meta.name ?? '',
    uid: meta.uid ?? '',
    resourceVersion: meta.resourceVersion ?? '',
    unschedulable: node.spec.unschedulable === true,
    annotations: meta.annotations ?? {},
    labels: meta.labels ?? {},
    taints: (node.spec.taints ?? []).map((t) => ({
      key: t.key,
      effect: t.effect,
      ...(t.value !== undefined ? { value: t.value } : {}),
      ...(t.timeAdded !== undefined ? { timeAdded: t.timeAdded } : {}),
    })),
  };
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
  return { ...(Object.keys(metadata).length > 0 ? { metadata } : {}), ...(Object.keys(spec).length > 0 ? { spec } : {}) };
}

export interface KubeDrainApiOptions {
  /** Page size of the pod list (kubectl's --chunk-size). @default 500 */
  readonly pageSize?: number;
}

const NODES = 'api/v1/nodes';
const PodListSchema = listOf(PodSchema);
const deleteOptions = (pod: PodRef, options: RemovalOptions) => ({
  preconditions: { uid: pod.uid },
  ...(options.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: options.gracePeriodSeconds } : {}),
});
const podPath = (pod: PodRef, ...sub: string[]) => kubePath('api/v1/namespaces', pod.namespace, 'pods', pod.name, ...sub);

/** DrainApi over the KubeClient: nodes, pods and policy/v1 evictions in core/v1; DaemonSets in apps/v1. */
export function kubeDrainApi(kube: KubeClient, options: KubeDrainApiOptions = {}): DrainApi {
  const pageSize = options.pageSize ?? 500;

  return {
    async getNode(name) {
      try {
        return toDrainNode(await kube.call({ method: 'GET', path: kubePath(NODES, name) }, NodeSchema, { emptyArrays: UNREAD_NODE_ARRAYS }));
      } catch (error) {
        if (httpStatus(error) === 404) return undefined;
        return rethrow(error, `reading node ${name}`);
      }
    },

    async patchNode(name, patch) {
      try {
        const request = { method: 'PATCH', path: kubePath(NODES, name), contentType: STRATEGIC_MERGE_PATCH, body: nodePatchBody(patch) } as const;
        return toDrainNode(await kube.call(request, NodeSchema, { emptyArrays: UNREAD_NODE_ARRAYS }));
      } catch (error) {
        return rethrow(error, `patching node ${name}`);
      }
    },

    async listPodsOnNode(node) {
      const pods: DrainPod[] = [];
      let token: string | undefined;
      do {
        try {
          const query = { fieldSelector: `spec.nodeName=${node}`, limit: pageSize, continue: token };
          const page = await kube.call({ method: 'GET', path: kubePath('api/v1/pods'), query }, PodListSchema);
          pods.push(...page.items.map(toDrainPod));
          token = page.metadata.continue || undefined;
        } catch (error) {
          return rethrow(error, `listing pods on node ${node}`);
        }
      } while (token);
      return pods;
    },

    async daemonSetExists(namespace, name) {
      try {
        await kube.call({ method: 'GET', path: kubePath('apis/apps/v1/namespaces', namespace, 'daemonsets', name) }, IgnoredAnswer);
        return true;
      } catch (error) {
        if (httpStatus(error) === 404) return false;
        return rethrow(error, `reading DaemonSet ${namespace}/${name}`);
      }
    },

    async evictPod(pod, options = {}): Promise<RemovalOutcome> {
      const body = {
        apiVersion: 'policy/v1',
        kind: 'Eviction',
        metadata: { name: pod.name, namespace: pod.namespace },
        // The uid precondition keeps a StatefulSet's replacement (same name) from being evicted in its predecessor's place.
        deleteOptions: deleteOptions(pod, options),
      };
      try {
        await kube.call({ method: 'POST', path: podPath(pod, 'eviction'), body }, IgnoredAnswer);
        return { kind: 'accepted' };
      } catch (error) {
        return removalOutcome(error, pod, 'evicting');
      }
    },

    async deletePod(pod, options = {}): Promise<RemovalOutcome> {
      try {
        await kube.call({ method: 'DELETE', path: podPath(pod), body: deleteOptions(pod, options) }, IgnoredAnswer);
        return { kind: 'accepted' };
      } catch (error) {
        return removalOutcome(error, pod, 'deleting');
      }
    },
  };
}
