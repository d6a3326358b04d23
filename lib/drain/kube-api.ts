import { httpStatus, KubeApiError, kubePath, type KubeClient } from '../kube/client.js';
import { epochOf } from '../kube/node-view.js';
import { NodeClient } from '../kube/nodes.js';
import { IgnoredAnswer, listOf, PodSchema, type KubePod, type KubeStatus } from '../kube/schemas.js';
import {
  MIRROR_POD_ANNOTATION,
  podKey,
  type DrainApi,
  type DrainPod,
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

/** Maps an eviction's error answer; anything that is not an HTTP answer is rethrown. */
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

/** A refusal goes on as the KubeApiError it is (its method and path name the read); any other failure is named. */
function rethrow(error: unknown, action: string): never {
  if (error instanceof KubeApiError) throw error;
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
    ...(typeof pod.spec.terminationGracePeriodSeconds === 'number'
      ? { terminationGracePeriodSeconds: pod.spec.terminationGracePeriodSeconds }
      : {}),
  };
}

export interface KubeDrainApiOptions {
  /** Page size of the pod list (kubectl's --chunk-size). @default 500 */
  readonly pageSize?: number;
}

const PodListSchema = listOf(PodSchema);
const deleteOptions = (pod: PodRef, options: RemovalOptions) => ({
  preconditions: { uid: pod.uid },
  ...(options.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: options.gracePeriodSeconds } : {}),
});
const podPath = (pod: PodRef, ...sub: string[]) =>
  kubePath('api/v1/namespaces', pod.namespace, 'pods', pod.name, ...sub);

/** DrainApi over the KubeClient: nodes through NodeClient; pods and policy/v1 evictions in core/v1; DaemonSets in apps/v1. */
export function kubeDrainApi(kube: KubeClient, options: KubeDrainApiOptions = {}): DrainApi {
  const pageSize = options.pageSize ?? 500;
  const nodes = new NodeClient(kube);

  return {
    // Node reads and patches are the node writer's: one projection, one path.
    getNode: (name) => nodes.getNode(name),
    patchNode: (name, patch) => nodes.patchNode(name, patch),

    async listPodsOnNode(node, labelSelector) {
      const pods: DrainPod[] = [];
      let token: string | undefined;
      do {
        try {
          const query = { fieldSelector: `spec.nodeName=${node}`, labelSelector, limit: pageSize, continue: token };
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
        await kube.call(
          { method: 'GET', path: kubePath('apis/apps/v1/namespaces', namespace, 'daemonsets', name) },
          IgnoredAnswer,
        );
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
        await kube.call(
          { method: 'POST', path: podPath(pod, 'eviction'), body, throttleIsRefusal: true },
          IgnoredAnswer,
        );
        return { kind: 'accepted' };
      } catch (error) {
        return removalOutcome(error, pod, 'evicting');
      }
    },
  };
}
