// RBAC authorization from ClusterRole/ClusterRoleBinding/Role/RoleBinding manifests, with the
// rule matching of plugin/pkg/auth/authorizer/rbac. Tests use it to prove the project's RBAC
// manifest is enough (every reconciler call allowed) and minimal (nothing else is).
import { parseAllDocuments } from 'yaml';
import { z } from 'zod';
import type { UserInfo } from './auth.js';

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

export type Decision = { readonly allowed: boolean; readonly reason: string };

/** Bootstrap policy every real cluster has: discovery for everyone, self-reviews for users. */
const BOOTSTRAP: { role: string; rules: PolicyRule[]; groups: string[] }[] = [
  {
    role: 'system:discovery',
    rules: [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'] }],
    groups: ['system:authenticated'],
  },
  {
    role: 'system:basic-user',
    rules: [
      { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
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

export class RbacAuthorizer {
  private readonly clusterRoles = new Map<string, PolicyRule[]>();
  private readonly roles = new Map<string, PolicyRule[]>();
  private readonly bindings: Binding[] = [];

  /** Loads manifests: YAML text (multi-document) or already-parsed objects. Other kinds are ignored. */
  constructor(manifests: readonly (string | Record<string, unknown>)[] = []) {
    for (const manifest of manifests) {
      const docs = typeof manifest === 'string' ? parseAllDocuments(manifest).map((d) => d.toJSON() as unknown) : [manifest];
      for (const doc of docs) this.add(doc);
    }
  }

  add(doc: unknown): void {
    if (doc === null || typeof doc !== 'object') return;
    const kind = (doc as { kind?: unknown }).kind;
    if (kind === 'ClusterRole' || kind === 'Role') {
      const role = RoleSchema.parse(doc);
      const rules = role.rules ?? [];
      if (role.kind === 'ClusterRole') this.clusterRoles.set(role.metadata.name, rules);
      else this.roles.set(`${role.metadata.namespace ?? 'default'}/${role.metadata.name}`, rules);
    } else if (kind === 'ClusterRoleBinding' || kind === 'RoleBinding') {
      this.bindings.push(BindingSchema.parse(doc));
    } else if (kind === 'List' && Array.isArray((doc as { items?: unknown }).items)) {
      for (const item of (doc as { items: unknown[] }).items) this.add(item);
    }
  }

  authorize(user: UserInfo, attrs: RequestAttributes): Decision {
    if (user.groups.includes('system:masters')) return { allowed: true, reason: '' };
    for (const b of BOOTSTRAP) {
      if (b.groups.some((g) => user.groups.includes(g)) && b.rules.some((r) => ruleAllows(r, attrs))) return { allowed: true, reason: '' };
    }
    for (const binding of this.bindings) {
      if (!(binding.subjects ?? []).some((s) => subjectMatches(s, user, binding.metadata.namespace))) continue;
      if (binding.kind === 'RoleBinding') {
        // A RoleBinding grants only inside its own namespace.
        const ns = binding.metadata.namespace ?? 'default';
        if (!attrs.isResourceRequest || attrs.namespace !== ns) continue;
      }
      const rules =
        binding.roleRef.kind === 'ClusterRole'
          ? this.clusterRoles.get(binding.roleRef.name)
          : this.roles.get(`${binding.metadata.namespace ?? 'default'}/${binding.roleRef.name}`);
      if (rules?.some((r) => ruleAllows(r, attrs)) === true) {
        return { allowed: true, reason: `RBAC: allowed by ${binding.kind} "${binding.metadata.name}"` };
      }
    }
    return { allowed: false, reason: '' };
  }
}

function subjectMatches(subject: z.infer<typeof SubjectSchema>, user: UserInfo, bindingNamespace: string | undefined): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.name === user.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount':
      return user.name === `system:serviceaccount:${subject.namespace ?? bindingNamespace ?? 'default'}:${subject.name}`;
  }
}

const has = (list: readonly string[] | undefined, value: string): boolean => list !== undefined && (list.includes('*') || list.includes(value));

/** rbac.RuleAllows. */
export function ruleAllows(rule: PolicyRule, attrs: RequestAttributes): boolean {
  if (!has(rule.verbs, attrs.verb)) return false;
  if (!attrs.isResourceRequest) {
    return (rule.nonResourceURLs ?? []).some((u) => u === '*' || u === attrs.path || (u.endsWith('*') && attrs.path.startsWith(u.slice(0, -1))));
  }
  if (!has(rule.apiGroups, attrs.apiGroup)) return false;
  const combined = attrs.subresource === '' ? attrs.resource : `${attrs.resource}/${attrs.subresource}`;
  const resources = rule.resources ?? [];
  const resourceOk = resources.some((r) => r === '*' || r === combined || (attrs.subresource !== '' && r === `*/${attrs.subresource}`));
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
  return attrs.name === '' ? `${qualified} is forbidden: ${what}` : `${qualified} "${attrs.name}" is forbidden: ${what}`;
}
