/** Keys the reconciler reads and writes on Nodes and instances, in one place. */
export const PREFIX = 'ec2-node-reconciler';
export const EXCLUDE_KEY = `${PREFIX}/exclude`;
export const DECOMMISSION_TAG = `${PREFIX}/decommission`;
export const CORDONED_BY_ANNOTATION = `${PREFIX}/cordoned-by`;
export const CORDON_REASON_ANNOTATION = `${PREFIX}/reason`;
export const CORDONED_AT_ANNOTATION = `${PREFIX}/at`;
/** The value of CORDONED_BY_ANNOTATION on cordons the reconciler made. */
export const CORDONED_BY_VALUE = PREFIX;
export const SHUTDOWN_TAINT_KEY = 'node.cloudprovider.kubernetes.io/shutdown';
export const EXCLUDE_FROM_LB_LABEL = 'node.kubernetes.io/exclude-from-external-load-balancers';
export const CLUSTER_TAG_EKS = 'eks:cluster-name';
export const clusterOwnershipTag = (cluster: string): string => `kubernetes.io/cluster/${cluster}`;
/**
 * Written on a Node by the event path when it starts or joins a drain (issue #12), read by the drain
 * step: the execution name of the drain that owns the removal…
 */
export const DRAIN_ANNOTATION = `${PREFIX}/drain`;
/** …the removal's governing deadline (ISO 8601), which may be earlier than the drain's input… */
export const DRAIN_DEADLINE_ANNOTATION = `${PREFIX}/drain-deadline`;
/** …and an ASG lifecycle action handed over to the running drain: JSON `{"group","hook","token"?}`. */
export const LIFECYCLE_ANNOTATION = `${PREFIX}/lifecycle`;
