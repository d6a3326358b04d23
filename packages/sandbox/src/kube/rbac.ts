// RBAC authorization from ClusterRole/ClusterRoleBinding/Role/RoleBinding manifests, with the
// rule matching of plugin/pkg/auth/authorizer/rbac. Tests use it to prove the project's RBAC
// manifest is enough (every reconciler call allowed) and minimal (nothing else is).
import { parseAllDocuments } from 'yaml';
import * as z from 'zod';
import type { UserInfo } from './auth.js';
import type { KubeObject } from './types.js';

const RuleSchema = z.object({
  verbs: z.array(z.string()),
  apiGroups: z.array(z.string()).optional(),
  resources: z.array(z.string()).optional(),
  resourceNames: z.array(z.string()).optional(),
  nonResourceURLs: z.array(z.string()).optional(),
});
export type PolicyRule = z.infer<typeof RuleSchema>;

const MetaSchema = z.looseObject({ name: z.string(), namespace: z.string().optional() });
const RoleSchema = z.looseObject({
  apiVersion: z.literal('rbac.authorization.k8s.io/v1'),
  kind: z.enum(['ClusterRole', 'Role']),
  metadata: MetaSchema,
  rules: z.array(RuleSchema).nullish(),
});
const SubjectSchema = z.object({
  kind: z.enum(['User', 'Group', 'ServiceAccount']),
  name: z.string(),
  namespace: z.string().optional(),
  apiGroup: z.string().optional(),
});
const BindingSchema = z.looseObject({
  apiVersion: z.literal('rbac.authorization.k8s.io/v1'),
  kind: z.enum(['ClusterRoleBinding', 'RoleBinding']),
  metadata: MetaSchema,
  roleRef: z.object({ kind: z.enum(['ClusterRole', 'Role']), name: z.string(), apiGroup: z.string().optional() }),
  subjects: z.array(SubjectSchema).nullish(),
});
type Binding = z.infer<typeof BindingSchema>;

/** What a request asks to do (k8s.io/apiserver authorizer.Attributes). */
export type RequestAttributes = {
  readonly verb: string;
  readonly isResourceRequest: boolean;
  readonly path: string;
  readonly apiGroup: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
};

export type RbacDecision = { readonly allowed: boolean; readonly reason: string };

/** Bootstrap policy every real cluster has: discovery for everyone, self-reviews for users. */
const BOOTSTRAP: { role: string; rules: PolicyRule[]; groups: string[] }[] = [
  {
    role: 'system:discovery',
    rules: [
      {
        verbs: ['get'],
        nonResourceURLs: [
          '/api',
          '/api/*',
          '/apis',
          '/apis/*',
          '/healthz',
          '/livez',
          '/openapi',
          '/openapi/*',
          '/readyz',
          '/version',
          '/version/',
        ],
      },
    ],
    groups: ['system:authenticated'],
  },
  {
    role: 'system:basic-user',
    rules: [
      {
        verbs: ['create'],
        apiGroups: ['authorization.k8s.io'],
        resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
      },
      { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'] },
    ],
    groups: ['system:authenticated'],
  },
  {
    role: 'system:public-info-viewer',
    rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'] }],
    groups: ['system:authenticated', 'system:unauthenticated'],
  },
];

/** Roles and bindings, parsed. */
type Policy = { clusterRoles: Map<string, PolicyRule[]>; roles: Map<string, PolicyRule[]>; bindings: Binding[] };

/**
 * Where the authorizer reads roles and bindings from: the served RBAC objects (the store), whose
 * version changes when one of them does.
 */
export interface RbacSource {
  version(): number;
  objects(): Iterable<unknown>;
}

/** What a user may do in a namespace (`''`: cluster-wide rules only), as a SelfSubjectRulesReview says. */
export type SubjectRules = {
  readonly resourceRules: PolicyRule[];
  readonly nonResourceRules: PolicyRule[];
};

/** A rule broken down to one verb, group, resource and name (or URL): what escalation checks compare (rbac/validation BreakdownRule). */
type AtomicRule = {
  verb: string;
  apiGroup?: string;
  resource?: string;
  resourceName?: string;
  nonResourceURL?: string;
};

/** Everything, as the cluster-admin ClusterRole grants it (what system:masters holds). */
const CLUSTER_ADMIN: SubjectRules = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
};

export class RbacAuthorizer {
  private readonly fixed: Policy | undefined;
  private readonly source?: RbacSource;
  private cached: { version: number; policy: Policy } | undefined;

  /**
   * Loads manifests (YAML text, multi-document, or parsed objects; other kinds are ignored), or reads
   * them from `source` on every decision (the served objects).
   */
  constructor(manifests: readonly (string | Record<string, unknown>)[] | RbacSource = []) {
    if (isSource(manifests)) {
      this.source = manifests;
      this.fixed = undefined;
      return;
    }
    const docs: unknown[] = [];
    for (const manifest of manifests)
      docs.push(
        ...(typeof manifest === 'string' ? parseAllDocuments(manifest).map((d) => d.toJSON() as unknown) : [manifest]),
      );
    this.fixed = parsePolicy(docs);
  }

  private policy(): Policy {
    if (this.fixed !== undefined || this.source === undefined) return this.fixed ?? parsePolicy([]);
    const version = this.source.version();
    if (this.cached?.version !== version) this.cached = { version, policy: parsePolicy(this.source.objects()) };
    return this.cached.policy;
  }

  authorize(user: UserInfo, attrs: RequestAttributes): RbacDecision {
    if (user.groups.includes('system:masters')) return { allowed: true, reason: '' };
    for (const b of BOOTSTRAP) {
      if (b.groups.some((g) => user.groups.includes(g)) && b.rules.some((r) => ruleAllows(r, attrs)))
        return { allowed: true, reason: '' };
    }
    const policy = this.policy();
    for (const { binding, rules } of boundRules(policy, user)) {
      if (binding.kind === 'RoleBinding') {
        // A RoleBinding grants only inside its own namespace.
        const ns = binding.metadata.namespace ?? 'default';
        if (!attrs.isResourceRequest || attrs.namespace !== ns) continue;
      }
      if (rules.some((r) => ruleAllows(r, attrs))) {
        return {
          allowed: true,
          reason: `RBAC: allowed by ${binding.kind} "${binding.metadata.name}" of ${binding.roleRef.kind} "${binding.roleRef.name}" to ${subjectText(binding, user)}`,
        };
      }
    }
    return { allowed: false, reason: '' };
  }

  /**
   * The rules that apply to `user` in `namespace` (ClusterRoleBindings everywhere, RoleBindings of
   * that namespace, the bootstrap roles): a SelfSubjectRulesReview's answer.
   */
  rulesFor(user: UserInfo, namespace: string): SubjectRules {
    if (user.groups.includes('system:masters')) return CLUSTER_ADMIN;
    const resourceRules: PolicyRule[] = [];
    const nonResourceRules: PolicyRule[] = [];
    const add = (rule: PolicyRule) => {
      if ((rule.nonResourceURLs ?? []).length > 0)
        nonResourceRules.push({ verbs: rule.verbs, nonResourceURLs: rule.nonResourceURLs ?? [] });
      if ((rule.resources ?? []).length > 0) resourceRules.push(withoutNonResource(rule));
    };
    for (const b of BOOTSTRAP) if (b.groups.some((g) => user.groups.includes(g))) b.rules.forEach(add);
    for (const { binding, rules } of boundRules(this.policy(), user)) {
      if (binding.kind === 'RoleBinding' && (binding.metadata.namespace ?? 'default') !== namespace) continue;
      // Rules bound in a namespace carry no non-resource URLs (a RoleBinding cannot grant them).
      rules.forEach((rule) =>
        binding.kind === 'RoleBinding'
          ? (rule.resources ?? []).length > 0 && resourceRules.push(withoutNonResource(rule))
          : add(rule),
      );
    }
    return { resourceRules, nonResourceRules };
  }

  /**
   * The rules of the role a binding refers to (`Role` in `namespace`, or `ClusterRole`), or undefined
   * when it does not exist.
   */
  roleRules(kind: 'Role' | 'ClusterRole', name: string, namespace: string): PolicyRule[] | undefined {
    const policy = this.policy();
    return kind === 'ClusterRole' ? policy.clusterRoles.get(name) : policy.roles.get(`${namespace}/${name}`);
  }

  /**
   * The rules among `rules` that `user` does not hold in `namespace` (`''`: cluster-wide): RBAC's
   * escalation check, which refuses to let anyone grant what they may not do themselves
   * (rbac/validation ConfirmNoEscalation). Empty: nothing would be escalated.
   */
  notHeld(user: UserInfo, namespace: string, rules: readonly PolicyRule[]): PolicyRule[] {
    const held = this.rulesFor(user, namespace);
    const owner = [...held.resourceRules, ...held.nonResourceRules];
    const missing = rules.flatMap(breakdown).filter((atomic) => !owner.some((rule) => covers(rule, atomic)));
    return missing.map((a): PolicyRule =>
      a.nonResourceURL !== undefined
        ? { verbs: [a.verb], nonResourceURLs: [a.nonResourceURL] }
        : {
            verbs: [a.verb],
            apiGroups: [a.apiGroup ?? ''],
            resources: [a.resource ?? ''],
            ...(a.resourceName === undefined ? {} : { resourceNames: [a.resourceName] }),
          },
    );
  }
}

/** The ClusterRoles, Roles and bindings among manifests (YAML text, multi-document, or objects; Lists unwrapped), as objects to store. */
export function rbacObjects(manifests: readonly (string | Record<string, unknown>)[]): KubeObject[] {
  const out: KubeObject[] = [];
  const add = (doc: unknown): void => {
    if (doc === null || typeof doc !== 'object') return;
    const kind = (doc as { kind?: unknown }).kind;
    if (kind === 'List' && Array.isArray((doc as { items?: unknown }).items))
      (doc as { items: unknown[] }).items.forEach(add);
    else if (kind === 'ClusterRole' || kind === 'Role') out.push(RoleSchema.parse(doc));
    else if (kind === 'ClusterRoleBinding' || kind === 'RoleBinding') out.push(BindingSchema.parse(doc));
  };
  for (const manifest of manifests)
    (typeof manifest === 'string' ? parseAllDocuments(manifest).map((d) => d.toJSON() as unknown) : [manifest]).forEach(
      add,
    );
  return out;
}

const isSource = (value: unknown): value is RbacSource =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && 'objects' in value && 'version' in value;

function withoutNonResource(rule: PolicyRule): PolicyRule {
  const { nonResourceURLs: _urls, ...rest } = rule;
  return rest;
}

/** Roles and bindings from objects; other kinds, and objects that do not parse, are left out (as the API server would never have stored them). */
function parsePolicy(docs: Iterable<unknown>): Policy {
  const policy: Policy = { clusterRoles: new Map(), roles: new Map(), bindings: [] };
  const add = (doc: unknown): void => {
    if (doc === null || typeof doc !== 'object') return;
    const kind = (doc as { kind?: unknown }).kind;
    if (kind === 'ClusterRole' || kind === 'Role') {
      const role = RoleSchema.safeParse(doc);
      if (!role.success) return;
      const rules = role.data.rules ?? [];
      if (role.data.kind === 'ClusterRole') policy.clusterRoles.set(role.data.metadata.name, rules);
      else policy.roles.set(`${role.data.metadata.namespace ?? 'default'}/${role.data.metadata.name}`, rules);
    } else if (kind === 'ClusterRoleBinding' || kind === 'RoleBinding') {
      const binding = BindingSchema.safeParse(doc);
      if (binding.success) policy.bindings.push(binding.data);
    } else if (kind === 'List' && Array.isArray((doc as { items?: unknown }).items)) {
      for (const item of (doc as { items: unknown[] }).items) add(item);
    }
  };
  for (const doc of docs) add(doc);
  return policy;
}

/** Each binding naming the user, with the rules of the role it refers to (none when the role does not exist). */
function* boundRules(policy: Policy, user: UserInfo): Generator<{ binding: Binding; rules: PolicyRule[] }> {
  for (const binding of policy.bindings) {
    if (!(binding.subjects ?? []).some((s) => subjectMatches(s, user, binding.metadata.namespace))) continue;
    const rules =
      binding.roleRef.kind === 'ClusterRole'
        ? policy.clusterRoles.get(binding.roleRef.name)
        : policy.roles.get(`${binding.metadata.namespace ?? 'default'}/${binding.roleRef.name}`);
    if (rules !== undefined) yield { binding, rules };
  }
}

function subjectText(binding: Binding, user: UserInfo): string {
  const subject = (binding.subjects ?? []).find((s) => subjectMatches(s, user, binding.metadata.namespace));
  return subject === undefined ? 'the user' : `${subject.kind} "${subject.name}"`;
}

/** One rule per verb × group × resource × name, or verb × URL. */
function breakdown(rule: PolicyRule): AtomicRule[] {
  const out: AtomicRule[] = [];
  for (const verb of rule.verbs) {
    for (const url of rule.nonResourceURLs ?? []) out.push({ verb, nonResourceURL: url });
    for (const apiGroup of rule.apiGroups ?? []) {
      for (const resource of rule.resources ?? []) {
        const names = rule.resourceNames ?? [];
        if (names.length === 0) out.push({ verb, apiGroup, resource });
        else for (const resourceName of names) out.push({ verb, apiGroup, resource, resourceName });
      }
    }
  }
  return out;
}

/** Whether `owner` grants all of `atomic` (rbac/validation ruleCovers: a `*` is covered only by a `*`). */
function covers(owner: PolicyRule, atomic: AtomicRule): boolean {
  if (!has(owner.verbs, atomic.verb)) return false;
  if (atomic.nonResourceURL !== undefined) {
    return (owner.nonResourceURLs ?? []).some(
      (u) =>
        u === '*' ||
        u === atomic.nonResourceURL ||
        (u.endsWith('*') && atomic.nonResourceURL?.startsWith(u.slice(0, -1)) === true),
    );
  }
  if (!has(owner.apiGroups, atomic.apiGroup ?? '')) return false;
  const resource = atomic.resource ?? '';
  const [main, sub] = resource.split('/');
  const resourceOk = (owner.resources ?? []).some(
    (r) => r === '*' || r === resource || (sub !== undefined && (r === `${main ?? ''}/*` || r === `*/${sub}`)),
  );
  if (!resourceOk) return false;
  const names = owner.resourceNames ?? [];
  return names.length === 0 || (atomic.resourceName !== undefined && names.includes(atomic.resourceName));
}

function subjectMatches(
  subject: z.infer<typeof SubjectSchema>,
  user: UserInfo,
  bindingNamespace: string | undefined,
): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.name === user.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount':
      return (
        user.name === `system:serviceaccount:${subject.namespace ?? bindingNamespace ?? 'default'}:${subject.name}`
      );
  }
}

const has = (list: readonly string[] | undefined, value: string): boolean =>
  list !== undefined && (list.includes('*') || list.includes(value));

/** rbac.RuleAllows. */
export function ruleAllows(rule: PolicyRule, attrs: RequestAttributes): boolean {
  if (!has(rule.verbs, attrs.verb)) return false;
  if (!attrs.isResourceRequest) {
    return (rule.nonResourceURLs ?? []).some(
      (u) => u === '*' || u === attrs.path || (u.endsWith('*') && attrs.path.startsWith(u.slice(0, -1))),
    );
  }
  if (!has(rule.apiGroups, attrs.apiGroup)) return false;
  const combined = attrs.subresource === '' ? attrs.resource : `${attrs.resource}/${attrs.subresource}`;
  const resources = rule.resources ?? [];
  const resourceOk = resources.some(
    (r) => r === '*' || r === combined || (attrs.subresource !== '' && r === `*/${attrs.subresource}`),
  );
  if (!resourceOk) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || (attrs.name !== '' && names.includes(attrs.name));
}

/** The message of the 403 the API server sends (apiserver/pkg/endpoints/handlers/responsewriters forbiddenMessage). */
export function forbiddenMessage(user: UserInfo, attrs: RequestAttributes): string {
  if (!attrs.isResourceRequest) return `forbidden: User "${user.name}" cannot ${attrs.verb} path "${attrs.path}"`;
  const resource = attrs.subresource === '' ? attrs.resource : `${attrs.resource}/${attrs.subresource}`;
  const scope = attrs.namespace === '' ? 'at the cluster scope' : `in the namespace "${attrs.namespace}"`;
  const what = `User "${user.name}" cannot ${attrs.verb} resource "${resource}" in API group "${attrs.apiGroup}" ${scope}`;
  const qualified = attrs.apiGroup === '' ? attrs.resource : `${attrs.resource}.${attrs.apiGroup}`;
  return attrs.name === ''
    ? `${qualified} is forbidden: ${what}`
    : `${qualified} "${attrs.name}" is forbidden: ${what}`;
}
