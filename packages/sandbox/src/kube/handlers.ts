// Resource requests → store operations, with the request/response shapes of the real API:
// list envelopes, Table printing, Eviction and DeleteOptions bodies, events.k8s.io conversion.
import * as z from 'zod';
import type { UserInfo } from './auth.js';
import {
  badRequest,
  forbidden,
  methodNotSupported,
  pathNotFound,
  StatusError,
  unsupportedMediaType,
  type StatusBody,
} from './errors.js';
import { fromEventsV1, toEventsV1, validateEventsV1 } from './events.js';
import { fieldValidationOf, validateFields } from './fields.js';
import { applyPatch, PATCH_TYPES, PatchError } from './patch.js';
import { managerOf } from './managed-fields.js';
import type { PolicyRule, RbacAuthorizer, RequestAttributes } from './rbac.js';
import type { RequestInfo } from './request-info.js';
import { apiVersionOf, findResource, groupResource, RBAC_GROUP, type ResourceDef } from './resources.js';
import { parseFieldSelector, parseLabelSelector } from './selectors.js';
import type { DeleteOptions, KubeStore } from './store.js';
import { toTable } from './tables.js';
import type { KubeObject } from './types.js';

/** `warnings` become Warning headers (`299 - "…"`), as kubectl prints them. */
export type Answer = { code: number; body: unknown; warnings?: readonly string[] };

export type HandlerContext = {
  store: KubeStore;
  info: RequestInfo;
  query: URLSearchParams;
  body: string;
  contentType: string;
  accept: string;
  user: UserInfo;
  rbac: RbacAuthorizer | undefined;
  /** The request's User-Agent: whom a write is attributed to when it names no fieldManager. */
  userAgent?: string;
};

const MetaSchema = z.looseObject({
  name: z.string().optional(),
  generateName: z.string().optional(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  labels: z.record(z.string(), z.string()).nullish(),
  annotations: z.record(z.string(), z.string()).nullish(),
  finalizers: z.array(z.string()).nullish(),
  ownerReferences: z
    .array(
      z.looseObject({
        apiVersion: z.string(),
        kind: z.string(),
        name: z.string(),
        uid: z.string(),
        controller: z.boolean().optional(),
      }),
    )
    .nullish(),
});
const ObjectSchema = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: MetaSchema.optional(),
});

const DeleteOptionsSchema = z.looseObject({
  gracePeriodSeconds: z.number().int().nullish(),
  preconditions: z.object({ uid: z.string().nullish(), resourceVersion: z.string().nullish() }).nullish(),
  propagationPolicy: z.enum(['Orphan', 'Background', 'Foreground']).nullish(),
  dryRun: z.array(z.string()).nullish(),
});
type DeleteOptionsBody = z.infer<typeof DeleteOptionsSchema>;

const EvictionSchema = z.looseObject({
  apiVersion: z.enum(['policy/v1', 'policy/v1beta1']).optional(),
  kind: z.literal('Eviction').optional(),
  metadata: z.looseObject({ name: z.string().optional(), namespace: z.string().optional() }).optional(),
  deleteOptions: DeleteOptionsSchema.nullish(),
});

const AccessReviewSchema = z.looseObject({
  spec: z.object({
    resourceAttributes: z
      .looseObject({
        namespace: z.string().optional(),
        verb: z.string().optional(),
        group: z.string().optional(),
        resource: z.string().optional(),
        subresource: z.string().optional(),
        name: z.string().optional(),
      })
      .optional(),
    nonResourceAttributes: z.object({ path: z.string().optional(), verb: z.string().optional() }).optional(),
  }),
});

function parseJson(text: string, what: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw badRequest(
      `couldn't decode ${what}: json parse error: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** Validates a body at the edge; the error names the first offending field, as the server does. */
function parseBody<T>(schema: z.ZodType<T>, text: string, what: string): T {
  const parsed = schema.safeParse(parseJson(text, what) ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') ?? '';
    throw badRequest(`${what} is invalid: ${field === '' ? '' : `${field}: `}${issue?.message ?? 'malformed'}`);
  }
  return parsed.data;
}

function objectBody(def: ResourceDef, text: string): KubeObject {
  const parsed = parseBody(ObjectSchema, text, `the ${def.kind}`);
  const expected = apiVersionOf(def);
  if (
    parsed.apiVersion !== undefined &&
    parsed.apiVersion !== expected &&
    !(def.storage === 'events' && parsed.apiVersion === 'v1')
  ) {
    throw badRequest(
      `the API version in the data (${parsed.apiVersion}) does not match the expected API version (${expected})`,
    );
  }
  if (parsed.kind !== undefined && parsed.kind !== def.kind) {
    throw badRequest(
      `${parsed.kind} in version "${def.version}" cannot be handled as a ${def.kind}: the kind does not match`,
    );
  }
  // null maps/lists mean "absent" to the API server.
  const metadata: Record<string, unknown> = Object.fromEntries(
    Object.entries(parsed.metadata ?? {}).filter(([, v]) => v !== null),
  );
  const object = { ...parsed, apiVersion: expected, kind: def.kind, metadata } as KubeObject;
  return def.group === 'events.k8s.io' ? fromEventsV1(object) : object;
}

const dryRun = (query: URLSearchParams, body?: DeleteOptionsBody): boolean =>
  query.getAll('dryRun').includes('All') || (body?.dryRun ?? []).includes('All');

function toDeleteOptions(body: DeleteOptionsBody | undefined, query: URLSearchParams): DeleteOptions {
  const queryGrace = query.get('gracePeriodSeconds');
  const grace = body?.gracePeriodSeconds ?? (queryGrace === null ? undefined : Number(queryGrace));
  if (grace !== undefined && !Number.isInteger(grace)) throw badRequest('gracePeriodSeconds must be an integer');
  const pre = body?.preconditions;
  return {
    ...(grace === undefined ? {} : { gracePeriodSeconds: grace }),
    ...(pre === undefined || pre === null
      ? {}
      : {
          preconditions: {
            ...(pre.uid === undefined || pre.uid === null ? {} : { uid: pre.uid }),
            ...(pre.resourceVersion === undefined || pre.resourceVersion === null
              ? {}
              : { resourceVersion: pre.resourceVersion }),
          },
        }),
    dryRun: dryRun(query, body),
  };
}

/** How the client wants the answer: a Table (kubectl get) or the object itself. */
type Rendering = { table: false } | { table: true; apiVersion: string };

export function negotiate(accept: string, verb: string): Rendering {
  if (accept.trim() === '') return { table: false };
  const types = accept.split(',').map((t) => t.trim().toLowerCase());
  for (const type of types) {
    const [media = '', ...params] = type.split(';').map((p) => p.trim());
    const p = Object.fromEntries(params.map((kv) => kv.split('=') as [string, string]));
    if (
      p['as'] === 'table' &&
      (verb === 'get' || verb === 'list') &&
      p['g'] === 'meta.k8s.io' &&
      (p['v'] === 'v1' || p['v'] === 'v1beta1')
    ) {
      return { table: true, apiVersion: `meta.k8s.io/${p['v']}` };
    }
    if (p['as'] !== undefined) continue;
    if (
      media === 'application/json' ||
      media === '*/*' ||
      media === 'application/*' ||
      media === 'application/vnd.kubernetes.protobuf' ||
      media === 'application/yaml'
    ) {
      // Protobuf and YAML are answered in JSON; client-go decodes by the response's Content-Type.
      return { table: false };
    }
  }
  throw new StatusError(
    406,
    'NotAcceptable',
    `only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf`,
  );
}

/** How an object looks on the API it was asked through. */
function present(def: ResourceDef, object: KubeObject): KubeObject {
  if (def.group === 'events.k8s.io') return toEventsV1(object);
  return object;
}

function listItem(def: ResourceDef, object: KubeObject): Record<string, unknown> {
  // Items of a list carry no apiVersion/kind on the wire; the list does.
  const { apiVersion: _a, kind: _k, ...rest } = present(def, object);
  return rest;
}

export function handleResource(ctx: HandlerContext): Answer {
  const { info, store, query } = ctx;
  const def = findResource(info.apiGroup, info.apiVersion, info.resource);
  if (def === undefined) throw pathNotFound();
  if (!def.namespaced && info.namespace !== '' && def.storage !== 'namespaces') throw pathNotFound();
  const sub = info.subresource;
  if (sub !== '' && def.subresources[sub] === undefined) throw pathNotFound();
  const namespace = def.namespaced ? info.namespace : undefined;
  const gr = groupResource(def);
  if (def.virtual === true) {
    if (info.verb !== 'create') throw methodNotSupported(gr, info.verb);
    if (def.storage === 'selfsubjectrulesreviews') return rulesReview(ctx);
    if (def.storage === 'selfsubjectreviews') return selfReview(ctx);
    return accessReview(ctx);
  }

  switch (info.verb) {
    case 'list': {
      const rendering = negotiate(ctx.accept, 'list');
      const limitText = query.get('limit');
      const limit = limitText === null ? undefined : Number(limitText);
      if (limit !== undefined && (!Number.isInteger(limit) || limit < 0))
        throw badRequest(`limit must be a non-negative integer: ${limitText ?? ''}`);
      const cont = query.get('continue') ?? undefined;
      // resourceVersion=0 is served from the watch cache, which ignores limit (a real-server trap).
      const ignoreLimit = query.get('resourceVersion') === '0' && cont === undefined;
      const result = store.list(def, {
        ...(namespace === undefined || namespace === '' ? {} : { namespace }),
        labelSelector: parseLabelSelector(query.get('labelSelector') ?? undefined),
        fieldSelector: parseFieldSelector(query.get('fieldSelector') ?? undefined),
        ...(limit === undefined || ignoreLimit ? {} : { limit }),
        ...(cont === undefined ? {} : { continue: cont }),
      });
      const metadata = {
        resourceVersion: result.resourceVersion,
        ...(result.continue === undefined ? {} : { continue: result.continue }),
        ...(result.remainingItemCount === undefined ? {} : { remainingItemCount: result.remainingItemCount }),
      };
      if (rendering.table) {
        return {
          code: 200,
          body: toTable(
            def,
            result.items.map((o) => present(def, o)),
            metadata,
            tableOptions(ctx, rendering.apiVersion),
          ),
        };
      }
      return {
        code: 200,
        body: {
          kind: `${def.kind}List`,
          apiVersion: apiVersionOf(def),
          metadata,
          items: result.items.map((o) => listItem(def, o)),
        },
      };
    }
    case 'get': {
      const rendering = negotiate(ctx.accept, 'get');
      const object = present(def, store.get(def, namespace, info.name));
      if (rendering.table)
        return { code: 200, body: toTable(def, [object], {}, tableOptions(ctx, rendering.apiVersion)) };
      return { code: 200, body: object };
    }
    case 'create': {
      if (def.storage === 'pods' && sub === 'eviction') return { code: 201, body: evict(ctx, namespace ?? '') };
      if (sub !== '' || info.name !== '') throw methodNotSupported(gr, 'create');
      const { object: input, warnings } = validateFields(def, objectBody(def, ctx.body), fieldValidationOf(query));
      if (def.group === 'events.k8s.io') validateEventsV1(toEventsV1(input));
      guardRbacWrite(ctx, def, input, namespace ?? '');
      const created = store.create(def, input, {
        ...(namespace === undefined ? {} : { namespace }),
        requireNamespace: true,
        dryRun: dryRun(query),
        manager: managerOf(query.get('fieldManager'), ctx.userAgent),
      });
      return { code: 201, body: present(def, created), warnings };
    }
    case 'update': {
      const { object: input, warnings } = validateFields(def, objectBody(def, ctx.body), fieldValidationOf(query));
      guardRbacWrite(ctx, def, input, namespace ?? '');
      const updated = store.update(def, namespace, info.name, input, {
        subresource: sub,
        dryRun: dryRun(query),
        manager: managerOf(query.get('fieldManager'), ctx.userAgent),
      });
      return { code: 200, body: present(def, updated), warnings };
    }
    case 'patch': {
      const type = ctx.contentType.split(';')[0]?.trim().toLowerCase() ?? '';
      // Server-side apply is not emulated: answer it like an unknown patch type.
      if (type !== PATCH_TYPES.json && type !== PATCH_TYPES.merge && type !== PATCH_TYPES.strategic)
        throw unsupportedMediaType(type);
      const patch = parseJson(ctx.body, 'the patch');
      if (def.group === 'events.k8s.io')
        return { code: 200, body: present(def, patchEventV1(ctx, def, namespace, patch)) };
      if (def.group === RBAC_GROUP) {
        // What the patch makes is what is checked (fields, escalation) and then stored.
        const preview = store.patch(def, namespace, info.name, ctx.contentType, patch, { dryRun: true });
        const { object, warnings } = validateFields(def, preview, fieldValidationOf(query));
        guardRbacWrite(ctx, def, object, namespace ?? '');
        return {
          code: 200,
          body: store.update(def, namespace, info.name, object, {
            dryRun: dryRun(query),
            manager: managerOf(query.get('fieldManager'), ctx.userAgent),
          }),
          warnings,
        };
      }
      const patched = store.patch(def, namespace, info.name, ctx.contentType, patch, {
        subresource: sub,
        dryRun: dryRun(query),
        manager: managerOf(query.get('fieldManager'), ctx.userAgent),
      });
      return { code: 200, body: present(def, patched) };
    }
    case 'delete': {
      const body = parseBody(DeleteOptionsSchema, ctx.body, 'the DeleteOptions');
      const result = store.delete(def, namespace, info.name, toDeleteOptions(body, query));
      const answer = 'status' in result.body && result.body.kind === 'Status' ? result.body : present(def, result.body);
      return { code: 200, body: answer };
    }
    case 'watch':
      throw methodNotSupported(gr, 'watch');
    case 'deletecollection':
      throw methodNotSupported(gr, 'deletecollection');
    default:
      throw methodNotSupported(gr, info.verb);
  }
}

function tableOptions(ctx: HandlerContext, apiVersion: string): Parameters<typeof toTable>[3] {
  const include = ctx.query.get('includeObject');
  return {
    apiVersion,
    includeObject: include === 'None' || include === 'Object' ? include : 'Metadata',
    now: ctx.store.clock.now(),
  };
}

function evict(ctx: HandlerContext, namespace: string): StatusBody {
  const eviction = parseBody(EvictionSchema, ctx.body, 'the Eviction');
  const name = eviction.metadata?.name;
  if (name !== ctx.info.name) throw badRequest('name in URL does not match name in Eviction object');
  const options = toDeleteOptions(eviction.deleteOptions ?? undefined, ctx.query);
  return ctx.store.evict(namespace, ctx.info.name, options);
}

function patchEventV1(
  ctx: HandlerContext,
  def: ResourceDef,
  namespace: string | undefined,
  patch: unknown,
): KubeObject {
  const current = toEventsV1(ctx.store.get(def, namespace, ctx.info.name));
  let patched: unknown;
  try {
    patched = applyPatch(current, ctx.contentType, patch);
  } catch (error) {
    if (error instanceof PatchError)
      throw new StatusError(error.code, error.code === 400 ? 'BadRequest' : 'Invalid', error.message);
    throw error;
  }
  return ctx.store.update(def, namespace, ctx.info.name, fromEventsV1(patched as KubeObject), {
    dryRun: dryRun(ctx.query),
  });
}

/** SelfSubjectAccessReview (`kubectl auth can-i`): what RBAC would answer for the caller. */
function accessReview(ctx: HandlerContext): Answer {
  const review = parseBody(AccessReviewSchema, ctx.body, 'the SelfSubjectAccessReview');
  const ra = review.spec.resourceAttributes;
  const nra = review.spec.nonResourceAttributes;
  const attrs: RequestAttributes =
    ra !== undefined
      ? {
          verb: ra.verb ?? '',
          isResourceRequest: true,
          path: '',
          apiGroup: ra.group ?? '',
          resource: ra.resource ?? '',
          subresource: ra.subresource ?? '',
          namespace: ra.namespace ?? '',
          name: ra.name ?? '',
        }
      : {
          verb: nra?.verb ?? '',
          isResourceRequest: false,
          path: nra?.path ?? '',
          apiGroup: '',
          resource: '',
          subresource: '',
          namespace: '',
          name: '',
        };
  const decision = ctx.rbac === undefined ? { allowed: true, reason: '' } : ctx.rbac.authorize(ctx.user, attrs);
  return {
    code: 201,
    body: {
      ...review,
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      metadata: { creationTimestamp: null },
      status: { allowed: decision.allowed, ...(decision.reason === '' ? {} : { reason: decision.reason }) },
    },
  };
}

const RulesReviewSchema = z.looseObject({ spec: z.object({ namespace: z.string().optional() }).optional() });

/** SelfSubjectRulesReview (`kubectl auth can-i --list`): the rules that apply to the caller in a namespace. */
function rulesReview(ctx: HandlerContext): Answer {
  const review = parseBody(RulesReviewSchema, ctx.body, 'the SelfSubjectRulesReview');
  const namespace = review.spec?.namespace ?? '';
  // Without RBAC every request is allowed: everything, as for a cluster admin.
  const rules = ctx.rbac?.rulesFor(ctx.user, namespace) ?? {
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  };
  return {
    code: 201,
    body: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      metadata: { creationTimestamp: null },
      spec: { ...(namespace === '' ? {} : { namespace }) },
      status: { resourceRules: rules.resourceRules, nonResourceRules: rules.nonResourceRules, incomplete: false },
    },
  };
}

/** SelfSubjectReview (`kubectl auth whoami`): who the server takes the caller for (after impersonation). */
function selfReview(ctx: HandlerContext): Answer {
  return {
    code: 201,
    body: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
      metadata: { creationTimestamp: null },
      status: { userInfo: { username: ctx.user.name, groups: ctx.user.groups } },
    },
  };
}

/**
 * RBAC's escalation check on a Role/ClusterRole or binding about to be written: nobody grants what
 * they may not do themselves, unless they may `escalate` (roles) or `bind` (the role a binding names).
 * Only under RBAC; a cluster admin holds everything.
 */
function guardRbacWrite(ctx: HandlerContext, def: ResourceDef, object: KubeObject, namespace: string): void {
  const { rbac, user } = ctx;
  if (rbac === undefined || def.group !== RBAC_GROUP || user.groups.includes('system:masters')) return;
  const name = object.metadata.name ?? ctx.info.name;
  const scope = def.namespaced ? namespace : '';
  const may = (verb: string, resource: string, resourceName: string) =>
    rbac.authorize(user, {
      verb,
      isResourceRequest: true,
      path: '',
      apiGroup: RBAC_GROUP,
      resource,
      subresource: '',
      namespace: scope,
      name: resourceName,
    }).allowed;
  let rules: PolicyRule[];
  if (def.kind === 'Role' || def.kind === 'ClusterRole') {
    if (may('escalate', def.plural, name)) return;
    rules = Array.isArray(object['rules']) ? (object['rules'] as PolicyRule[]) : [];
  } else {
    const ref = (object['roleRef'] ?? {}) as { kind?: string; name?: string };
    const kind = ref.kind === 'Role' ? 'Role' : 'ClusterRole';
    if (may('bind', kind === 'Role' ? 'roles' : 'clusterroles', ref.name ?? '')) return;
    const referenced = rbac.roleRules(kind, ref.name ?? '', namespace);
    if (referenced === undefined)
      throw badRequest(`${kind === 'Role' ? 'roles' : 'clusterroles'}.${RBAC_GROUP} "${ref.name ?? ''}" not found`);
    rules = referenced;
  }
  const missing = rbac.notHeld(user, scope, rules);
  if (missing.length === 0) return;
  const groups = user.groups.map((g) => `"${g}"`).join(' ');
  const lines = missing.map((r) =>
    r.nonResourceURLs !== undefined
      ? `{NonResourceURLs:[${r.nonResourceURLs.map((u) => `"${u}"`).join(' ')}], Verbs:[${r.verbs.map((v) => `"${v}"`).join(' ')}]}`
      : `{APIGroups:[${(r.apiGroups ?? []).map((g) => `"${g}"`).join(' ')}], Resources:[${(r.resources ?? []).map((x) => `"${x}"`).join(' ')}]${r.resourceNames ? `, ResourceNames:[${r.resourceNames.map((n) => `"${n}"`).join(' ')}]` : ''}, Verbs:[${r.verbs.map((v) => `"${v}"`).join(' ')}]}`,
  );
  throw forbidden(
    `${def.plural}.${RBAC_GROUP} "${name}" is forbidden: user "${user.name}" (groups=[${groups}]) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`,
    { group: def.group, resource: def.plural },
    name,
  );
}
