// The parts of Kubernetes objects the reconciler reads, as zod schemas: every answer of the API
// server is checked against them at the edge (KubeClient.call), and fields we do not read are
// dropped there. Optional wherever the API allows omission; times stay RFC 3339 strings (Go writes
// an unset metav1.Time as null, hence nullish).
import * as z from 'zod';

const StringMap = z.record(z.string(), z.string());
const Time = z.string().nullish();

export const ObjectMetaSchema = z.object({
  name: z.string().optional(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  creationTimestamp: Time,
  deletionTimestamp: Time,
  labels: StringMap.nullish(),
  annotations: StringMap.nullish(),
  ownerReferences: z
    .array(z.object({ kind: z.string(), name: z.string(), controller: z.boolean().nullish() }))
    .nullish(),
});

// timeAdded (set by the node lifecycle controller on NoExecute taints) must survive a rewrite of the
// taint list, which replaces it whole.
export const TaintSchema = z.object({
  key: z.string(),
  value: z.string().optional(),
  effect: z.string(),
  timeAdded: z
    .string()
    .nullish()
    .transform((t) => t ?? undefined),
});
/** A taint as we write it back (timeAdded only when it was set). */
export interface KubeTaint {
  readonly key: string;
  readonly value?: string;
  readonly effect: string;
  readonly timeAdded?: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * metadata.managedFields, reduced to what is read: the managers whose fields (outside a subresource)
 * include spec.unschedulable, i.e. who wrote the cordon the Node carries. Undefined when the Node has
 * no managed fields. An entry of another shape is skipped, never a failed read of the Node.
 */
const ManagedFieldsSchema = z
  .unknown()
  .optional()
  .transform((entries): string[] | undefined => {
    if (!Array.isArray(entries)) return undefined;
    const writers: string[] = [];
    for (const entry of entries) {
      if (!isRecord(entry) || (typeof entry['subresource'] === 'string' && entry['subresource'] !== '')) continue;
      const fields = entry['fieldsV1'];
      const spec = isRecord(fields) ? fields['f:spec'] : undefined;
      if (isRecord(spec) && spec['f:unschedulable'] !== undefined)
        writers.push(typeof entry['manager'] === 'string' ? entry['manager'] : '');
    }
    return writers;
  });

export const NodeSchema = z.object({
  metadata: ObjectMetaSchema.extend({ managedFields: ManagedFieldsSchema }).default({ managedFields: undefined }),
  spec: z
    .object({
      providerID: z.string().optional(),
      unschedulable: z.boolean().nullish(),
      taints: z.array(TaintSchema).nullish(),
    })
    .default({}),
  status: z
    .object({
      conditions: z
        .array(z.object({ type: z.string(), status: z.string(), lastHeartbeatTime: Time, lastTransitionTime: Time }))
        .nullish(),
    })
    .default({}),
});
export type KubeNode = z.infer<typeof NodeSchema>;

export const LeaseSchema = z.object({
  metadata: ObjectMetaSchema.default({}),
  spec: z.object({ renewTime: Time }).default({}),
});
export type KubeLease = z.infer<typeof LeaseSchema>;

export const PodSchema = z.object({
  metadata: ObjectMetaSchema.default({}),
  spec: z
    .object({
      nodeName: z.string().optional(),
      terminationGracePeriodSeconds: z.number().nullish(),
      volumes: z.array(z.object({ emptyDir: z.unknown().optional() })).nullish(),
    })
    .default({}),
  status: z.object({ phase: z.string().optional() }).default({}),
});
export type KubePod = z.infer<typeof PodSchema>;

/** A list answer: its items and the token of the next page (empty or absent on the last). */
export function listOf<T extends z.ZodType>(item: T) {
  return z.object({
    metadata: z.object({ continue: z.string().optional() }).default({}),
    items: z
      .array(item)
      .nullish()
      .transform((items) => items ?? []),
  });
}

/** Any answer whose content we do not read (a created Event, an accepted eviction, a delete's Status). */
export const IgnoredAnswer = z.unknown();

/** meta/v1 Status, the body of every error answer: the fields we read from it. */
export const StatusSchema = z.object({
  message: z.string().optional().catch(undefined),
  reason: z.string().optional().catch(undefined),
  details: z
    .object({ causes: z.array(z.object({ reason: z.string().optional(), message: z.string().optional() })).optional() })
    .optional()
    .catch(undefined),
});
export type KubeStatus = z.infer<typeof StatusSchema>;
