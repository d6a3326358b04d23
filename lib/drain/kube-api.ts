import {
  ApiException,
  AppsV1Api,
  CoreV1Api,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type V1Eviction,
  type V1Node,
  type V1Pod,
} from '@kubernetes/client-node';
import { z } from 'zod';
import {
  DrainApiError,
  MIRROR_POD_ANNOTATION,
  podKey,
  type DrainApi,
  type DrainNode,
  type DrainPod,
  type NodePatch,
  type PodRef,
  type RemovalOutcome,
} from './api.js';

/** The fields of a meta/v1 Status the drain reads from an error answer; anything else is ignored. */
const StatusBodySchema = z.object({
  message: z.string().optional().catch(undefined),
  reason: z.string().optional().catch(undefined),
  details: z
    .object({ causes: z.array(z.object({ reason: z.string().optional(), message: z.string().optional() })).optional() })
    .optional()
    .catch(undefined),
});
type StatusBody = z.infer<typeof StatusBodySchema>;

function statusBody(body: unknown): StatusBody {
  let value = body;
  // client-node 2 leaves the error body as the raw JSON string.
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch {
      return { message: body };
    }
  }
  const parsed = StatusBodySchema.safeParse(value);
  return parsed.success ? parsed.data : {};
}

const statusOf = (error: unknown): number | undefined => (error instanceof ApiException ? (error as ApiException<unknown>).code : undefined);

function messageOf(error: ApiException<unknown>): string {
  return statusBody(error.body).message ?? error.message;
}

/**
 * The PDB a 429 names. The API server puts it in a cause: `The disruption budget web needs 2
 * healthy pods and has 2 currently` (pkg/registry/core/pod/storage/eviction.go); its namespace is the pod's.
 */
export function pdbFromStatus(body: StatusBody, namespace: string): string | undefined {
  for (const cause of body.details?.causes ?? []) {
    const match = /disruption budget (\S+) needs/i.exec(cause.message ?? '');
    if (match?.[1]) return `${namespace}/${match[1]}`;
  }
  return undefined;
}

/** Maps an eviction's or delete's error answer; anything that is not an HTTP answer is rethrown. */
function removalOutcome(error: unknown, pod: PodRef, action: string): RemovalOutcome {
  if (!(error instanceof ApiException)) throw new Error(`${action} pod ${podKey(pod)}`, { cause: error });
  const apiError = error as ApiException<unknown>;
  const body = statusBody(apiError.body);
  // The causes carry the useful part ("The disruption budget web needs 2 healthy pods and has 2 currently").
  const causes = (body.details?.causes ?? []).flatMap((c) => (c.message ? [c.message] : []));
  const main = body.message ?? apiError.message;
  const message = causes.length > 0 ? `${main} (${causes.join('; ')})` : main;
  switch (apiError.code) {
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
      return { kind: 'failed', status: apiError.code, message };
  }
}

function rethrow(error: unknown, action: string): never {
  if (error instanceof ApiException) {
    const apiError = error as ApiException<unknown>;
    throw new DrainApiError(apiError.code, `${action}: ${messageOf(apiError)}`, { cause: error });
  }
  throw new Error(action, { cause: error });
}

/** Epoch ms from a client-node timestamp, which arrives as a Date or, for some fields, a string. */
function epoch(value: Date | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

export function toDrainPod(pod: V1Pod): DrainPod {
  const meta = pod.metadata ?? {};
  const owner = meta.ownerReferences?.find((ref) => ref.controller === true);
  const deletionTimestamp = epoch(meta.deletionTimestamp);
  return {
    namespace: meta.namespace ?? 'default',
    name: meta.name ?? '',
    uid: meta.uid ?? '',
    mirror: meta.annotations?.[MIRROR_POD_ANNOTATION] !== undefined,
    emptyDir: pod.spec?.volumes?.some((v) => v.emptyDir !== undefined) ?? false,
    ...(pod.status?.phase !== undefined ? { phase: pod.status.phase } : {}),
    ...(deletionTimestamp !== undefined ? { deletionTimestamp } : {}),
    ...(owner ? { controller: { kind: owner.kind, name: owner.name } } : {}),
    ...(pod.spec?.terminationGracePeriodSeconds !== undefined ? { terminationGracePeriodSeconds: pod.spec.terminationGracePeriodSeconds } : {}),
  };
}

export function toDrainNode(node: V1Node): DrainNode {
  const meta = node.metadata ?? {};
  return {
    name: meta.name ?? '',
    uid: meta.uid ?? '',
    resourceVersion: meta.resourceVersion ?? '',
    unschedulable: node.spec?.unschedulable === true,
    annotations: meta.annotations ?? {},
    labels: meta.labels ?? {},
    taints: (node.spec?.taints ?? []).map((t) => ({ key: t.key, effect: t.effect, ...(t.value !== undefined ? { value: t.value } : {}) })),
  };
}

/** The strategic-merge patch body for a NodePatch (null deletes, as in JSON merge patch). */
export function nodePatchBody(patch: NodePatch): Record<string, unknown> {
  const metadata: Record<string, unknown> = {};
  if (patch.annotations) metadata['annotations'] = patch.annotations;
  if (patch.labels) metadata['labels'] = patch.labels;
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

/** DrainApi over @kubernetes/client-node 2.x: CoreV1 for nodes, pods and policy/v1 evictions; AppsV1 for DaemonSets. */
export function kubeDrainApi(kubeConfig: KubeConfig, options: KubeDrainApiOptions = {}): DrainApi {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const pageSize = options.pageSize ?? 500;
  const strategicMerge = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);

  return {
    async getNode(name) {
      try {
        return toDrainNode(await core.readNode({ name }));
      } catch (error) {
        if (statusOf(error) === 404) return undefined;
        return rethrow(error, `reading node ${name}`);
      }
    },

    async patchNode(name, patch) {
      try {
        return toDrainNode(await core.patchNode({ name, body: nodePatchBody(patch) }, strategicMerge));
      } catch (error) {
        return rethrow(error, `patching node ${name}`);
      }
    },

    async listPodsOnNode(node) {
      const pods: DrainPod[] = [];
      let token: string | undefined;
      do {
        try {
          const page = await core.listPodForAllNamespaces({
            fieldSelector: `spec.nodeName=${node}`,
            limit: pageSize,
            ...(token ? { _continue: token } : {}),
          });
          pods.push(...page.items.map(toDrainPod));
          token = page.metadata?._continue || undefined;
        } catch (error) {
          return rethrow(error, `listing pods on node ${node}`);
        }
      } while (token);
      return pods;
    },

    async daemonSetExists(namespace, name) {
      try {
        await apps.readNamespacedDaemonSet({ namespace, name });
        return true;
      } catch (error) {
        if (statusOf(error) === 404) return false;
        return rethrow(error, `reading DaemonSet ${namespace}/${name}`);
      }
    },

    async evictPod(pod): Promise<RemovalOutcome> {
      const body: V1Eviction = {
        apiVersion: 'policy/v1',
        kind: 'Eviction',
        metadata: { name: pod.name, namespace: pod.namespace },
        // The uid precondition keeps a StatefulSet's replacement (same name) from being evicted in its predecessor's place.
        deleteOptions: { preconditions: { uid: pod.uid } },
      };
      try {
        await core.createNamespacedPodEviction({ name: pod.name, namespace: pod.namespace, body });
        return { kind: 'accepted' };
      } catch (error) {
        return removalOutcome(error, pod, 'evicting');
      }
    },

    async deletePod(pod): Promise<RemovalOutcome> {
      try {
        await core.deleteNamespacedPod({ name: pod.name, namespace: pod.namespace, body: { preconditions: { uid: pod.uid } } });
        return { kind: 'accepted' };
      } catch (error) {
        return removalOutcome(error, pod, 'deleting');
      }
    },
  };
}
