/**
 * Keys the reconciler reads and writes on Nodes and instances, in one place: operators and other
 * tools set and read them too (the exclude label, the decommission tag, the cordon's annotations).
 */
import { PRODUCT_NAME } from './product.js';

/** Every key of the reconciler's own starts with it (`<prefix>/exclude`, `<prefix>/drain`, …). */
export const LABEL_PREFIX = PRODUCT_NAME;
export const EXCLUDE_KEY = `${LABEL_PREFIX}/exclude`;
export const DECOMMISSION_TAG = `${LABEL_PREFIX}/decommission`;
export const CORDONED_BY_ANNOTATION = `${LABEL_PREFIX}/cordoned-by`;
/**
 * The field manager every Kubernetes write of ours names (`?fieldManager=`): the Node's managedFields
 * then say whether the cordon it carries is the one we wrote, or one someone wrote after ours went.
 */
export const FIELD_MANAGER = PRODUCT_NAME;
export const CORDON_REASON_ANNOTATION = `${LABEL_PREFIX}/reason`;
export const CORDONED_AT_ANNOTATION = `${LABEL_PREFIX}/at`;
/** The value of CORDONED_BY_ANNOTATION on cordons the reconciler made for a signal: the sweep may reverse them. */
export const CORDONED_BY_VALUE = LABEL_PREFIX;
/**
 * The value of CORDONED_BY_ANNOTATION on cordons an operator made through the CLI (`drain`,
 * `decommission --now`): theirs, never reversed by a sweep. Earlier versions wrote CORDONED_BY_VALUE
 * for these too; such cordons still read as the reconciler's.
 */
export const CORDONED_BY_OPERATOR_VALUE = `${LABEL_PREFIX}/operator`;
/** ISO time before which the reconciler keeps its cordon (the end of a maintenance window). */
export const CORDON_UNTIL_ANNOTATION = `${LABEL_PREFIX}/until`;
/** The drain execution that owns the Node's current removal: one removal, one drain (docs/design.md §2). */
export const DRAIN_ANNOTATION = `${LABEL_PREFIX}/drain`;
/** ISO time: the governing drain deadline, which a later signal may bring forward (never back). */
export const DRAIN_DEADLINE_ANNOTATION = `${LABEL_PREFIX}/drain-deadline`;
/** JSON `{group, hook}`: an ASG lifecycle action handed over to the running drain, which completes it (by instance id: no token on a Node). */
export const LIFECYCLE_ANNOTATION = `${LABEL_PREFIX}/lifecycle`;
/** ISO time the drain record was made: a drain that has not started yet is not taken over before it has had time to. */
export const DRAIN_AT_ANNOTATION = `${LABEL_PREFIX}/drain-at`;
/** What the recorded drain was for: `removal`, `maintenance`, `manual` (the operator's CLI drain) or `repair`. */
export const DRAIN_FOR_ANNOTATION = `${LABEL_PREFIX}/drain-for`;
/** ISO LaunchTime of the instance when its drain was recorded: a machine started since is a new life, with new removals. */
export const DRAIN_LAUNCH_ANNOTATION = `${LABEL_PREFIX}/drain-launch`;
/** How the recorded drain ended (the drain step writes it): `cancelled-by-uncordon` leaves the lifecycle action to the operator. */
export const DRAIN_OUTCOME_ANNOTATION = `${LABEL_PREFIX}/drain-outcome`;
/**
 * ISO time the drain record was last renewed: its drain renews it about every minute while it runs,
 * and a record not renewed for RECORD_TTL is dead (lib/plan/drain-liveness.ts). The claim writes it first.
 */
export const DRAIN_RENEWED_ANNOTATION = `${LABEL_PREFIX}/drain-renewed`;
/**
 * Integer ≥ 1, absent = 0: which chained execution of the recorded drain runs now; Step Functions is
 * asked about chainExecutionName(record, chain) (packages/model/src/contract/drain-workflow.ts).
 */
export const DRAIN_CHAIN_ANNOTATION = `${LABEL_PREFIX}/drain-chain`;
/** Every annotation of a drain record, which go together. */
export const DRAIN_RECORD_ANNOTATIONS = [
  DRAIN_ANNOTATION,
  DRAIN_DEADLINE_ANNOTATION,
  LIFECYCLE_ANNOTATION,
  DRAIN_AT_ANNOTATION,
  DRAIN_FOR_ANNOTATION,
  DRAIN_LAUNCH_ANNOTATION,
  DRAIN_OUTCOME_ANNOTATION,
  DRAIN_RENEWED_ANNOTATION,
  DRAIN_CHAIN_ANNOTATION,
] as const;
/** Execution names of drains the CLI runs in-process: not Step Functions executions; running while they renew their record. */
export const LOCAL_DRAIN_PREFIX = 'local-';
export const SHUTDOWN_TAINT_KEY = 'node.cloudprovider.kubernetes.io/shutdown';
export const EXCLUDE_FROM_LB_LABEL = 'node.kubernetes.io/exclude-from-external-load-balancers';
export const CLUSTER_TAG_EKS = 'eks:cluster-name';
/** Karpenter's cluster tag on the instances it launches (beside kubernetes.io/cluster/<name>). */
export const CLUSTER_TAG_KARPENTER = 'eks:eks-cluster-name';
export const CLUSTER_OWNERSHIP_TAG_PREFIX = 'kubernetes.io/cluster/';
export const clusterOwnershipTag = (cluster: string): string => `${CLUSTER_OWNERSHIP_TAG_PREFIX}${cluster}`;
/** Auto Scaling tags every instance it launches with its group's name. */
export const AUTO_SCALING_GROUP_TAG = 'aws:autoscaling:groupName';

/**
 * On an Auto Scaling group: the repair back-off's record (docs/design.md §1b), the times of the group's failed
 * replacements (repairs of machines it had launched less than repair.failureWindow before), oldest
 * first, as `2026-11-29T12:00Z` separated by spaces. A tag, not a Kubernetes object: it must outlive
 * every Node of the group, and it is where an operator looks at a group and clears its state
 * (REPAIR_BACK_OFF_CLEAR_COMMAND). Not propagated to instances.
 */
export const REPAIR_FAILURES_TAG = `${LABEL_PREFIX}/repair-failures`;

/** The command that clears a group's repair back-off; `{group}` is filled in. */
export const REPAIR_BACK_OFF_CLEAR_COMMAND = `aws autoscaling delete-tags --tags ResourceId={group},ResourceType=auto-scaling-group,Key=${REPAIR_FAILURES_TAG}`;

/** Karpenter's label on the Nodes it launches: the NodePool they belong to (docs/design.md §1c: Karpenter's, not ours). */
export const KARPENTER_NODEPOOL_LABEL = 'karpenter.sh/nodepool';
/** Karpenter tags the instances it launches with their NodePool too. */
export const KARPENTER_NODEPOOL_TAG = KARPENTER_NODEPOOL_LABEL;
/** The taint Karpenter puts on a Node it is disrupting (draining, then terminating): its drain, never a second one. */
export const KARPENTER_DISRUPTED_TAINT = 'karpenter.sh/disrupted';
/** EKS's label of how a Node is run: `auto` for EKS Auto Mode's, `fargate`, `hybrid`. */
export const EKS_COMPUTE_TYPE_LABEL = 'eks.amazonaws.com/compute-type';
export const EKS_AUTO_MODE_COMPUTE_TYPE = 'auto';
/**
 * The Availability Zone of a Node's machine: the cloud provider labels every Node it initializes
 * (and kubelets on EC2 self-label) with their machine's zone.
 */
export const ZONE_LABEL = 'topology.kubernetes.io/zone';
