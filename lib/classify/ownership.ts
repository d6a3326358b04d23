import {
  AUTO_SCALING_GROUP_TAG,
  CLUSTER_OWNERSHIP_TAG_PREFIX,
  CLUSTER_TAG_EKS,
  CLUSTER_TAG_KARPENTER,
  clusterOwnershipTag,
} from '@ec2-node-reconciler/model/contract/labels.js';
import type { InstanceView } from '@ec2-node-reconciler/model/observation.js';

/**
 * Whose machine an instance is (docs/design.md §1a), from its own tags:
 * - `ours`: tagged for this cluster (`eks:cluster-name`, `kubernetes.io/cluster/<name>`,
 *   Karpenter's `eks:eks-cluster-name`) or in one of the configured Auto Scaling groups;
 * - `foreign`: tagged for another cluster and not for this one;
 * - `unmarked`: neither. Such an instance is this cluster's only when one of its Nodes names it by
 *   providerID or by an instance-id hostname; a name-only (private DNS) match is not enough.
 */
export type Ownership =
  | { readonly kind: 'ours'; readonly by: string }
  | { readonly kind: 'foreign'; readonly by: string }
  | { readonly kind: 'unmarked' };

export interface OwnershipContext {
  readonly clusterName: string;
  /** Auto Scaling groups configured as this cluster's (the deployment's autoScalingGroupNames). */
  readonly ownGroups?: readonly string[];
}

export function ownershipOf(instance: InstanceView, ctx: OwnershipContext): Ownership {
  const { tags } = instance;
  const cluster = ctx.clusterName;
  if (tags[CLUSTER_TAG_EKS] === cluster) return { kind: 'ours', by: `tag ${CLUSTER_TAG_EKS}=${cluster}` };
  if (tags[clusterOwnershipTag(cluster)] !== undefined)
    return { kind: 'ours', by: `tag ${clusterOwnershipTag(cluster)}` };
  if (tags[CLUSTER_TAG_KARPENTER] === cluster) return { kind: 'ours', by: `tag ${CLUSTER_TAG_KARPENTER}=${cluster}` };
  const group = instance.autoScaling?.group ?? tags[AUTO_SCALING_GROUP_TAG];
  if (group !== undefined && ctx.ownGroups?.includes(group)) return { kind: 'ours', by: `Auto Scaling group ${group}` };

  const other = tags[CLUSTER_TAG_EKS] ?? tags[CLUSTER_TAG_KARPENTER];
  if (other !== undefined)
    return {
      kind: 'foreign',
      by: `tag ${tags[CLUSTER_TAG_EKS] !== undefined ? CLUSTER_TAG_EKS : CLUSTER_TAG_KARPENTER}=${other}`,
    };
  const otherKey = Object.keys(tags).find((key) => key.startsWith(CLUSTER_OWNERSHIP_TAG_PREFIX));
  if (otherKey !== undefined) return { kind: 'foreign', by: `tag ${otherKey}` };
  return { kind: 'unmarked' };
}
