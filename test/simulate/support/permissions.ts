// The stack's permissions one by one, as deployed: each (role, action) of the synthesized template's
// identity policies, and each (API group, resource, verb) of the shipped RBAC manifest; and the
// deployment or manifest with exactly one of them taken out, for the least-privilege witnesses.
import { roleKey } from '@ec2-node-reconciler/sandbox/aws/iam/index.js';
import type { NamedPolicy } from '@ec2-node-reconciler/sandbox/aws/iam/policy.js';
import { drainStepFunction } from '@ec2-node-reconciler/sandbox/deployed/deploy.js';
import type { Deployment, RoleSpec } from '@ec2-node-reconciler/sandbox/deployment/template.js';
import { rbacManifests } from '@ec2-node-reconciler/model/contract/rbac.js';

/** The stack's roles by what assumes them for what. */
export const ROLE_KINDS = ['events', 'sweep', 'drainStep', 'drainWorkflow', 'sweepSchedule'] as const;
export type RoleKind = (typeof ROLE_KINDS)[number];

export type Permission =
  | { readonly kind: 'iam'; readonly role: RoleKind; readonly action: string }
  | {
      readonly kind: 'rbac';
      /** `''` is the core group. */
      readonly apiGroup: string;
      readonly resource: string;
      readonly verb: string;
      /** The Role's namespace; undefined for the ClusterRole. */
      readonly namespace?: string;
    };

/** `iam events ec2:DescribeInstances`, `rbac core/pods/eviction create`, `rbac coordination.k8s.io/leases get in kube-node-lease`. */
export function permissionKey(p: Permission): string {
  if (p.kind === 'iam') return `iam ${p.role} ${p.action}`;
  const where = p.namespace === undefined ? '' : ` in ${p.namespace}`;
  return `rbac ${p.apiGroup === '' ? 'core' : p.apiGroup}/${p.resource} ${p.verb}${where}`;
}

/** Each role of the deployment by kind: the events function's (the queue's mapping), the sweep's (the schedule's target), the drain step's (the workflow's), the workflow's and the schedule's. Throws for a role of no kind. */
export function rolesByKind(deployment: Deployment): ReadonlyMap<RoleKind, RoleSpec> {
  const fnRole = (name: string | undefined) =>
    deployment.functions.find(
      (fn) => name !== undefined && (fn.name === name || fn.arn === name || name.endsWith(`:function:${fn.name}`)),
    )?.roleArn;
  const arns: Record<RoleKind, string | undefined> = {
    events: fnRole(deployment.eventSourceMappings[0]?.functionName),
    sweep: fnRole(deployment.schedules[0]?.targetArn),
    drainStep: drainStepFunction(deployment)?.roleArn,
    drainWorkflow: deployment.stateMachines[0]?.roleArn,
    sweepSchedule: deployment.schedules[0]?.roleArn,
  };
  const byKind = new Map<RoleKind, RoleSpec>();
  for (const kind of ROLE_KINDS) {
    const role = deployment.roles.find((r) => r.arn === arns[kind]);
    if (!role) throw new Error(`the deployment has no ${kind} role`);
    byKind.set(kind, role);
  }
  const unknown = deployment.roles.filter((r) => ![...byKind.values()].includes(r));
  if (unknown.length > 0)
    throw new Error(
      `roles of no known kind (give them a kind and witnesses): ${unknown.map((r) => r.logicalId).join(', ')}`,
    );
  return byKind;
}

/** The kind of the role a principal (role or session ARN) acts as. */
export function kindOfPrincipal(deployment: Deployment, principal: string): RoleKind | undefined {
  const key = roleKey(principal);
  for (const [kind, role] of rolesByKind(deployment)) if (key !== undefined && roleKey(role.arn) === key) return kind;
  return undefined;
}

const actionsOf = (policies: readonly NamedPolicy[]): string[] =>
  policies.flatMap((p) => p.document.Statement.filter((s) => s.Effect === 'Allow').flatMap((s) => s.Action ?? []));

/** Every (role, action) the deployed identity policies allow, once each. */
export function iamPermissions(deployment: Deployment): Permission[] {
  return [...rolesByKind(deployment)].flatMap(([role, spec]) =>
    [...new Set(actionsOf(spec.policies))].sort().map((action): Permission => ({ kind: 'iam', role, action })),
  );
}

interface ManifestRule {
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly verbs: readonly string[];
}
interface RoleManifest {
  readonly kind: string;
  readonly metadata: { readonly namespace?: string };
  readonly rules?: readonly ManifestRule[];
}

const isRole = (doc: Record<string, unknown>): boolean => doc.kind === 'ClusterRole' || doc.kind === 'Role';

/** One (group, resource, verb) per rule of a role, in the manifest's order. */
function atoms(role: RoleManifest): Permission[] {
  const namespace = role.kind === 'Role' ? role.metadata.namespace : undefined;
  return (role.rules ?? []).flatMap((rule) =>
    (rule.apiGroups ?? ['']).flatMap((apiGroup) =>
      (rule.resources ?? []).flatMap((resource) =>
        rule.verbs.map((verb): Permission => ({
          kind: 'rbac',
          apiGroup,
          resource,
          verb,
          ...(namespace ? { namespace } : {}),
        })),
      ),
    ),
  );
}

/** Every (API group, resource, verb) of the shipped manifest's ClusterRole and Role. */
export function rbacPermissions(manifests: readonly Record<string, unknown>[] = rbacManifests()): Permission[] {
  return manifests.filter(isRole).flatMap((doc) => atoms(doc as unknown as RoleManifest));
}

/** The deployment with `action` taken out of every statement of the `role`'s policies only (a policy two roles share stays whole for the other). */
export function withoutIamAction(role: RoleKind, action: string): (deployment: Deployment) => Deployment {
  const strip = (policy: NamedPolicy): NamedPolicy => ({
    ...policy,
    document: {
      ...policy.document,
      Statement: policy.document.Statement.map((s) =>
        s.Action ? { ...s, Action: s.Action.filter((a) => a !== action) } : s,
      ).filter((s) => s.Action === undefined || s.Action.length > 0),
    },
  });
  return (deployment) => {
    const target = rolesByKind(deployment).get(role);
    return {
      ...deployment,
      roles: deployment.roles.map((r) => (r === target ? { ...r, policies: r.policies.map(strip) } : r)),
    };
  };
}

/** The manifest with one (group, resource, verb) taken out of its role: each rule of that role rewritten one (group, resource) at a time. */
export function withoutRbacRule(
  removed: Permission,
): (manifests: Record<string, unknown>[]) => Record<string, unknown>[] {
  const same = (a: Permission, b: Permission) => permissionKey(a) === permissionKey(b);
  return (manifests) =>
    manifests.map((doc) => {
      if (!isRole(doc)) return doc;
      const kept = atoms(doc as unknown as RoleManifest).filter((atom) => !same(atom, removed));
      if (kept.length === atoms(doc as unknown as RoleManifest).length) return doc;
      const rules = new Map<string, { apiGroups: string[]; resources: string[]; verbs: string[] }>();
      for (const atom of kept) {
        if (atom.kind !== 'rbac') continue;
        const key = JSON.stringify([atom.apiGroup, atom.resource]);
        const rule = rules.get(key) ?? { apiGroups: [atom.apiGroup], resources: [atom.resource], verbs: [] };
        rule.verbs.push(atom.verb);
        rules.set(key, rule);
      }
      return { ...doc, rules: [...rules.values()] };
    });
}
