// The RBAC the API server applies to the reconciler: every verb of the manifest (packages/model/src/contract/rbac.ts),
// asked as the identity a function role is taken for (SelfSubjectAccessReview, impersonating it),
// so a ClusterRole missing a verb, a binding to another group or an entry in the wrong group shows.
import {
  CLUSTER_RULES,
  LEASE_NAMESPACE,
  LEASE_RULES,
  RECONCILER_GROUP,
  type PolicyRule,
} from '@ec2-node-reconciler/model/contract/rbac.js';
import { couldNotRead, failed, passed, type Check, type Read } from './check.js';

/** One permission, as a SelfSubjectAccessReview's resourceAttributes ask for it. */
export interface KubePermission {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly subresource?: string;
  /** Undefined: cluster-wide (every namespace). */
  readonly namespace?: string;
}

function permissionsOf(rules: readonly PolicyRule[], namespace?: string): KubePermission[] {
  return rules.flatMap((rule) =>
    rule.apiGroups.flatMap((group) =>
      rule.resources.flatMap((resource) => {
        const [name = resource, subresource] = resource.split('/');
        return rule.verbs.map((verb): KubePermission => ({
          verb,
          group,
          resource: name,
          ...(subresource !== undefined ? { subresource } : {}),
          ...(namespace !== undefined ? { namespace } : {}),
        }));
      }),
    ),
  );
}

/** Every permission the manifest grants, which is every one the reconciler uses. */
export function requiredPermissions(): KubePermission[] {
  return [...permissionsOf(CLUSTER_RULES), ...permissionsOf(LEASE_RULES, LEASE_NAMESPACE)];
}

/**
 * How `kubectl auth can-i` asks for it, ready to paste: `create pods --subresource=eviction`,
 * `list leases.coordination.k8s.io -n kube-node-lease` (`pods/eviction` would ask about the pod
 * named `eviction`). docs/operations.md's check by hand asks exactly these.
 */
export function describePermission(p: KubePermission): string {
  const resource = `${p.resource}${p.group === '' ? '' : `.${p.group}`}`;
  const subresource = p.subresource !== undefined ? ` --subresource=${p.subresource}` : '';
  return `${p.verb} ${resource}${subresource}${p.namespace !== undefined ? ` -n ${p.namespace}` : ''}`;
}

export interface AccessReview {
  readonly allowed: boolean;
  /** The authorizer's reason, when it gives one. */
  readonly reason?: string;
}

/**
 * RBAC as the identity (or identities: several roles taken for the same groups are one check) sees
 * it: passed when every permission is allowed; failed naming the ones refused, with the manifest to
 * apply; unknown when the reviews could not be made (impersonating needs the `impersonate` verb).
 */
export function checkRbac(input: {
  readonly subject: string;
  readonly identity: { readonly user: string; readonly groups: readonly string[] };
  readonly reviews: readonly { readonly permission: KubePermission; readonly review: Read<AccessReview> }[];
}): Check {
  const groups = input.identity.groups.join(', ');
  const failedRead = input.reviews.find((r) => !r.review.ok);
  if (failedRead !== undefined && !failedRead.review.ok)
    return couldNotRead(
      'rbac',
      input.subject,
      failedRead.review.error,
      `create on selfsubjectaccessreviews and impersonate on users and groups (kubectl auth can-i impersonate groups)`,
    );
  const denied = input.reviews
    .filter((r) => r.review.ok && !r.review.value.allowed)
    .map((r) => describePermission(r.permission));
  if (denied.length > 0)
    return failed(
      'rbac',
      input.subject,
      `as groups ${groups}: denied ${denied.join(', ')}`,
      groups.split(', ').includes(RECONCILER_GROUP)
        ? 'apply the manifest: npx ec2-node-reconciler rbac | kubectl apply -f -'
        : `the identity is not in ${RECONCILER_GROUP} (see its access entry), and the manifest binds that group: npx ec2-node-reconciler rbac | kubectl apply -f -`,
    );
  return passed(
    'rbac',
    input.subject,
    `as groups ${groups}: all ${input.reviews.length} permissions of the manifest allowed`,
  );
}
