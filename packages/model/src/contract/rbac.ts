// The Kubernetes RBAC the reconciler needs — docs/design.md §6, nothing more. The single source: the CDK
// construct applies it, `ec2-node-reconciler rbac` prints it, and the tests load it into the
// Kubernetes emulator in RBAC mode to prove it is sufficient.
import { stringify } from 'yaml';
import { PRODUCT_NAME } from './product.js';

/** The Kubernetes group the EKS access entry maps the reconciler's IAM role to. */
export const RECONCILER_GROUP = PRODUCT_NAME;
export const RBAC_NAME = PRODUCT_NAME;
export const LEASE_NAMESPACE = 'kube-node-lease';

export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
}

export const CLUSTER_RULES: readonly PolicyRule[] = [
  // observe nodes; cordon, taint and label them (patch); delete stale objects
  { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'patch', 'delete'] },
  // find the pods to drain and wait for them to go (one list by spec.nodeName per pass, never a GET per pod)
  { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
  // drain through the Eviction API so PodDisruptionBudgets hold
  { apiGroups: [''], resources: ['pods/eviction'], verbs: ['create'] },
  // tell a DaemonSet pod from an orphan, as kubectl drain does
  { apiGroups: ['apps'], resources: ['daemonsets'], verbs: ['get'] },
  // Kubernetes Events on the Node for every action and divergence; a repeat is counted on the one
  // Event (read, then patch count and lastTimestamp), as the kubelet does, not created anew
  { apiGroups: [''], resources: ['events'], verbs: ['create', 'get', 'patch'] },
];

/** Node heartbeats, readable only in their own namespace (a Role, not cluster-wide). */
export const LEASE_RULES: readonly PolicyRule[] = [
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list'] },
];

const labels = { 'app.kubernetes.io/name': PRODUCT_NAME };
const subjects = [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: RECONCILER_GROUP }];

/** The manifest as Kubernetes objects, in apply order. */
export function rbacManifests(): Record<string, unknown>[] {
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: RBAC_NAME, labels },
      rules: CLUSTER_RULES,
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: RBAC_NAME, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: RBAC_NAME },
      subjects,
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: RBAC_NAME, namespace: LEASE_NAMESPACE, labels },
      rules: LEASE_RULES,
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: RBAC_NAME, namespace: LEASE_NAMESPACE, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: RBAC_NAME },
      subjects,
    },
  ];
}

/** The manifest as multi-document YAML, ready for `kubectl apply -f -`. */
export function rbacYaml(): string {
  return rbacManifests()
    .map((doc) => stringify(doc))
    .join('---\n');
}
