import type { AutoScalingAdapter } from '../aws/autoscaling.js';
import type { DrainLauncher } from '../aws/drain-launcher.js';
import type { Ec2Adapter } from '../aws/ec2.js';
import type { NodeFinder } from '../kube/find-node.js';
import type { LeaseClient } from '../kube/leases.js';
import type { NodeClient } from '../kube/nodes.js';
import type { Clock } from '@ec2-node-reconciler/model/clock.js';
import type { Settings } from '@ec2-node-reconciler/model/contract/settings.js';
import type { TerminateHookCache } from './terminate-hook-cache.js';

/** What observing needs: reads only, the slice of each adapter it calls. */
export interface ObserveDeps {
  readonly clusterName: string;
  /** Auto Scaling groups configured as this cluster's (beside its cluster tags). */
  readonly ownGroups?: readonly string[];
  /** The terminate lifecycle hooks the reconciler drains for and completes (the deployment's lifecycleHookNames); any, when absent. */
  readonly ownHooks?: readonly string[];
  /** A warm container's recent reads of groups' terminate hooks (the event path's); read afresh when absent. */
  readonly terminateHookCache?: TerminateHookCache;
  readonly settings: Settings;
  readonly clock: Clock;
  readonly nodes: Pick<NodeClient, 'listNodes'>;
  readonly leases: Pick<LeaseClient, 'listLeases' | 'getLease'>;
  readonly finder: Pick<NodeFinder, 'find' | 'hint' | 'read'>;
  readonly ec2: Pick<
    Ec2Adapter,
    'describeByIds' | 'describeClusterInstances' | 'describeByPrivateDnsNames' | 'scheduledEvents'
  >;
  readonly autoScaling: Pick<AutoScalingAdapter, 'describeGroups' | 'warmPoolMembers' | 'terminateHooks'>;
  readonly drains: Pick<DrainLauncher, 'status'>;
}
