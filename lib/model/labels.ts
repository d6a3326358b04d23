/** Keys the reconciler reads and writes on Nodes and instances, in one place. */
export const PREFIX = 'ec2-node-reconciler';
export const EXCLUDE_KEY = `${PREFIX}/exclude`;
export const DECOMMISSION_TAG = `${PREFIX}/decommission`;
export const CORDONED_BY_ANNOTATION = `${PREFIX}/cordoned-by`;
export const CORDON_REASON_ANNOTATION = `${PREFIX}/reason`;
export const CORDONED_AT_ANNOTATION = `${PREFIX}/at`;
/** The value of CORDONED_BY_ANNOTATION on cordons the reconciler made for a signal: the sweep may reverse them. */
export const CORDONED_BY_VALUE = PREFIX;
/**
 * The value of CORDONED_BY_ANNOTATION on cordons an operator made through the CLI (`drain`,
 * `decommission --now`): theirs, never reversed by a sweep. Earlier versions wrote CORDONED_BY_VALUE
 * for these too; such cordons still read as the reconciler's.
 */
export const CORDONED_BY_OPERATOR_VALUE = `${PREFIX}/operator`;
/** ISO time before which the reconciler keeps its cordon (the end of a maintenance window). */
export const CORDON_UNTIL_ANNOTATION = `${PREFIX}/until`;
/** The drain execution that owns the Node's current removal: one removal, one drain (DESIGN §2). */
export const DRAIN_ANNOTATION = `${PREFIX}/drain`;
/** ISO time: the governing drain deadline, which a later signal may bring forward (never back). */
export const DRAIN_DEADLINE_ANNOTATION = `${PREFIX}/drain-deadline`;
/** JSON LifecycleRef: an ASG lifecycle action handed over to the running drain, which completes it. */
export const LIFECYCLE_ANNOTATION = `${PREFIX}/lifecycle`;
export const SHUTDOWN_TAINT_KEY = 'node.cloudprovider.kubernetes.io/shutdown';
export const EXCLUDE_FROM_LB_LABEL = 'node.kubernetes.io/exclude-from-external-load-balancers';
export const CLUSTER_TAG_EKS = 'eks:cluster-name';
/** Karpenter's cluster tag on the instances it launches (beside kubernetes.io/cluster/<name>). */
export const CLUSTER_TAG_KARPENTER = 'eks:eks-cluster-name';
export const CLUSTER_OWNERSHIP_TAG_PREFIX = 'kubernetes.io/cluster/';
export const clusterOwnershipTag = (cluster: string): string => `${CLUSTER_OWNERSHIP_TAG_PREFIX}${cluster}`;
/** Auto Scaling tags every instance it launches with its group's name. */
export const AUTO_SCALING_GROUP_TAG = 'aws:autoscaling:groupName';
