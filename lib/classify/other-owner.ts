import {
  EKS_AUTO_MODE_COMPUTE_TYPE,
  EKS_COMPUTE_TYPE_LABEL,
  KARPENTER_DISRUPTED_TAINT,
  KARPENTER_NODEPOOL_LABEL,
  KARPENTER_NODEPOOL_TAG,
} from '@ec2-node-reconciler/model/contract/labels.js';
import type { Settings } from '@ec2-node-reconciler/model/contract/settings.js';
import type { InstanceView, NodeView } from '@ec2-node-reconciler/model/observation.js';
import type { NodeClaim } from './pair.js';

/**
 * Another system that manages Nodes and their machines end to end (docs/design.md §1c): it drains, cordons
 * and replaces them itself, so a second drain, cordon or lifecycle completion of ours would fight it.
 */
export interface OtherOwner {
  readonly owner: 'Karpenter' | 'EKS Auto Mode' | 'EKS hybrid nodes';
  /** What says so: the label, taint, tag or providerID. */
  readonly by: string;
}

type OwnerSettings = Pick<Settings, 'includeKarpenterNodes'>;

/**
 * The other system that owns the Node, or undefined when none does. EKS Auto Mode runs on Karpenter
 * (its Nodes carry Karpenter's label too) but is never ours to include; a Node Karpenter is
 * disrupting stays Karpenter's even when its Nodes are included, for Karpenter is draining it.
 */
export function otherOwnerOfNode(
  node: NodeView,
  claim: NodeClaim,
  instance: InstanceView | undefined,
  settings: OwnerSettings,
): OtherOwner | undefined {
  if (claim.kind === 'not-ec2' && claim.platform === 'eks-hybrid')
    return { owner: 'EKS hybrid nodes', by: `providerID ${node.providerID ?? ''}` };
  const computeType = node.labels[EKS_COMPUTE_TYPE_LABEL];
  if (computeType === EKS_AUTO_MODE_COMPUTE_TYPE)
    return { owner: 'EKS Auto Mode', by: `label ${EKS_COMPUTE_TYPE_LABEL}=${computeType}` };
  const disrupted = node.taints.find((t) => t.key === KARPENTER_DISRUPTED_TAINT);
  if (disrupted) return { owner: 'Karpenter', by: `taint ${KARPENTER_DISRUPTED_TAINT}:${disrupted.effect}` };
  if (settings.includeKarpenterNodes) return undefined;
  const pool = node.labels[KARPENTER_NODEPOOL_LABEL];
  if (pool !== undefined) return { owner: 'Karpenter', by: `label ${KARPENTER_NODEPOOL_LABEL}=${pool}` };
  return instance ? otherOwnerOfInstance(instance, settings) : undefined;
}

/** The other system that launched the instance, by its tags (Karpenter's NodePool tag), or undefined. */
export function otherOwnerOfInstance(instance: InstanceView, settings: OwnerSettings): OtherOwner | undefined {
  if (settings.includeKarpenterNodes) return undefined;
  const pool = instance.tags[KARPENTER_NODEPOOL_TAG];
  return pool !== undefined ? { owner: 'Karpenter', by: `instance tag ${KARPENTER_NODEPOOL_TAG}=${pool}` } : undefined;
}
