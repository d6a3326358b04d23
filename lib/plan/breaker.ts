import type { Settings } from '@ec2-node-reconciler/model/contract/settings.js';

/**
 * How many Node deletions one run may make. A run that plans more deletes none: a wrong region,
 * wrong credentials or an EC2 outage that returns nothing looks exactly like "every machine is
 * gone". The percentage applies when the cluster size is known (sweeps); one deletion is always
 * allowed by it, so a small cluster can still lose one stale Node.
 */
export function deletionAllowance(settings: Settings, clusterNodeCount: number | undefined): number {
  if (clusterNodeCount === undefined) return settings.maxDeletions;
  const byPercent = Math.max(1, Math.floor((clusterNodeCount * settings.maxDeletionPercent) / 100));
  return Math.min(settings.maxDeletions, byPercent);
}
